"""Turn notices: one message per turn that pings exactly the awaited players, the previous one deleted."""

from __future__ import annotations

import itertools
from typing import Any

import discord

from bot.ui.mentions import TurnNotices, only_these


class Channel:
    """What the notices need of a channel: send, and a message to delete."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, str, discord.AllowedMentions]] = []
        self.deleted: list[int] = []
        self._ids = itertools.count(1)

    async def send(self, content: str, *, allowed_mentions: discord.AllowedMentions) -> Any:
        message_id = next(self._ids)
        self.sent.append((message_id, content, allowed_mentions))
        return discord.Object(id=message_id)

    def get_partial_message(self, message_id: int) -> Any:
        channel = self

        class Partial:
            async def delete(self) -> None:
                channel.deleted.append(message_id)

        return Partial()


async def wants_all_but_42(player: str) -> bool:
    return player != "42"


def test_the_mentions_allowed_are_exactly_the_awaited_users_never_roles_or_everyone() -> None:
    allowed = only_these(["11", "12"]).to_dict()
    assert allowed["users"] == [11, 12]
    assert (
        "roles" not in allowed["parse"]
        and "everyone" not in allowed["parse"]
        and "users" not in allowed["parse"]
    )
    assert allowed.get("roles", []) == []


async def test_each_turn_replaces_the_previous_message_and_the_same_turn_posts_nothing() -> None:
    notices, channel = TurnNotices(wants_all_but_42), Channel()
    await notices.update(channel, 1, ["11"], "TopWords", "en")  # type: ignore[arg-type]
    await notices.update(channel, 1, ["11"], "TopWords", "en")  # type: ignore[arg-type]
    assert [(m, "<@11>" in text) for m, text, _ in channel.sent] == [(1, True)]
    await notices.update(channel, 1, ["12"], "TopWords", "en")  # type: ignore[arg-type]
    assert channel.deleted == [1]
    assert "<@12>" in channel.sent[-1][1] and channel.sent[-1][2].to_dict()["users"] == [12]
    await notices.finish(channel, 1)  # type: ignore[arg-type]
    assert channel.deleted == [1, 2]


async def test_a_player_who_turned_notices_off_is_not_mentioned_but_their_turn_still_clears_the_last() -> (
    None
):
    notices, channel = TurnNotices(wants_all_but_42), Channel()
    await notices.update(channel, 1, ["11"], "TopWords", "fr")  # type: ignore[arg-type]
    await notices.update(channel, 1, ["42"], "TopWords", "fr")  # type: ignore[arg-type]
    assert len(channel.sent) == 1 and channel.deleted == [1]
