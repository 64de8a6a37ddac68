"""Turn notifications: a short message that mentions the players a game awaits, one per turn.

A mention pings only in a new message (an edit never notifies), so each turn gets a new message and the
previous one is deleted: the channel keeps at most one. Its `allowed_mentions` name exactly the awaited
users (never a role, never @everyone), whatever the text says. A player turns them off with `/profile`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import discord

from bot.i18n import t
from bot.ui.embeds import mention

log = logging.getLogger(__name__)

Wants = Callable[[str], Awaitable[bool]]  # whether a player wants to be told it is their turn


@dataclass
class _Notice:
    awaiting: tuple[str, ...]
    message_id: int | None


def turn_text(players: list[str], game: str, lang: str) -> str:
    return t("ui.turn.yours", lang, who=", ".join(mention(p) for p in players), game=game)


def only_these(players: list[str]) -> discord.AllowedMentions:
    """Mentions that ping exactly these users."""
    return discord.AllowedMentions(
        everyone=False, roles=False, replied_user=False, users=[discord.Object(id=int(p)) for p in players]
    )


class TurnNotices:
    """The last turn message of each table and whom it awaited."""

    def __init__(self, wants: Wants) -> None:
        self.wants = wants
        self._last: dict[int, _Notice] = {}

    async def update(
        self, channel: discord.PartialMessageable, session_id: int, awaiting: list[str], game: str, lang: str
    ) -> None:
        """After a redraw: if whom the game awaits changed, the previous message goes and a new one comes
        (when someone awaited wants it)."""
        key = tuple(awaiting)
        last = self._last.get(session_id)
        if last is not None and last.awaiting == key:
            return
        if last is not None and last.message_id is not None:
            await _delete(channel, last.message_id, session_id)
        notice = _Notice(key, None)
        self._last[session_id] = notice
        told = [player for player in awaiting if await self.wants(player)]
        if not told:
            return
        try:
            message = await channel.send(turn_text(told, game, lang), allowed_mentions=only_these(told))
        except discord.HTTPException as error:
            log.warning("could not post the turn message of session %d: %s", session_id, error)
            return
        if self._last.get(session_id) is notice:
            notice.message_id = message.id
        else:  # a newer turn came meanwhile: this one is stale already
            await _delete(channel, message.id, session_id)

    async def finish(self, channel: discord.PartialMessageable, session_id: int) -> None:
        """The game is over: its last turn message goes."""
        last = self._last.pop(session_id, None)
        if last is not None and last.message_id is not None:
            await _delete(channel, last.message_id, session_id)


async def _delete(channel: discord.PartialMessageable, message_id: int, session_id: int) -> None:
    try:
        await channel.get_partial_message(message_id).delete()
    except discord.NotFound:
        pass
    except discord.HTTPException as error:
        log.warning("could not delete the turn message of session %d: %s", session_id, error)
