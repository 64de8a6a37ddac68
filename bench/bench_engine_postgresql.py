"""The engine on PostgreSQL in 1, 2 and 4 bot processes against one process on SQLite: persisted actions/s of
the same workload, and act()'s latency at half the load of two processes.

The workload is bench_engine_scale.py's (Top Stop and TopWords sessions, half and half, each session's next
actions prepared with the rules alone, 64 actions in flight per process), on fewer live sessions (filling them
is not what is measured). Every process is a separate OS process (`--worker`) with its own SessionManager and
store, serving one shard of the sessions: their guilds are split between the processes as Discord splits
guilds between shards, so no two processes ever touch the same session. SQLite is the anchor: the store's
default, synced at every commit (SYNCHRONOUS=FULL), one process (it takes no second) in a temporary folder.
PostgreSQL is a server of Debian's packages started here (`DATABASE_URL` when set), with fsync on and
synchronous_commit on, on the same machine and disk. Each figure is the best of RUNS runs, every run printed,
with where the CPU went meanwhile: the bot processes' own time and the server's (its processes' time in /proc),
in cores (1.00 = one core busy for the whole run), SQLite's writer process counted with its bot.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_engine_real import anchor_pragmas, disk_probe  # noqa: E402
from bench.bench_engine_scale import (  # noqa: E402
    CONCURRENCY,
    RUNS,
    SCRIPT_LENGTH,
    Tables,
    mark,
    open_loop,
    p,
    throughput,
)
from bot import monitor  # noqa: E402
from bot.engine.errors import GameError  # noqa: E402
from bot.engine.sessions import SessionManager  # noqa: E402
from bot.games import make_game  # noqa: E402
from bot.store import Shards, Store  # noqa: E402
from bot.store.postgres import is_postgresql_url  # noqa: E402
from tests.postgresql import Databases, LocalServer  # noqa: E402

LIVE = 2_000  # live sessions in all, split between the processes
SECONDS = 4.0
# The open loop's length: its p99 is the 1% slowest, so over 15 s one stall of the shared disk (100–400 ms
# happen here) is not all of it, as it could be over 5 s (the same reason as bench_engine_real.py's).
LOOP_SECONDS = 15.0
PROCESSES = (1, 2, 4)
# Of one SQLite process's persisted actions/s (issue 35); 4 processes are reported, with no target.
TARGET_SHARE = {1: 0.8, 2: 1.3}
TARGET_P99_MS = 100.0  # act() at half the load two processes carry
TICKS = os.sysconf("SC_CLK_TCK")
REPORT_LIMIT = 64 << 20  # bytes of one report line: every latency of a run


# -- a worker: one bot process ------------------------------------------------------------------------------


class ShardTables(Tables):
    """The bench's sessions, in guilds of one shard of `count`: the guild of the n-th session is on shard
    `index` ((guild >> 22) % count), each in a channel of its own."""

    def __init__(self, manager: SessionManager, index: int, count: int) -> None:
        super().__init__(manager)
        self.index = index
        self.count = count

    async def new(self, game: str) -> int:
        self.channel += 1
        guild = ((self.channel * self.count + self.index) << 22) | 1
        m = self.manager
        lobby = await m.open_lobby(guild, guild, game, "p0", {"check_words": False})
        await m.join(lobby.id, "p1")
        if game == "topstop":
            await m.start_game(lobby.id, "p0", {"first_player": "p0"})
            await m.act(lobby.id, "p0", {"do": "spin"})  # the letter is the engine's
        else:
            await m.start_game(lobby.id, "p0")
        return lobby.id

    async def prepare(self, rng: random.Random, length: int = SCRIPT_LENGTH) -> None:
        """As Tables.prepare; a game that ended in an earlier run is replaced by a new one first (each process
        holds fewer sessions than bench_engine_scale.py's, so its games reach their end within the runs)."""
        for index, sid in enumerate(self.ids):
            record = await self.manager.session(sid)
            if not record.is_open:
                self.ids[index] = sid = await self.new(record.game)
            try:
                await self.write_script(sid, rng, length)
            except GameError:  # over, though its session has not closed yet: a new one in its place
                self.ids[index] = sid = await self.new(record.game)
                await self.write_script(sid, rng, length)


def say(message: dict[str, Any]) -> None:
    print(json.dumps(message), flush=True)


async def worker(database: str, index: int, count: int, live: int) -> None:
    """Fill this shard's sessions, then obey the parent's lines: `prepare SEED LENGTH` (each session's next
    LENGTH actions), `go SECONDS` (closed loop,
    CONCURRENCY in flight), `loop RATE SECONDS` (open loop), `quit`."""
    monitor.share_the_interpreter()  # as the bot runs
    store = await Store.open(database)
    games = {"topstop": make_game("topstop", None), "topwords": make_game("topwords", None)}
    manager = SessionManager(store, games, lobby_seconds=3600, shards=Shards(count, (index,)))
    tables = ShardTables(manager, index, count)
    lines = asyncio.StreamReader()
    loop = asyncio.get_running_loop()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(lines), sys.stdin)
    try:
        await tables.fill(live)
        say({"ready": True})
        while command := (await lines.readline()).decode().split():
            if command[0] == "prepare":
                await tables.prepare(random.Random(int(command[1])), int(command[2]))
                say({"prepared": True})
                continue
            if command[0] == "quit":
                break
            started = time.perf_counter()
            if command[0] == "go":
                _, latencies = await throughput(tables, float(command[1]))
            else:
                latencies = await open_loop(tables, float(command[1]), float(command[2]))
            say(
                {
                    "done": len(latencies),
                    "elapsed": time.perf_counter() - started,
                    "latencies": [round(took, 6) for took in latencies],
                }
            )
    finally:
        await manager.close()
        await store.close()


# -- the parent: starts the workers, runs them together, adds up ---------------------------------------------


@dataclass
class Run:
    rate: float  # persisted actions/s, all processes together
    latencies: list[float]
    bots_cores: float  # the bot processes' CPU during the run, in cores
    server_cores: float | None  # the PostgreSQL server's, when it is ours


class Workers:
    def __init__(self, database: str, count: int, server_pid: int | None) -> None:
        self.database = database
        self.count = count
        self.server_pid = server_pid
        self.processes: list[asyncio.subprocess.Process] = []

    async def start(self) -> None:
        for index in range(self.count):
            self.processes.append(
                await asyncio.create_subprocess_exec(
                    sys.executable,
                    __file__,
                    "--worker",
                    self.database,
                    str(index),
                    str(self.count),
                    str(LIVE // self.count),
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    limit=REPORT_LIMIT,
                )
            )
        await self.answers()  # every one ready

    async def tell(self, line: str) -> None:
        for process in self.processes:
            assert process.stdin is not None
            process.stdin.write(line.encode() + b"\n")
            await process.stdin.drain()

    async def answers(self) -> list[dict[str, Any]]:
        async def answer(process: asyncio.subprocess.Process) -> dict[str, Any]:
            assert process.stdout is not None
            line = await process.stdout.readline()
            if not line:
                raise RuntimeError(f"a bench worker ended with {await process.wait()}")
            parsed: dict[str, Any] = json.loads(line)
            return parsed

        return list(await asyncio.gather(*(answer(process) for process in self.processes)))

    async def measure(self, seed: int, command: str, length: int = SCRIPT_LENGTH) -> Run:
        """Each session's next `length` actions prepared, then `command` run by every worker together."""
        await self.tell(f"prepare {seed} {length}")
        await self.answers()
        bots = {process.pid for process in self.processes}
        server = {self.server_pid} if self.server_pid is not None else set()
        bots_before, server_before = tree_cpu(bots), tree_cpu(server)
        started = time.perf_counter()
        await self.tell(command)
        reports = await self.answers()
        wall = time.perf_counter() - started
        return Run(
            rate=sum(report["done"] / report["elapsed"] for report in reports),
            latencies=[took for report in reports for took in report["latencies"]],
            bots_cores=(tree_cpu(bots) - bots_before) / wall,
            server_cores=(tree_cpu(server) - server_before) / wall if server else None,
        )

    async def close(self) -> None:
        await self.tell("quit")
        for process in self.processes:
            await process.wait()


def tree_cpu(roots: set[int]) -> float:
    """CPU seconds used so far by the processes `roots` and their children: a bot process and its SQLite
    writer; the PostgreSQL server's postmaster and its backends."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # a process that ended meanwhile
        pid, parent = int(stat.parent.name), int(fields[1])
        if pid in roots or parent in roots:
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS


async def best_rate(database: str, count: int, server_pid: int | None) -> tuple[Run, list[Run], Workers]:
    """The best of RUNS closed-loop runs of `count` processes; the workers are left running."""
    workers = Workers(database, count, server_pid)
    await workers.start()
    runs = [await workers.measure(7 + attempt, f"go {SECONDS}") for attempt in range(RUNS)]
    return max(runs, key=lambda run: run.rate), runs, workers


def describe(name: str, best: Run, runs: list[Run]) -> str:
    where = f"bots {best.bots_cores:.2f} cores" + (
        "" if best.server_cores is None else f", server {best.server_cores:.2f} cores"
    )
    return (
        f"{name}: {best.rate:,.0f}/s, best of {' / '.join(f'{run.rate:,.0f}' for run in runs)} (p50"
        f" {p(best.latencies, 50):.1f} ms, p99 {p(best.latencies, 99):.1f} ms; {where})"
    )


async def run(url: str, server_pid: int | None) -> bool:
    results = []
    with tempfile.TemporaryDirectory() as folder:
        anchor, anchor_runs, workers = await best_rate(str(Path(folder) / "bench.db"), 1, None)
        await workers.close()
    print(
        describe(
            f"anchor: persisted actions/s on SQLite, 1 process, {LIVE:,} live sessions", anchor, anchor_runs
        )
    )
    databases = await asyncio.to_thread(Databases, url)
    try:
        for count in PROCESSES:
            database = await asyncio.to_thread(databases.fresh)
            try:
                best, runs, workers = await best_rate(database, count, server_pid)
                try:
                    share = best.rate / anchor.rate
                    target = TARGET_SHARE.get(count)
                    verdict = f"target ≥ {target}×: {mark(share >= target)}" if target else "reported"
                    results.append(target is None or share >= target)
                    name = f"PostgreSQL, {count} process{'es' if count > 1 else ''}, {CONCURRENCY} in flight each"
                    print(f"{describe(name, best, runs)}; ratio to SQLite {share:.2f}×; {verdict}")
                    if count == 2:
                        print(cpu_ceiling(best, anchor, TARGET_SHARE[2]))
                        results.append(await half_load(workers, best.rate))
                finally:
                    await workers.close()
            finally:
                await asyncio.to_thread(databases.drop, database)
    finally:
        await asyncio.to_thread(databases.close)
    return all(results)


def cpu_per_action(run: Run) -> float:
    """Microseconds of CPU an action cost, the bots' and the server's together."""
    return (run.bots_cores + (run.server_cores or 0.0)) / run.rate * 1e6


def cpu_ceiling(best: Run, anchor: Run, target: float) -> str:
    """What this machine's cores can carry at the CPU an action cost: where a ratio is bounded by the cores
    rather than by the store's design (issue 35's "where the bottleneck moves")."""
    cores = os.cpu_count() or 1
    cost, anchor_cost = cpu_per_action(best), cpu_per_action(anchor)
    ceiling = cores / cost * 1e6
    needed = target * anchor.rate * cost / 1e6
    return (
        f"CPU per persisted action: SQLite, 1 process, {anchor_cost:.0f} µs; PostgreSQL, 2 processes,"
        f" {cost:.0f} µs (bots {best.bots_cores / best.rate * 1e6:.0f}, server"
        f" {(best.server_cores or 0.0) / best.rate * 1e6:.0f}). At that cost this machine's {cores} cores carry"
        f" at most {ceiling:,.0f}/s ({ceiling / anchor.rate:.2f}× SQLite); {target}× SQLite would take"
        f" {needed:.1f} cores busy, or {cores / (target * anchor.rate) * 1e6:.0f} µs an action on {cores}."
    )


async def half_load(workers: Workers, full_rate: float) -> bool:
    """act() with actions started on a schedule at half what two processes carried, shared between them."""
    rate = full_rate / 2
    # Enough actions prepared that few sessions run out (one that does prepares its next on the loop).
    length = max(SCRIPT_LENGTH, math.ceil(2 * rate * LOOP_SECONDS / LIVE))
    stop = asyncio.Event()
    with tempfile.TemporaryDirectory() as folder:
        # Raw commits on a file of the same disk, beside the loop: what the disk itself held meanwhile.
        probe = asyncio.create_task(disk_probe(Path(folder) / "probe.db", anchor_pragmas("FULL"), stop))
        try:
            loop = await workers.measure(99, f"loop {rate / workers.count:.1f} {LOOP_SECONDS}", length)
        finally:
            stop.set()
            disk = await probe
    p99 = p(loop.latencies, 99)
    ok = p99 <= TARGET_P99_MS
    where = f"bots {loop.bots_cores:.2f} cores" + (
        "" if loop.server_cores is None else f", server {loop.server_cores:.2f} cores"
    )
    print(
        f"act() open loop on PostgreSQL, 2 processes, at half their load ({rate:,.0f}/s in all): p50"
        f" {p(loop.latencies, 50):.1f} ms, p99 {p99:.1f} ms ({where}); target ≤ {TARGET_P99_MS:.0f} ms:"
        f" {mark(ok)}. The disk beside it: raw commits p99 {p(disk, 99):.1f} ms, longest"
        f" {max(disk, default=0.0) * 1000:.1f} ms"
    )
    return ok


def main() -> int:
    if sys.argv[1:2] == ["--worker"]:
        database, index, count, live = sys.argv[2:6]
        asyncio.run(worker(database, int(index), int(count), int(live)))
        return 0
    configured = os.environ.get("DATABASE_URL", "")
    server = None if is_postgresql_url(configured) else LocalServer()
    try:
        url = configured if server is None else server.start(durable=True)
        pid = None if server is None else int((server.data / "postmaster.pid").read_text().split()[0])
        return 0 if asyncio.run(run(url, pid)) else 1
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())
