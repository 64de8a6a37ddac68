"""Topple's board as pure functions: the squares and their levels, what a roll allows, the lines, the scoring
of a placement and the balance model (docs/rules/topple.md).

A board is a 5×5 grid of stacks, `board[row][col]`, each stack a list of colours from the bottom up. Rows and
columns run 0–4 from the top left; the centre is (2, 2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SIZE = 5
CENTRE = SIZE // 2
Square = tuple[int, int]
Board = Sequence[Sequence[Sequence[str]]]

# RULES-NOTES, Topple: "Level of a square = 1 + its Manhattan distance from the centre".
SQUARES: tuple[Square, ...] = tuple((row, col) for row in range(SIZE) for col in range(SIZE))


def level(square: Square) -> int:
    row, col = square
    return 1 + abs(row - CENTRE) + abs(col - CENTRE)


LEVELS: tuple[tuple[int, ...], ...] = tuple(
    tuple(level((row, col)) for col in range(SIZE)) for row in range(SIZE)
)
ANYWHERE = 6  # the die's 6: any square


def allowed_squares(roll: int) -> list[Square]:
    """HOW TO PLAY: 1 = the centre only, 2–5 = any square of that level, 6 = anywhere."""
    if roll == ANYWHERE:
        return list(SQUARES)
    return [square for square in SQUARES if level(square) == roll]


# The 12 lines of five: 5 rows, 5 columns and the 2 diagonals ("diag:0" from the top left down to the bottom
# right, "diag:1" from the bottom left up to the top right).
LINES: dict[str, tuple[Square, ...]] = {
    **{f"row:{row}": tuple((row, col) for col in range(SIZE)) for row in range(SIZE)},
    **{f"col:{col}": tuple((row, col) for row in range(SIZE)) for col in range(SIZE)},
    "diag:0": tuple((i, i) for i in range(SIZE)),
    "diag:1": tuple((SIZE - 1 - i, i) for i in range(SIZE)),
}


def lines_through(square: Square) -> list[str]:
    return [name for name, squares in LINES.items() if square in squares]


def empty_board() -> list[list[list[str]]]:
    return [[[] for _ in range(SIZE)] for _ in range(SIZE)]


def pieces_on(board: Board) -> int:
    return sum(len(stack) for row in board for stack in row)


# -- scoring ---------------------------------------------------------------------------------------------

COMPLETED_LINE = 3  # HOW TO SCORE 1: "3 points for completing the row"
TALL_STACK = 3  # HOW TO SCORE 3: "a stack that already has three or more pieces"


@dataclass(frozen=True)
class Scoring:
    """What one placement scores, rule by rule: `completed` and `added` are (line, points) per line through
    the square that the placement completes or adds to; `stack` the points of a tall stack."""

    completed: tuple[tuple[str, int], ...]
    added: tuple[tuple[str, int], ...]
    stack: int

    @property
    def total(self) -> int:
        return (
            sum(points for _, points in self.completed) + sum(points for _, points in self.added) + self.stack
        )

    def record(self) -> dict[str, object]:
        return {
            "completed": [{"line": line, "points": points} for line, points in self.completed],
            "added": [{"line": line, "points": points} for line, points in self.added],
            "stack": self.stack,
        }


def score_placement(board: Board, square: Square, colour: str) -> Scoring:
    """The points of placing a `colour` piece on `square` of `board` (RULES-NOTES, Topple), added together:
    a line through the square that this placement completes scores 3 + 1 per stack in it topped by the
    colour; a line through it that was already complete scores 1 per stack topped by the colour; a stack that
    already held 3 or more pieces scores 1 per piece of the colour in it. The new piece counts everywhere."""
    row, col = square

    def top(at: Square) -> str | None:
        if at == square:
            return colour
        stack = board[at[0]][at[1]]
        return stack[-1] if stack else None

    completed, added = [], []
    for name in lines_through(square):
        squares = LINES[name]
        topped = sum(1 for at in squares if top(at) == colour)
        if all(board[r][c] for r, c in squares):
            added.append((name, topped))
        elif all(board[r][c] for r, c in squares if (r, c) != square):
            completed.append((name, COMPLETED_LINE + topped))
    stack = board[row][col]
    stack_points = (stack.count(colour) + 1) if len(stack) >= TALL_STACK else 0
    return Scoring(tuple(completed), tuple(added), stack_points)


# -- the balance model ------------------------------------------------------------------------------------

# A placement topples with probability x / (x + HALF_RISK), x = tilt after the placement × the stack's height
# after it: half the time when x reaches HALF_RISK. Tuned by bench/bench_topple_tuning.py so that sensible
# four-player play ends a third to a half of its rounds in a topple.
HALF_RISK = 2800
RISK_SCALE = 10_000  # risks are whole ten-thousandths (basis points): 250 = 2.5 %


def moment(board: Board) -> tuple[int, int]:
    """The moment of every piece about the central spindle, in pieces × squares: (east, south)."""
    east = south = 0
    for row in range(SIZE):
        for col in range(SIZE):
            height = len(board[row][col])
            east += height * (col - CENTRE)
            south += height * (row - CENTRE)
    return east, south


def tilt(board: Board) -> float:
    """How far the board leans: the length of its moment (0 = level)."""
    east, south = moment(board)
    return math.sqrt(east * east + south * south)


def risk(board: Board, square: Square) -> int:
    """The chance, in ten-thousandths, that a piece placed on `square` topples the board: the tilt the board would
    have with it × the height its stack would have, x, gives x / (x + HALF_RISK). Only a square root and a
    division, both exactly rounded in IEEE arithmetic, so every machine finds the same figure."""
    return _risk(moment(board), board, square)


def _risk(leaning: tuple[int, int], board: Board, square: Square) -> int:
    row, col = square
    east, south = leaning[0] + col - CENTRE, leaning[1] + row - CENTRE
    leverage = math.sqrt(east * east + south * south) * (len(board[row][col]) + 1)
    return round(RISK_SCALE * leverage / (leverage + HALF_RISK))


def risks(board: Board) -> list[list[int]]:
    """The risk of every square, in ten-thousandths, as a 5×5 grid."""
    leaning = moment(board)
    return [[_risk(leaning, board, (row, col)) for col in range(SIZE)] for row in range(SIZE)]


def safest(board: Board, squares: Sequence[Square]) -> Square:
    """The lowest-risk square among `squares`; on equal risk the first in reading order."""
    leaning = moment(board)
    return min(squares, key=lambda square: (_risk(leaning, board, square), square))
