"""The bot players of Topple, Top Drop and Toppo (bot/games/<game>/bots.py): how strong each level is, and how
long it thinks.

Every game is played by bots alone through the engine's `step`, as the table layer plays them: each seat's
policy decides from its `Seen` (its view, its legal actions, its offered buttons) and its own seeded rng; its
Move is due after its delay; the earliest due move (or timer) is sent next, so in Toppo the faster reaction
wins the race, and an action made against a display or a stretch of play that has changed since is refused
as stale and the bot looks again, as at a real table. A seat whose pending action is no longer offered looks
again too (the contract of `Move`).

The figures, each against its target:
- decision time per game and level, p50 and p99 over every decision that chose a move in the games played
  (mid-game states mostly; a seat with nothing to do answers None at once): p99 ≤ 50 ms;
- the ladder of the competitive games, two players, each level against the one below and hard against
  easy, seats alternating: the higher level wins ≥ 60 % (hard against easy ≥ 80 %), with the Wilson 95 %
  interval's lower bound beside it. Topple plays one round to a target of 30 (a game of about 48
  placements; the hard bot's look-ahead makes a game cost about 0.15 s, hence the counts below); Toppo one
  game of the series on the rulebook's 33-card decks;
- Top Drop, cooperative: the team's win rate and mean cards left, per level, team size (1–4) and difficulty;
  target: hard leaves fewer cards than easy in every cell, and at least 10 fewer on average over the table.

`--quick` plays fewer games (a smoke run); exit 1 when a figure misses its target.
"""

from __future__ import annotations

import argparse
import heapq
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.engine.bots import LEVELS, Level, Policy, Seen  # noqa: E402
from bot.engine.errors import GameError  # noqa: E402
from bot.engine.game import Game, step  # noqa: E402
from bot.games import game_info, make_game  # noqa: E402

P99_MS = 50.0
LADDER = 0.60  # each level against the one below
HARD_OVER_EASY = 0.80
TOP_DROP_MARGIN = 10.0  # mean cards left, easy minus hard, over the whole table
MAX_STEPS = 20_000  # a game that runs longer is reported as unfinished

# Games per pairing (full run, quick run) and the options each game is played with.
TOPPLE_GAMES, TOPPLE_OPTIONS = (400, 40), {"target": 30}
TOPPO_GAMES, TOPPO_OPTIONS = (1000, 60), {"games": 1}
TOP_DROP_GAMES, TOP_DROP_DIFFICULTIES = (60, 8), ("easy", "medium", "hard", "extreme")

Timings = dict[tuple[str, str], list[float]]


def play(
    game: Game,
    options: Mapping[str, Any],
    levels: Sequence[Level],
    seed: int,
    timings: Timings,
) -> Any:
    """One game between bots at `levels` (one per seat): the final state. Moves go in the order they fall
    due (module docstring); timers fire at their deadlines."""
    name = game.name
    seats = [f"bot{index}" for index in range(len(levels))]
    make = game_info(name).bots
    assert make is not None, f"{name} declares no bots"
    policies: dict[str, Policy] = {seat: make(level, None) for seat, level in zip(seats, levels, strict=True)}
    rngs = {seat: random.Random(f"{seed}:{seat}") for seat in seats}
    state = game.new_game(options, seats, {}, random.Random(seed))
    now, version = 0.0, 0
    pending: dict[str, tuple[float, dict[str, Any]]] = {}
    armed: dict[str, tuple[float, dict[str, Any]]] = {}
    changed = True
    while game.outcome(state) is None and version < MAX_STEPS:
        if changed:
            for seat in seats:
                if seat in pending and pending[seat][1]["do"] not in game.table_actions(state, seat):
                    del pending[seat]  # no longer offered: the bot looks again
                if seat not in pending:
                    legal = game.legal_actions(state, seat)
                    seen = Seen(
                        seat, game.view_for(state, seat), tuple(legal or ()), game.table_actions(state, seat)
                    )
                    started = time.perf_counter()
                    move = policies[seat].choose(seen, rngs[seat])
                    if move is not None:  # the decisions that act: a waiting seat's take no thought
                        timings[(name, levels[seats.index(seat)].value)].append(time.perf_counter() - started)
                        pending[seat] = (now + move.delay, move.action)
            timers = {timer.key: timer for timer in game.timers(state)}
            armed = {
                key: armed.get(key, (now + timer.seconds, timer.action)) for key, timer in timers.items()
            }
            changed = False
        due = [(when, 0, seat) for seat, (when, _) in pending.items()]
        due += [(when, 1, key) for key, (when, _) in armed.items()]
        if not due:
            break  # nobody has anything to do and no timer runs: stuck
        when, is_timer, who = heapq.nsmallest(1, due)[0]
        now = when
        action = (armed.pop(who) if is_timer else pending.pop(who))[1]
        try:
            _, applied = step(game, state, seed, version, action)
        except GameError:
            continue  # refused (stale, most often): that bot looks again at the next change
        state, version, changed = applied.state, version + 1, True
    return state


def wilson_low(wins: int, games: int, z: float = 1.96) -> float:
    """The lower bound of the Wilson score interval."""
    if games == 0:
        return 0.0
    share = wins / games
    centre = share + z * z / (2 * games)
    margin = z * math.sqrt(share * (1 - share) / games + z * z / (4 * games * games))
    return (centre - margin) / (1 + z * z / games)


def ladder(
    name: str, options: Mapping[str, Any], games: int, timings: Timings, wins_of: Callable[[Any, str], bool]
) -> bool:
    """Two-player self-play per pairing, seats alternating: the higher level's win share against target."""
    game = make_game(name, None)
    met = True
    print(f"{name}: ladder, two players, {games} games per pairing ({options})")
    for low, high in ((Level.EASY, Level.MEDIUM), (Level.MEDIUM, Level.HARD), (Level.EASY, Level.HARD)):
        target = HARD_OVER_EASY if (low, high) == (Level.EASY, Level.HARD) else LADDER
        wins = unfinished = 0
        started = time.perf_counter()
        for seed in range(games):
            levels = [low, high] if seed % 2 == 0 else [high, low]
            state = play(game, options, levels, seed, timings)
            if game.outcome(state) is None:
                unfinished += 1
                continue
            wins += wins_of(game.outcome(state), f"bot{levels.index(high)}")
        share = wins / games
        ok = share >= target and unfinished == 0
        met &= ok
        print(f"  {high.value} over {low.value}: {share:.1%} (Wilson 95 % low {wilson_low(wins, games):.1%}), "
              f"target ≥ {target:.0%}: {'met' if ok else 'MISSED'}"
              + (f", {unfinished} unfinished" if unfinished else "")
              + f" [{time.perf_counter() - started:.0f} s]")  # fmt: skip
    return met


def sole_winner(outcome: Any, seat: str) -> bool:
    return bool(outcome.winners == [seat])


def top_drop(games: int, timings: Timings) -> bool:
    """The team's win rate and mean cards left per level, team size and difficulty (every seat one level)."""
    game = make_game("topdrop", None)
    print(f"topdrop: a team of bots of one level, {games} games per cell")
    print("  level   size " + "".join(f"{d:>18}" for d in TOP_DROP_DIFFICULTIES))
    left: dict[Level, list[float]] = defaultdict(list)
    cells: dict[tuple[Level, int, str], float] = {}
    for level in LEVELS:
        for size in range(1, 5):
            row = []
            for difficulty in TOP_DROP_DIFFICULTIES:
                won, cards = 0, []
                for seed in range(games):
                    state = play(game, {"difficulty": difficulty}, [level] * size, seed, timings)
                    outcome = game.outcome(state)
                    assert outcome is not None, "a Top Drop game of bots did not end"
                    won += outcome.team_result == "won"
                    cards.append(next(iter(outcome.scores.values())))
                mean = statistics.fmean(cards)
                cells[(level, size, str(difficulty))] = mean
                left[level].append(mean)
                row.append(f"{won / games:>6.0%} won {mean:>5.1f} left")
            print(f"  {level.value:<7} {size:>4} " + "".join(f"{cell:>18}" for cell in row))
    margin = statistics.fmean(left[Level.EASY]) - statistics.fmean(left[Level.HARD])
    worse = [key for key in cells if key[0] == Level.HARD and cells[key] > cells[(Level.EASY, *key[1:])]]
    ok = margin >= TOP_DROP_MARGIN and not worse
    print(f"  mean cards left: easy {statistics.fmean(left[Level.EASY]):.1f}, medium "
          f"{statistics.fmean(left[Level.MEDIUM]):.1f}, hard {statistics.fmean(left[Level.HARD]):.1f}; "
          f"hard fewer than easy by {margin:.1f} (target ≥ {TOP_DROP_MARGIN:.0f}) and in every cell"
          f" ({len(worse)} cells not): {'met' if ok else 'MISSED'}")  # fmt: skip
    return ok


def decision_times(timings: Timings) -> bool:
    met = True
    print(
        f"decision time per game and level (every move chosen in the games above), target p99 ≤ {P99_MS:.0f} ms"
    )
    for (name, level), samples in sorted(timings.items()):
        ordered = sorted(samples)
        p50 = ordered[len(ordered) // 2] * 1000
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
        ok = p99 <= P99_MS
        met &= ok
        print(f"  {name:<8} {level:<7} p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  ({len(ordered)} decisions): "
              + ("met" if ok else "MISSED"))  # fmt: skip
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games: a smoke run")
    quick = parser.parse_args().quick
    pick = 1 if quick else 0
    timings: Timings = defaultdict(list)
    started = time.perf_counter()
    results = [
        ladder("topple", TOPPLE_OPTIONS, TOPPLE_GAMES[pick], timings, sole_winner),
        ladder("toppo", TOPPO_OPTIONS, TOPPO_GAMES[pick], timings, sole_winner),
        top_drop(TOP_DROP_GAMES[pick], timings),
        decision_times(timings),
    ]
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
