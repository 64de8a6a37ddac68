"""TopWords board rules without dictionary or players: tiles, placement geometry, words formed, scoring.

Every rule cites the rulebook (seeds/topwords-spielregel-de.txt) or RULES-NOTES.md where it is interpreted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

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
        raise RuleBroken("not_a_letter", letter=repr(letter))
    return letter.upper()


def start_rank(letter: str) -> int:
    """Distance from "A" for the start draw; an umlaut ranks with its base letter (DIN 5007), so Ä ties with A."""
    base = {"Ä": "A", "Ö": "O", "Ü": "U"}.get(letter, letter)
    return ord(base) - ord("A")


@dataclass(frozen=True)
class Word:
    """A word a move makes or changes: its letters (top of each stack), squares and stack heights."""

    letters: str
    squares: tuple[Square, ...]
    heights: tuple[int, ...]

    @property
    def points(self) -> int:
        """One point per tile in the word's stacks ("für jeden Buchstaben im Stapel einen Punkt")."""
        return sum(self.heights)

    @property
    def flat(self) -> bool:
        return all(h == 1 for h in self.heights)


@dataclass(frozen=True)
class Scored:
    """A geometrically legal placement and what it scores (the dictionary is checked elsewhere)."""

    tiles: tuple[Tile, ...]
    words: tuple[Word, ...]
    doubled: bool
    bonus: int

    @property
    def word_points(self) -> int:
        return sum(w.points for w in self.words)

    @property
    def points(self) -> int:
        # RULES-NOTES: bonuses come after the doubling and are never doubled.
        return self.word_points * (2 if self.doubled else 1) + self.bonus


def _run(board: Sequence[str], new: dict[Square, str], row: int, col: int, dr: int, dc: int) -> Word:
    """The maximal run of occupied squares through (row, col) along (dr, dc), with `new` tiles on top."""

    def occupied(r: int, c: int) -> bool:
        return on_board(r, c) and ((r, c) in new or stack_at(board, r, c) != "")

    r, c = row, col
    while occupied(r - dr, c - dc):
        r, c = r - dr, c - dc
    letters: list[str] = []
    squares: list[Square] = []
    heights: list[int] = []
    while occupied(r, c):
        stack = stack_at(board, r, c) + new.get((r, c), "")
        letters.append(stack[-1])
        squares.append((r, c))
        heights.append(len(stack))
        r, c = r + dr, c + dc
    return Word("".join(letters), tuple(squares), tuple(heights))


def score_placement(board: Sequence[str], tiles: Sequence[Tile]) -> Scored:
    """Check a placement against every rule except the dictionary and score it; raise RuleBroken otherwise.

    `tiles` are (row, col, letter) with normalised letters; the rack is checked by the caller.
    """
    if not tiles:
        raise RuleBroken("no_tiles")
    new: dict[Square, str] = {}
    for row, col, letter in tiles:
        if not on_board(row, col):
            raise RuleBroken("off_board", square=f"({row}, {col})")
        if (row, col) in new:
            # "One tile per square per move" (RULES-NOTES): a move cannot build a stack of two at once.
            raise RuleBroken("square_twice", square=square_name(row, col))
        new[(row, col)] = letter
    rows = {r for r, _, _ in tiles}
    cols = {c for _, c, _ in tiles}
    # "Wörter können nur in gerader Linie gebildet werden - senkrecht oder horizontal - niemals diagonal!"
    if len(rows) > 1 and len(cols) > 1:
        raise RuleBroken("not_in_line")
    for row, col, letter in tiles:
        stack = stack_at(board, row, col)
        if len(stack) >= MAX_HEIGHT:
            raise RuleBroken("stack_too_high", square=square_name(row, col), height=len(stack))
        if stack and stack[-1] == letter:
            # "Es dürfen niemals 2 gleiche Buchstaben aufeinander gesetzt werden."
            raise RuleBroken("same_letter", square=square_name(row, col), letter=letter)
    across = len(rows) == 1 and len(tiles) > 1
    down = len(cols) == 1 and len(tiles) > 1
    # The line and the tiles already there must make one unbroken word: no empty square between new tiles.
    if across or down:
        (line,) = rows if across else cols
        positions = sorted(c for _, c, _ in tiles) if across else sorted(r for r, _, _ in tiles)
        for p in range(positions[0], positions[-1] + 1):
            r, c = (line, p) if across else (p, line)
            if (r, c) not in new and not stack_at(board, r, c):
                raise RuleBroken("gap", square=square_name(r, c))
    if tile_count(board) == 0:
        # First move: "Mindestens ein Buchstabe muss auf einem der vier zentralen Felder liegen."
        if not any((r, c) in CENTRE for r, c, _ in tiles):
            raise RuleBroken("not_centre")
    elif not any(_touches(board, r, c) for r, c, _ in tiles):
        # Later moves join the tiles there: next to one (Abb. 1) or stacked on one (Abb. 3).
        raise RuleBroken("not_connected")
    words = _words(board, new, tiles, across, down)
    if not words:
        raise RuleBroken("too_short")
    # RULES-NOTES (example 6): a move's word points double only when every square of every word is flat;
    # the first move is always flat ("Der Startspieler erhält automatisch diesen Bonus").
    doubled = all(w.flat for w in words)
    bonus = LETTER_BONUS * sum(1 for _, _, letter in tiles if letter in BONUS_LETTERS)
    if len(tiles) == RACK_SIZE:
        bonus += SEVEN_BONUS
    return Scored(tuple(tiles), tuple(words), doubled, bonus)


def _touches(board: Sequence[str], row: int, col: int) -> bool:
    if stack_at(board, row, col):
        return True
    return any(
        on_board(row + dr, col + dc) and stack_at(board, row + dr, col + dc)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
    )


def _words(
    board: Sequence[str], new: dict[Square, str], tiles: Sequence[Tile], across: bool, down: bool
) -> list[Word]:
    """Every word of two or more letters along and across the placed tiles; the main word first."""
    words: list[Word] = []
    if across or down:
        r0, c0, _ = tiles[0]
        words.append(_run(board, new, r0, c0, *((0, 1) if across else (1, 0))))
        cross = (1, 0) if across else (0, 1)
        for r, c, _ in sorted(tiles):
            words.append(_run(board, new, r, c, *cross))
    else:
        r, c, _ = tiles[0]
        words = [_run(board, new, r, c, 0, 1), _run(board, new, r, c, 1, 0)]
    # Words merely touched score nothing; a run of one letter is no word.
    return [w for w in words if len(w.letters) >= 2]


def place(board: Sequence[str], tiles: Iterable[Tile]) -> Board:
    """A new board with the tiles put on top of their squares."""
    out = list(board)
    for row, col, letter in tiles:
        out[row * SIZE + col] += letter
    return out


def multiset_missing(rack: str, letters: Iterable[str]) -> str:
    """The letters not covered by `rack` (as a multiset), in order; "" when the rack holds them all."""
    left = Counter(rack)
    missing = []
    for letter in letters:
        if left[letter]:
            left[letter] -= 1
        else:
            missing.append(letter)
    return "".join(missing)


def remove_letters(rack: str, letters: Iterable[str]) -> str:
    """`rack` without one occurrence of each letter (the caller made sure they are there)."""
    out = list(rack)
    for letter in letters:
        out.remove(letter)
    return "".join(out)
