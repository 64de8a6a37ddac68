"""The engine on real play: mid-game sessions of realistic size, dictionaries on, at 1k / 10k / 50k live sessions.

bench_engine_scale.py measures fresh two-player sessions with the dictionary off and only submit / place /
pass. Here the sessions are what a busy bot holds (issue 29), half Top Stop, half TopWords:

- Top Stop, six players, the dictionary on (the real WordService, as bot/app.py builds it), in English,
  French or German: two judged rounds behind each session, and each somewhere in its third or fourth round
  (spinning, writing, STOP's grace, review, a dispute's vote). Players write the words `sample_action`
  draws (the dictionary's own lists, proper nouns, made-up words); writing closes when the timer's
  `end_writing` is fired through `SessionManager.fire_timer` (judged in the engine's thread, as live); odd
  rounds have a dispute and its votes, even rounds a STOP; the review ends with the timer's `end_round`.
  One Top Stop table in six plays the advanced game (The Draw, Level cards). About one move in ten is
  preceded by an action the rules refuse (a word submitted after writing closed, a second vote, a vote on
  one's own dispute, a dispute while writing, a submit while spinning).
- TopWords in strict mode with the German dictionary, two or three players, 10–30 moves in; one placement
  in ten is first tried with a word the dictionary refuses.

Every player action carries an interaction id, as the bot sends it. Ninety-six prototype sessions are played
through the SessionManager; the store is then filled to 1,000, 10,000 and 50,000 open sessions by copying
the prototypes' rows (sessions, and every table that refers to them: timers, the action log, used words,
news) with new ids, channels and seeds, in SQL on the bench's own file while no manager is open (the manager
loads sessions when first used). At each size every session is loaded once (the memory figure), then the
load runs. Each session's next moves are worked out before a run with the rules alone (`step` from the
session's seed and version, the engine's own path), so that the load generator's work (drawing words,
finding a TopWords placement) stays out of the figures; the engine checks, judges and applies every action
it is sent. Timers are set to an hour so that none falls due on its own: the bench fires them.

Every figure comes with its anchor measured in the same run on the same disk, the ratio and the target.
The anchors are raw commits through aiosqlite with the PRAGMAs of the store's writer (its `synchronous`
mode read from the store), single-row and eight-row (one INSERT of eight rows a commit).

`--sizes 1000,10000` runs those sizes only. `--only memory` leaves out the encoding, start-up, open-loop and
writer-batch figures: at each size every session is loaded once (the memory figure), then the throughput runs
play on (as in the full run: the next size copies the prototypes as they left them, so the memory figure at
10,000 is the full run's only after the 1,000 stage). `--trace N` also prints the N largest shares that
tracemalloc finds in what the loaded sessions hold, by line and by file (its own overhead then inflates the
RSS figure).
"""

from __future__ import annotations

import asyncio
import contextlib
import cProfile
import ctypes
import gc
import itertools
import json
import os
import pstats
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiosqlite  # noqa: E402
import orjson  # noqa: E402

from bot import monitor  # noqa: E402
from bot.engine.errors import GameError  # noqa: E402
from bot.engine.game import Game, step  # noqa: E402
from bot.engine.sessions import DISCORD_EPOCH_MS, SessionManager  # noqa: E402
from bot.games import make_game  # noqa: E402
from bot.store import Store, writer  # noqa: E402

SIZES = (1_000, 10_000, 50_000)
TARGET_SIZE = 10_000  # the throughput and memory targets are stated at this size
CONCURRENCY = 64
TARGET_RATE = 5_000  # persisted actions/s
TARGET_EIGHT_SHARE = 0.25  # of the rows/s of raw eight-row commits
RUNS = {1_000: 2, 10_000: 3, 50_000: 2}  # throughput runs at each size: the best is the figure
RUN_SECONDS = 3.0
OPEN_LOOP_RATE = 200  # actions/s
# Long enough that the p99 is the 30th slowest action: one hold of the disk itself (a raw commit of the
# anchors took 300–440 ms at times on this machine's virtual disk) then delays 10–50 actions, not the figure.
OPEN_LOOP_SECONDS = 15.0
PROBE_INTERVAL = 0.05  # the disk probe beside the open loop: one raw single-row commit every 50 ms
OPEN_LOOP_SIZES = (10_000, 50_000)
TARGET_P99_MS = 10.0
TARGET_MEMORY_KB = 20.0
# No writer stall longer: the log's catch-up holding the commits, at any size and load; and in the open loop
# (the act() row) no batch longer beyond the disk's own longest raw commit in the same seconds. Under full load a batch is one commit of up to CONCURRENCY actions (their
# SQL and one sync), printed for reference beside the longest raw commit of the anchors.
TARGET_BATCH_MS = 20.0
TARGET_ENCODING_GROWTH = 1.5  # round 20 against round 1
TARGET_ONLINE_S = 1.5
ONLINE_SIZE = 10_000
ANCHOR_SECONDS = 1.5
ANCHOR_RUNS = 3
ANCHOR_ROW = "x" * 200

TOPSTOP_BASE = 40  # prototypes of each kind
TOPSTOP_ADVANCED = 8
TOPWORDS = 48
# Six-player Top Stop games played to round 20 for the encoding figure. At round 20 a snapshot (55 KB) is
# written once the log since the last one holds as many bytes, a few times in a round: with 6 games (150
# actions) whether one more fell in the window moved the figure from 14 to 33 µs between runs; 18 games even
# that out.
ENCODING_GAMES = 18
# Rounds 1–2 against 19–20: each pair has a round with a dispute and its votes and one with a STOP, so that
# both measure the same mix of actions.
ENCODING_ROUNDS = ((1, 2), (19, 20))
REFUSALS = 0.1  # share of moves preceded by a refused action
LANGUAGES = ("en", "en", "fr", "de")  # Top Stop tables' languages, in turn
# Every window an hour: the bench fires the timers itself, and none falls due during a run.
HOUR = {"writing_time": 3600, "review_time": 3600, "spin_time": 3600, "vote_time": 3600, "grace": 3600}
SERIALS = itertools.count()


def snowflake() -> str:
    """An interaction id as Discord makes it: the moment it was made in its high bits, then a serial."""
    return str(((int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22) + next(SERIALS) % (1 << 22))


# What the engine spends serialising an action to persist it: functions of these names (the outermost
# call of a chain counted once), C encoders included.
ENCODERS = re.compile(r"encode|dump|serial|delta|diff|patch|compress", re.IGNORECASE)
SERIALISERS = ("orjson", "pickle", "json", "marshal", "msgpack", "zlib", "zstd", "lz4")


def rss_kb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1024


def trim_memory() -> None:
    """Freed memory back to the system, so that one size's sessions do not flatter the next one's memory."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def mark(ok: bool) -> str:
    return "met" if ok else "MISSED"


def pct(values: list[float], q: int) -> float:
    """The q-th percentile in ms."""
    if len(values) < 2:
        return (values[0] if values else 0.0) * 1000
    return statistics.quantiles(values, n=100)[q - 1] * 1000


# -- the anchors ------------------------------------------------------------------------------------


def store_synchronous() -> tuple[str, str]:
    """The `synchronous` mode the store commits with by default, and where it is stated."""
    return writer.DEFAULT_SYNCHRONOUS, "bot.store.writer.DEFAULT_SYNCHRONOUS"


def anchor_pragmas(synchronous: str) -> list[str]:
    pragmas = ["PRAGMA journal_mode=WAL"]
    pragmas += [p for p in writer.PRAGMAS if "synchronous" not in p.lower()]
    return [*pragmas, f"PRAGMA synchronous={synchronous}"]


async def raw_commits(
    path: Path, rows: int, pragmas: list[str], seconds: float = ANCHOR_SECONDS
) -> tuple[float, list[float]]:
    """Anchor: commits of `rows` rows each (one INSERT statement, autocommit), one after another through
    aiosqlite as the bot's own connection works, with the writer's PRAGMAs: commits/s and each one's time."""
    async with aiosqlite.connect(path, isolation_level=None) as db:
        for pragma in pragmas:
            await db.execute(pragma)
        await db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
        insert = "INSERT INTO t (v) VALUES " + ", ".join(["(?)"] * rows)
        values = (ANCHOR_ROW,) * rows
        latencies = []
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            start = time.perf_counter()
            await db.execute(insert, values)
            latencies.append(time.perf_counter() - start)
    return len(latencies) / sum(latencies), latencies


@dataclass
class Anchors:
    synchronous: str
    source: str
    single: float  # single-row commits/s
    eight: float  # rows/s in commits of eight rows
    single_runs: list[float]
    eight_runs: list[float]
    commit_p99_ms: float  # of the best single-row run
    longest_commit_ms: float  # the longest raw commit of all runs: the disk's own hold under steady commits


async def measure_anchors(folder: Path) -> Anchors:
    synchronous, source = store_synchronous()
    pragmas = anchor_pragmas(synchronous)
    single = [await raw_commits(folder / f"anchor1-{n}.db", 1, pragmas) for n in range(ANCHOR_RUNS)]
    eights = [await raw_commits(folder / f"anchor8-{n}.db", 8, pragmas) for n in range(ANCHOR_RUNS)]
    eight = [run[0] * 8 for run in eights]
    best = max(single, key=lambda run: run[0])
    rates = [run[0] for run in single]
    longest = max(max(run[1]) for run in (*single, *eights)) * 1000
    return Anchors(synchronous, source, best[0], max(eight), rates, eight, pct(best[1], 99), longest)


# -- moves: what players and timers do ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Move:
    """One thing sent to the engine: an action the rules take ("act"), one they refuse ("refused"), or a
    due timer fired by its key ("timer")."""

    kind: str
    player: str | None = None
    action: dict[str, Any] | None = None
    key: str = ""


def timer_move(game: Game, state: Any, do: str | None = None) -> Move | None:
    for timer in game.timers(state):
        if do is None or timer.action.get("do") == do:
            return Move("timer", action=dict(timer.action), key=timer.key)
    return None


def without_player(action: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in action.items() if key != "player"}


def topstop_move(game: Game, state: Any, rng: random.Random) -> Move | None:
    """What a six-player table does next: everyone writes, a STOP in even rounds, a dispute and its votes
    in odd rounds, the timers close writing and the review; spins, draws and choices by whoever is awaited."""
    phase = state.phase
    number = len(state.rounds)
    if phase == "writing":
        current = state.round
        seated = [p for p in current.players if p not in state.left]
        waiting = [p for p in seated if p not in current.submissions and p != current.stopped_by]
        if waiting:
            action = game.sample_action(state, waiting[0], rng)
            if action is not None:
                return Move("act", waiting[0], without_player(action))
        if number % 2 == 0 and current.stopped_by is None:
            written = [p for p in seated if p in current.submissions]
            if written:
                return Move("act", rng.choice(written), {"do": "stop"})
        return timer_move(game, state, "end_writing")
    if phase == "review":
        current = state.round
        dispute = current.dispute
        if dispute is not None:
            voter = next((p for p in dispute.voters if p not in dispute.votes), None)
            if voter is not None:
                return Move(
                    "act", voter, {"do": "vote", "accept": rng.random() < 0.5, "dispute": dispute.number}
                )
            return timer_move(game, state, "close_vote")
        if number % 2 == 1 and current.opened_disputes == 0:
            disputer = rng.choice([p for p in current.players if p not in state.left])
            offered = [a for a in game.legal_actions(state, disputer) or [] if a["do"] == "dispute"]
            if offered:
                return Move("act", disputer, without_player(rng.choice(offered)))
        return timer_move(game, state, "end_round")
    for player in state.seats:
        offered = [
            a for a in game.legal_actions(state, player) or [] if a["do"] in ("spin", "draw", "choose")
        ]
        if offered:
            return Move("act", player, without_player(rng.choice(offered)))
    return timer_move(game, state)


def topstop_refusal(state: Any, rng: random.Random) -> Move | None:
    """An action a player sends that the rules refuse in this phase."""
    seated = [p for p in state.seats if p not in state.left]
    if state.phase == "review":
        dispute = state.round.dispute
        if dispute is None:  # a word submitted after writing closed
            return Move("refused", rng.choice(seated), {"do": "submit", "words": ["late"]})
        voted = list(dispute.votes)
        voter = rng.choice(voted) if voted else dispute.disputer  # a second vote, or one on one's own dispute
        return Move("refused", voter, {"do": "vote", "accept": True, "dispute": dispute.number})
    if state.phase == "writing":  # a dispute before the lists are out
        return Move("refused", rng.choice(seated), {"do": "dispute", "of": rng.choice(seated), "word": "x"})
    return Move("refused", rng.choice(seated), {"do": "submit", "words": ["early"]})


def topwords_moves(game: Game, state: Any, seed: int, version: int, rng: random.Random) -> list[Move]:
    """The player to move places a tile where the rules and the dictionary take it (the example the rules
    offer, else one found among the one-tile placements), or passes; one placement in ten is first tried
    with a word the dictionary refuses."""
    if state.phase != "play":
        move = timer_move(game, state)
        return [move] if move is not None else []
    player = state.current
    offered = game.legal_actions(state, player) or []
    place = next((without_player(a) for a in offered if a["do"] == "place"), None)
    if place is None:
        place = one_tile(game, state, seed, version, player, rng, wanted=None)
    if place is None:
        return [Move("act", player, {"do": "pass"})]
    moves = []
    if rng.random() < REFUSALS:
        refused = one_tile(game, state, seed, version, player, rng, wanted="invalid_word")
        if refused is not None:
            moves.append(Move("refused", player, refused))
    moves.append(Move("act", player, place))
    return moves


def one_tile(
    game: Game, state: Any, seed: int, version: int, player: str, rng: random.Random, wanted: str | None
) -> dict[str, Any] | None:
    """A one-tile placement on or beside the board's stacks that the rules take (`wanted` None), or that
    they refuse with a key ending in `wanted` (strict mode: "invalid_word", a word the dictionary refuses)."""
    size = int(len(state.board) ** 0.5)
    stacks = [divmod(i, size) for i, stack in enumerate(state.board) if stack]
    letters = sorted(set(state.racks[player]))
    tries = [
        (row + dr, col + dc, letter)
        for row, col in stacks
        for dr, dc in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1))
        for letter in letters
        if 0 <= row + dr < size and 0 <= col + dc < size
    ]
    rng.shuffle(tries)
    for row, col, letter in tries[:150]:
        action = {"do": "place", "tiles": [[row, col, letter]]}
        try:
            step(game, state, seed, version, {**action, "player": player})
        except GameError as error:
            if wanted is not None and error.key.endswith(wanted):
                return action
            continue
        if wanted is None:
            return action
    return None


def next_moves(
    game: Game, state: Any, seed: int, version: int, rng: random.Random, refusals: bool
) -> list[Move]:
    if game.name == "topwords":
        return (
            topwords_moves(game, state, seed, version, rng)
            if refusals
            else [m for m in topwords_moves(game, state, seed, version, rng) if m.kind != "refused"]
        )
    moves = []
    if refusals and rng.random() < REFUSALS:
        refusal = topstop_refusal(state, rng)
        if refusal is not None:
            moves.append(refusal)
    move = topstop_move(game, state, rng)
    if move is not None:
        moves.append(move)
    return moves


def script(
    game: Game,
    state: Any,
    seed: int,
    version: int,
    count: int,
    rng: random.Random,
    *,
    refusals: bool = True,
    until: Callable[[Any], bool] | None = None,
) -> list[Move]:
    """The session's next moves, worked out with the rules alone as the engine will apply them: at least
    `count` (a refusal comes with the move after it), fewer if the game ends or `until(state)` holds first.
    A refusal the rules would take is dropped."""
    moves: list[Move] = []
    while len(moves) < count and game.outcome(state) is None and not (until is not None and until(state)):
        planned = next_moves(game, state, seed, version, rng, refusals)
        if not planned:
            break
        for move in planned:
            action = dict(move.action or {})
            if move.player is not None:
                action["player"] = move.player
            try:
                _, applied = step(game, state, seed, version, action)
            except GameError:
                if move.kind == "refused":
                    moves.append(move)
                    continue
                raise
            if move.kind == "refused":
                continue  # taken after all: not what was meant
            state = applied.state
            version += 1
            moves.append(move)
    return moves


# -- the sessions --------------------------------------------------------------------------------


@dataclass
class Tally:
    applied: int = 0
    refused: int = 0
    out_of_step: int = 0
    latencies: list[float] = field(default_factory=list)


class Tables:
    """The manager's sessions and what is sent to them."""

    def __init__(self, manager: SessionManager) -> None:
        self.manager = manager
        self.out_of_step: set[int] = set()

    async def send(self, sid: int, move: Move, tally: Tally) -> None:
        """One move; its latency (act or fire_timer) and whether it did what the rules said it would."""
        m = self.manager
        started = time.perf_counter()
        try:
            if move.kind == "timer":
                result = await m.fire_timer(sid, move.key)
                ok = result is not None
            else:
                assert move.action is not None
                await m.act(sid, move.player, move.action, interaction_id=snowflake())
                ok = move.kind == "act"
        except GameError:
            ok = move.kind == "refused"
        took = time.perf_counter() - started
        tally.latencies.append(took)
        if not ok:
            tally.out_of_step += 1
            self.out_of_step.add(sid)  # its later moves were worked out from a state it does not have
        elif move.kind == "refused":
            tally.refused += 1
        else:
            tally.applied += 1

    async def moves_for(
        self,
        sid: int,
        count: int,
        rng: random.Random,
        *,
        refusals: bool = True,
        until: Callable[[Any], bool] | None = None,
    ) -> list[Move]:
        """The session's next moves from the state the engine holds (see `script`)."""
        record = await self.manager.session(sid)
        if not record.is_open:
            return []
        state = await self.manager.state(sid)
        game = self.manager.games[record.game]
        return script(game, state, record.seed, record.version, count, rng, refusals=refusals, until=until)

    async def plan(self, ids: list[int], length: int, rng: random.Random) -> list[tuple[int, Move]]:
        """`length` moves on sessions picked at random, each session's in its own order (worked out from
        the state the engine holds now, so a session out of step before is in step again)."""
        self.out_of_step.clear()
        picks = [rng.choice(ids) for _ in range(length)]
        scripts = {sid: await self.moves_for(sid, n, rng) for sid, n in Counter(picks).items()}
        taken: Counter[int] = Counter()
        planned = []
        for sid in picks:
            moves = scripts[sid]
            if taken[sid] < len(moves):
                planned.append((sid, moves[taken[sid]]))
                taken[sid] += 1
        return planned

    async def play_until(
        self, sid: int, done: Callable[[Any], bool], rng: random.Random, tally: Tally
    ) -> None:
        """Play the session move by move (refusals included) until `done(state)` or its game ends."""
        while not done(await self.manager.state(sid)):
            moves = await self.moves_for(sid, 1, rng)
            if not moves:
                return
            for move in moves:
                await self.send(sid, move, tally)
            if sid in self.out_of_step:
                return


# -- prototypes and copies ---------------------------------------------------------------------------


def players_of(index: int, count: int) -> list[str]:
    return [str(310_000_000_000_000_000 + index * 16 + seat) for seat in range(count)]


async def open_table(
    manager: SessionManager, index: int, game: str, options: dict[str, Any], seats: int
) -> int:
    players = players_of(index, seats)
    lobby = await manager.open_lobby(index, index, game, players[0], options, f"Player {players[0][-4:]}")
    for player in players[1:]:
        await manager.join(lobby.id, player, f"Player {player[-4:]}")
    await manager.start_game(lobby.id, players[0])
    return lobby.id


async def build_prototypes(tables: Tables) -> list[int]:
    """Top Stop tables two judged rounds in and somewhere in their third; TopWords 10–30 moves in."""
    kinds = [("topstop", "base")] * TOPSTOP_BASE + [("topstop", "advanced")] * TOPSTOP_ADVANCED
    kinds += [("topwords", "strict")] * TOPWORDS
    tally = Tally()

    async def prototype(index: int, game: str, mode: str) -> int:
        rng = random.Random(index)
        if game == "topstop":
            options = {"language": LANGUAGES[index % len(LANGUAGES)], **HOUR}
            if mode == "advanced":
                options = {**options, "language": "en", "mode": "advanced"}
            sid = await open_table(tables.manager, index, game, options, 6)
            await tables.play_until(sid, lambda s: len(s.rounds) >= 3, rng, tally)
            # Somewhere in the third round (a dispute and its votes) or the fourth (a STOP and its grace).
            extra = index * 7 % 25
            seen = 0

            def spread(state: Any) -> bool:
                nonlocal seen
                seen += 1
                return seen > extra or len(state.rounds) > 4

            await tables.play_until(sid, spread, rng, tally)
        else:
            sid = await open_table(
                tables.manager, index, game, {"mode": "strict", "language": "de"}, 2 + index % 2
            )
            moves = 10 + index % 21
            await tables.play_until(sid, lambda s: s.turn_no >= moves, rng, tally)
        return sid

    ids = []
    for start in range(0, len(kinds), 16):
        batch = range(start, min(len(kinds), start + 16))
        ids += await asyncio.gather(*(prototype(i + 1, *kinds[i]) for i in batch))
    if tally.out_of_step:
        print(f"  warning: {tally.out_of_step} prototype moves out of step with the engine")
    where = Counter([where_in_game(await tables.manager.state(sid)) for sid in ids])
    print(f"  prototypes: {', '.join(f'{n} {name}' for name, n in sorted(where.items()))}")
    return ids


def where_in_game(state: Any) -> str:
    """Where a prototype stands, for the set-up's summary."""
    if not hasattr(state, "rounds"):
        return f"TopWords {state.phase}"
    mode = "advanced" if state.advanced is not None else "base"
    phase = state.phase
    if phase == "writing" and state.round.stopped_by is not None:
        phase = "writing after STOP"
    elif phase == "review" and state.round.dispute is not None:
        phase = "review, vote open"
    elif phase == "review" and state.round.disputes:
        phase = "review, vote closed"
    return f"Top Stop {mode} round {len(state.rounds)} {phase}"


def session_tables(connection: sqlite3.Connection) -> list[tuple[str, str, list[str]]]:
    """Every table whose rows belong to a session (a foreign key to sessions, or a `session_id` column): the
    table, its session column, and the columns a copy sets (an INTEGER PRIMARY KEY of the row's own is
    numbered afresh)."""
    found = []
    names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for name in names:
        if name == "sessions" or name.startswith("sqlite_"):
            continue
        columns = connection.execute(f"PRAGMA table_info({name})").fetchall()
        keys = [
            row[3] for row in connection.execute(f"PRAGMA foreign_key_list({name})") if row[2] == "sessions"
        ]
        column = keys[0] if keys else "session_id" if any(c[1] == "session_id" for c in columns) else None
        if column is None:
            continue
        primary = [c for c in columns if c[5]]
        own_id = {c[1] for c in primary if len(primary) == 1 and c[2].upper() == "INTEGER" and c[1] != column}
        found.append((name, column, [c[1] for c in columns if c[1] not in own_id]))
    return found


def clone_sessions(path: Path, prototypes: list[int], total: int) -> None:
    """Grow the open sessions to `total` by copying the open prototypes, and every row that belongs to
    them, with new ids, channels and seeds: id and channel are the prototype's plus a multiple of a stride
    above every prototype's, so copies never collide."""
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA synchronous=OFF")  # set-up, not measured
        (have,) = connection.execute(
            "SELECT COUNT(*) FROM sessions WHERE status IN ('lobby', 'active')"
        ).fetchone()
        listed = ",".join(str(sid) for sid in prototypes)
        open_ids = [
            row[0]
            for row in connection.execute(
                f"SELECT id FROM sessions WHERE status = 'active' AND id IN ({listed})"
            )
        ]
        (channel,) = connection.execute(
            f"SELECT MAX(channel_id) FROM sessions WHERE id IN ({listed})"
        ).fetchone()
        stride = 10 ** len(str(max(*prototypes, channel)))
        (top,) = connection.execute("SELECT MAX(id) FROM sessions").fetchone()
        columns = [row[1] for row in connection.execute("PRAGMA table_info(sessions)") if row[1] != "id"]
        fresh = {"channel_id": "channel_id + :offset", "seed_text": "CAST(abs(random()) AS TEXT)"}
        chosen_columns = ", ".join(fresh.get(c, c) for c in columns)
        others = session_tables(connection)
        copy = top // stride + 1
        connection.execute("BEGIN")
        while have < total:
            chosen = ",".join(str(sid) for sid in open_ids[: total - have])
            offset = {"offset": copy * stride}
            connection.execute(
                f"INSERT INTO sessions (id, {', '.join(columns)}) SELECT id + :offset, {chosen_columns}"
                f" FROM sessions WHERE id IN ({chosen})",
                offset,
            )
            for table, column, table_columns in others:
                # OR IGNORE: a row keyed by something else than its session (a server's word decided in
                # one) stays the one row.
                copied = ", ".join(f"{c} + :offset" if c == column else c for c in table_columns)
                connection.execute(
                    f"INSERT OR IGNORE INTO {table} ({', '.join(table_columns)}) SELECT {copied} FROM {table}"
                    f" WHERE {column} IN ({chosen})",
                    offset,
                )
            have += min(len(open_ids), total - have)
            copy += 1
        connection.execute("COMMIT")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()


# -- the figures ----------------------------------------------------------------------------------


async def drive(tables: Tables, planned: list[tuple[int, Move]], seconds: float) -> tuple[float, Tally]:
    """64 players at once, each sending the plan's next move as soon as their last one is answered."""
    tally = Tally()
    moves: Iterator[tuple[int, Move]] = iter(planned)
    end = time.perf_counter() + seconds

    async def player() -> None:
        while time.perf_counter() < end:
            entry = next(moves, None)
            if entry is None:
                return
            sid, move = entry
            if sid not in tables.out_of_step:
                await tables.send(sid, move, tally)

    started = time.perf_counter()
    await asyncio.gather(*(player() for _ in range(CONCURRENCY)))
    return tally.applied / (time.perf_counter() - started), tally


async def open_loop(tables: Tables, planned: list[tuple[int, Move]], rate: float) -> Tally:
    """The plan's moves started on a fixed schedule, whatever the previous ones are doing."""
    tally = Tally()
    tasks = []
    begin = time.perf_counter()
    for n, (sid, move) in enumerate(planned):
        await asyncio.sleep(max(0.0, begin + n / rate - time.perf_counter()))
        if sid not in tables.out_of_step:
            tasks.append(asyncio.create_task(tables.send(sid, move, tally)))
    await asyncio.gather(*tasks)
    return tally


async def disk_probe(path: Path, pragmas: list[str], stop: asyncio.Event) -> list[float]:
    """Raw single-row commits on a file of their own on the same disk, one every PROBE_INTERVAL until `stop`:
    how long the disk itself held a commit during the same seconds (the anchors ran minutes earlier)."""
    latencies = []
    async with aiosqlite.connect(path, isolation_level=None) as db:
        for pragma in pragmas:
            await db.execute(pragma)
        await db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
        while not stop.is_set():
            start = time.perf_counter()
            await db.execute("INSERT INTO t (v) VALUES (?)", (ANCHOR_ROW,))
            latencies.append(time.perf_counter() - start)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), PROBE_INTERVAL)
    return latencies


async def open_loop_beside_probe(
    tables: Tables, planned: list[tuple[int, Move]], rate: float, folder: Path
) -> tuple[Tally, list[float]]:
    """The open loop, with the disk probe running beside it: the loop's tally and the probe's commit times."""
    stop = asyncio.Event()
    pragmas = anchor_pragmas(store_synchronous()[0])
    probe = asyncio.create_task(disk_probe(folder / f"probe-{next(SERIALS)}.db", pragmas, stop))
    try:
        tally = await open_loop(tables, planned, rate)
    finally:
        stop.set()
        disk = await probe
    return tally, disk


def encoding_seconds(profile: cProfile.Profile) -> tuple[float, list[tuple[str, float]]]:
    """Time in serialising functions, each chain counted once (a call from another such function is part
    of its caller's time); and the largest of them."""
    stats = pstats.Stats(profile).stats

    def is_encoder(func: tuple[str, int, str]) -> bool:
        filename, _, name = func
        if not ENCODERS.search(name):
            return False
        if (
            filename == "~"
        ):  # a C function: "<built-in method orjson.dumps>", "<built-in method _pickle.dumps>"
            return any(library in name for library in SERIALISERS)
        parts = Path(filename).parts
        return "bot" in parts or "json" in parts or Path(filename).stem == "pickle"

    # Functions only ever called from within an encoder (directly or through such functions): a call they
    # make to an encoder is part of the outer encoder's time, not another one (e.g. the hook through which
    # orjson asks a compact part of the state for its JSON, which decompresses it).
    inside: set[tuple[str, int, str]] = set()
    grown = True
    while grown:
        grown = False
        for func, (_, _, _, _, callers) in stats.items():
            if func in inside or is_encoder(func) or not callers:
                continue
            if all(is_encoder(caller) or caller in inside for caller in callers):
                inside.add(func)
                grown = True
    total = 0.0
    parts = []
    for func, (_, _, _, _, callers) in stats.items():
        if not is_encoder(func):
            continue
        outer = sum(
            edge[3] for caller, edge in callers.items() if not is_encoder(caller) and caller not in inside
        )
        if outer:
            total += outer
            parts.append((f"{Path(func[0]).stem}:{func[2]}" if func[0] != "~" else func[2], outer))
    return total, sorted(parts, key=lambda part: -part[1])


async def encoding_figure(tables: Tables) -> bool:
    """ENCODING_GAMES six-player Top Stop games played to round 20; rounds 1–2 and 19–20 sent under the
    profiler."""
    manager = tables.manager
    rng = random.Random(2020)
    options = {"language": "en", "target": 10_000, **HOUR}
    ids = [await open_table(manager, 900_000 + n, "topstop", options, 6) for n in range(ENCODING_GAMES)]
    tally = Tally()
    measured: dict[int, tuple[float, int, float, list[tuple[str, float]]]] = {}
    for first_round, last_round in ENCODING_ROUNDS:
        # Up to the round's spin, then every move of the round, worked out before the profiler starts.
        await asyncio.gather(
            *(
                tables.play_until(
                    sid,
                    lambda s, n=first_round: len(s.rounds) >= n and s.phase == "spin",
                    random.Random(sid),
                    tally,
                )
                for sid in ids
            )
        )
        plans = []
        sizes = []
        for sid in ids:
            state = await manager.state(sid)
            game = manager.games["topstop"]
            sizes.append(len(orjson.dumps(game.dump(state))))
            # No refusals here: the figure is per persisted action.
            moves = await tables.moves_for(
                sid, 10**6, rng, refusals=False, until=lambda s, n=last_round: len(s.rounds) > n
            )
            plans.append((sid, moves))
        profile = cProfile.Profile()
        before = tally.applied
        # No automatic collection meanwhile: the profiler would charge it to whichever function allocated.
        gc.collect()
        gc.disable()
        profile.enable()
        try:
            await asyncio.gather(*(send_all(tables, sid, moves, tally) for sid, moves in plans))
        finally:
            profile.disable()
            gc.enable()
        applied = tally.applied - before
        seconds, parts = encoding_seconds(profile)
        measured[first_round] = (seconds / applied * 1e6, applied, statistics.mean(sizes) / 1024, parts)
    for sid in ids:
        await manager.cancel(sid, "bench over")
    if tally.out_of_step:
        print(f"  warning: {tally.out_of_step} moves out of step with the engine")
    (first_pair, last_pair) = ENCODING_ROUNDS
    first, last = measured[first_pair[0]], measured[last_pair[0]]
    growth = last[0] / first[0] if first[0] else float("inf")
    ok = growth <= TARGET_ENCODING_GROWTH
    top = ", ".join(f"{name} {seconds / last[1] * 1e6:.1f}" for name, seconds in last[3][:4])
    print(
        f"encoding cost per persisted action, six-player Top Stop, rounds {last_pair[0]}–{last_pair[1]}:"
        f" {last[0]:.1f} µs"
        f" ({last[1]} actions, state {last[2]:.1f} KB as JSON at the start; µs: {top}); anchor rounds"
        f" {first_pair[0]}–{first_pair[1]}:"
        f" {first[0]:.1f} µs ({first[1]} actions, state {first[2]:.1f} KB); ratio {growth:.1f}×; target"
        f" ≤ {TARGET_ENCODING_GROWTH}×: {mark(ok)}"
    )
    return ok


async def send_all(tables: Tables, sid: int, moves: list[Move], tally: Tally) -> None:
    for move in moves:
        await tables.send(sid, move, tally)


async def load_all(manager: SessionManager, ids: list[int]) -> float:
    started = time.perf_counter()
    for start in range(0, len(ids), 256):
        await asyncio.gather(*(manager.session(sid) for sid in ids[start : start + 256]))
    return time.perf_counter() - started


async def open_ids(store: Store) -> list[int]:
    rows = await store.db.fetch_all("SELECT id FROM sessions WHERE status = 'active' ORDER BY id")
    return [row[0] for row in rows]


@dataclass
class Stage:
    size: int
    setup: float = 0.0
    load: float = 0.0
    memory_kb: float = 0.0
    results: list[bool] = field(default_factory=list)


async def stage_figures(
    path: Path,
    games: dict[str, Game],
    size: int,
    anchors: Anchors,
    stage: Stage,
    *,
    only_memory: bool = False,
    play_on: bool = True,
    trace: int = 0,
) -> None:
    store = await Store.open(path)
    manager = SessionManager(store, games, lobby_seconds=3600)
    try:
        await manager.start()
        tables = Tables(manager)
        ids = await open_ids(store)
        trim_memory()
        before = rss_kb()
        if trace:
            tracemalloc.start()
        stage.load = await load_all(manager, ids)
        gc.collect()
        stage.memory_kb = (rss_kb() - before) / len(ids)
        if trace:
            print_trace(tracemalloc.take_snapshot(), len(ids), trace)
            tracemalloc.stop()
        print(
            f"  {len(ids):,} open sessions; every one used once (loaded) in {stage.load:.1f} s"
            f" ({stage.load / len(ids) * 1000:.2f} ms a session); {stage.memory_kb:.1f} KB RSS a session"
        )
        if only_memory and not play_on:
            return
        rng = random.Random(size)
        runs = []
        length = 10_000
        store.db.longest_commit = store.db.longest_catch_up = 0.0  # from here on, at this size
        for _ in range(RUNS[size]):
            prepared = time.perf_counter()
            planned = await tables.plan(ids, length, rng)
            print(f"  {len(planned):,} moves worked out in {time.perf_counter() - prepared:.1f} s")
            gc.collect()
            rate, tally = await drive(tables, planned, RUN_SECONDS)
            runs.append((rate, tally))
            length = max(4_000, int(rate * RUN_SECONDS * 1.25))  # enough moves for the next run
        saturated_batch = store.db.longest_commit * 1000  # the writer's longest batch under full load
        saturated_catch_up = store.db.longest_catch_up * 1000  # of which the log's catch-up
        rate, tally = max(runs, key=lambda run: run[0])
        out = sum(run[1].out_of_step for run in runs)
        longest = max(max(run[1].latencies, default=0.0) for run in runs)  # a writer stall shows here
        eight_share = rate / anchors.eight
        single_share = rate / anchors.single
        target = size == TARGET_SIZE
        ok = rate >= TARGET_RATE and eight_share >= TARGET_EIGHT_SHARE
        if target and not only_memory:
            stage.results.append(ok)
        refused = tally.refused / max(1, tally.applied + tally.refused)
        print(
            f"persisted actions/s, {size:,} live mid-game sessions, {CONCURRENCY} concurrent: {rate:,.0f}/s,"
            f" best of {' / '.join(f'{run[0]:,.0f}' for run in runs)} (p50 {pct(tally.latencies, 50):.1f} ms,"
            f" p99 {pct(tally.latencies, 99):.1f} ms, longest {longest * 1000:.0f} ms in any run; {refused:.0%} of the actions sent were refused"
            f"{f'; {out} out of step' if out else ''}); anchors raw commits {anchors.single:,.0f}/s single-row,"
            f" {anchors.eight:,.0f} rows/s eight-row; ratio {single_share:.0%} / {eight_share:.0%}; target"
            f" ≥ {TARGET_RATE:,}/s and ≥ {TARGET_EIGHT_SHARE:.0%} of eight-row"
            + (f": {mark(ok)}" if target else f" (stated at {TARGET_SIZE:,}): {mark(ok)} here, for reference")
        )
        if only_memory:
            return
        if size in OPEN_LOOP_SIZES:
            planned = await tables.plan(ids, int(OPEN_LOOP_RATE * OPEN_LOOP_SECONDS), rng)
            gc.collect()
            store.db.longest_commit = store.db.longest_catch_up = 0.0
            tally, disk = await open_loop_beside_probe(tables, planned, OPEN_LOOP_RATE, path.parent)
            p99 = pct(tally.latencies, 99)
            ok = p99 <= TARGET_P99_MS
            stage.results.append(ok)
            anchor_ms = anchors.commit_p99_ms
            print(
                f"act() open loop at {OPEN_LOOP_RATE}/s for {OPEN_LOOP_SECONDS:.0f} s, {size:,} sessions:"
                f" p50 {pct(tally.latencies, 50):.2f} ms, p99 {p99:.2f} ms, longest {max(tally.latencies) * 1000:.1f} ms"
                f"{f'; {tally.out_of_step} out of step' if tally.out_of_step else ''}; anchor one raw commit"
                f" p99 {anchor_ms:.2f} ms; ratio {p99 / anchor_ms:.1f}×; target ≤ {TARGET_P99_MS:.0f} ms: {mark(ok)}"
            )
            print(
                f"  the disk beside the open loop: {len(disk)} raw single-row commits on a file of their own,"
                f" p50 {pct(disk, 50):.2f} ms, p99 {pct(disk, 99):.2f} ms, longest {max(disk) * 1000:.1f} ms"
            )
        # A writer stall is the log's checkpoint holding the commits: at any size, under full load as in the
        # open loop; and in the open loop (the act() row) no batch may hold the writer longer of its own.
        catch_up = max(saturated_catch_up, store.db.longest_catch_up * 1000)
        ok = catch_up <= TARGET_BATCH_MS
        stage.results.append(ok)
        print(
            f"longest log catch-up holding the writer, {size:,} sessions: {catch_up:.1f} ms (throughput runs"
            f" {saturated_catch_up:.1f} ms"
            + (f", open loop {store.db.longest_catch_up * 1000:.1f} ms" if size in OPEN_LOOP_SIZES else "")
            + f"); anchor one raw commit p99 {anchors.commit_p99_ms:.2f} ms;"
            f" ratio {catch_up / anchors.commit_p99_ms:.1f}×; target ≤ {TARGET_BATCH_MS:.0f} ms: {mark(ok)}"
        )
        if size in OPEN_LOOP_SIZES:
            # A stall of the writer's own: what its longest batch took beyond the longest the disk itself took
            # to commit one raw row in the same seconds (this machine's disk holds a commit 25–440 ms now and
            # then, the anchors' own commits included; no writer commits faster than its disk).
            open_batch = store.db.longest_commit * 1000
            disk_hold = max(disk) * 1000
            own = open_batch - disk_hold
            ok = own <= TARGET_BATCH_MS
            stage.results.append(ok)
            print(
                f"longest writer batch, open loop at {OPEN_LOOP_RATE}/s, {size:,} sessions: {open_batch:.1f} ms;"
                f" anchor the disk's longest raw commit beside it {disk_hold:.1f} ms (one raw commit p99 of the"
                f" anchors {anchors.commit_p99_ms:.2f} ms); ratio {open_batch / disk_hold:.1f}×; the writer's own"
                f" {own:.1f} ms; target ≤ {TARGET_BATCH_MS:.0f} ms of its own: {mark(ok)}"
                + (f" (≤ {TARGET_BATCH_MS:.0f} ms in all: {mark(open_batch <= TARGET_BATCH_MS)})")
            )
        print(
            f"longest writer batch under full load, {size:,} sessions (for reference: one commit of up to"
            f" {CONCURRENCY} actions, their SQL and one sync): {saturated_batch:.1f} ms; anchor the longest raw commit"
            f" {anchors.longest_commit_ms:.1f} ms; ratio {saturated_batch / anchors.longest_commit_ms:.1f}×"
        )
    finally:
        await manager.close()
        await store.close()


async def online_figure(path: Path) -> bool:
    """The bot's start in a process of its own, as `python -m bot` and bot/app.py's setup_hook do it: the
    dictionaries warmed in threads from the start while the store opens and the sessions are restored, online
    once both are done."""
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, __file__, "--online", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        print(f"bot online: the start-up process failed:\n{done.stderr}")
        return False
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    online = figures["online"]
    ok = online <= TARGET_ONLINE_S
    print(
        f"bot online (dictionaries ready), {figures['sessions']:,} stored open sessions: {online:.2f} s (store"
        f" open at {figures['store']:.2f} s, sessions restored at {figures['restore']:.2f} s, dictionaries ready"
        f" at {figures['words']:.2f} s); anchor raw SELECT of the open rows {figures['raw']:.2f} s;"
        f" ratio {online / figures['raw']:.1f}×; target ≤ {TARGET_ONLINE_S} s: {mark(ok)}"
    )
    return ok


async def online(path: Path) -> dict[str, float]:
    from bot.games import loaded_games
    from bot.words import WordService

    monitor.share_the_interpreter()
    started = time.perf_counter()
    words = WordService()
    words.import_libraries()
    words_ready = 0.0

    async def warm() -> None:
        nonlocal words_ready
        for language in words.languages:
            await asyncio.to_thread(words.table, language)
        with monitor.loading_long_lived():
            for language in words.languages:
                await asyncio.to_thread(words.warm, language)
        words_ready = time.perf_counter() - started

    # From the start, beside the store's opening, as `python -m bot` does (TopBot.start_warming_words).
    warmer = asyncio.create_task(warm())
    store = await Store.open(path)
    opened = time.perf_counter() - started
    games = {info.name: info.make(words) for info in loaded_games()}
    manager = SessionManager(store, games)
    count = await manager.start()
    await store.votes.all_open()
    restored = time.perf_counter() - started
    await warmer
    ready = time.perf_counter() - started
    raw_started = time.perf_counter()
    await store.db.fetch_all("SELECT * FROM sessions WHERE status IN ('lobby', 'active')")
    raw = time.perf_counter() - raw_started
    await manager.close()
    await store.close()
    return {
        "online": ready,
        "store": opened,
        "restore": restored,
        "words": words_ready,
        "raw": raw,
        "sessions": count,
    }


def print_trace(snapshot: tracemalloc.Snapshot, sessions: int, top: int) -> None:
    """What the loaded sessions hold, per session: by line that allocated it, and by file."""
    for key in ("lineno", "filename"):
        stats = snapshot.statistics(key)
        total = sum(stat.size for stat in stats)
        print(f"  traced {total / sessions / 1024:.1f} KB a session, by {key}:")
        for stat in stats[:top]:
            frame = stat.traceback[0]
            where = f"{Path(frame.filename).name}:{frame.lineno}" if key == "lineno" else frame.filename
            print(f"    {stat.size / sessions:8.0f} B  {stat.count / sessions:6.1f} blocks  {where}")


async def run(sizes: tuple[int, ...] = SIZES, *, only_memory: bool = False, trace: int = 0) -> bool:
    """Every figure; `only_memory`: the memory figure alone, with the throughput runs that come before it
    (they play the prototypes on, which the next size's copies start from)."""
    from bot.words import WordService

    monitor.share_the_interpreter()  # as the bot runs
    began = time.perf_counter()
    results = []
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        anchors = await measure_anchors(folder)
        print(
            f"  anchors, PRAGMAs of the store's writer with synchronous={anchors.synchronous} ({anchors.source}):"
            f" single-row commits {' / '.join(f'{r:,.0f}' for r in anchors.single_runs)}/s, eight-row"
            f" {' / '.join(f'{r:,.0f}' for r in anchors.eight_runs)} rows/s (best of {ANCHOR_RUNS} is the anchor)"
        )
        path = folder / "bench.db"
        words = WordService()
        words.import_libraries()
        for language in words.languages:
            await asyncio.to_thread(words.warm, language)
        games = {"topstop": make_game("topstop", words), "topwords": make_game("topwords", words)}
        started = time.perf_counter()
        store = await Store.open(path)
        manager = SessionManager(store, games, lobby_seconds=3600)
        try:
            tables = Tables(manager)
            prototypes = await build_prototypes(tables)
            built = time.perf_counter() - started
            row = await store.db.fetch_one(
                "SELECT AVG(LENGTH(snapshot)), COUNT(*) FROM sessions WHERE status = 'active'"
            )
            print(
                f"  {row[1]} prototypes played through the manager in {built:.1f} s (stored snapshot"
                f" {row[0] / 1024:.1f} KB on average)"
            )
            if not only_memory:
                results.append(await encoding_figure(tables))
        finally:
            await manager.close()
            await store.close()
        for size in sizes:
            stage = Stage(size)
            started = time.perf_counter()
            clone_sessions(path, prototypes, size)
            stage.setup = time.perf_counter() - started
            megabytes = path.stat().st_size / 2**20
            print(f"== {size:,} live sessions: copied in {stage.setup:.1f} s (database {megabytes:.0f} MB)")
            if size == ONLINE_SIZE and not only_memory:
                results.append(await online_figure(path))
            await stage_figures(
                path,
                games,
                size,
                anchors,
                stage,
                only_memory=only_memory,
                play_on=size != sizes[-1],
                trace=trace,
            )
            results += stage.results
            if size == TARGET_SIZE:
                ok = stage.memory_kb <= TARGET_MEMORY_KB
                results.append(ok)
                row_kb = await snapshot_kb(path)
                print(
                    f"memory per live mid-game session, {size:,} sessions each used once: {stage.memory_kb:.1f} KB"
                    f" RSS; anchor its stored row {row_kb:.1f} KB; ratio {stage.memory_kb / row_kb:.1f}×;"
                    f" target ≤ {TARGET_MEMORY_KB:.0f} KB: {mark(ok)}"
                )
            trim_memory()
    print(f"  run time {time.perf_counter() - began:.0f} s")
    return all(results)


async def snapshot_kb(path: Path) -> float:
    """What one open session's row holds on disk (its columns' lengths), for the memory figure's anchor."""
    connection = sqlite3.connect(path)
    try:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(sessions)")]
        lengths = " + ".join(f"COALESCE(LENGTH({c}), 0)" for c in columns)
        (value,) = connection.execute(
            f"SELECT AVG({lengths}) FROM sessions WHERE status = 'active'"
        ).fetchone()
        return (value or 0) / 1024
    finally:
        connection.close()


def main(argv: Iterable[str]) -> int:
    args = list(argv)
    if args[:1] == ["--online"]:
        print(json.dumps(asyncio.run(online(Path(args[1])))))
        return 0
    sizes = SIZES
    if "--sizes" in args:
        sizes = tuple(int(size) for size in args[args.index("--sizes") + 1].split(","))
    trace = int(args[args.index("--trace") + 1]) if "--trace" in args else 0
    only_memory = "--only" in args and args[args.index("--only") + 1 :][:1] == ["memory"]
    return 0 if asyncio.run(run(sizes, only_memory=only_memory, trace=trace)) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
