"""Turn notices: one message per turn that pings exactly the awaited players, the previous one deleted."""

from __future__ import annotations

import itertools
from typing import Any

import discord
import pytest

from bot.store import SessionRecord, Store
from bot.store.repositories import TurnNotice
from bot.store.repositories import TurnNotices as StoredTurnNotices
from bot.ui.mentions import TurnNotices, only_these


@pytest.fixture
async def store(tmp_path: Any) -> Any:
    store = await Store.open(tmp_path / "bot.db")
    record = SessionRecord(
        id=0, guild_id=1, channel_id=10, game="topwords", status="active", host_id="11",
        players=["11", "12", "42"], options={}, seed=7, created_at=1.0, updated_at=1.0,
    )  # fmt: skip
    async with store.transaction() as tx:
        assert await store.sessions.create(tx, record) == 1
    yield store
    await store.close()


class Channel:
    """What the notices need of a channel: send, and a message to delete."""

    def __init__(self, first_id: int = 1) -> None:
        self.sent: list[tuple[int, str, discord.AllowedMentions]] = []
        self.deleted: list[int] = []
        self._ids = itertools.count(first_id)

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


async def test_each_turn_replaces_the_previous_message_and_the_same_turn_posts_nothing(store: Store) -> None:
    notices, channel = TurnNotices(wants_all_but_42, lambda: store), Channel()
    await notices.update(channel, 1, ["11"], "TopWords", "en")  # type: ignore[arg-type]
    await notices.update(channel, 1, ["11"], "TopWords", "en")  # type: ignore[arg-type]
    assert [(m, "<@11>" in text) for m, text, _ in channel.sent] == [(1, True)]
    await notices.update(channel, 1, ["12"], "TopWords", "en")  # type: ignore[arg-type]
    assert channel.deleted == [1]
    assert "<@12>" in channel.sent[-1][1] and channel.sent[-1][2].to_dict()["users"] == [12]
    await notices.finish(channel, 1)  # type: ignore[arg-type]
    assert channel.deleted == [1, 2]


async def test_a_player_who_turned_notices_off_is_not_mentioned_but_their_turn_still_clears_the_last(
    store: Store,
) -> None:
    notices, channel = TurnNotices(wants_all_but_42, lambda: store), Channel()
    await notices.update(channel, 1, ["11"], "TopWords", "fr")  # type: ignore[arg-type]
    await notices.update(channel, 1, ["42"], "TopWords", "fr")  # type: ignore[arg-type]
    assert len(channel.sent) == 1 and channel.deleted == [1]


async def test_after_a_restart_the_same_turn_is_not_announced_again(store: Store) -> None:
    before, channel = TurnNotices(wants_all_but_42, lambda: store), Channel()
    await before.update(channel, 1, ["11"], "TopWords", "en")  # type: ignore[arg-type]
    after = TurnNotices(wants_all_but_42, lambda: store)  # a new process: nothing in memory
    await after.update(channel, 1, ["11"], "TopWords", "en")  # type: ignore[arg-type]
    assert len(channel.sent) == 1 and channel.deleted == []


async def test_after_a_restart_the_next_turn_deletes_the_message_posted_before_it(store: Store) -> None:
    before, channel = TurnNotices(wants_all_but_42, lambda: store), Channel()
    await before.update(channel, 1, ["11"], "TopWords", "en")  # type: ignore[arg-type]
    after = TurnNotices(wants_all_but_42, lambda: store)
    await after.update(channel, 1, ["12"], "TopWords", "en")  # type: ignore[arg-type]
    assert channel.deleted == [1] and [m for m, _, _ in channel.sent] == [1, 2]
    await TurnNotices(wants_all_but_42, lambda: store).finish(channel, 1)  # type: ignore[arg-type]
    assert channel.deleted == [1, 2] and await store.turn_notices.get(1) is None


async def test_a_stop_between_storing_a_turn_and_deleting_the_previous_message_deletes_it_at_the_next_start(
    store: Store,
) -> None:
    # What the store holds when the bot stopped right after the new turn's message was stored.
    await store.db.run(StoredTurnNotices.save_statements(1, TurnNotice(("12",), 2, 1)))
    channel = Channel(first_id=3)
    notices = TurnNotices(wants_all_but_42, lambda: store)
    await notices.update(channel, 1, ["12"], "TopWords", "en")  # type: ignore[arg-type]
    assert channel.deleted == [1] and channel.sent == []  # the old one goes; Bob's turn is not pinged again


async def test_a_reminder_mentions_the_same_players_anew_once_and_a_restart_does_not_repeat_it(
    store: Store,
) -> None:
    notices, channel = TurnNotices(wants_all_but_42, lambda: store), Channel()
    await notices.update(channel, 1, ["11"], "Top Drop", "en")  # type: ignore[arg-type]
    await notices.update(channel, 1, ["11"], "Top Drop", "en", again="3")  # type: ignore[arg-type]
    await notices.update(channel, 1, ["11"], "Top Drop", "en", again="3")  # type: ignore[arg-type]
    assert [m for m, _, _ in channel.sent] == [1, 2] and channel.deleted == [1]
    assert "still your turn" in channel.sent[-1][1] and channel.sent[-1][2].to_dict()["users"] == [11]
    restarted = TurnNotices(wants_all_but_42, lambda: store)
    await restarted.update(channel, 1, ["11"], "Top Drop", "en", again="3")  # type: ignore[arg-type]
    assert [m for m, _, _ in channel.sent] == [1, 2]
