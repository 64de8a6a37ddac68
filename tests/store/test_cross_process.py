"""Two processes on one PostgreSQL database at once (two stores, two connection pools): the store's
transactions that read, then write what they read decide, stay right when both run them together."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.engine.errors import ChannelBusy
from bot.engine.sessions import SessionManager
from bot.store import Store, VoteRecord
from tests.engine.race_game import RaceGame
from tests.postgresql import Databases

GUILD = (1_000 << 22) | 7
ROUNDS = 12


@pytest.fixture
async def two_stores(postgresql_databases: Databases) -> AsyncIterator[tuple[Store, Store]]:
    url = postgresql_databases.fresh()
    first, second = await Store.open(url), await Store.open(url)
    try:
        yield first, second
    finally:
        await first.close()
        await second.close()
        postgresql_databases.drop(url)


async def test_two_processes_counting_in_transactions_lose_no_increment(two_stores):
    """The bare pattern: read, wait (another process runs meanwhile), write what was read plus one."""

    async def count(store: Store) -> None:
        for _ in range(ROUNDS):
            async with store.transaction() as tx:
                row = await tx.fetch_one("SELECT value FROM meta WHERE key = 'counter'")
                await asyncio.sleep(0.005)
                value = int(row["value"]) + 1 if row else 1
                await store.meta.set(tx, "counter", str(value))

    await asyncio.gather(*(count(store) for store in two_stores))
    assert await two_stores[0].meta.get("counter") == str(2 * ROUNDS)


async def test_two_admins_changing_a_servers_settings_in_two_processes_both_keep_their_change(two_stores):
    async def allow(store: Store, channel: int) -> None:
        async with store.transaction() as tx:
            await store.guild_settings.update(tx, GUILD, lambda s: s.channels.append(channel), 1.0)

    channels = list(range(100, 100 + ROUNDS))
    await asyncio.gather(*(allow(two_stores[channel % 2], channel) for channel in channels))
    assert sorted((await two_stores[0].guild_settings.settings(GUILD)).channels) == channels


async def test_one_host_opening_lobbies_through_two_processes_at_once_gets_one(two_stores):
    managers = [SessionManager(store, {"race": RaceGame()}) for store in two_stores]
    try:
        for n in range(ROUNDS // 2):
            opened = await asyncio.gather(  # in two channels: only the one-lobby-per-host rule may refuse
                *(
                    manager.open_lobby(GUILD, 10 * n + side, "race", f"host{n}", {"target": 10})
                    for side, manager in enumerate(managers)
                ),
                return_exceptions=True,
            )
            assert sum(isinstance(outcome, ChannelBusy) for outcome in opened) == 1, opened
        assert await two_stores[0].sessions.count_open() == ROUNDS // 2
    finally:
        for manager in managers:
            await manager.close()


async def test_a_vote_closed_by_two_processes_at_once_is_closed_once(two_stores):
    first, second = two_stores

    async def close(store: Store, vote_id: int) -> bool:
        async with store.transaction() as tx:
            return await store.votes.close(tx, vote_id, "yes")

    for _ in range(ROUNDS):
        async with first.transaction() as tx:
            vote_id = await first.votes.create(tx, open_vote(), 1.0)
        assert sorted(await asyncio.gather(close(first, vote_id), close(second, vote_id))) == [False, True]


def open_vote() -> VoteRecord:
    return VoteRecord(
        id=0, session_id=None, channel_id=10, message_id=None, kind="end", question="End?",
        eligible=["ann", "bob"], deadline=99.0, status="open", result=None, payload={}, guild_id=GUILD,
    )  # fmt: skip
