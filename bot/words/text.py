"""Pure text helpers: identity of words, accent folding, letter checks, case and ß spellings."""

from __future__ import annotations

import unicodedata

# Letters that no Unicode decomposition turns into plain Latin ones; folded by hand for letter matching.
_FOLD_EXTRA = str.maketrans(
    {"œ": "oe", "æ": "ae", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i"}
)

# More `ss` than this in one word would make 2**n spellings; no German word needs it.
_MAX_SS = 4


def normalise(word: str) -> str:
    """Identity of a word (RULES-NOTES, Top Stop): trimmed, case-folded, Unicode NFC."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", word.strip()).casefold())


def fold(text: str) -> str:
    """Case-folded text without accents, for letter matching (É counts as E, Ä as A, œ as oe)."""
    decomposed = unicodedata.normalize("NFKD", text.strip().casefold())
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return plain.translate(_FOLD_EXTRA)


def is_letters(word: str) -> bool:
    """True when the word is one run of letters: no digit, hyphen, apostrophe, space or mark left over."""
    return bool(word) and all(ch.isalpha() for ch in word)


def capitalised(word: str) -> str:
    """The word with its first letter upper-case and the rest lower-case."""
    lower = word.lower()
    return lower[:1].upper() + lower[1:]


def is_mixed_case(word: str) -> bool:
    """True for spellings like `GmbH`, `PhD` or `iPhone`: neither lower, Capitalised nor ALL-CAPS."""
    return word != word.lower() and word != word.upper() and word != capitalised(word)


def sharp_s_spellings(word: str) -> list[str]:
    """Every spelling where each `ss` may stand for `ß` (TopWords: no ß tile), the word itself first."""
    if word.count("ss") > _MAX_SS:
        return [word]
    out: list[str] = []

    def walk(i: int, built: str) -> None:
        if i >= len(word):
            out.append(built)
            return
        if word.startswith("ss", i):
            walk(i + 1, built + "s")
            walk(i + 2, built + "ß")
        else:
            walk(i + 1, built + word[i])

    walk(0, "")
    return list(dict.fromkeys(out))
