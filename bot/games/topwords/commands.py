"""From what a player types (a word, a square like "E5", a direction) to the tiles of a `place` action.

Coordinates: columns are letters A–J from left to right (col 0–9), rows are numbers 1–10 from top to
bottom (row 0–9). "E5" is column E, row 5: (row 4, col 4), a centre square; "A1" is the top left corner.
The board picture (bot/render/topwords_board.py) labels the squares the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from bot.games.topwords.messages import RuleBroken
from bot.games.topwords.rules import SIZE, Tile, normalise_letter, on_board, square_name
from bot.games.topwords.state import State
from bot.i18n import N_, Text

_SQUARE = re.compile(r"^\s*([A-Ja-j])\s*(10|[1-9])\s*$")
DIRECTIONS = {
    "across": (0, 1),
    "a": (0, 1),
    "waagrecht": (0, 1),
    "down": (1, 0),
    "d": (1, 0),
    "senkrecht": (1, 0),
}
# The direction named in a message, in English and German, whichever way the player typed it.
DIRECTION_NAMES = {(0, 1): N_("topwords.direction.across"), (1, 0): N_("topwords.direction.down")}


def parse_square(text: str) -> tuple[int, int]:
    """ "E5" → (4, 4): (row, col) from a column letter A–J and a row number 1–10."""
    match = _SQUARE.match(text)
    if match is None:
        raise RuleBroken("topwords.rule.bad_square", square=repr(text))
    return int(match.group(2)) - 1, ord(match.group(1).upper()) - ord("A")


def word_tiles(word: str) -> str:
    """A typed word as tiles: capitals, ß as SS (there is no ß tile), Ä Ö Ü kept as letters of their own."""
    text = word.strip().replace("ß", "SS").replace("ẞ", "SS").upper()
    return "".join(normalise_letter(ch) for ch in text)


def _stacks(board: State | Mapping[str, Any] | Sequence[str]) -> list[str]:
    """The stacks of a State, of a view_for() result (10 rows of 10) or of a flat board."""
    if isinstance(board, State):
        return list(board.board)
    if isinstance(board, Mapping):
        return [stack for row in board["board"] for stack in row]
    return list(board)


def tiles_for_word(
    board: State | Mapping[str, Any] | Sequence[str], word: str, row: int, col: int, direction: str
) -> list[Tile]:
    """The tiles to place so that `word` reads from (row, col) across or down.

    A square whose top letter already is the word's letter is used as it is; every other square gets a
    tile, on top of the letter lying there if any. Only the geometry is checked here: `place` checks the
    rules. Raises RuleBroken with a clear message.
    """
    step = DIRECTIONS.get(direction.strip().lower())
    if step is None:
        raise RuleBroken("topwords.rule.bad_direction", direction=repr(direction))
    letters = word_tiles(word)
    if len(letters) < 2:
        raise RuleBroken("topwords.rule.too_short")
    stacks = _stacks(board)
    if not on_board(row, col):
        raise RuleBroken("topwords.rule.off_board", square=f"({row}, {col})")
    end_row, end_col = row + step[0] * (len(letters) - 1), col + step[1] * (len(letters) - 1)
    if not on_board(end_row, end_col):
        raise RuleBroken(
            "topwords.rule.word_off_board",
            word=letters,
            square=square_name(row, col),
            direction=Text(DIRECTION_NAMES[step]),
        )
    tiles: list[Tile] = []
    for i, letter in enumerate(letters):
        r, c = row + step[0] * i, col + step[1] * i
        stack = stacks[r * SIZE + c]
        if not stack or stack[-1] != letter:
            tiles.append((r, c, letter))
    if not tiles:
        raise RuleBroken("topwords.rule.already_there", word=letters)
    return tiles


def tiles_for_command(
    board: State | Mapping[str, Any] | Sequence[str], word: str, square: str, direction: str
) -> list[Tile]:
    """tiles_for_word for the Discord form: ("BAUM", "F5", "down")."""
    row, col = parse_square(square)
    return tiles_for_word(board, word, row, col, direction)
