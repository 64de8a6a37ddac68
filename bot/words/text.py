"""Pure text helpers: identity of words, accent folding, letter checks, case and ß spellings."""

from __future__ import annotations

import re
import unicodedata

# Letters that no Unicode decomposition turns into plain Latin ones; folded by hand for letter matching.
_FOLD_EXTRA = str.maketrans(
    {"œ": "oe", "æ": "ae", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i"}
)

# More `ss` than this in one word would make 2**n spellings; no German word needs it.
_MAX_SS = 4


# A Roman numeral as written canonically (1-3999), and the French ordinal endings written after one
# (XXXVIIIᵉ, XLVᵉˢ, Iᵉʳ, XIXème).
_ROMAN = re.compile(r"m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})")
_ORDINAL_ENDINGS = ("ᵉ", "ᵉˢ", "ᵉʳ", "ᵉʳˢ", "ʳᵉ", "ʳᵉˢ", "ème", "èmes")


def roman_numeral(word: str) -> bool:
    """Is the word a Roman numeral of two letters or more, or a French ordinal written with one (rule 4:
    an abbreviation)? A single letter (I, V, X) is left to the dictionary."""
    low = unicodedata.normalize("NFC", word.strip().lower())
    for ending in _ORDINAL_ENDINGS:
        if low.endswith(ending) and _ROMAN.fullmatch(low[: -len(ending)]) and len(low) > len(ending):
            return True
    return len(low) >= 2 and _ROMAN.fullmatch(low) is not None


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
