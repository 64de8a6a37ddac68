"""Click to answer: the time from a press to the bot's first answer, against a bare discord.py bot.

Through the project's own loopback Discord (tests/e2e), with the bot in its own process as the e2e tests
start it and the fake's schema validation off (timing only). The floor is the bare bot of tests/e2e
(minimal_bot: `/ping` answers at once) on a loopback Discord of its own, running beside the product all
through its run: one /ping after each product press one at a time, eight after each burst. For the
product: Top Stop lobbies opened, joined and cancelled, a real Top Stop game of 8 players, and short
TopWords games: every kind of command and button, one at a time and 8 at once (refusals included). The
answer time is the fake's: from sending INTERACTION_CREATE to the bot's first callback (answer, defer or
modal). Each press one at a time, and each burst of eight, waits until the bot has nothing left to send
(the previous press's redraws; the floor's bot never has any). The cheap kinds are pressed often enough
(REPEATS, LOBBIES, TOPWORDS_GAMES, TOPWORDS_ASKS) that their p99 is not simply their slowest press. The bot logs every event-loop
pause over STALL_LOG_MS, set low here, with how its loop's thread spent it and the most the virtual
machine's host took from one CPU meanwhile (Linux's steal time); an idle process on the same machine is the
pauses' other anchor: a pause it suffered at the same moment is the machine's (a busy machine or the host
deschedules every process), not the bot's. The bot's own share of a pause is what is left of it less the
larger of the two.
"""

from __future__ import annotations

import asyncio
import datetime
import gc
import json
import math
import os
import re
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from subprocess import PIPE
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.e2e.driver import Player, Reply, Table  # noqa: E402
from tests.e2e.fake_discord import FakeDiscord  # noqa: E402
from tests.e2e.process import BotProcess, wait_for_new_session  # noqa: E402

PLAYERS = 8
ROUNDS = 3
REPEATS = 5  # presses of each cheap kind per player and round: 8 × 5 × 3 = 120 samples, p99 below the max
LOBBIES = 101  # /topstop new, one at a time (and Join, Cancel): 100 samples or more
TOPWORDS_GAMES = 100  # /topwords new, Start, pass, end: 100–200 samples (p99 below the max)
TOPWORDS_ASKS = 2  # /topwords rack and status, each game: 200 samples of each
TARGET_P50 = 1.5  # × the floor's p50, one at a time
TARGET_P99 = 2.0  # × the floor's p99 (one at a time; and at 8 at once)
TARGET_BURST_MS = 50.0
TARGET_PAUSE_MS = 20.0
# The anchor of the pauses: a process that does nothing but wake every 5 ms on this machine meanwhile. How
# late it woke is the pause the machine itself imposed (a busy or virtual machine deschedules anyone): it
# prints each lateness over 5 ms with the wall time it woke at.
IDLE_PROCESS = """
import asyncio, json, sys, time
async def main():
    stop, late = asyncio.Event(), []
    asyncio.get_running_loop().add_reader(sys.stdin, stop.set)
    while not stop.is_set():
        before = time.monotonic()
        await asyncio.sleep(0.005)
        lateness = time.monotonic() - before - 0.005
        if lateness > 0.005:
            late.append((time.time(), lateness * 1000))
    print(json.dumps(late))
asyncio.run(main())
"""
STALL = re.compile(r"the event loop was blocked for (\d+) ms in all")
ACCOUNT = re.compile(
    r" \((its thread ran \d+ ms and waited for a CPU \d+ ms(?:; the host took up to (\d+) ms of a CPU)?)\)"
)

Samples = dict[str, list[float]]


def ms(values: list[float], q: float) -> float:
    """The q-quantile by nearest rank, in ms: with fewer than 100 samples, p99 is the slowest one."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)] * 1000


class Pause(NamedTuple):
    """A pause of the bot's event loop as it logged it, and what the idle process suffered meanwhile."""

    length: int  # ms
    ended: float  # wall time the bot logged it (its watchdog looks every 5 ms)
    stack: str
    machine: float = 0.0  # ms: the idle process's longest lateness overlapping this pause
    account: str = ""  # how the loop's thread spent it, as the bot logged it: ran, waited for a CPU
    host: float = 0.0  # ms: the most the host took from one CPU meanwhile, as the bot logged it

    @property
    def own(self) -> float:
        return max(0.0, self.length - max(self.machine, self.host))


HARNESS: FakeDiscord | None = None  # the loopback Discord of the product's run
FLOOR: Floor | None = None  # the bare bot, measured beside the product
PHASES: list[tuple[float, str]] = []  # (wall time, kind) as each press starts: where a pause fell
# Where "nothing left to send" is judged: the whole bot (None), or one channel's requests only (beside tables
# that bots play on, whose requests never stop: bench_bots_load).
QUIET_IN: int | None = None


async def timed(samples: Samples, kind: str, action: Awaitable[Reply]) -> Reply:
    PHASES.append((time.time(), kind))
    reply = await action
    after = reply.record.answered_after
    if after is not None:
        samples[kind].append(after)
    return reply


async def alone(samples: Samples, kind: str, action: Awaitable[Reply]) -> Reply:
    """One press when the bot has nothing left to send (the previous press's redraws included): one at a
    time means no other work in flight, as for the floor, whose bot has none. Then the floor's press."""
    assert HARNESS is not None and FLOOR is not None
    await HARNESS.settle(channel_id=QUIET_IN)
    reply = await timed(samples, kind, action)
    await FLOOR.ping_one()
    return reply


async def at_once(samples: Samples, kind: str, actions: list[Callable[[], Awaitable[Reply]]]) -> list[Reply]:
    """Eight presses together when the bot has nothing left to send (a reveal's redraws included: players
    read a table before they press), as for the floor's eight. Then the floor's eight."""
    assert HARNESS is not None and FLOOR is not None
    await HARNESS.settle(channel_id=QUIET_IN)
    replies = list(await asyncio.gather(*(timed(samples, kind, make()) for make in actions)))
    await FLOOR.ping_burst()
    return replies


async def spawn(fake: FakeDiscord, folder: Path, entry: str, name: str) -> BotProcess:
    process = BotProcess(fake, workdir=folder, entry=entry, database=folder / f"{name}.db", name=name)
    os.environ["STALL_LOG_MS"] = "10"  # the bot's own pause log, for the longest pause
    os.environ["TOPWORDS_TURN_MINUTES"] = "0"
    await process.start()
    await wait_for_new_session(fake, process)
    return process


class Floor:
    """The bare bot, on a loopback Discord of its own, running all through the product's run: after each
    product press one at a time it answers one /ping, after each burst eight at once, so that the floor and
    the product meet the same machine at the same moments."""

    def __init__(self, fake: FakeDiscord, bot: BotProcess) -> None:
        self.fake, self.bot = fake, bot
        table = Table(fake)
        self.players = [table.user(f"p{n}") for n in range(PLAYERS)]
        self.one: list[float] = []
        self.burst: list[float] = []
        self._next = 0

    @classmethod
    async def start(cls, folder: Path) -> Floor:
        fake = FakeDiscord(None)
        await fake.start()
        return cls(fake, await spawn(fake, folder, "tests.e2e.minimal_bot:main", "floor"))

    async def ping_one(self) -> None:
        await self.fake.settle()
        player = self.players[self._next % PLAYERS]
        self._next += 1
        reply = await player.slash("ping")
        if reply.record.answered_after is not None:
            self.one.append(reply.record.answered_after)

    async def ping_burst(self) -> None:
        await self.fake.settle()
        replies = await asyncio.gather(*(player.slash("ping") for player in self.players))
        self.burst += [r.record.answered_after for r in replies if r.record.answered_after is not None]

    async def close(self) -> None:
        await self.bot.stop()
        await self.fake.close()


async def top_stop(table: Table, players: list[Player], one: Samples, burst: Samples) -> None:
    host = players[0]
    for _ in range(LOBBIES - 1):  # lobbies opened, joined one at a time and cancelled
        lobby = (await alone(one, "/topstop new", host.slash("topstop new", language="en"))).linked
        assert lobby is not None
        for player in players[1:3]:
            await alone(one, "Join", player.click(lobby, "Join"))
        await alone(one, "Cancel", host.click(lobby, "Cancel"))
    lobby = (await alone(one, "/topstop new", host.slash("topstop new", language="en", target=500))).linked
    assert lobby is not None
    await at_once(burst, "Join", [partial(p.click, lobby, "Join") for p in players[1:]])
    await alone(one, "Start", host.click(lobby, "Start"))
    first = await table.wait_for_message(lambda m: "who spins first?" in m.text, what="the first spin")
    for _ in range(3):  # tied players spin again
        waiting = [p for p in players if f"{p.name.capitalize()}: waiting" in first.text]
        if not waiting:
            break
        await at_once(burst, "Spin (first spin)", [partial(p.click, first, "Spin") for p in waiting])
        await table.settle()
    for number in range(1, ROUNDS + 1):
        board = await table.wait_for_message(
            lambda m, n=number: f"round {n}" in m.text and "Spin" in m.button_labels, what=f"round {number}"
        )
        spinner = next(p for p in players if f"**{p.name.capitalize()}** spins the letter" in board.text)
        others = [p for p in players if p is not spinner]
        await at_once(burst, "Spin (not yours: refused)", [partial(p.click, board, "Spin") for p in others])
        await alone(one, "Spin", spinner.click(board, "Spin"))
        await table.fake.wait_until(
            lambda b=board: "Write my words" in b.button_labels, within=5, what="writing"
        )
        letter = re.findall(r"letter ([A-Z])", board.text)[0].lower()
        for repeat in range(REPEATS):
            for player in players:  # one at a time: open the form, send it
                await alone(one, "Write my words (form)", player.click(board, "Write my words"))
                words = {f"word{i}": f"{letter}{player.name}{number}{repeat}{i}" for i in range(1, 3)}
                await alone(one, "Words (form sent)", player.submit_modal(words))
            await at_once(
                burst, "Write my words (form)", [partial(p.click, board, "Write my words") for p in players]
            )
            await at_once(
                burst,
                "Words (form sent)",
                [partial(p.submit_modal, {"word1": f"{letter}x"}) for p in players],
            )
            await at_once(burst, "My words", [partial(p.click, board, "My words") for p in players])
            for player in players:
                await alone(one, "My words", player.click(board, "My words"))
            await at_once(burst, "/topstop status", [partial(p.slash, "topstop status") for p in players])
            for player in players:
                await alone(one, "/topstop status", player.slash("topstop status"))
        await at_once(burst, "STOP!", [partial(p.click, board, "STOP!") for p in players])  # one wins
        await table.wait_for_message(
            lambda m: "Dispute a word" in m.button_labels, within=30, what="the reveal (grace)"
        )
        reveal = table.last_message
        disputes = await at_once(
            burst, "Dispute a word", [partial(p.click, reveal, "Dispute a word") for p in players]
        )
        del disputes
        await table.wait_for_message(
            lambda m, n=number: f"round {n + 1}" in m.text, within=90, what="the next round (review)"
        )


async def topwords(table: Table, one: Samples) -> None:
    """Two players in the other channel, TOPWORDS_GAMES short games: the commands one at a time (a refusal
    included), each game ended by its host."""
    alice, bob = table.user("alice"), table.user("bob")
    for _ in range(TOPWORDS_GAMES):
        lobby = (await alone(one, "/topwords new", alice.slash("topwords new"))).linked
        assert lobby is not None
        await alone(one, "Join", bob.click(lobby, "Join"))
        await alone(one, "Start", alice.click(lobby, "Start"))
        await table.wait_for_message(
            lambda m: any(a["filename"] == "board.png" for a in m.attachments), what="the TopWords table"
        )
        for _ in range(TOPWORDS_ASKS // 2):
            for player in (alice, bob):
                await alone(one, "/topwords rack", player.slash("topwords rack"))
                await alone(one, "/topwords status", player.slash("topwords status"))
        await alone(one, "/topwords pass", alice.slash("topwords pass"))
        await alone(one, "/topwords pass (refused: not your turn)", alice.slash("topwords pass"))
        await alone(one, "/topwords pass", bob.slash("topwords pass"))
        await alone(one, "/topwords end", alice.slash("topwords end"))


async def run() -> bool:
    # The harness (the loopback Discord and every player) keeps each message and interaction it saw: its own
    # collections would walk them all and count as the bot's answer time. It is short-lived, so it has none.
    gc.disable()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        fake = FakeDiscord(None)  # no schema validation: timing only
        await fake.start()
        global HARNESS, FLOOR
        HARNESS = fake
        FLOOR = floor = await Floor.start(folder)
        try:
            bot = await spawn(fake, folder, "bot.__main__:main", "product")
            one: Samples = defaultdict(list)
            burst: Samples = defaultdict(list)
            table = Table(fake)
            players = [table.user(f"p{n}") for n in range(PLAYERS)]
            play_starts = len(bot.log_text())  # pauses during play: from the first command on
            idle = await asyncio.create_subprocess_exec(
                sys.executable, "-c", IDLE_PROCESS, stdin=PIPE, stdout=PIPE
            )
            await top_stop(table, players, one, burst)
            await topwords(Table(fake, channel="games"), one)
            machine_late = json.loads((await idle.communicate(b""))[0] or b"[]")
            await bot.stop()
            log = bot.log_text()[play_starts:]
            pauses = bot_pauses(log, machine_late)
            show_pauses(pauses)
            for collection in re.findall(r"a garbage collection of generation .*", log):
                print(collection)
        finally:
            await floor.close()
            await fake.close()
    idle_longest = max((late for _, late in machine_late), default=0.0)
    return report(floor.one, floor.burst, one, burst, pauses, idle_longest)


def bot_pauses(log: str, machine_late: list[tuple[float, float]]) -> list[Pause]:
    """The pauses the bot logged, each with the idle process's lateness that overlapped it."""
    pauses = []
    for began in re.finditer(r"the event loop has been blocked for \d+ ms; it is running:\n", log):
        ended = STALL.search(log, began.end())
        if ended is None:
            continue
        line_start = log.rfind("\n", 0, ended.start()) + 1  # "2026-11-26 00:20:01,123 WARNING …"
        stamp = datetime.datetime.strptime(log[line_start : line_start + 23], "%Y-%m-%d %H:%M:%S,%f")
        account = ACCOUNT.match(log, ended.end())
        # Where the loop was meanwhile: the lines after the end's account of the loop thread's time.
        looks = re.match(r"(\n  \d+× [^\n]*)*", log[account.end() if account else ended.end() :])
        stack = log[began.end() : ended.start()] + (looks.group(0) if looks else "")
        length, end = int(ended.group(1)), stamp.timestamp()
        # The bot's pause spans [end - length - 5 ms, end] (its watchdog looks every 5 ms); the idle
        # process's, [woke - late, woke]; log stamps have millisecond resolution.
        start = end - (length + 5) / 1000
        machine = max(
            (min(late, length) for woke, late in machine_late if woke - late / 1000 <= end and woke >= start),
            default=0.0,
        )
        account_text, host = (account.group(1), float(account.group(2) or 0)) if account else ("", 0.0)
        pauses.append(Pause(length, end, stack, machine, account_text, host))
    return pauses


def show_pauses(pauses: list[Pause]) -> None:
    """Each pause over the target, where it fell and what the machine took meanwhile; what the bot's
    longest own pause ran (the loop's innermost frames, the threads)."""

    def during(pause: Pause) -> str:
        return (
            [kind for at, kind in PHASES if at <= pause.ended - pause.length / 1000][-1:] or ["start-up"]
        )[0]

    over = [
        f"{pause.length} ms ({during(pause)}; {pause.account or 'the loop thread unaccounted'}; the idle "
        f"process late by {pause.machine:.0f} ms meanwhile)"
        for pause in pauses
        if pause.length > TARGET_PAUSE_MS
    ]
    if over:
        print("pauses over the target: " + ", ".join(over))
    if pauses:
        longest = max(pauses, key=lambda pause: pause.own)
        lines = [line for line in longest.stack.splitlines() if line.startswith(("  File", "  [thread"))]
        lines = lines[-10:] + [line for line in longest.stack.splitlines() if "× " in line]
        print(
            f"the bot's longest own pause ({longest.length} ms, {during(longest)}; the machine's share "
            f"{max(longest.machine, longest.host):.0f} ms) ran:\n" + "\n".join(lines)
        )


def report(
    floor_one: list[float],
    floor_burst: list[float],
    one: Samples,
    burst: Samples,
    pauses: list[Pause],
    idle_longest: float,
) -> bool:
    ok = True
    f50, f99, b99 = ms(floor_one, 0.5), ms(floor_one, 0.99), ms(floor_burst, 0.99)
    print(
        f"floor (bare discord.py bot, /ping): one at a time p50 {f50:.1f} ms p99 {f99:.1f} ms; 8 at once p99 {b99:.1f} ms"
    )
    print(f"{'kind':42} {'n':>3} {'p50':>7} {'p95':>7} {'p99':>7} {'max':>7}  ratio p50/p99  target")
    for label, samples, burst_mode in (("one at a time", one, False), ("8 at once", burst, True)):
        print(f"-- {label}")
        for kind, values in sorted(samples.items()):
            p50, p95, p99, top = ms(values, 0.5), ms(values, 0.95), ms(values, 0.99), max(values) * 1000
            if burst_mode:
                met = p99 <= TARGET_P99 * b99 and p99 <= TARGET_BURST_MS
                ratio = f"{p99 / b99:.1f}× p99"
            else:
                met = p50 <= TARGET_P50 * f50 and p99 <= TARGET_P99 * f99
                ratio = f"{p50 / f50:.1f}× / {p99 / f99:.1f}×"
            ok &= met
            print(
                f"{kind:42} {len(values):>3} {p50:7.1f} {p95:7.1f} {p99:7.1f} {top:7.1f}  {ratio:>13}  {'met' if met else 'MISSED'}"
            )
    longest = max((pause.length for pause in pauses), default=0)
    own = max((pause.own for pause in pauses), default=0.0)
    met = own <= TARGET_PAUSE_MS
    ok &= met
    shown = f"{longest} ms" if pauses else "none over 10 ms"
    print(
        f"longest event-loop pause of the bot during play: {shown}; anchor: an idle process on this machine "
        f"meanwhile was late by up to {idle_longest:.0f} ms; the bot's own (a pause less what the idle process "
        f"lost, or the host took from a CPU, at the same moment): {own:.0f} ms; target ≤ {TARGET_PAUSE_MS:.0f} ms: "
        f"{'met' if met else 'MISSED'}"
    )
    print(
        f"targets: one at a time p50 ≤ {TARGET_P50}× and p99 ≤ {TARGET_P99}× the floor's; 8 at once p99 ≤ "
        f"{TARGET_P99}× the floor's and ≤ {TARGET_BURST_MS:.0f} ms"
    )
    return ok


if __name__ == "__main__":
    sys.exit(0 if asyncio.run(run()) else 1)
