"""Shards in the store: what each process restores, the recorded shard count, the lock on a database file."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.engine.errors import NotServedHere
from bot.engine.sessions import SessionManager
from bot.store import Shards, ShardsRefused, Store, VoteRecord
from bot.store.shards import (
    SHARD_COUNT_KEY,
    AdvisoryShardLocks,
    FileShardLocks,
    check_shard_count,
    claim,
    set_count,
    shard_of,
)
from tests.engine.race_game import RaceGame
from tests.postgresql import Databases
from tests.store.helpers import sqlite_at_version

REPO_ROOT = Path(__file__).resolve().parents[2]
# Guilds whose ids put them on shard 0 and on shard 1 of two ((id >> 22) % 2).
ON_SHARD_0 = (1_000 << 22) | 7
ON_SHARD_1 = (1_001 << 22) | 7
ONLY_SHARD_0 = Shards(2, (0,))
ONLY_SHARD_1 = Shards(2, (1,))


@pytest.fixture
async def store(database):
    store = await Store.open(database)
    yield store
    await store.close()


@pytest.fixture
def postgresql_url(postgresql_databases: Databases) -> Iterator[str]:
    """A fresh PostgreSQL database: advisory locks are PostgreSQL's (SQLite's file lock is tested above)."""
    url = postgresql_databases.fresh()
    yield url
    postgresql_databases.drop(url)


async def open_lobbies(store: Store) -> dict[int, int]:
    """A lobby (with its expiry timer) in one channel of each guild: guild → session id."""
    manager = SessionManager(store, {"race": RaceGame()})
    made = {}
    for channel, guild in enumerate((ON_SHARD_0, ON_SHARD_1), start=10):
        made[guild] = (await manager.open_lobby(guild, channel, "race", "ann", {"target": 10})).id
    await manager.close()
    return made


def vote(session_id: int | None, channel_id: int = 10, guild_id: int | None = None) -> VoteRecord:
    return VoteRecord(
        id=0, session_id=session_id, channel_id=channel_id, message_id=None, kind="end", question="End?",
        eligible=["ann", "bob"], deadline=99.0, status="open", result=None, payload={}, guild_id=guild_id,
    )  # fmt: skip


def test_a_guild_is_on_the_shard_discord_puts_it_on():
    assert shard_of(ON_SHARD_0, 2) == 0 and shard_of(ON_SHARD_1, 2) == 1
    assert shard_of(ON_SHARD_1, 1) == 0
    assert shard_of(ON_SHARD_1, 3) == 1001 % 3


def test_a_process_of_every_shard_owns_every_guild_and_one_of_some_only_theirs():
    assert Shards().owns(ON_SHARD_1) and Shards.every(2).owns(ON_SHARD_0) and Shards.every(2).all
    assert ONLY_SHARD_1.owns(ON_SHARD_1) and not ONLY_SHARD_1.owns(ON_SHARD_0)
    # Something of no guild belongs to shard 0's process.
    assert ONLY_SHARD_0.owns(None) and not ONLY_SHARD_1.owns(None)
    with pytest.raises(ValueError):
        Shards(2, (2,))


async def test_each_shard_restores_only_the_deadlines_and_open_sessions_of_its_guilds(store):
    sessions = await open_lobbies(store)
    assert {sid for sid, _, _ in await store.sessions.all_deadlines()} == set(sessions.values())
    assert [sid for sid, _, _ in await store.sessions.all_deadlines(ONLY_SHARD_0)] == [sessions[ON_SHARD_0]]
    assert [sid for sid, _, _ in await store.sessions.all_deadlines(ONLY_SHARD_1)] == [sessions[ON_SHARD_1]]
    assert await store.sessions.count_open() == 2
    assert await store.sessions.count_open(ONLY_SHARD_1) == 1
    assert await store.sessions.open_ids("race", ONLY_SHARD_1) == [sessions[ON_SHARD_1]]
    assert await store.sessions.open_ids("race", Shards.every(2)) == sorted(sessions.values())


async def test_a_vote_takes_its_sessions_guild_and_each_shard_restores_only_its_guilds_votes(store):
    sessions = await open_lobbies(store)
    async with store.transaction() as tx:
        of_shard_0 = await store.votes.create(tx, vote(sessions[ON_SHARD_0]), 1.0)
        of_shard_1 = await store.votes.create(tx, vote(sessions[ON_SHARD_1], channel_id=11), 1.0)
        of_no_guild = await store.votes.create(tx, vote(None, channel_id=12), 1.0)
        given = await store.votes.create(tx, vote(None, channel_id=13, guild_id=ON_SHARD_1), 1.0)
    assert (await store.votes.get(of_shard_1)).guild_id == ON_SHARD_1
    assert (await store.votes.get(of_no_guild)).guild_id is None
    assert [v.id for v in await store.votes.all_open(ONLY_SHARD_1)] == [of_shard_1, given]
    # A vote of no guild is restored by the process of shard 0, never lost.
    assert [v.id for v in await store.votes.all_open(ONLY_SHARD_0)] == [of_shard_0, of_no_guild]
    assert len(await store.votes.all_open()) == 4


async def test_migration_10_gives_every_existing_vote_its_sessions_guild(tmp_path):
    path = tmp_path / "nine.db"
    connection = sqlite_at_version(path, 9)
    connection.execute(
        "INSERT INTO sessions (id, guild_id, channel_id, game, status, host_id, seed, created_at, updated_at)"
        " VALUES (1, ?, 10, 'race', 'active', 'ann', 7, 1.0, 1.0)",
        (ON_SHARD_1,),
    )
    for session_id in (1, None):
        connection.execute(
            "INSERT INTO votes (session_id, channel_id, kind, question, eligible, deadline, created_at)"
            " VALUES (?, 10, 'end', 'End?', '[]', 99.0, 1.0)",
            (session_id,),
        )
    connection.execute("PRAGMA user_version=9")
    connection.commit()
    connection.close()
    store = await Store.open(path)
    try:
        assert [v.guild_id for v in await store.votes.all_open()] == [ON_SHARD_1, None]
    finally:
        await store.close()


async def test_the_first_start_records_the_shard_count_and_a_different_count_is_refused(store):
    await check_shard_count(store, 2)
    assert await store.meta.get(SHARD_COUNT_KEY) == "2"
    await check_shard_count(store, 2)  # every later start with the same count passes
    with pytest.raises(ShardsRefused, match=r"SHARD_COUNT is 3 but this database's bot runs 2 shard"):
        await check_shard_count(store, 3)
    assert await store.meta.get(SHARD_COUNT_KEY) == "2"


async def test_a_new_shard_count_is_recorded_only_through_the_reshard_command(store):
    await check_shard_count(store, 1)
    await set_count(store, 4, old=1)
    await check_shard_count(store, 4)


def _lock_in_a_child(database: Path) -> subprocess.CompletedProcess[str]:
    script = textwrap.dedent(
        f"""
        import asyncio
        from pathlib import Path
        from bot.store.shards import FileShardLocks, Shards, ShardsRefused
        try:
            asyncio.run(FileShardLocks(Path({str(database)!r})).acquire(Shards()))
        except ShardsRefused as exc:
            print(exc)
        else:
            print("taken")
        """
    )
    return subprocess.run(
        [sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=True
    )


async def test_a_second_process_on_the_same_sqlite_file_is_refused_with_one_line(tmp_path):
    database = tmp_path / "bot.db"
    locks = FileShardLocks(database)
    await locks.acquire(Shards())
    try:
        refused = await asyncio.to_thread(_lock_in_a_child, database)
        assert "another bot process" in refused.stdout and "PostgreSQL" in refused.stdout
        assert len(refused.stdout.strip().splitlines()) == 1
    finally:
        await locks.release()
    # Freed when its holder lets go (or ends): the next process takes it.
    assert (await asyncio.to_thread(_lock_in_a_child, database)).stdout.strip() == "taken"


async def test_claiming_shards_checks_the_count_then_takes_the_database(tmp_path):
    store = await Store.open(tmp_path / "bot.db")  # the file lock: SQLite's (PostgreSQL's is below)
    try:
        await claim(store, Shards.every(2))
        assert await store.meta.get(SHARD_COUNT_KEY) == "2"
        refused = await asyncio.to_thread(_lock_in_a_child, tmp_path / "bot.db")
        assert "another bot process" in refused.stdout
    finally:
        await store.close()


async def test_a_manager_arms_only_its_shards_deadlines_and_refuses_another_shards_session(store):
    sessions = await open_lobbies(store)
    manager = SessionManager(store, {"race": RaceGame()}, shards=ONLY_SHARD_1)
    try:
        assert await manager.start() == 1
        assert manager.timers.armed(sessions[ON_SHARD_1]) and not manager.timers.armed(sessions[ON_SHARD_0])
        assert (await manager.session(sessions[ON_SHARD_1])).guild_id == ON_SHARD_1
        with pytest.raises(NotServedHere):
            await manager.join(sessions[ON_SHARD_0], "bob")
        with pytest.raises(NotServedHere):
            await manager.open_lobby(ON_SHARD_0, 30, "race", "cid", {"target": 10})
        assert manager.loaded_sessions == 1  # the other shard's session was never kept
    finally:
        await manager.close()


async def test_an_unreadable_game_of_another_shard_is_left_to_its_own_process(store):
    sessions = await open_lobbies(store)
    async with store.transaction() as tx:
        await tx.execute("UPDATE sessions SET players = '[unreadable' WHERE id = ?", (sessions[ON_SHARD_0],))
    manager = SessionManager(store, {"race": RaceGame()}, shards=ONLY_SHARD_1)
    try:
        with pytest.raises(NotServedHere):
            await manager.session(sessions[ON_SHARD_0])
    finally:
        await manager.close()
    assert (await store.sessions.header(sessions[ON_SHARD_0])).status == "lobby"  # not closed from here


async def test_a_shard_held_by_one_process_is_refused_to_another_until_its_connection_ends(postgresql_url):
    holder, other = AdvisoryShardLocks.for_url(postgresql_url), AdvisoryShardLocks.for_url(postgresql_url)
    await holder.acquire(Shards(2, (1,)))
    try:
        with pytest.raises(ShardsRefused, match=r"shard 1 of 2 is served by another bot process"):
            await other.acquire(Shards(2, (0, 1)))
        await other.acquire(Shards(2, (0,)))  # the refusal took nothing with it: shard 0 is free
        await other.release()
    finally:
        await holder.release()  # its connection closes: the server frees its locks
    await other.acquire(Shards.every(2))
    await other.release()


async def test_a_killed_process_frees_its_shard_at_once(postgresql_url):
    script = textwrap.dedent(
        f"""
        import asyncio
        from bot.store.shards import AdvisoryShardLocks, Shards
        async def hold():
            locks = AdvisoryShardLocks.for_url({postgresql_url!r})
            await locks.acquire(Shards(2, (1,)))
            print("held", flush=True)
            await asyncio.sleep(60)
        asyncio.run(hold())
        """
    )
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, cwd=REPO_ROOT, stdout=asyncio.subprocess.PIPE
    )
    assert child.stdout is not None
    assert await asyncio.wait_for(child.stdout.readline(), 30) == b"held\n"
    locks = AdvisoryShardLocks.for_url(postgresql_url)
    with pytest.raises(ShardsRefused):
        await locks.acquire(Shards(2, (1,)))
    child.kill()
    await child.wait()
    killed_at = time.monotonic()
    while True:  # the server sees the socket close and ends the session: its locks go with it
        try:
            await locks.acquire(Shards(2, (1,)))
            break
        except ShardsRefused:
            assert time.monotonic() - killed_at < 1.0, "the dead process's shard was not freed within 1 s"
            await asyncio.sleep(0.01)
    await locks.release()


async def test_two_stores_on_one_postgresql_database_claim_different_shards_but_never_the_same(
    postgresql_url,
):
    first, second = await Store.open(postgresql_url), await Store.open(postgresql_url)
    try:
        await claim(first, ONLY_SHARD_0)
        await claim(second, ONLY_SHARD_1)
        with pytest.raises(ShardsRefused, match=r"shard 1 of 2 is served by another bot process"):
            await claim(first, Shards.every(2))
        with pytest.raises(ShardsRefused, match=r"SHARD_COUNT is 3"):
            await claim(first, Shards(3, (2,)))
    finally:
        await first.close()
        await second.close()
