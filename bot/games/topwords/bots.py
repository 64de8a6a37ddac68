"""TopWords bot players: a complete move generator for the stacked board, and three ways of choosing.

The generator (`placements`) finds every placement the rules accept with words of the lexicon: for each
row and column, every run of squares a word could fill (each empty square takes a rack tile, each stack
keeps its top letter or takes a tile of another letter while it is under five high), grown square by square
from every start and cut as soon as no word of the lexicon starts with the letters so far; a tile is tried
on a square only if the word across it (its cross-word) is a word too. `moves` scores each placement with
the rules' own `score_placement`. The levels then choose (docs/bots/topwords.md):

- hard: the best equity, points plus the value of the tiles kept (the Quackle/Macondo idea);
- medium: the best points among the moves it "finds": a random part of the board's lines, and long plays
  with a falling chance (Macondo's findability);
- easy: a short common word of modest points.

A policy reads only its seat's view (the board, its rack, the last move, the vote) and asks the words
service for verdicts; the lexicon is that service's own word table (bot/words/lexicon.py).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from bot.engine.bots import Level, Move, Seen, of_kind, pace
from bot.engine.game import Action
from bot.games.topwords.messages import RuleBroken
from bot.games.topwords.rules import (
    CENTRE,
    LETTERS,
    MAX_HEIGHT,
    RACK_PENALTY,
    SIZE,
    Scored,
    Tile,
    remove_letters,
    score_placement,
)
from bot.i18n import N_
from bot.words.lexicon import PREFIX, WORD, Lexicon, tile_lexicon

LANGUAGE = "de"  # TopWords plays German only (Options.language)
CENTRE_SQUARES = frozenset(row * SIZE + col for row, col in CENTRE)
VOWELS = frozenset("AEIOUÄÖÜ")

# What a tile kept on the rack is worth to the next moves, in points (hard's leave): every tile scores one
# point whatever its letter, so a letter's value is how easily it joins words (E, N, S, R) or how often it
# sticks on the rack (Q, X, Y, the umlauts). Chosen by hand, after Quackle's idea of a per-letter value.
LEAVE_VALUES: dict[str, float] = {
    "E": 1.5, "N": 1.2, "S": 1.2, "R": 1.0, "T": 0.8, "I": 0.7, "A": 0.6, "D": 0.5, "L": 0.4, "H": 0.3,
    "U": 0.2, "G": 0.1, "M": 0.1, "O": 0.0, "B": -0.2, "K": -0.3, "F": -0.3, "W": -0.5, "Z": -0.5,
    "P": -0.5, "C": -0.8, "Ä": -1.5, "Ü": -1.5, "V": -1.5, "J": -1.5, "Ö": -2.0, "Y": -2.5, "X": -2.5,
    "Q": -3.5,
}  # fmt: skip
DUPLICATE = 1.5  # each further copy of a letter kept: two of a letter seldom fit one word
UNBALANCED = 1.0  # per vowel (or consonant) beyond one more than the others

# Medium's findability: the chance it sees a line of the board at all, and a play by its number of tiles.
MEDIUM_LINES = 0.5
MEDIUM_FOUND = {1: 1.0, 2: 1.0, 3: 0.8, 4: 0.5, 5: 0.3, 6: 0.15, 7: 0.05}
EASY_LONGEST = 6  # easy plays words of at most six letters …
EASY_TILES = 3  # … placing at most three tiles
VERIFIED = 20  # candidates whose words are put to the words service before the bot gives up on a move

# What the lobby's "Add a bot" select says of each level.
DESCRIPTIONS = {
    Level.EASY: N_("topwords.bots.easy"),
    Level.MEDIUM: N_("topwords.bots.medium"),
    Level.HARD: N_("topwords.bots.hard"),
}

# A human pace per level, in seconds of "thinking" before each move (the table layer may scale it).
PACE = {"easy": (6.0, 12.0), "medium": (4.0, 8.0), "hard": (3.0, 6.0)}
VOTE_PACE = (2.0, 5.0)  # a ballot or a challenge: read the word, decide


class Candidate(NamedTuple):
    """A legal placement, scored by the rules, and the tiles it leaves on the rack."""

    scored: Scored
    leave: str

    @property
    def points(self) -> int:
        return self.scored.points

    @property
    def action_tiles(self) -> list[list[Any]]:
        return [[row, col, letter] for row, col, letter in self.scored.tiles]


# ---------------------------------------------------------------------------------------------- generator


def _cross(board: Sequence[str], index: int, step: int) -> tuple[str, str]:
    """The top letters of the stacks right before and right after `index` along `step` (1: across, SIZE:
    down): the rest of the word a tile there would make across the line being searched."""
    row, col = divmod(index, SIZE)
    before: list[str] = []
    after: list[str] = []
    if step == 1:
        c = col - 1
        while c >= 0 and board[row * SIZE + c]:
            before.append(board[row * SIZE + c][-1])
            c -= 1
        c = col + 1
        while c < SIZE and board[row * SIZE + c]:
            after.append(board[row * SIZE + c][-1])
            c += 1
    else:
        r = row - 1
        while r >= 0 and board[r * SIZE + col]:
            before.append(board[r * SIZE + col][-1])
            r -= 1
        r = row + 1
        while r < SIZE and board[r * SIZE + col]:
            after.append(board[r * SIZE + col][-1])
            r += 1
    return "".join(reversed(before)), "".join(after)


_LINES: tuple[tuple[tuple[int, ...], int], ...] = tuple(
    [(tuple(r * SIZE + c for c in range(SIZE)), SIZE) for r in range(SIZE)]  # rows: cross-words go down
    + [(tuple(r * SIZE + c for r in range(SIZE)), 1) for c in range(SIZE)]  # columns: cross-words go across
)


def placements(
    board: Sequence[str],
    rack: str,
    lexicon: Lexicon,
    lines: Sequence[int] | None = None,
) -> list[tuple[Tile, ...]]:
    """Every placement of tiles from `rack` the rules accept on `board` when the lexicon's words are the
    allowed ones, each once, tiles in order along their line; `lines` (0–9 rows, 10–19 columns) limits the
    search to those lines (a one-tile placement is found from either of its two lines)."""
    found: dict[tuple[Tile, ...], None] = {}
    first = not any(board)
    for number in range(len(_LINES)) if lines is None else lines:
        _search_line(board, rack, lexicon, number, first, found)
    return list(found)


def _search_line(
    board: Sequence[str],
    rack: str,
    lexicon: Lexicon,
    number: int,
    first: bool,
    found: dict[tuple[Tile, ...], None],
) -> None:
    """Add to `found` the placements whose tiles lie in line `number` (the main word along it)."""
    cells, cross_step = _LINES[number]
    counts = Counter(rack)
    letters = sorted(counts)
    nodes = lexicon.nodes
    heights = [len(board[i]) for i in cells]
    tops = [board[i][-1:] for i in cells]
    # A tile's cross-word: None where no stack lies next to the square across the line (no word made),
    # else the rack's letters that make a word there.
    allowed: list[frozenset[str] | None] = []
    for i in cells:
        before, after = ("", "") if first else _cross(board, i, cross_step)
        if before or after:
            allowed.append(frozenset(x for x in letters if before + x + after in lexicon))
        else:
            allowed.append(None)
    # A run must join the board: stack on a tile, lie next to one, or on the first move cover the centre.
    if first:
        anchor = [i in CENTRE_SQUARES for i in cells]
    else:
        anchor = [heights[k] > 0 or allowed[k] is not None for k in range(SIZE)]
    if not any(anchor):
        return
    tiles: list[Tile] = []

    def grow(k: int, word: str, joined: bool) -> None:
        """Put a letter on cell k of the run grown so far (`word`), then end the run or grow it on."""
        height, top, square = heights[k], tops[k], cells[k]
        options: list[str | None] = [None] if height else []  # None: the stack keeps its top letter
        if height < MAX_HEIGHT:
            cross = allowed[k]
            options += [x for x in letters if counts[x] and x != top and (cross is None or x in cross)]
        ends = k + 1 == SIZE or not heights[k + 1]
        for letter in options:
            grown = word + (top if letter is None else letter)
            flags = nodes.get(grown, 0)
            if not flags:
                continue  # no word starts so
            joins = joined or anchor[k]
            if letter is not None:
                counts[letter] -= 1
                tiles.append((square // SIZE, square % SIZE, letter))
            if ends and flags & WORD and tiles and joins:
                found[tuple(tiles)] = None
            if flags & PREFIX and k + 1 < SIZE and (heights[k + 1] or len(tiles) < len(rack)):
                grow(k + 1, grown, joins)
            if letter is not None:
                counts[letter] += 1
                tiles.pop()

    for start in range(SIZE):
        if start and heights[start - 1]:
            continue  # the run would go on to the left: it starts further left
        # Tiles needed to reach the first anchor from here; more than the rack holds: no run starts here.
        need = 0
        for k in range(start, SIZE):
            need += not heights[k]
            if anchor[k]:
                break
        else:
            continue
        if need <= len(rack):
            grow(start, "", False)


def moves(
    board: Sequence[str], rack: str, lexicon: Lexicon, lines: Sequence[int] | None = None
) -> list[Candidate]:
    """Every placement `placements` finds, scored by the rules (score_placement) with its leave."""
    out = []
    stacks = list(board)
    for tiles in placements(stacks, rack, lexicon, lines):
        try:
            scored = score_placement(stacks, tiles)
        except RuleBroken:  # never if the generator is right (the tests check it): skipped, not played
            continue
        out.append(Candidate(scored, remove_letters(rack, [letter for _, _, letter in tiles])))
    return out


# ---------------------------------------------------------------------------------------------- choosing


def leave_value(leave: str, bag_count: int) -> float:
    """What the tiles kept are worth: letters that join words, minus copies and an unbalanced rack. With
    the bag empty every tile kept costs its end-of-game penalty instead."""
    if bag_count == 0:
        return -float(RACK_PENALTY) * len(leave)
    value = sum(LEAVE_VALUES.get(letter, 0.0) for letter in leave)
    value -= DUPLICATE * sum(n - 1 for n in Counter(leave).values())
    vowels = sum(letter in VOWELS for letter in leave)
    value -= UNBALANCED * max(0, abs(vowels - (len(leave) - vowels)) - 1)
    return value


def equity(candidate: Candidate, bag_count: int) -> float:
    return candidate.points + leave_value(candidate.leave, bag_count)


def _board(view: dict[str, Any]) -> list[str]:
    return [stack for row in view["board"] for stack in row]


def _medium_pick(found: list[Candidate], rng: random.Random) -> list[Candidate]:
    """The moves medium "finds": a long play is seen with a falling chance."""
    return [c for c in found if rng.random() < MEDIUM_FOUND.get(len(c.scored.tiles), 0.1)]


def ranked(
    level: Level, board: list[str], rack: str, bag_count: int, lexicon: Lexicon, rng: random.Random
) -> list[Candidate]:
    """The level's candidates, its favourite first."""
    if level is Level.HARD:
        found = moves(board, rack, lexicon)
        return sorted(found, key=lambda c: (-equity(c, bag_count), c.scored.tiles))
    if level is Level.MEDIUM:
        lines = [n for n in range(len(_LINES)) if rng.random() < MEDIUM_LINES]
        found = _medium_pick(moves(board, rack, lexicon, lines), rng)
        return sorted(found, key=lambda c: (-c.points, c.scored.tiles))
    # Easy: short common words, at most three tiles (any move when there is none such); a move picked at
    # random among the weaker half.
    every = moves(board, rack, lexicon)
    found = [
        c
        for c in every
        if len(c.scored.tiles) <= EASY_TILES
        and all(len(w.letters) <= EASY_LONGEST and lexicon.common(w.letters) for w in c.scored.words)
    ] or every
    found.sort(key=lambda c: (c.points, c.scored.tiles))
    weaker = found[: max(1, (len(found) + 1) // 2)]
    rng.shuffle(weaker)
    return weaker + found[len(weaker) :][::-1]


@dataclass
class TopWordsBot:
    """One seat's bot at one level (the Policy of bot/engine/bots.py)."""

    level: Level
    words: Any  # the words service: verdicts (check_tiles) and, through its table, the lexicon
    lexicon: Lexicon | None = None  # given by tests; else read from the words service on first use

    def _lexicon(self) -> Lexicon | None:
        if self.lexicon is None and self.words is not None and hasattr(self.words, "table"):
            self.lexicon = tile_lexicon(self.words, LANGUAGE, LETTERS, SIZE)
        return self.lexicon

    def _allowed(self, word: str) -> bool:
        """The words service's verdict on a word in tiles (no service: every word, as check_words false)."""
        return self.words is None or bool(self.words.check_tiles(word, lang=LANGUAGE).valid)

    def choose(self, seen: Seen, rng: random.Random) -> Move | None:
        if "vote" in seen.offered:
            return self._vote(seen, rng)
        # A challenge first: once the bot moves, the move before is final.
        if "challenge" in seen.offered and self.level is not Level.EASY:
            challenge = self._challenge(seen, rng)
            if challenge is not None:
                return challenge
        if "place" in seen.offered:
            return self._play(seen, rng)
        return None

    def _delay(self, rng: random.Random) -> float:
        return pace(self.level, rng, PACE["easy"], PACE["medium"], PACE["hard"])

    def _vote(self, seen: Seen, rng: random.Random) -> Move | None:
        """A word put to the vote: the words service's verdict; a proposed end: yes only when the game
        cannot go on (nothing in the bag and no move on its own rack)."""
        vote = seen.view.get("vote")
        ballots = of_kind(seen.legal, "vote")
        if vote is None or not ballots or seen.seat in vote.get("voted", ()):
            return None
        if vote["kind"] == "end":
            accept = seen.view["bag_count"] == 0 and not self._any_move(seen.view)
        else:
            accept = all(self._allowed(w["word"]) for w in vote["words"])
        action = next(a for a in ballots if a.get("accept") is accept)
        return Move(action, rng.uniform(*VOTE_PACE))

    def _any_move(self, view: dict[str, Any]) -> bool:
        lexicon = self._lexicon()
        return lexicon is not None and bool(placements(_board(view), view.get("rack", ""), lexicon))

    def _challenge(self, seen: Seen, rng: random.Random) -> Move | None:
        """Challenge the last move when the words service refuses one of its words (medium half the time:
        it does not always look the word up)."""
        history = seen.view.get("history") or []
        challenges = of_kind(seen.legal, "challenge")
        if not history or not challenges:
            return None
        if not any(not self._allowed(w["word"]) for w in history[-1]["words"]):
            return None
        if self.level is Level.MEDIUM and rng.random() < 0.5:
            return None
        return Move(challenges[0], rng.uniform(*VOTE_PACE))

    def _play(self, seen: Seen, rng: random.Random) -> Move | None:
        view = seen.view
        rack = view.get("rack", "")
        lexicon = self._lexicon()
        choice: Action | None = None
        if lexicon is not None and rack:
            board = _board(view)
            candidates = ranked(self.level, board, rack, view["bag_count"], lexicon, rng)
            for candidate in candidates[:VERIFIED]:
                # The lexicon is the service's table; its verdict is the rules' (a word voted out on this
                # server is refused by the rules all the same: the table layer then asks the bot again).
                if all(self._allowed(w.letters) for w in candidate.scored.words):
                    choice = {"do": "place", "player": seen.seat, "tiles": candidate.action_tiles}
                    break
        if choice is None:
            choice = self._pass(seen, rack)
        if choice is None:
            return None
        return Move(choice, self._delay(rng))

    def _pass(self, seen: Seen, rack: str) -> Action | None:
        """No move: swap the tile worth least (when the bag has tiles), else pass."""
        swaps = [a for a in of_kind(seen.legal, "pass") if a.get("swap") is not None]
        if swaps:
            return max(swaps, key=lambda a: (leave_value(remove_letters(rack, a["swap"]), 1), a["swap"]))
        passes = [a for a in of_kind(seen.legal, "pass") if a.get("swap") is None]
        return passes[0] if passes else None


def policy(level: Level, words: Any) -> TopWordsBot:
    """GameInfo.bots: the TopWords bot of this level, asking `words` (the bot.words service)."""
    return TopWordsBot(Level(level), words)


def warm(words: Any) -> None:
    """GameInfo.warm: the lexicon every TopWords bot of the process shares (built once: about a second)."""
    TopWordsBot(Level.EASY, words)._lexicon()
