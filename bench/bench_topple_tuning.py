"""Topple's balance model against its target: how many four-player rounds end in a topple with sensible play.

The board's risk model (bot/games/topple/board.py: risk = x / (x + HALF_RISK), x = the tilt after the
placement × the height of the stack it lands on) is tuned so that a round of four sensible players ends in a
topple in a third to a half of rounds (issue: "The topple model"). Sensible play, as a player reads the table:
after the roll, each allowed square shows its risk and the points it would score (the public view's
`choices`); the player takes the square with the best expectation, (1 − risk) × points − risk × 10 (the
penalty), the lower risk on a tie. Rolls and topples are drawn by the rules' own `resolve_chance` through the
engine's `step`, each game from its own seed, as live play draws them.

Prints the share of rounds that ended in a topple with its 95 % interval, the target and whether it is met;
also the mean placements of a toppled round and the mean points a player scores in a full round. Exit 1 when
the share is outside the target.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.engine.game import step  # noqa: E402
from bot.games.topple import Topple  # noqa: E402
from bot.games.topple.board import HALF_RISK, RISK_SCALE  # noqa: E402
from bot.games.topple.game import TOPPLE_PENALTY  # noqa: E402
from bot.games.topple.state import OVER, PLACE, ROLL, State  # noqa: E402

TARGET = (1 / 3, 1 / 2)  # the share of four-player rounds that end in a topple
ROUNDS = 800  # rounds simulated (about ±3.4 points of share at 95 %)
ROUNDS_PER_GAME = 8  # each game runs this many rounds (its target is out of reach), then a new seed
PLAYERS = ["ann", "bob", "cat", "dan"]


def sensible_square(view: dict[str, Any]) -> dict[str, Any]:
    """The allowed square with the best expectation for the player on turn, as the view shows it."""

    def value(choice: dict[str, Any]) -> tuple[float, int]:
        chance = choice["risk"] / RISK_SCALE
        points = max(choice["points"].values())
        return (1 - chance) * points + chance * TOPPLE_PENALTY, -choice["risk"]

    best = max(view["choices"], key=value)
    colour = max(best["points"], key=lambda c: best["points"][c])
    return {"square": best["square"], "colour": colour}


def play_rounds(game: Topple, seed: int, rounds: int) -> list[dict[str, Any]]:
    """`rounds` rounds of one four-player game; the round records and their placement counts."""
    state: State = game.new_game({"target": 1000}, PLAYERS, {"first_player": PLAYERS[seed % 4]}, _rng(seed))
    version = 0
    while len(state.rounds) < rounds and state.phase != OVER:
        player = str(state.current)
        if state.phase == ROLL:
            action: dict[str, Any] = {"do": "roll", "player": player}
        else:
            assert state.phase == PLACE
            action = {"do": "place", "player": player, **sensible_square(game.view_for(state, None))}
        _, applied = step(game, state, seed, version, action)
        state, version = applied.state, version + 1
    placements: dict[int, int] = {}
    for record in state.history:
        placements[record["round"]] = placements.get(record["round"], 0) + 1
    return [{**summary, "placements": placements[summary["round"]]} for summary in state.rounds[:rounds]]


def _rng(seed: int) -> Any:
    import random

    return random.Random(seed)


def main() -> int:
    game = Topple()
    started = time.perf_counter()
    rounds: list[dict[str, Any]] = []
    seed = 0
    while len(rounds) < ROUNDS:
        rounds += play_rounds(game, seed, min(ROUNDS_PER_GAME, ROUNDS - len(rounds)))
        seed += 1
    elapsed = time.perf_counter() - started
    toppled = [r for r in rounds if r["ended"] == "topple"]
    full = [r for r in rounds if r["ended"] == "all_placed"]
    share = len(toppled) / len(rounds)
    margin = 1.96 * math.sqrt(share * (1 - share) / len(rounds))
    low, high = TARGET
    met = low <= share <= high
    print(f"Topple balance model, HALF_RISK = {HALF_RISK}: {len(rounds)} four-player rounds of sensible play "
          f"({seed} games, {elapsed:.1f} s)")  # fmt: skip
    print(
        f"  rounds ending in a topple: {share:.1%} ± {margin:.1%} (target {low:.0%} to {high:.0%}): "
        + ("met" if met else "MISSED")
    )
    if toppled:
        print(
            f"  placements in a toppled round: {sum(r['placements'] for r in toppled) / len(toppled):.1f} of 48"
        )
    if full:
        per_player = sum(sum(r["points"].values()) for r in full) / len(full) / len(PLAYERS)
        print(f"  points a player scores in a round with no topple: {per_player:.1f}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
