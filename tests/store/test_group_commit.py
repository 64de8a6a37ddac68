"""Group commit on both databases: what may run beside what, and what a failure or a close does to the units.

PostgreSQL commits up to two batches at once (bot/store/postgres.py, `WRITERS`), SQLite one. The tests of two
batches in flight hold a row lock from a connection of their own, so that a batch waits in the server for as
long as the test wants: they run on PostgreSQL only.
"""

from __future__ import annotations

import asyncio
import time
from functools import partial

import asyncpg
import pytest

from bot.store import StaleWrite, Store
from bot.store.database import Statement
from bot.store.postgres import SECOND_BATCH

SET_META = "UPDATE meta SET value = ? WHERE key = ?"
WAIT = 10.0  # seconds: far beyond what a commit here takes


def setting(key: str, value: str) -> list[Statement]:
    return [Statement(SET_META, (value, key))]


def read_twice(conn, key, seconds):
    """A function of the connection that reads, waits, and reads again: a batch committed beside it would
    show between the two."""
    first = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()[0]
    time.sleep(seconds)
    return first, conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()[0]


def read(conn, key):
    return conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()[0]


async def with_keys(store: Store, *keys: str) -> None:
    async with store.transaction() as tx:
        for key in keys:
            await store.meta.set(tx, key, "0")


@pytest.fixture
async def store(database):
    store = await Store.open(database)
    yield store
    await store.close()


async def test_a_function_of_the_connection_runs_alone_and_holds_the_next_units_back(store):
    await with_keys(store, "k")
    reading = store.db.run(partial(read_twice, key="k", seconds=0.3))
    await asyncio.sleep(0.05)  # under way
    writes = [store.db.run(setting("k", str(n))) for n in range(1, 2 * SECOND_BATCH)]
    assert await asyncio.wait_for(reading, WAIT) == ("0", "0")
    await asyncio.wait_for(asyncio.gather(*writes), WAIT)
    assert await store.meta.get("k") == str(2 * SECOND_BATCH - 1)


async def test_units_waiting_at_close_are_all_committed(database):
    store = await Store.open(database)
    await with_keys(store, *(f"k{n}" for n in range(40)))
    writes = [store.db.run(setting(f"k{n}", "done")) for n in range(40)]
    await store.close()
    assert all(write.done() and write.exception() is None for write in writes)
    store = await Store.open(database)
    try:
        assert {await store.meta.get(f"k{n}") for n in range(40)} == {"done"}
    finally:
        await store.close()


# -- two batches in flight (PostgreSQL) ---------------------------------------------------------------------


@pytest.fixture
async def postgresql(postgresql_databases):
    url = postgresql_databases.fresh()
    store = await Store.open(url)
    await with_keys(store, "held", "other", *(f"k{n}" for n in range(4 * SECOND_BATCH)))
    locker = await asyncpg.connect(url)
    yield store, locker
    await locker.close()
    await store.close()
    postgresql_databases.drop(url)


async def hold(locker: asyncpg.Connection, *keys: str) -> None:
    """Lock the rows of `keys` until `release`: a batch that writes one waits in the server meanwhile."""
    await locker.execute("BEGIN")
    await locker.execute("SELECT 1 FROM meta WHERE key = ANY($1::text[]) FOR UPDATE", list(keys))


async def release(locker: asyncpg.Connection) -> None:
    await locker.execute("ROLLBACK")


async def waiting_for_locks(locker: asyncpg.Connection, count: int) -> list[int]:
    """The server processes of the batches waiting for a row lock, once there are `count` of them."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        pids = await locker.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        if len(pids) >= count:
            return [row["pid"] for row in pids]
        await asyncio.sleep(0.01)
    raise AssertionError(f"{count} batches never waited for a lock")


def enough_for_a_second_batch(store: Store, value: str) -> list[asyncio.Future]:
    return [store.db.run(setting(f"k{n}", value)) for n in range(SECOND_BATCH)]


async def test_a_second_batch_commits_while_the_first_waits(postgresql):
    store, locker = postgresql
    await hold(locker, "held")
    first = store.db.run(setting("held", "first"))
    await waiting_for_locks(locker, 1)
    second = enough_for_a_second_batch(store, "second")
    await asyncio.wait_for(asyncio.gather(*second), WAIT)
    assert not first.done() and await store.meta.get("k0") == "second"
    await release(locker)
    await asyncio.wait_for(first, WAIT)
    assert await store.meta.get("held") == "first"


async def test_too_few_units_wait_for_the_batch_in_flight(postgresql):
    store, locker = postgresql
    await hold(locker, "held")
    first = store.db.run(setting("held", "first"))
    await waiting_for_locks(locker, 1)
    few = [store.db.run(setting(f"k{n}", "few")) for n in range(SECOND_BATCH - 1)]
    await asyncio.sleep(0.2)
    assert not any(unit.done() for unit in few)
    await release(locker)
    await asyncio.wait_for(asyncio.gather(first, *few), WAIT)


async def test_a_function_of_the_connection_waits_for_the_batch_in_flight_and_reads_its_writes(postgresql):
    store, locker = postgresql
    await hold(locker, "held")
    first = store.db.run(setting("held", "first"))
    await waiting_for_locks(locker, 1)
    reading = store.db.run(partial(read, key="held"))
    behind = enough_for_a_second_batch(store, "behind")  # held back with it: nothing runs beside it
    await asyncio.sleep(0.2)
    assert not reading.done() and not any(unit.done() for unit in behind)
    await release(locker)
    assert await asyncio.wait_for(reading, WAIT) == "first"
    await asyncio.wait_for(asyncio.gather(first, *behind), WAIT)


async def test_a_batch_that_fails_fails_only_its_own_units(postgresql):
    store, locker = postgresql
    await hold(locker, "held")
    first = store.db.run(setting("held", "lost"))
    [pid] = await waiting_for_locks(locker, 1)
    second = enough_for_a_second_batch(store, "kept")
    await asyncio.wait_for(asyncio.gather(*second), WAIT)
    await locker.execute("SELECT pg_terminate_backend($1)", pid)  # the first batch's connection is lost
    with pytest.raises((asyncpg.PostgresError, asyncpg.InterfaceError, ConnectionError)):
        await asyncio.wait_for(first, WAIT)
    await release(locker)
    assert await store.meta.get("k0") == "kept" and await store.meta.get("held") == "0"
    # Its writer connects again for the next batch.
    await asyncio.wait_for(asyncio.gather(*(store.db.run(setting("held", str(n))) for n in range(3))), WAIT)
    assert await store.meta.get("held") == "2"


async def test_close_waits_for_both_batches_in_flight(postgresql):
    store, locker = postgresql
    await hold(locker, "held", "k0")
    first = store.db.run(setting("held", "first"))
    await waiting_for_locks(locker, 1)
    second = enough_for_a_second_batch(store, "second")
    await waiting_for_locks(locker, 2)
    closing = asyncio.ensure_future(store.close())
    await asyncio.sleep(0.2)
    assert not closing.done()
    await release(locker)
    await asyncio.wait_for(closing, WAIT)
    assert first.result() is None and all(unit.result() is None for unit in second)


async def test_a_deadlock_between_the_two_batches_loses_no_unit(postgresql):
    store, locker = postgresql
    await hold(locker, "held")
    # The first batch takes `k0`, then waits for `held`; the second takes `other`, then waits for `k0`; once
    # `held` is free the first wants `other`: a circle, which the server breaks by failing one of the two.
    first = store.db.run([Statement(SET_META, ("first", key)) for key in ("k0", "held", "other")])
    await waiting_for_locks(locker, 1)
    second = [store.db.run([Statement(SET_META, ("second", key)) for key in ("other", "k0")])]
    second += [store.db.run(setting(f"k{n}", "second")) for n in range(1, SECOND_BATCH)]
    await waiting_for_locks(locker, 2)
    await release(locker)
    await asyncio.wait_for(asyncio.gather(first, *second), WAIT)
    values = {key: await store.meta.get(key) for key in ("k0", "other", "held", "k1")}
    assert values["held"] == "first" and values["k1"] == "second"
    assert values["k0"] == values["other"]  # one unit's writes after the other's, whole


async def test_a_unit_failed_by_a_deadlock_while_its_batch_runs_unit_by_unit_is_run_again(postgresql):
    store, locker = postgresql
    await hold(locker, "held")
    first = store.db.run([Statement(SET_META, ("first", key)) for key in ("k0", "held", "other")])
    await waiting_for_locks(locker, 1)
    # The stale unit fails the second batch's first run: its units then run one by one, and the one that
    # crosses the first batch is the one the server fails (it waited first).
    stale = store.db.run([Statement(SET_META, ("stale", "missing"), one_row=True)])
    crossing = store.db.run([Statement(SET_META, ("second", key)) for key in ("other", "k0")])
    rest = [store.db.run(setting(f"k{n}", "second")) for n in range(1, SECOND_BATCH - 1)]
    await waiting_for_locks(locker, 2)
    await release(locker)
    with pytest.raises(StaleWrite):
        await asyncio.wait_for(stale, WAIT)
    await asyncio.wait_for(asyncio.gather(first, crossing, *rest), WAIT)
    assert await store.meta.get("k0") == await store.meta.get("other") == "second"
