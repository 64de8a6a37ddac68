"""TopWords: the reader's language and the checks on what a player types, refused with catalogue keys.

Private replies follow the user's Discord locale; the table in the channel follows the server's language
setting. No discord import: this module is tested on its own.
"""

from __future__ import annotations

import re
from typing import Literal

from bot.engine.errors import BadAction, GameError
from bot.games.topwords.commands import word_tiles
from bot.games.topwords.rules import SIZE
from bot.i18n import language_of

Lang = Literal["en", "fr", "de"]

_WORD = re.compile(r"[A-Za-zÄÖÜäöüßẞ]+")
_SWAP = re.compile(r"[A-Za-zÄÖÜäöü]")


def lang_of(locale: object) -> Lang:
    """The language of a Discord locale: French for `fr`, German for `de`, English for every other."""
    lang = language_of(locale)
    return "fr" if lang == "fr" else "de" if lang == "de" else "en"


def error_text(error: GameError, lang: str) -> str:
    """The refusal in the reader's language."""
    return error.text(lang)


def word_letters(word: str) -> str:
    """A typed word as tiles (capitals, ß as SS), refused unless it is letters only and fits the board."""
    typed = word.strip()
    if not _WORD.fullmatch(typed):
        raise BadAction("topwords.bad_word", word=_quoted(typed))
    letters = word_tiles(typed)
    if len(letters) > SIZE:
        raise BadAction("topwords.long_word", word=letters, count=len(letters), size=SIZE)
    return letters


def swap_letter(letter: str) -> str:
    """The tile to swap when passing: one letter A–Z, Ä, Ö, Ü, as a capital."""
    typed = letter.strip()
    if not _SWAP.fullmatch(typed):
        raise BadAction("topwords.bad_swap", letter=_quoted(typed))
    return typed.upper()


def _quoted(typed: str) -> str:
    """User text echoed in a refusal: short, in code format so that it renders as typed."""
    shown = typed[:20].replace("`", "'")
    return f"`{shown}`" if shown else "—"
