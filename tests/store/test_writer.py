"""The writer process: group commits of a database file, and of a PostgreSQL server, are made in a child
process of their own (the tests taking `store` run on both).

Units cross to the child pickled, so the units below are module-level functions (closures do not pickle).
"""

from __future__ import annotations

import asyncio
import gc
import os
import select
import signal
import sqlite3
import time
from functools import partial

import pytest

from bot.store import Store, UnusableDatabase, writer
from bot.store.database import EARLY_BATCH, Statement
from bot.store.forks import ForkServer
from bot.store.postgres import SECOND_BATCH
from bot.store.writer import PRAGMAS, Checkpoints, WriterProcess, WriterStopped

SET_META = (
    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)


def set_meta(conn, key, value="v"):
    conn.execute(SET_META, (key, value))


def committer_pid(conn):
    return os.getpid()


def slow_set_meta(conn, key, seconds):
    time.sleep(seconds)
    set_meta(conn, key)
    return os.getpid()


class Unpicklable(Exception):
    def __init__(self):
        super().__init__("cannot cross")
        self.callback = lambda: None  # a lambda does not pickle


def refuse_unpicklably(conn):
    raise Unpicklable()


def meta_row(key, value):
    return [Statement(SET_META, (key, value))]


@pytest.fixture
async def store(database):
    store = await Store.open(database)
    yield store
    await store.close()


async def writer_pid(store) -> int:
    return await store.db.run(committer_pid)


async def test_group_commits_run_in_a_process_of_their_own(store):
    pid = await writer_pid(store)
    assert pid != os.getpid()
    await store.db.run(meta_row("kept", "yes"))
    assert await store.meta.get("kept") == "yes"  # committed there, read here
    assert await writer_pid(store) == pid  # the same writer while it lives


def process_file(pid: int, name: str) -> bytes:
    with open(f"/proc/{pid}/{name}", "rb") as file:
        return file.read()


async def test_the_postgresql_writers_keep_the_servers_url_out_of_their_arguments_and_environment(
    postgresql_databases,
):
    # Anyone on the machine can read a process's arguments; its environment, only its owner.
    url = postgresql_databases.fresh()
    store = await Store.open(url)
    try:
        pid = await writer_pid(store)
        arguments, environment = process_file(pid, "cmdline"), process_file(pid, "environ")
        # It reaches the writer on the fork server's socket: in neither.
        assert url.encode() not in arguments and url.encode() not in environment
    finally:
        await store.close()
        postgresql_databases.drop(url)


def committer_threads_policies(conn) -> list[int]:
    """The scheduling policy of every thread of the committing process (its checkpoints' thread included)."""
    return [os.sched_getscheduler(int(task)) for task in os.listdir(f"/proc/{os.getpid()}/task")]


async def test_the_writer_never_preempts_the_bots_event_loop(store):
    # SCHED_BATCH: a batch that wakes the writer does not take the loop's core from it (writer.yield_to_the_bot).
    policies = await store.db.run(committer_threads_policies)
    threads = 2 if store.db.dialect == "sqlite" else 1  # SQLite's writer has its checkpoints' thread
    assert len(policies) >= threads and set(policies) == {os.SCHED_BATCH}
    assert os.sched_getscheduler(0) == os.SCHED_OTHER  # the bot itself is left as it was


async def test_an_in_memory_database_commits_on_its_own_thread():
    store = await Store.open(":memory:")
    try:
        assert await store.db.run(committer_pid) == os.getpid()
        await store.db.run(meta_row("kept", "yes"))
        assert await store.meta.get("kept") == "yes"
    finally:
        await store.close()


async def test_many_units_at_once_are_all_committed_and_each_answered(store):
    results = await asyncio.gather(*(store.db.run(meta_row(f"k{n}", str(n))) for n in range(200)))
    assert results == [None] * 200
    row = await store.db.fetch_one("SELECT COUNT(*) FROM meta WHERE key LIKE 'k%'")
    assert row[0] == 200


async def test_a_writer_that_dies_fails_its_batch_and_the_next_write_starts_a_new_one(store):
    first = await writer_pid(store)
    slow = store.db.run(partial(slow_set_meta, key="lost", seconds=5))
    await asyncio.sleep(0.3)  # the batch is in the child now
    os.kill(first, signal.SIGKILL)
    with pytest.raises(WriterStopped):
        await asyncio.wait_for(slow, 5)
    assert await store.meta.get("lost") is None  # never acknowledged, never committed
    second = await writer_pid(store)
    assert second != first
    await store.db.run(meta_row("after", "ok"))
    assert await store.meta.get("after") == "ok"


async def test_the_writer_ignores_ctrl_c_sent_to_the_process_group(store):
    pid = await writer_pid(store)
    os.kill(pid, signal.SIGINT)
    await asyncio.sleep(0.2)
    assert await writer_pid(store) == pid


async def test_a_unit_that_cannot_cross_to_the_writer_fails_alone(store):
    results = await asyncio.gather(
        store.db.run(meta_row("before", "1")),
        store.db.run(lambda conn: None),
        store.db.run(meta_row("after", "2")),
        return_exceptions=True,
    )
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], TypeError) and "pickle" in str(results[1])
    assert await store.meta.get("before") == "1" and await store.meta.get("after") == "2"


async def test_a_transaction_waits_for_the_batch_in_flight_and_units_wait_for_the_transaction(store):
    slow = store.db.run(partial(slow_set_meta, key="first", seconds=0.3))
    await asyncio.sleep(0.05)
    async with store.transaction() as tx:
        # The batch in flight was committed before this transaction began.
        assert (await tx.fetch_one("SELECT value FROM meta WHERE key = 'first'"))[0] == "v"
        await store.meta.set(tx, "second", "from the transaction")
        later = store.db.run(meta_row("second", "from the unit"))
        await asyncio.sleep(0.1)
        assert not later.done()  # waits for the transaction to end
    await asyncio.gather(slow, later)
    assert await store.meta.get("second") == "from the unit"


async def test_closing_commits_what_is_pending_and_ends_the_writer(database):
    store = await Store.open(database)
    writer = os.pidfd_open(await writer_pid(store))  # readable once the writer has exited
    pending = [store.db.run(meta_row(f"k{n}", "v")) for n in range(50)]
    try:
        await store.close()
        assert all(future.done() and future.exception() is None for future in pending)
        # Its output's end of file comes as the kernel closes its files, a moment before the exit itself.
        ended, _, _ = await asyncio.to_thread(select.select, [writer], [], [], 10)
        assert ended
    finally:
        os.close(writer)
    reopened = await Store.open(database)
    try:
        row = await reopened.db.fetch_one("SELECT COUNT(*) FROM meta WHERE key LIKE 'k%'")
        assert row[0] == 50
    finally:
        await reopened.close()


async def test_a_writer_that_cannot_start_makes_the_database_unusable(database, tmp_path, monkeypatch):
    monkeypatch.setattr("bot.store.forks.FORKS", ForkServer())  # one still to start, with no Python to run
    monkeypatch.setattr("sys.executable", str(tmp_path / "no-such-python"))
    with pytest.raises(UnusableDatabase, match="cannot be written|cannot use the database"):
        await Store.open(database)


async def test_closing_while_a_transaction_holds_units_back_waits_for_it(database):
    store = await Store.open(database)
    async with store.transaction() as tx:
        held = store.db.run(meta_row("held", "v"))
        closing = asyncio.ensure_future(store.close())
        await asyncio.sleep(0.05)
        assert not closing.done() and not held.done()
        await store.meta.set(tx, "in the transaction", "v")
    await asyncio.wait_for(closing, 5)
    assert held.done() and held.exception() is None
    reopened = await Store.open(database)
    try:
        assert await reopened.meta.get("held") == "v"
    finally:
        await reopened.close()


async def test_a_batch_larger_than_the_pipe_buffer_crosses_whole(store):
    text = "é" * 2000  # 4 KB in UTF-8: 300 units are several times a pipe's 64 KB
    await asyncio.gather(*(store.db.run(meta_row(f"big{n}", f"{n}{text}")) for n in range(300)))
    rows = await store.db.fetch_all("SELECT key, value FROM meta WHERE key LIKE 'big%'")
    assert len(rows) == 300 and all(row["value"] == row["key"][3:] + text for row in rows)


async def test_an_error_that_cannot_cross_the_pipe_arrives_as_one_that_names_it(store):
    results = await asyncio.gather(
        store.db.run(meta_row("kept", "1")), store.db.run(refuse_unpicklably), return_exceptions=True
    )
    assert results[0] is None and await store.meta.get("kept") == "1"
    assert type(results[1]) is RuntimeError and "Unpicklable: cannot cross" in str(results[1])


STEADY_COMMITS = 8_000


def wal_frames_after_steady_writes(path, catch_up: bool) -> int:
    """STEADY_COMMITS commits with no pause, as under full load; the log's length at the end, in frames. A
    count, not a time: a loaded machine commits fewer in a second, and the figures below are per commit."""
    connection = sqlite3.connect(path, isolation_level=None)
    for pragma in PRAGMAS + ("PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL"):
        connection.execute(pragma)
    connection.execute("CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, data BLOB)")
    checkpoints = Checkpoints(str(path), interval=0.01, restart_frames=500)
    try:
        for n in range(1, STEADY_COMMITS + 1):
            connection.execute("INSERT OR REPLACE INTO rows VALUES (?, ?)", (n % 300, os.urandom(3000)))
            checkpoints.wrote()
            if catch_up:
                checkpoints.catch_up(connection)
        checkpoints.stop()
        return connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
    finally:
        checkpoints.stop()
        connection.close()


def test_under_steady_writes_the_log_starts_again_instead_of_growing_without_end(tmp_path):
    # Checkpoints beside the writer never copy what is appended meanwhile: without the writer's own catch-up
    # the log only grows (1.7 GB in 12 s at full load), and every page lookup slows down with it.
    grown = wal_frames_after_steady_writes(tmp_path / "grows.db", catch_up=False)
    kept = wal_frames_after_steady_writes(tmp_path / "kept.db", catch_up=True)
    assert grown > 5_000
    # Caught up at the latest once the log is LOG_LIMIT_FACTOR restart lengths long, plus what one checkpoint's
    # copy lets through meanwhile (a loaded machine's thread lags: 2,282 frames were seen under a full suite).
    assert kept < 500 * writer.LOG_LIMIT_FACTOR + 1_000


def test_a_log_the_thread_never_leaves_short_is_still_caught_up_at_its_limit(tmp_path, monkeypatch):
    # The writer catches up only just after a checkpoint began (little left to copy); were that never so
    # (a disk too slow for the thread), the log is caught up all the same once it is LOG_LIMIT_FACTOR long.
    monkeypatch.setattr(writer, "CATCH_UP_WINDOW_SECONDS", -1.0)
    monkeypatch.setattr(writer, "LOG_LIMIT_FACTOR", 3)
    kept = wal_frames_after_steady_writes(tmp_path / "limit.db", catch_up=True)
    assert kept < 500 * 3 + 2_000  # steady writes without a catch-up leave over 5,000 (the test above)


async def test_the_writer_tells_how_long_each_batch_kept_it(store):
    assert store.db.longest_commit == 0.0
    await asyncio.gather(*(store.db.run(meta_row(f"k{n}", "v")) for n in range(50)))
    # A commit with its sync to the disk: above nothing, and far below a second on any disk.
    assert 0.0 < store.db.longest_commit < 1.0
    if store.db.dialect == "sqlite":  # a PostgreSQL server keeps its log itself
        assert 0.0 <= store.db.longest_catch_up <= store.db.longest_commit


def keep_the_loop_busy_until_a_writer_replies(within: float = 30.0) -> None:
    """Blocks the event loop (no turn of it runs) until a writer's reply waits in its pipe: woken by the
    reply itself, however long a loaded machine keeps the writer from its CPU."""
    pipes = [
        writer._replies
        for writer in gc.get_objects()
        if isinstance(writer, WriterProcess) and writer.pid is not None and writer._replies is not None
    ]
    readable, _, _ = select.select(pipes, [], [], within)
    assert readable, f"no writer replied within {within} s"


async def test_a_batch_committed_while_the_loop_is_busy_is_answered_within_the_loops_turn(store):
    # Units arriving in one turn of a busy loop read the writer's reply at once: the writer gets the next
    # batch without waiting for the turn to end (EARLY_BATCH).
    slow = store.db.run(partial(slow_set_meta, key="first", seconds=0.2))
    await asyncio.sleep(0.05)  # the batch is in the writer
    keep_the_loop_busy_until_a_writer_replies()  # meanwhile the writer commits and replies
    assert not slow.done()
    later = [store.db.run(meta_row(f"k{n}", "v")) for n in range(EARLY_BATCH + SECOND_BATCH)]
    assert slow.done() and slow.exception() is None  # with no await in between
    await asyncio.gather(*later)


async def test_a_writer_that_dies_between_batches_is_started_again_for_the_next(store):
    first = await writer_pid(store)
    os.kill(first, signal.SIGKILL)
    await asyncio.sleep(0.3)  # its end is heard on the event loop: no batch was in flight
    for n in range(3):
        await store.db.run(meta_row(f"after{n}", "ok"))
    assert await writer_pid(store) != first
    assert [await store.meta.get(f"after{n}") for n in range(3)] == ["ok"] * 3
