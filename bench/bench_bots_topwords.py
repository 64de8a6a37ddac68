"""TopWords bot players: decision time per level, the strength ladder by self-play, and points per move.

- Decision time: each level's whole `choose` (generation, scoring, the words service's verdicts on the
  move chosen) on mid-game positions with a full rack of seven on a crowded board (35 tiles or more), taken
  from seeded games of hard bots. Target: p99 ≤ 250 ms at every level (each runs the full generator; the
  issue sets it for hard).
- Strength ladder: two-player games in strict mode with the real German words service, each pairing with
  the first seat alternating; a draw counts half. Targets: each level beats the one below in ≥ 60% of the
  games, hard beats easy in ≥ 80%; the Wilson 95% interval's lower bound is printed beside each. A game is
  long (about 30 moves of a full search), so the run plays GAMES games per pairing (argument or
  BOTS_TOPWORDS_GAMES, default 100), not 1,000: the figure says how many and how long they took.
- Points per move: each level's mean points of the moves it chose on the positions above, beside a greedy
  bot that always plays the highest score (anchor: Macondo's ladder in Scrabble, 19 → 41 points a turn).
  Target: hard > medium > easy.

Exit 1 when a target is missed.
"""

from __future__ import annotations

import math
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.engine.bots import LEVELS, Level, Seen  # noqa: E402
from bot.engine.game import step  # noqa: E402
from bot.games.topwords import State, TopWords  # noqa: E402
from bot.games.topwords.bots import moves, policy  # noqa: E402
from bot.words import WordService  # noqa: E402
from bot.words.lexicon import Lexicon  # noqa: E402

P99_TARGET_MS = 250.0
LADDER_TARGET = 0.60  # each level against the one below
HARD_EASY_TARGET = 0.80
CROWDED = 35  # tiles on the board
POSITIONS = 120  # mid-game positions timed
PAIRINGS = [(Level.MEDIUM, Level.EASY), (Level.HARD, Level.MEDIUM), (Level.HARD, Level.EASY)]


def seen_for(game: TopWords, state: State, seat: str) -> Seen:
    legal = tuple(game.legal_actions(state, seat) or ())
    return Seen(seat, game.view_for(state, seat), legal, game.table_actions(state, seat))


def play(game: TopWords, bots: dict[str, Any], seed: int) -> tuple[State, dict[str, list[int]]]:
    """One strict game between the seats' bots to its end; the points of each seat's moves."""
    names = list(bots)
    state = game.new_game({}, names, {"first_player": names[0]}, random.Random(seed))
    points: dict[str, list[int]] = {name: [] for name in names}
    rng = random.Random(seed)
    for version in range(300):
        if state.phase == "over":
            break
        seat = state.current
        move = bots[seat].choose(seen_for(game, state, seat), rng)
        assert move is not None, "a bot to move always moves (or passes)"
        state = step(game, state, seed, version, move.action)[1].state
        if move.action["do"] == "place":
            points[seat].append(state.history[-1]["points"])
    return state, points


def crowded_positions(game: TopWords, words: WordService) -> list[State]:
    """Positions with a full rack to move on a crowded board, from seeded games of hard bots."""
    found: list[State] = []
    seed = 0
    hard = policy(Level.HARD, words)
    while len(found) < POSITIONS:
        seed += 1
        state = game.new_game({}, ["ann", "bob"], {}, random.Random(1000 + seed))
        rng = random.Random(seed)
        for version in range(200):
            if state.phase != "play":
                break
            seat = state.current
            if sum(map(len, state.board)) >= CROWDED and len(state.racks[seat]) == 7:
                found.append(state)
            move = hard.choose(seen_for(game, state, seat), rng)
            assert move is not None
            state = step(game, state, seed, version, move.action)[1].state
    return found[:POSITIONS]


def greedy_points(words: WordService, lexicon: Lexicon, state: State) -> int:
    """The anchor: the points of the highest-scoring move the words service allows, leave ignored."""
    found = sorted(moves(state.board, state.racks[state.current], lexicon), key=lambda c: -c.points)
    for candidate in found:
        if all(words.check_tiles(w.letters).valid for w in candidate.scored.words):
            return candidate.points
    return 0


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)]


def wilson_low(successes: float, n: int, z: float = 1.96) -> float:
    if n == 0:
        return 0.0
    p = successes / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n)


def main() -> int:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else int(os.environ.get("BOTS_TOPWORDS_GAMES", "100"))
    words = WordService()
    game = TopWords(words)
    started = time.perf_counter()
    lexicon = policy(Level.HARD, words)._lexicon()
    assert lexicon is not None, "the German words table is needed (python -m bot.words build)"
    print(f"lexicon: read once per process in {time.perf_counter() - started:.1f} s")
    ok = True

    positions = crowded_positions(game, words)
    tiles = statistics.mean(sum(map(len, s.board)) for s in positions)
    print(f"decision time, {len(positions)} positions: full rack, {tiles:.0f} tiles on the board on average")
    chosen: dict[str, list[int]] = {}
    for level in LEVELS:
        bot = policy(level, words)
        times, points = [], []
        for k, state in enumerate(positions):
            seen = seen_for(game, state, state.current)
            start = time.perf_counter()
            move = bot.choose(seen, random.Random(k))
            times.append((time.perf_counter() - start) * 1000)
            assert move is not None
            tiles_placed = move.action.get("tiles")
            points.append(game.apply(state, move.action).state.history[-1]["points"] if tiles_placed else 0)
        chosen[level] = points
        p50, p99 = percentile(times, 0.5), percentile(times, 0.99)
        met = p99 <= P99_TARGET_MS
        ok &= met
        print(
            f"  {level:6} p50 {p50:6.1f} ms  p99 {p99:6.1f} ms  (target p99 ≤ {P99_TARGET_MS:.0f} ms: {_said(met)})"
        )
    chosen["greedy"] = [greedy_points(words, lexicon, state) for state in positions]

    print("points per move on those positions (greedy: the highest score each time)")
    means = {name: statistics.mean(p) for name, p in chosen.items()}
    for name in ("easy", "medium", "hard", "greedy"):
        print(f"  {name:6} {means[name]:5.1f}")
    ordered = means["hard"] > means["medium"] > means["easy"]
    ok &= ordered
    print(f"  target hard > medium > easy: {_said(ordered)}  (Macondo's Scrabble ladder: 19 → 41 a turn)")

    print(f"strength ladder: {games} two-player games per pairing (not 1,000: games are long), draws half")
    ladder_points: dict[str, list[int]] = {level: [] for level in LEVELS}
    for upper, lower in PAIRINGS:
        start = time.perf_counter()
        score = 0.0
        for k in range(games):
            seats = {"up": policy(upper, words), "low": policy(lower, words)}
            if k % 2:
                seats = {"low": seats["low"], "up": seats["up"]}
            state, made = play(game, seats, 7000 + k)
            outcome = game.outcome(state)
            winners = outcome.winners if outcome is not None else []  # None: the safety limit of 300 actions
            score += 1.0 if winners == ["up"] else 0.5 if "up" in winners else 0.0
            ladder_points[upper] += made["up"]
            ladder_points[lower] += made["low"]
        rate = score / games
        target = HARD_EASY_TARGET if (upper, lower) == (Level.HARD, Level.EASY) else LADDER_TARGET
        met = rate >= target
        ok &= met
        took = time.perf_counter() - start
        print(
            f"  {upper} beats {lower}: {rate:.0%} (Wilson 95% lower bound {wilson_low(score, games):.0%}; "
            f"target ≥ {target:.0%}: {_said(met)}) in {took:.0f} s, {took / games:.1f} s a game"
        )
    print(
        "  points per move in the ladder's games: "
        + ", ".join(f"{level} {statistics.mean(p):.1f}" for level, p in ladder_points.items() if p)
    )
    return 0 if ok else 1


def _said(met: bool) -> str:
    return "met" if met else "MISSED"


if __name__ == "__main__":
    sys.exit(main())
