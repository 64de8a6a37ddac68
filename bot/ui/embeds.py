"""Small formatting helpers shared by the cogs."""

from __future__ import annotations

import datetime as dt

import discord

from bot.engine.bots import is_bot
from bot.i18n import t


def mention(user_id: str) -> str:
    """A user mention; it never pings because every message uses AllowedMentions.none()."""
    return f"<@{user_id}>" if user_id.isdigit() else user_id


def message_link(guild_id: int, channel_id: int, message_id: int) -> str:
    """A link that jumps to a message of a server's channel."""
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


def player_list(players: list[str], lang: str, names: dict[str, str] | None = None) -> str:
    """The seated players, numbered, in `lang` when there are none yet: a person as a mention, a bot seat by
    its name (`names`: a bot is never mentioned)."""
    return "\n".join(f"{i}. {shown_player(p, names or {})}" for i, p in enumerate(players, 1)) or t(
        "ui.lobby.nobody", lang
    )


def shown_player(player: str, names: dict[str, str]) -> str:
    """A person's mention, or a bot seat's name (its id is never sent as a mention)."""
    if is_bot(player):
        return discord.utils.escape_markdown(names.get(player, player))
    return mention(player)


def relative_time(timestamp: float) -> str:
    """Discord's live countdown, e.g. 'in 2 minutes'."""
    return discord.utils.format_dt(dt.datetime.fromtimestamp(timestamp, tz=dt.UTC), "R")


def scores_table(scores: dict[str, int]) -> str:
    ordered = sorted(scores.items(), key=lambda item: -item[1])
    return "\n".join(f"**{score}** — {mention(player)}" for player, score in ordered) or "—"
