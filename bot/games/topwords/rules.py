"""TopWords board rules without dictionary or players: tiles, placement geometry, words formed, scoring.

Every rule cites the rulebook (seeds/topwords-spielregel-de.txt) or RULES-NOTES.md where it is interpreted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from bot.games.topwords.messages import RuleBroken

SIZE = 10  # RULES-NOTES: 10×10 board, rows and columns 0–9
CENTRE = frozenset({(4, 4), (4, 5), (5, 4), (5, 5)})  # "einem der vier zentralen Felder"
MAX_HEIGHT = 5  # "Maximal 5 Buchstaben dürfen übereinander gestapelt werden!"
RACK_SIZE = 7
SEVEN_BONUS = 10  # all seven rack tiles placed at once: "10 Punkte Extra-Bonus"
LETTER_BONUS = 2  # J, Q, X, Y, Z: "2 Bonuspunkte", only when the tile is placed
BONUS_LETTERS = frozenset("JQXYZ")
RACK_PENALTY = 5  # "Für jeden verbliebenen Buchstaben ... fünf Punkte abgezogen"

# "100 Buchstabenchips" as listed in the rulebook; Ä, Ö, Ü are tiles of their own, Q is a plain Q.
TILE_COUNTS: dict[str, int] = {
    "A": 5, "Ä": 1, "B": 2, "C": 3, "D": 5, "E": 14, "F": 3, "G": 3, "H": 4, "I": 7,
    "J": 1, "K": 2, "L": 3, "M": 3, "N": 9, "O": 3, "Ö": 1, "P": 2, "Q": 1, "R": 7,
    "S": 7, "T": 4, "U": 4, "Ü": 1, "V": 1, "W": 1, "X": 1, "Y": 1, "Z": 1,
}  # fmt: skip
TILE_TOTAL = 100
LETTERS = frozenset(TILE_COUNTS)

Square = tuple[int, int]
Tile = tuple[int, int, str]
Board = list[str]  # SIZE*SIZE stacks, index row*SIZE+col; each stack bottom→top, "" for an empty square


def square_name(row: int, col: int) -> str:
    """The name players use: column letter A–J, then row number 1–10 (row 0, col 0 is A1, top left)."""
    return f"{chr(ord('A') + col)}{row + 1}"


def empty_board() -> Board:
    return [""] * (SIZE * SIZE)


def on_board(row: int, col: int) -> bool:
    return 0 <= row < SIZE and 0 <= col < SIZE


def stack_at(board: Sequence[str], row: int, col: int) -> str:
    return board[row * SIZE + col]


def tile_count(board: Iterable[str]) -> int:
    return sum(len(stack) for stack in board)


def normalise_letter(letter: object) -> str:
    """One tile letter in capitals; anything else breaks the rule on tiles."""
    if not isinstance(letter, str) or len(letter) != 1 or letter.upper() not in LETTERS:
        raise RuleBroken("topwords.rule.not_a_letter", letter=repr(letter))
    return letter.upper()


def start_rank(letter: str) -> int:
    """Distance from "A" for the start draw; an umlaut ranks with its base letter (DIN 5007), so Ä ties with A."""
    base = {"Ä": "A", "Ö": "O", "Ü": "U"}.get(letter, letter)
    return ord(base) - ord("A")


class Word(NamedTuple):
    """A word a move makes or changes: its letters (top of each stack) and its points, one per tile in
    its stacks ("für jeden Buchstaben im Stapel einen Punkt"); flat when no square holds a stack."""

    letters: str
    points: int
    flat: bool


class Scored(NamedTuple):
    """A geometrically legal placement and what it scores (the dictionary is checked elsewhere)."""

    tiles: tuple[Tile, ...]
    words: tuple[Word, ...]
    doubled: bool
    bonus: int
    points: int


def _run(board: Board, new: list[tuple[int, str]], first: int, last: int, across: bool) -> Word | None:
    """The word along a line (across or down) through squares `first`…`last`, stretched over the tiles
    lying next to them, with the `new` (square, letter) tiles of that line on top; None for one square.

    New tiles lie only between `first` and `last` (the gap rule), so only the board is looked at beyond.
    """
    if across:
        step, low = 1, first - first % SIZE
        high = low + SIZE - 1
    else:
        step, low = SIZE, first % SIZE
        high = low + SIZE * (SIZE - 1)
    start, end = first, last
    while start - step >= low and board[start - step]:
        start -= step
    while end + step <= high and board[end + step]:
        end += step
    if start == end:
        return None  # a run of one letter is no word
    stacks = board[start : end + 1 : step]
    for square, letter in new:
        stacks[(square - start) // step] += letter
    points = sum(map(len, stacks))
    return Word("".join([stack[-1] for stack in stacks]), points, points == len(stacks))


def score_placement(board: Board, tiles: Sequence[Tile]) -> Scored:
    """Check a placement against every rule except the dictionary and score it; raise RuleBroken otherwise.

    `tiles` are (row, col, letter) with normalised letters; the rack is checked by the caller. Squares are
    indexed row * SIZE + col here: this runs for every placement tried, legal or not.
    """
    if not tiles:
        raise RuleBroken("topwords.rule.no_tiles")
    new: dict[int, str] = {}
    for row, col, letter in tiles:
        if not (0 <= row < SIZE and 0 <= col < SIZE):
            raise RuleBroken("topwords.rule.off_board", square=f"({row}, {col})")
        if row * SIZE + col in new:
            # "One tile per square per move" (RULES-NOTES): a move cannot build a stack of two at once.
            raise RuleBroken("topwords.rule.square_twice", square=square_name(row, col))
        new[row * SIZE + col] = letter
    squares = sorted(new)
    first, last = squares[0], squares[-1]
    across = down = False
    if len(squares) > 1:
        across = first // SIZE == last // SIZE
        down = not across and all(square % SIZE == first % SIZE for square in squares)
        # "Wörter können nur in gerader Linie gebildet werden - senkrecht oder horizontal - niemals diagonal!"
        if not (across or down):
            raise RuleBroken("topwords.rule.not_in_line")
    for square, letter in new.items():
        stack = board[square]
        if len(stack) >= MAX_HEIGHT:
            raise RuleBroken(
                "topwords.rule.stack_too_high", square=square_name(*divmod(square, SIZE)), height=len(stack)
            )
        if stack and stack[-1] == letter:
            # "Es dürfen niemals 2 gleiche Buchstaben aufeinander gesetzt werden."
            raise RuleBroken(
                "topwords.rule.same_letter", square=square_name(*divmod(square, SIZE)), letter=letter
            )
    step = 1 if across else SIZE
    # The line and the tiles already there must make one unbroken word: no empty square between new tiles.
    if last - first >= len(squares) * step:
        for square in range(first, last, step):
            if square not in new and not board[square]:
                raise RuleBroken("topwords.rule.gap", square=square_name(*divmod(square, SIZE)))
    if not any(board):
        # First move: "Mindestens ein Buchstabe muss auf einem der vier zentralen Felder liegen."
        if not any(divmod(square, SIZE) in CENTRE for square in squares):
            raise RuleBroken("topwords.rule.not_centre")
    else:
        for square in squares:
            if _touches(board, square):
                break
        else:
            # Later moves join the tiles there: next to one (Abb. 1) or stacked on one (Abb. 3).
            raise RuleBroken("topwords.rule.not_connected")
    words = _words(board, new, squares, across, down)
    if not words:
        raise RuleBroken("topwords.rule.too_short")
    # RULES-NOTES (example 6): a move's word points double only when every square of every word is flat;
    # the first move is always flat ("Der Startspieler erhält automatisch diesen Bonus").
    points = 0
    doubled = True
    for word in words:
        points += word.points
        doubled = doubled and word.flat
    bonus = SEVEN_BONUS if len(tiles) == RACK_SIZE else 0
    for letter in new.values():
        if letter in BONUS_LETTERS:
            bonus += LETTER_BONUS
    # RULES-NOTES: bonuses come after the doubling and are never doubled.
    return Scored(tuple(tiles), tuple(words), doubled, bonus, points * (2 if doubled else 1) + bonus)


def _touches(board: Board, square: int) -> bool:
    """A stack on the square or on a square next to it."""
    col = square % SIZE
    return bool(
        board[square]
        or (square >= SIZE and board[square - SIZE])
        or (square < SIZE * (SIZE - 1) and board[square + SIZE])
        or (col > 0 and board[square - 1])
        or (col < SIZE - 1 and board[square + 1])
    )


def _words(board: Board, new: dict[int, str], squares: list[int], across: bool, down: bool) -> list[Word]:
    """Every word of two or more letters along and across the placed tiles; the main word first.
    Words merely touched score nothing; a cross word is looked for only where a neighbour is occupied."""
    first = squares[0]
    if not (across or down):
        tile = [(first, new[first])]
        runs = [_run(board, tile, first, first, True), _run(board, tile, first, first, False)]
        return [w for w in runs if w is not None]
    main = _run(board, sorted(new.items()), first, squares[-1], across)
    words = [] if main is None else [main]
    for square in squares:
        if across:
            crossed = (square >= SIZE and board[square - SIZE]) or (
                square < SIZE * (SIZE - 1) and board[square + SIZE]
            )
        else:
            col = square % SIZE
            crossed = (col > 0 and board[square - 1]) or (col < SIZE - 1 and board[square + 1])
        if crossed:
            word = _run(board, [(square, new[square])], square, square, not across)
            if word is not None:
                words.append(word)
    return words


def place(board: Sequence[str], tiles: Iterable[Tile]) -> Board:
    """A new board with the tiles put on top of their squares."""
    out = list(board)
    for row, col, letter in tiles:
        out[row * SIZE + col] += letter
    return out


def multiset_missing(rack: str, letters: Iterable[str]) -> str:
    """The letters not covered by `rack` (as a multiset), in order; "" when the rack holds them all."""
    missing = ""
    for letter in letters:
        if letter in rack:
            rack = rack.replace(letter, "", 1)
        else:
            missing += letter
    return missing


def remove_letters(rack: str, letters: Iterable[str]) -> str:
    """`rack` without one occurrence of each letter (the caller made sure they are there)."""
    for letter in letters:
        rack = rack.replace(letter, "", 1)
    return rack
