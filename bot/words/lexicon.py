"""A word game's lexicon for move generators: every allowed word written in tiles, and every prefix of one.

A bot that searches a board (TopWords) asks "is this a word?" and "can a word start like this?" hundreds of
thousands of times a move: one dictionary lookup each here, against one SQLite query (or a spellchecker
call) through `WordService.check_tiles`. The lexicon is read once from the language's precomputed table
(bot/words/precomputed.py), whose answers are the live checker's own; words the table lacks (compounds the
spellchecker accepts, short imperatives) are not in it, so a bot simply never plays them.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable
from typing import Protocol

WORD = 1  # the string is an allowed word
PREFIX = 2  # some longer allowed word starts with it
COMMON = 4  # the word is also in simplemma's corpus-derived dictionary: a word people use

_built: dict[tuple[str, frozenset[str], int], Lexicon] = {}
_lock = threading.Lock()


class Lexicon:
    """Words in tiles (capitals, ß as SS) with their prefixes: `flags(s)` is WORD | PREFIX | COMMON bits."""

    __slots__ = ("nodes", "size")

    def __init__(self, words: Iterable[str], common: Iterable[str] = ()) -> None:
        nodes: dict[str, int] = {}
        size = 0
        for word in words:
            if len(word) < 2:
                continue  # a single tile is never a word of a move
            size += 1
            nodes[word] = nodes.get(word, 0) | WORD
            for end in range(1, len(word)):
                prefix = word[:end]
                nodes[prefix] = nodes.get(prefix, 0) | PREFIX
        for word in common:
            if nodes.get(word, 0) & WORD:
                nodes[word] |= COMMON
        self.nodes = nodes
        self.size = size

    def flags(self, letters: str) -> int:
        return self.nodes.get(letters, 0)

    def __contains__(self, letters: object) -> bool:
        return isinstance(letters, str) and bool(self.nodes.get(letters, 0) & WORD)

    def common(self, letters: str) -> bool:
        return bool(self.nodes.get(letters, 0) & COMMON)

    def __len__(self) -> int:
        return self.size


class _Table(Protocol):
    @property
    def path(self) -> object: ...


class _Service(Protocol):
    def table(self, lang: str) -> _Table | None: ...


def tile_lexicon(service: _Service, lang: str, alphabet: frozenset[str], longest: int) -> Lexicon | None:
    """The lexicon of `lang`'s precomputed table, words of `alphabet` up to `longest` tiles; built once per
    process (about a second and 30 MB for German) and shared; None without a table."""
    table = service.table(lang)
    if table is None:
        return None
    key = (str(table.path), alphabet, longest)
    with _lock:
        lexicon = _built.get(key)
        if lexicon is None:
            lexicon = _built[key] = _read(str(table.path), alphabet, longest)
        return lexicon


def _read(path: str, alphabet: frozenset[str], longest: int) -> Lexicon:
    """The table's valid forms as tiles: capitals, where str.upper writes ß as SS (as players do)."""
    connection = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:

        def tiles(query: str) -> list[str]:
            found = []
            for (form,) in connection.execute(query):
                word = form.upper()
                if len(word) <= longest and alphabet.issuperset(word):
                    found.append(word)
            return found

        words = tiles("SELECT form FROM forms WHERE reason IS NULL")
        common = tiles(
            "SELECT f.form FROM forms f JOIN simplemma s ON s.form = f.form WHERE f.reason IS NULL"
        )
    finally:
        connection.close()
    return Lexicon(words, common)
