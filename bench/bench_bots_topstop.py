"""Top Stop's bot players: decision time per level, and the strength ladder by self-play.

Two-player games played purely through the rules (`bot.engine.game.step`) with the real dictionaries, on a
simulated clock: each bot's move is sent `Move.delay` seconds after it was chosen (as the table layer sends
it, BOT_PACE 1), unless the table moved on and it is no longer legal (the bot then looks again); the
game's timers (writing time, grace after STOP, review, votes) fire at their deadlines; every action is
stamped with the simulated moment it was received, so a list saved after the grace is refused as a
person's would be. Languages rotate over en, fr and de; the seats alternate who sits first.

Figures and targets (issue #43):
- decision time, p50 and p99 of `choose` per level over every decision of the ladder's games (mid-game
  states of every phase): p99 ≤ 50 ms;
- the ladder: each level beats the one below in ≥ 60% of two-player games and hard beats easy in ≥ 80%,
  the Wilson 95% interval's lower bound printed beside each; at least 1,000 games per pairing of the base
  game (`--games`), and a smaller series of the advanced game (`--advanced`, not a target: its cards move
  points at random).
Exit 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.engine.bots import Level, Move, Policy, Seen  # noqa: E402
from bot.engine.errors import GameError  # noqa: E402
from bot.engine.game import Game, Timer, live_action, step  # noqa: E402
from bot.games.topstop import make  # noqa: E402
from bot.games.topstop.bots import make_bot  # noqa: E402
from bot.words import WordService  # noqa: E402

TARGET_P99_MS = 50.0
TARGET_NEXT = 0.60  # each level against the one below
TARGET_HARD_EASY = 0.80
LANGUAGES = ("en", "fr", "de")
PAIRINGS = ((Level.MEDIUM, Level.EASY), (Level.HARD, Level.MEDIUM), (Level.HARD, Level.EASY))
MAX_ACTIONS = 5_000  # a game that has not ended by then counts as no win (none did in our runs)


def wilson_low(wins: int, games: int, z: float = 1.96) -> float:
    """The Wilson score interval's lower bound for a win rate."""
    if games == 0:
        return 0.0
    p = wins / games
    centre = p + z * z / (2 * games)
    margin = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    return (centre - margin) / (1 + z * z / games)


@dataclass
class Timings:
    seconds: dict[Level, list[float]] = field(default_factory=lambda: {level: [] for level in Level})


@dataclass
class Pending:
    due: float
    move: Move


def play(
    game: Game,
    options: Mapping[str, Any],
    bots: Mapping[str, Policy],
    seed: int,
    timings: Timings | None = None,
) -> Any:
    """One game between bots on a simulated clock; returns the final state."""
    players = list(bots)
    rng = random.Random(seed)
    state = game.new_game(options, players, {}, rng)
    now, version = 0.0, 0
    deadlines: dict[str, tuple[float, Timer]] = {}
    pending: dict[str, Pending | None] = dict.fromkeys(players)

    def rearm() -> None:
        armed = {timer.key: timer for timer in game.timers(state)}
        for key in list(deadlines):
            if key not in armed:
                del deadlines[key]
        for key, timer in armed.items():
            deadlines.setdefault(key, (now + timer.seconds, timer))

    def look() -> None:
        for seat, policy in bots.items():
            legal = game.legal_actions(state, seat) or []
            waiting = pending[seat]
            if waiting is not None and _still_legal(waiting.move.action, legal):
                continue
            seen = Seen(seat, game.view_for(state, seat), tuple(legal), game.table_actions(state, seat))
            started = time.perf_counter()
            move = policy.choose(seen, random.Random(f"{seed}:{seat}:{version}"))
            if timings is not None:
                timings.seconds[policy.level].append(time.perf_counter() - started)
            pending[seat] = Pending(now + move.delay, move) if move is not None else None

    rearm()
    look()
    while state.phase != "over" and version < MAX_ACTIONS:
        moves = [(p.due, 0, seat) for seat, p in pending.items() if p is not None]
        timers = [(due, 1, key) for key, (due, _) in deadlines.items()]
        if not moves and not timers:
            break
        due, kind, name = min(moves + timers)
        now = max(now, due)
        if kind == 0:
            waiting = pending[name]
            assert waiting is not None
            pending[name] = None
            action = waiting.move.action
        else:
            action = deadlines.pop(name)[1].action
        try:
            _, applied = step(game, state, seed, version, live_action(game, action, now))
        except GameError:
            look()  # refused (too late, stale): the bot looks again
            continue
        state, version = applied.state, version + 1
        rearm()
        look()
    return state


def _still_legal(action: dict[str, Any], legal: list[dict[str, Any]]) -> bool:
    """The pending move is still offered (a list's words are free: any submit is)."""
    name = action.get("do")
    for offered in legal:
        if offered.get("do") != name:
            continue
        if name == "submit" or all(action.get(k) == v for k, v in offered.items()):
            return True
    return False


def ladder(
    game: Game, words: Any, games: int, mode: str, timings: Timings
) -> list[tuple[Level, Level, int, int]]:
    results = []
    for upper, lower in PAIRINGS:
        wins = 0
        for index in range(games):
            seats = {"p1": upper, "p2": lower} if index % 2 == 0 else {"p1": lower, "p2": upper}
            bots = {seat: make_bot(level, words) for seat, level in seats.items()}
            options = {"language": LANGUAGES[index % len(LANGUAGES)], "mode": mode}
            state = play(
                game,
                options,
                bots,
                seed=zlib.crc32(f"{mode}:{upper}:{lower}:{index}".encode()),
                timings=timings,
            )
            upper_seat = "p1" if seats["p1"] == upper else "p2"
            wins += state.phase == "over" and state.winners == [upper_seat]
        results.append((upper, lower, wins, games))
    return results


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000, help="base games per pairing (default 1000)")
    parser.add_argument("--advanced", type=int, default=150, help="advanced games per pairing (default 150)")
    args = parser.parse_args()
    words = WordService()
    for lang in LANGUAGES:
        words.warm(lang)
    game = make(words)
    timings = Timings()
    ok = True
    started = time.perf_counter()
    base = ladder(game, words, args.games, "base", timings)
    print(
        f"Top Stop bots: ladder of the base game, two players, target 50 ({time.perf_counter() - started:.0f} s)"
    )
    for upper, lower, wins, games in base:
        rate, low = wins / games, wilson_low(wins, games)
        target = TARGET_HARD_EASY if (upper, lower) == (Level.HARD, Level.EASY) else TARGET_NEXT
        met = rate >= target
        ok &= met
        print(
            f"  {upper} beats {lower}: {wins}/{games} = {rate:.1%} (Wilson 95% lower bound {low:.1%}),"
            f" target ≥ {target:.0%}: {'met' if met else 'MISSED'}"
        )
    if args.advanced:
        started = time.perf_counter()
        advanced = ladder(game, words, args.advanced, "advanced", timings)
        print(f"Advanced game, two players, target 50 ({time.perf_counter() - started:.0f} s; not a target):")
        for upper, lower, wins, games in advanced:
            print(
                f"  {upper} beats {lower}: {wins}/{games} = {wins / games:.1%} (Wilson {wilson_low(wins, games):.1%})"
            )
    print("Decision time of choose() over every decision of those games:")
    for level in Level:
        samples = sorted(timings.seconds[level])
        if not samples:
            continue
        p50 = statistics.median(samples) * 1000
        p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))] * 1000
        met = p99 <= TARGET_P99_MS
        ok &= met
        print(
            f"  {level}: p50 {p50:.2f} ms, p99 {p99:.2f} ms over {len(samples)} decisions,"
            f" target p99 ≤ {TARGET_P99_MS:.0f} ms: {'met' if met else 'MISSED'}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
