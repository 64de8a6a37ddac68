"""Bots under load: 20 bot-only tables in one bot process, the event loop's stalls and a person's click latency
meanwhile (the bots issue's benchmark).

One real bot, in its own process as the e2e tests start it, on the project's loopback Discord (schema
validation off: timing only). Twenty tables in channels of their own, the five games in turn, each opened by a
person with `/<game> new bots:3 level:<easy|medium|hard in turn>` who then leaves with `/<game> leave`: bots
alone play on, at BOT_PACE, and a table whose game ends is opened again (the product ends a table whose last
person has left: the bot runs here with that one ruling lifted: bench/bots_alone.py). Meanwhile two people play short
TopWords games at another table, every command and button one at a time (bench_click_latency's `topwords`),
each press waiting until their own table has nothing left to send (the bot tables never stop sending).

The figures: the longest event-loop stall the bot's own stall log reports while the bot tables play
(STALL_LOG_MS low), how many exceed 20 ms, what share of each was the machine's (an idle process on the
same machine late at the same moment, or the host's steal time the log reports: bench_click_latency's
anchor), the bots' moves per second (their rows in the action log), and the person's click-to-answer p50 /
p99 against bench_click_latency's targets, measured against the bare discord.py bot beside the product (its
`Floor`) and, as the anchor, the same games played in the same run before the bot tables open.

Targets: no stall over 20 ms that is the bot's own (a stall less the machine's share at that moment: the
idle process's lateness, the host's steal, or the time the loop's thread was ready to run and given no CPU,
whichever is largest); one at a time, every press: p50 ≤ 1.5× and p99 ≤ 2× the floor's, while the bots play.
Also printed: the CPU the bot process used meanwhile, and the machine's load average. Exit 1 on a miss.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from subprocess import PIPE
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench.bench_click_latency as clicks  # noqa: E402
from bench.bench_click_latency import IDLE_PROCESS, Floor, Pause, Samples, bot_pauses, ms, spawn  # noqa: E402
from bot.games import game_info, games_with_a_table  # noqa: E402
from tests.e2e.driver import Table  # noqa: E402
from tests.e2e.fake_discord import FakeDiscord  # noqa: E402

BOT_TABLES = 20
BOTS_A_TABLE = 3
GAMES = ("topstop", "topwords", "topple", "topdrop", "toppo")
LEVELS = ("easy", "medium", "hard")
PACE = "0.1"  # a bot's second of thinking becomes a tenth: the tables play fast
PERSON_GAMES = 12  # TopWords games of two people at the other table, in each phase: 132 presses a phase
TARGET_STALL_MS = 20.0
POLL = 0.5  # seconds between looks at the bot tables' sessions (a finished game's table is opened again)
CHANNELS = tuple(f"bots-{n}" for n in range(1, BOT_TABLES + 1))
OPEN = ("lobby", "active")


def pooled(samples: Samples) -> list[float]:
    return [value for values in samples.values() for value in values]


class BotTables:
    """The twenty tables bots play on: each opened by a person who leaves, opened again when its game ends."""

    def __init__(self, fake: FakeDiscord, database: Path) -> None:
        self.fake = fake
        self.database = database
        self.opened = 0
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        mix = zip(CHANNELS, itertools.cycle(GAMES), itertools.cycle(LEVELS), strict=False)
        self._tasks = [asyncio.create_task(self._keep(channel, game, level)) for channel, game, level in mix]

    async def _keep(self, channel: str, game: str, level: str) -> None:
        table = Table(self.fake, channel=channel, quiet_here=True, timeout=10.0)
        host = table.user(f"host-{channel}")
        info = game_info(game)
        while not self._stop.is_set():
            reply = await host.slash(
                f"{game} new", bots=BOTS_A_TABLE, level=level, quiet=False, **info.new_options("en")
            )
            assert reply.linked is not None, f"{game} in {channel}: {reply.text}"
            await host.slash(f"{game} leave", quiet=False)
            self.opened += 1
            while self.open_in(table.channel_id):
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), POLL)
                    return

    def _read(self) -> contextlib.closing[sqlite3.Connection]:
        """The bot's database, read-only beside its writer (a few rows a look: on the harness's loop)."""
        return contextlib.closing(sqlite3.connect(f"file:{self.database}?mode=ro", uri=True, timeout=5))

    def open_in(self, channel_id: int) -> bool:
        with self._read() as db:
            found = db.execute(
                "SELECT 1 FROM sessions WHERE channel_id = ? AND status IN (?, ?)", (channel_id, *OPEN)
            ).fetchone()
        return found is not None

    def bot_moves(self) -> int:
        with self._read() as db:
            return int(db.execute("SELECT COUNT(*) FROM actions WHERE player LIKE 'bot:%'").fetchone()[0])

    async def stop(self) -> None:
        self._stop.set()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            try:
                await task
            except (asyncio.CancelledError, AssertionError) as error:
                if isinstance(error, AssertionError):
                    print(f"a bot table failed: {error}")


async def person(fake: FakeDiscord) -> Samples:
    """Two people's short TopWords games at their own table, one press at a time (the floor's /ping after
    each): every press's answer time."""
    one: Samples = defaultdict(list)
    table = Table(fake, channel="games", quiet_here=True)
    clicks.QUIET_IN = table.channel_id
    await clicks.topwords(table, one)
    return one


async def run(keep_log: Path | None) -> bool:
    gc.disable()  # the harness's own collections would walk every message it kept (bench_click_latency)
    os.environ["BOT_PACE"] = PACE
    os.environ["EXTRA_GAMES"] = ",".join(
        info.name for info in games_with_a_table() if info.bots is not None and not info.listed
    )
    clicks.TOPWORDS_GAMES = PERSON_GAMES
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        fake = FakeDiscord(None, extra_channels=CHANNELS)
        await fake.start()
        clicks.HARNESS = fake
        clicks.FLOOR = floor = await Floor.start(folder)
        idle = None
        try:
            bot = await spawn(fake, folder, "bench.bots_alone:main", "product")
            tables = BotTables(fake, folder / "product.db")
            idle = await asyncio.create_subprocess_exec(
                sys.executable, "-c", IDLE_PROCESS, stdin=PIPE, stdout=PIPE
            )

            quiet_from = len(bot.log_text())
            began = time.monotonic()
            alone = await person(fake)
            quiet_took = time.monotonic() - began
            quiet_floor = (floor.one[:], len(floor.one))
            quiet_log = bot.log_text()[quiet_from:]

            tables.start()
            await fake.wait_until(
                lambda: tables.opened >= BOT_TABLES, within=60, what="the bot tables to open"
            )
            load_from, moves_before, began = len(bot.log_text()), tables.bot_moves(), time.monotonic()
            assert bot.process is not None
            cpu_before, load_before = cpu_seconds(bot.process.pid), os.getloadavg()[0]
            harness_before = time.process_time()
            floor.one.clear()
            loaded = await person(fake)
            load_took = time.monotonic() - began
            moves = tables.bot_moves() - moves_before
            cores = (cpu_seconds(bot.process.pid) - cpu_before) / load_took
            harness = (time.process_time() - harness_before) / load_took
            machine = (load_before, os.getloadavg()[0])
            load_log = bot.log_text()[load_from:]
            opened = tables.opened
            await tables.stop()
            machine_late = json.loads((await idle.communicate(b""))[0] or b"[]")
            idle = None
            await bot.stop()
            if keep_log is not None:
                shutil.copy(bot.log_path, keep_log)
        finally:
            if idle is not None:
                idle.kill()
            await floor.close()
            await fake.close()
    return report(
        alone,
        loaded,
        quiet_floor[0],
        floor.one,
        bot_pauses(quiet_log, machine_late),
        bot_pauses(load_log, machine_late),
        machine_late,
        moves / load_took,
        opened,
        (quiet_took, load_took),
        len(fake.rate_limited),
        (cores, harness),
        machine,
    )


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used (its own threads: user and system), from Linux's /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def summary(name: str, samples: list[float], floor: list[float]) -> tuple[str, float, float]:
    p50, p99 = ms(samples, 0.5), ms(samples, 0.99)
    f50, f99 = ms(floor, 0.5), ms(floor, 0.99)
    return (
        f"{name:44} n {len(samples):>4}  p50 {p50:6.1f} ms  p99 {p99:6.1f} ms   floor p50 {f50:5.1f} / p99 "
        f"{f99:5.1f} ms: {p50 / f50:.2f}× / {p99 / f99:.2f}×",
        p50 / f50,
        p99 / f99,
    )


def ran(pause: Pause) -> int:
    """How long the loop's thread was on a CPU during the stall (its own computing), as the log says."""
    found = re.search(r"its thread ran (\d+) ms", pause.account)
    return int(found.group(1)) if found else 0


def own(pause: Pause) -> float:
    """The bot's own share of a stall: less the machine's (bench_click_latency's: the idle process late at the
    same moment, the host's steal), and less the time the loop's thread was ready to run but given no CPU
    (the bot's log says it: a machine busier than its cores)."""
    found = re.search(r"waited for a CPU (\d+) ms", pause.account)
    waited = int(found.group(1)) if found else 0
    return max(0.0, pause.length - max(pause.machine, pause.host, waited))


def stall_line(label: str, pauses: list[Pause]) -> tuple[str, int]:
    longest = max((pause.length for pause in pauses), default=0)
    over = [pause for pause in pauses if pause.length > TARGET_STALL_MS]
    own_over = [pause for pause in pauses if own(pause) > TARGET_STALL_MS]
    longest_own = max((own(pause) for pause in pauses), default=0.0)
    computed = [pause for pause in over if ran(pause) > TARGET_STALL_MS]
    text = (
        f"{label}: {len(pauses)} stalls logged (≥ 10 ms), longest {longest} ms; over {TARGET_STALL_MS:.0f} ms: "
        f"{len(over)}, in {len(computed)} of which the loop's thread computed over {TARGET_STALL_MS:.0f} ms; the "
        f"bot's own share over {TARGET_STALL_MS:.0f} ms: {len(own_over)} (longest own {longest_own:.0f} ms)"
    )
    return text, len(own_over)


def report(
    alone: Samples,
    loaded: Samples,
    quiet_floor: list[float],
    load_floor: list[float],
    quiet_pauses: list[Pause],
    load_pauses: list[Pause],
    machine_late: list[Any],
    moves_per_second: float,
    opened: int,
    took: tuple[float, float],
    rate_limited: int,
    cpu: tuple[float, float],
    machine: tuple[float, float],
) -> bool:
    print(
        f"{BOT_TABLES} bot tables ({', '.join(GAMES)} in turn; {BOTS_A_TABLE} bots each, levels in turn; "
        f"BOT_PACE {PACE}): {opened} games opened; {moves_per_second:.1f} bot moves/s while the person played "
        f"({took[1]:.0f} s; the anchor phase {took[0]:.0f} s); 429s given: {rate_limited}"
    )
    cores, harness = cpu
    print(
        f"the bot process used {cores:.2f} cores meanwhile ({cores / moves_per_second * 1000:.1f} ms of CPU a bot "
        f"move, everything included), the benchmark's own process (the loopback Discord and its players) {harness:.2f}; "
        f"the machine's load average {machine[0]:.1f} → {machine[1]:.1f} on "
        f"{os.cpu_count()} cores"
    )
    ok = True
    print("click → answer, one at a time (the person's TopWords games):")
    anchor_line, _, _ = summary("every press, no bot tables (anchor)", pooled(alone), quiet_floor)
    print("  " + anchor_line)
    line, r50, r99 = summary("every press, 20 bot tables playing", pooled(loaded), load_floor)
    met = r50 <= clicks.TARGET_P50 and r99 <= clicks.TARGET_P99
    ok &= met
    print(
        "  "
        + line
        + f"  target ≤ {clicks.TARGET_P50}× / ≤ {clicks.TARGET_P99}×: {'met' if met else 'MISSED'}"
    )
    a50, a99 = ms(pooled(alone), 0.5), ms(pooled(alone), 0.99)
    l50, l99 = ms(pooled(loaded), 0.5), ms(pooled(loaded), 0.99)
    print(f"  with the bot tables against without: p50 {l50 / a50:.2f}×, p99 {l99 / a99:.2f}× (not a target)")
    for kind in sorted(loaded):
        print(
            f"    {kind:42} n {len(loaded[kind]):>3}  p50 {ms(loaded[kind], 0.5):6.1f}  p99 "
            f"{ms(loaded[kind], 0.99):6.1f} ms (without: {ms(alone[kind], 0.5):6.1f} / "
            f"{ms(alone[kind], 0.99):6.1f})"
        )
    quiet_text, _ = stall_line("event-loop stalls, no bot tables", quiet_pauses)
    load_text, own_over = stall_line("event-loop stalls, 20 bot tables", load_pauses)
    print(quiet_text)
    met = own_over == 0
    ok &= met
    print(load_text + f"; target none: {'met' if met else 'MISSED'}")
    # The stalls where the loop's thread computed longest: the loop's innermost frames when the stall was
    # noticed, then where it was at each look meanwhile (a thread busy elsewhere is listed when it was not idle).
    for pause in sorted(load_pauses, key=lambda p: -ran(p))[:5]:
        if pause.length > TARGET_STALL_MS:
            lines = pause.stack.splitlines()
            frames = [line.strip() for line in lines if line.startswith("  File")][-3:]
            busy = [
                line.strip() for line in lines if line.startswith("  [thread") and "_worker <" not in line
            ]
            looks = [line.strip() for line in lines if "× " in line]
            print(
                f"  {pause.length} ms (own {own(pause):.0f}; {pause.account or 'unaccounted'}; idle process late "
                f"{pause.machine:.0f} ms):\n"
                + "\n".join("    " + line for line in frames + looks + [b for b in busy if "wait" not in b])
            )
    idle_longest = max((late for _, late in machine_late), default=0.0)
    print(f"anchor of the stalls: an idle process on this machine was late by up to {idle_longest:.0f} ms")
    return ok


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=Path, help="keep the bot's log there (its stalls' stacks)")
    sys.exit(0 if asyncio.run(run(parser.parse_args().log)) else 1)
