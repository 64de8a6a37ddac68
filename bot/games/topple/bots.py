"""Topple's bot players (bot/engine/bots.py): where to place, and in which colour, from the public view and
the published balance model (board.py: the risk of each square, the points of each placement).

- hard: the expected value of each placement one turn ahead: its points if it stands, −10 and the 3 points
  it hands the player before if it topples, then minus what the next player can expect from the board it
  leaves, over the six faces of their die (their best placement for each face, judged the same way), plus
  the 3 points they hand back if they topple.
- medium: greedy: the most points among the placements under a risk limit (else the safest one), weighing
  only some of the allowed squares, as a casual player does.
- easy: any allowed square, in any colour it has pieces of.

In the young version nothing scores and a toppler is out: hard keeps its own risk low and leaves the next
player a risky board; medium takes a random square under the risk limit; easy any square.

Topple has no secret, so the view is the whole board; still only the view and the legal actions are read.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.engine.bots import Level, Move, Seen, of_kind, pace
from bot.engine.game import Action
from bot.games.topple.board import (
    RISK_SCALE,
    SQUARES,
    Square,
    allowed_squares,
    risks,
    score_placement,
)
from bot.i18n import N_

# The lobby's select: each level in a line.
DESCRIPTIONS = {
    Level.EASY: N_("topple.bots.easy"),
    Level.MEDIUM: N_("topple.bots.medium"),
    Level.HARD: N_("topple.bots.hard"),
}

PENALTY = 10  # TOPPLING: the toppler loses 10 points …
BONUS = 3  # … and the player before them scores 3
DIE = range(1, 7)
FACES = {face: allowed_squares(face) for face in DIE}  # the squares each face of the die allows
MEDIUM_RISK_LIMIT = 2500  # ten-thousandths: medium ignores any risk below 25 %
MEDIUM_SEES = 0.5  # the share of the allowed squares medium weighs
# Hard looks one turn ahead only for its best few placements by their own expectation: the rest are far
# behind, and the look-ahead (every square and colour of the next player for each) is what costs time.
LOOKAHEAD = 6
# A human pace per decision, in seconds (the table layer scales it): a roll is quicker than a placement.
PLACE_PACE = {Level.EASY: (2.5, 4.0), Level.MEDIUM: (2.0, 3.5), Level.HARD: (1.5, 3.0)}
ROLL_PACE = (1.0, 2.0)


@dataclass
class ToppleBot:
    level: Level

    def choose(self, seen: Seen, rng: random.Random) -> Move | None:
        rolls = of_kind(seen.legal, "roll")
        if rolls:  # the roll-off, or the start of its turn: the die is chance's, there is nothing to choose
            return Move(rolls[0], rng.uniform(*ROLL_PACE))
        places = of_kind(seen.legal, "place")
        if not places:
            return None
        view = seen.view
        if self.level == Level.EASY:
            action = rng.choice(places)
        elif self.level == Level.MEDIUM:
            action = _greedy(view, seen.seat, places, rng)
        else:
            action = _lookahead(view, seen.seat, places)
        return Move(action, pace(self.level, rng, *PLACE_PACE.values()))


def make_bot(level: Level, words: Any) -> ToppleBot:
    """GameInfo.bots: Topple checks no words."""
    return ToppleBot(Level(level))


# -- medium ---------------------------------------------------------------------------------------------------


def _greedy(view: dict[str, Any], seat: str, places: list[Action], rng: random.Random) -> Action:
    """The most points under the risk limit (the lower risk on a tie); the safest placement when none is.
    Young version: a random placement under the limit. Like a casual player, it weighs only some of the
    allowed squares (each with the chance MEDIUM_SEES, one at least)."""
    table = _choices(view)
    squares = sorted({_square(action) for action in places})
    noticed = {square for square in squares if rng.random() < MEDIUM_SEES} or {rng.choice(squares)}
    rated = [(action, *_rated(table, view, seat, action)) for action in places if _square(action) in noticed]
    safe = [entry for entry in rated if entry[1] <= MEDIUM_RISK_LIMIT]
    if not safe:
        return min(rated, key=lambda entry: entry[1])[0]
    if view["variant"] == "young":
        return rng.choice(safe)[0]
    return max(safe, key=lambda entry: (entry[2], -entry[1]))[0]


# -- hard -----------------------------------------------------------------------------------------------------


def _lookahead(view: dict[str, Any], seat: str, places: list[Action]) -> Action:
    """The placement of the best expectation one turn ahead (module docstring)."""
    board = view["board"]
    table = _choices(view)
    young = view["variant"] == "young"
    others = [p for p in view["players"] if p != seat and p not in view["left"] and p not in view["out"]]
    following = _next_player(view, seat)
    before = view["last"]["player"] if view["last"] else None
    # An opponent's points count against us; with several, each is one rival among them.
    weight = 1.0 / max(1, len(others))
    hands_bonus = before is not None and before != seat and before not in view["left"]

    def own(action: Action) -> float:
        at_risk, points = _rated(table, view, seat, action)
        chance = at_risk / RISK_SCALE
        if young:
            return -chance * 100  # going out is what matters; no points
        cost = PENALTY + (BONUS * weight if hands_bonus else 0)
        return (1 - chance) * points - chance * cost

    ranked = sorted(places, key=own, reverse=True)[:LOOKAHEAD]
    if following is None:
        return ranked[0]

    def ahead(action: Action) -> float:
        chance = _rated(table, view, seat, action)[0] / RISK_SCALE
        after = _placed(board, _square(action), _colour(view, seat, action))
        supply = dict(view["supply"])
        supply[_colour(view, seat, action)] -= 1
        colours = [c for c in view["colours"][following] if supply.get(c, 0) > 0]
        value, toppled = _reply(after, colours, young)
        if young:  # the more likely they go out, the better
            return own(action) + (1 - chance) * toppled * 100
        # What they expect counts against us; if they topple, we are the player before them: +3. Neither
        # happens if our own placement topples (the round ends).
        return own(action) - (1 - chance) * (weight * value - BONUS * toppled)

    return max(ranked, key=ahead)


def _reply(board: list[list[list[str]]], colours: Sequence[str], young: bool) -> tuple[float, float]:
    """The next player's best answer, averaged over the six faces of the die: (their expected value, the
    chance that they topple), each face answered by the placement of the best value for them (young: the
    safest)."""
    if not colours:
        return 0.0, 0.0
    chances = risks(board)
    best: dict[Square, tuple[float, float]] = {}
    for square in SQUARES:
        chance = chances[square[0]][square[1]] / RISK_SCALE
        if young:
            best[square] = (-chance, chance)
            continue
        points = max(score_placement(board, square, colour).total for colour in colours)
        best[square] = ((1 - chance) * points - chance * PENALTY, chance)
    faces = [max((best[square] for square in FACES[face]), key=lambda v: v[0]) for face in DIE]
    return sum(face[0] for face in faces) / len(faces), sum(face[1] for face in faces) / len(faces)


# -- reading an action ----------------------------------------------------------------------------------------


def _square(action: Action) -> Square:
    row, col = action["square"]
    return row, col


def _colour(view: dict[str, Any], seat: str, action: Action) -> str:
    colour: str = action.get("colour") or view["colours"][seat][0]
    return colour


def _choices(view: dict[str, Any]) -> dict[Square, dict[str, Any]]:
    """The view's `choices` (each allowed square's risk and points per colour) by square."""
    return {(choice["square"][0], choice["square"][1]): choice for choice in view["choices"]}


def _rated(
    table: dict[Square, dict[str, Any]], view: dict[str, Any], seat: str, action: Action
) -> tuple[int, int]:
    """(risk in ten-thousandths, points) of a placement, as the view publishes them."""
    choice = table[_square(action)]
    return choice["risk"], choice["points"].get(_colour(view, seat, action), 0)


def _placed(board: list[list[list[str]]], square: Square, colour: str) -> list[list[list[str]]]:
    row, col = square
    after = [list(line) for line in board]
    after[row] = [*board[row][:col], [*board[row][col], colour], *board[row][col + 1 :]]
    return after


def _next_player(view: dict[str, Any], seat: str) -> str | None:
    """Who places after us this round: the next seat still playing with a piece left (as the rules pass it)."""
    seats = view["players"]
    start = seats.index(seat)
    for step in range(1, len(seats)):
        other = seats[(start + step) % len(seats)]
        if other in view["left"] or other in view["out"]:
            continue
        if view["pieces_left"].get(other, 0) > 0:
            return str(other)
    return None
