"""The engine on PostgreSQL against SQLite: persisted actions/s of one bot process, the same workload on both.

The workload is bench_engine_scale.py's (Top Stop and TopWords sessions, half and half, 64 actions in flight),
on fewer live sessions (filling them is not what is measured). SQLite is the anchor: the store's default,
synced at every commit (SYNCHRONOUS=FULL), in a temporary folder; PostgreSQL is a server of Debian's packages
started here (`DATABASE_URL` when set), with fsync on and synchronous_commit on, on the same machine and disk.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_engine_scale import CONCURRENCY, RUNS, Tables, mark, p, throughput  # noqa: E402
from bot import monitor  # noqa: E402
from bot.engine.sessions import SessionManager  # noqa: E402
from bot.games import make_game  # noqa: E402
from bot.store import Store  # noqa: E402
from bot.store.postgres import is_postgresql_url  # noqa: E402
from tests.postgresql import Databases, LocalServer  # noqa: E402

LIVE = 2_000
SECONDS = 4.0
TARGET_SHARE = 0.8  # PostgreSQL, one process, of SQLite's persisted actions/s (issue 35)


async def persisted_rate(database: Path | str) -> tuple[float, list[float], list[float]]:
    """The best of RUNS throughput runs on a store at `database`: actions/s, its latencies, every run's rate."""
    store = await Store.open(database)
    games = {"topstop": make_game("topstop", None), "topwords": make_game("topwords", None)}
    manager = SessionManager(store, games, lobby_seconds=3600)
    try:
        tables = Tables(manager)
        await tables.fill(LIVE)
        runs = []
        for attempt in range(RUNS):
            await tables.prepare(random.Random(7 + attempt))
            runs.append(await throughput(tables, SECONDS))
        rate, latencies = max(runs, key=lambda run: run[0])
        return rate, latencies, [run[0] for run in runs]
    finally:
        await manager.close()
        await store.close()


async def run(url: str) -> bool:
    monitor.share_the_interpreter()  # as the bot runs
    with tempfile.TemporaryDirectory() as folder:
        sqlite_rate, sqlite_latencies, sqlite_runs = await persisted_rate(Path(folder) / "bench.db")
    databases = await asyncio.to_thread(Databases, url)
    database = await asyncio.to_thread(databases.fresh)
    try:
        rate, latencies, runs = await persisted_rate(database)
    finally:
        await asyncio.to_thread(databases.drop, database)
        await asyncio.to_thread(databases.close)
    share = rate / sqlite_rate
    ok = share >= TARGET_SHARE
    print(
        f"persisted actions/s on PostgreSQL, 1 process, {LIVE:,} live sessions, {CONCURRENCY} concurrent:"
        f" {rate:,.0f}/s, best of {' / '.join(f'{r:,.0f}' for r in runs)} (p50 {p(latencies, 50):.1f} ms,"
        f" p99 {p(latencies, 99):.1f} ms); anchor the same on SQLite {sqlite_rate:,.0f}/s, best of"
        f" {' / '.join(f'{r:,.0f}' for r in sqlite_runs)} (p50 {p(sqlite_latencies, 50):.1f} ms, p99"
        f" {p(sqlite_latencies, 99):.1f} ms); ratio {share:.2f}×; target ≥ {TARGET_SHARE}×: {mark(ok)}"
    )
    return ok


def main() -> int:
    configured = os.environ.get("DATABASE_URL", "")
    server = None if is_postgresql_url(configured) else LocalServer()
    try:
        url = configured if server is None else server.start(durable=True)
        return 0 if asyncio.run(run(url)) else 1
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())
