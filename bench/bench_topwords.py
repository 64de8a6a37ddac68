"""How fast TopWords validates a placement through `apply`: legal and refused moves on real positions.

The positions are the rulebook's opening (SIEB, then the six illustrated examples, docs/rules/topwords.md)
before each of its seven moves. At each, the validations are that move and the example `legal_actions`
offers (both legal), and as many placements refused by the rules: rack tiles put on or next to the tiles
there that break a rule — or, with the dictionary, make a word it does not know.

The target is for the rules alone, in strict mode with the dictionary checks off. The same run with the
real words service (German, its answers cached once every word has been seen, as in a game where the same
words come up again) is printed beside it. Each figure comes with an anchor measured in the same run — the
same validations through copy.deepcopy(state) + apply, which is what every action cost when apply
deep-copied its input first — and the ratio. Exit 1 when the target is missed.
"""

from __future__ import annotations

import copy
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.engine.errors import GameError  # noqa: E402
from bot.games.topwords import State, TopWords  # noqa: E402
from bot.games.topwords.rules import SIZE  # noqa: E402

TARGET = 20_000  # placements validated per second, legal and refused alike
SECONDS = 2.0  # each figure is measured for about this long
PLAYERS = ["ann", "bob"]
SETUP = {"first_player": "ann", "racks": {"ann": "SIEBRTS", "bob": "AUMLNAG"}, "bag": "FERNELOEHDK"}
OPENING = [  # the rulebook's start word and its six illustrated examples, ann and bob in turn
    [[4, 2, "S"], [4, 3, "I"], [4, 4, "E"], [4, 5, "B"]],
    [[5, 5, "A"], [6, 5, "U"], [7, 5, "M"]],
    [[5, 4, "R"], [5, 6, "T"]],
    [[4, 2, "L"]],
    [[4, 5, "S"]],
    [[7, 3, "N"], [7, 4, "A"], [7, 5, "G"], [7, 6, "E"], [7, 7, "L"]],
    [[4, 7, "F"], [5, 7, "E"], [6, 7, "R"], [7, 7, "N"], [8, 7, "E"]],
]
Validation = tuple[State, dict[str, Any]]


def accepted(game: TopWords, state: State, action: dict[str, Any]) -> bool:
    try:
        game.apply(state, action)
    except GameError:
        return False
    return True


def refused_placements(game: TopWords, state: State, count: int, rng: random.Random) -> list[dict[str, Any]]:
    """`count` placements of 1–4 rack tiles in a line on or next to the tiles there that the rules refuse."""
    player = state.current
    rack = state.racks[player]
    stacks = [divmod(i, SIZE) for i, stack in enumerate(state.board) if stack] or [(4, 4)]
    found: list[dict[str, Any]] = []
    while len(found) < count:
        dr, dc = rng.choice([(0, 1), (1, 0)])
        row, col = rng.choice(stacks)
        start = rng.randint(-3, 1)
        letters = rng.sample(rack, k=rng.randint(1, min(4, len(rack))))
        tiles = [[row + dr * (start + k), col + dc * (start + k), letter] for k, letter in enumerate(letters)]
        action = {"do": "place", "player": player, "tiles": tiles}
        if not accepted(game, state, action):
            found.append(action)
    return found


def validations(game: TopWords) -> tuple[list[Validation], int]:
    """Legal and refused placements, as many of each, at every position of the opening."""
    rng = random.Random(7)
    state = game.new_game({"check_words": game.words is not None}, PLAYERS, SETUP, random.Random(1))
    found: list[Validation] = []
    legal = 0
    for tiles in OPENING:
        move = {"do": "place", "player": state.current, "tiles": tiles}
        example = [a for a in game.legal_actions(state, state.current) or [] if a["do"] == "place"]
        good = [a for a in [move, *example] if accepted(game, state, a)]
        found += [(state, action) for action in good]
        found += [(state, action) for action in refused_placements(game, state, len(good), rng)]
        legal += len(good)
        state = game.apply(state, move).state
    return found, legal


def rate(run: Callable[[State, dict[str, Any]], object], work: list[Validation], seconds: float) -> float:
    """Validations per second over about `seconds`."""
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for state, action in work:
            try:  # noqa: SIM105 - cheaper than contextlib.suppress in the timed loop
                run(state, action)
            except GameError:
                pass
        done += len(work)
    return done / (time.perf_counter() - start)


def measure(label: str, game: TopWords, target: int | None) -> bool:
    """Print one figure with its anchor; whether it meets `target` (None: printed for reference)."""
    work, legal = validations(game)
    rate(game.apply, work, 0.2)  # warm up (and fill the dictionary's cache)
    figure = rate(game.apply, work, SECONDS)
    anchor = rate(lambda state, action: game.apply(copy.deepcopy(state), action), work, SECONDS / 2)
    ok = target is None or figure >= target
    verdict = "for reference" if target is None else f"target ≥ {target:,} {'OK' if ok else 'MISS'}"
    print(
        f"TopWords placements validated through apply, {label}: {figure:,.0f}/s ({verdict}); "
        f"anchor deepcopy + apply {anchor:,.0f}/s; ratio {figure / anchor:.1f}× "
        f"({legal} legal + {len(work) - legal} refused at {len(OPENING)} positions)"
    )
    return ok


def main() -> int:
    from bot.words import WordService

    met = measure("dictionary checks off", TopWords(None), TARGET)
    measure("real words service (cached)", TopWords(WordService()), None)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
