"""Per-language word checks: is a string a valid word, and if not, why (RULES-NOTES reason codes)."""

from __future__ import annotations

import bisect
import logging
import threading
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from bot.words.data import LanguageLists, key
from bot.words.lists import hunspell_entries, read_lines
from bot.words.spell import Speller
from bot.words.text import capitalised, fold, is_letters, is_mixed_case, roman_numeral, sharp_s_spellings

log = logging.getLogger(__name__)

NOT_A_WORD = "not_a_word"
PROPER_NOUN = "proper_noun"
ABBREVIATION = "abbreviation"
# When several spellings of one string fail for different reasons, report the most telling one.
_REASON_RANK = {PROPER_NOUN: 0, ABBREVIATION: 1, NOT_A_WORD: 2}

# Mixed-case dictionary entries this short (GmbH, PhD, AfD, MwSt) are abbreviations; longer ones
# (iPhone, McDonald) are names.
_MAX_MIXED_ABBREVIATION = 5

# Longer strings in capitals may just be shouted words; check_tiles lower-cases before checking.
_MAX_SHOUTED_ACRONYM = 4

_CACHE_SIZE = 1 << 16


@dataclass(frozen=True)
class Analysis:
    """What a checker found: the accepted spellings (case fixed, ß restored), or the reason it failed."""

    spellings: tuple[str, ...]
    reason: str | None


def _best(reasons: list[str]) -> str:
    return min(reasons, key=_REASON_RANK.__getitem__) if reasons else NOT_A_WORD


def _prepare(word: str) -> str:
    return unicodedata.normalize("NFC", word.strip())


def _has_vowel(word: str) -> bool:
    return any(ch in "aeiouy" for ch in fold(word))


def dotted_abbreviations(tags: tuple[str, ...]) -> frozenset[str]:
    """Entries the dictionaries store with a full stop (bzw., Nr., etc.), as keys without the stops."""
    out = set()
    for tag in tags:
        for stem, _, _ in hunspell_entries(tag):
            if stem.endswith("."):
                letters = "".join(ch for ch in stem if ch.isalpha())
                if letters:
                    out.add(key(letters))
    return frozenset(out)


class LanguageChecker:
    """Shared part of the checkers: cache, bad characters, curated overrides, the prefix index."""

    def __init__(self, lists: LanguageLists, speller: Speller, dotted: frozenset[str] | None = None) -> None:
        self.lists = lists
        self.speller = speller
        # From the word table when there is one (see GermanData.name_like on why not scanned at start).
        self.dotted = dotted if dotted is not None else dotted_abbreviations(speller.tags)
        self.analyse: Callable[[str], Analysis] = lru_cache(maxsize=_CACHE_SIZE)(self._analyse)
        self._prefix_lock = threading.Lock()
        self._prefixes: tuple[str, ...] | None = None

    def _analyse(self, word: str) -> Analysis:
        w = _prepare(word)
        # Rule (Top Stop identity of words): only single words of letters.
        if not is_letters(w):
            return Analysis((), NOT_A_WORD)
        low = w.lower()
        if key(low) in self.lists.abbreviations:
            return Analysis((), ABBREVIATION)
        # Rule 4 (RULES-NOTES): Roman numerals are abbreviations, unless the letters are also an ordinary
        # word (mix, dix; allow.txt), as the dictionaries cannot tell which they hold.
        if roman_numeral(low) and key(low) not in self.lists.allow:
            return Analysis((), ABBREVIATION)
        # Letters without a vowel are read letter by letter: Pkw, Nr, mph, BMW (interjections are allowed).
        # Only a string some dictionary knows is an abbreviation; anything else is simply not a word (pxq).
        if not _has_vowel(low) and key(low) not in self.lists.allow:
            shouted = w.isupper() and len(w) <= _MAX_SHOUTED_ACRONYM  # PSG, BVB: read as an acronym
            return Analysis((), ABBREVIATION if shouted or self._known_in_any_case(w, low) else NOT_A_WORD)
        analysis = self._judge(w, low)
        # Typed in capitals and this short, an unknown string is an acronym (EU, BMI, NYPD, CPAM), even
        # where a dictionary knows the letters as a symbol (Eu).
        shouted = analysis.reason is not None and w.isupper() and len(w) <= _MAX_SHOUTED_ACRONYM
        if shouted and (analysis.reason == NOT_A_WORD or len(w) <= 2):
            return Analysis((), ABBREVIATION)
        return analysis

    def _judge(self, w: str, low: str) -> Analysis:
        raise NotImplementedError

    def _known_in_any_case(self, w: str, low: str) -> bool:
        """Whether a dictionary or a curated list has these letters in some spelling (mph, Pkw, BMW, Nr.)."""
        k = key(low)
        if k in self.dotted or k in self.lists.abbreviations:
            return True
        return any(self.speller.check(form) for form in {w, low, low.upper(), capitalised(low)})

    def _mixed_case_reason(self, w: str) -> str | None:
        """GmbH, PhD, iPhone typed as stored: abbreviation when short, otherwise a name."""
        if is_mixed_case(w) and self.speller.check(w):
            return ABBREVIATION if len(w) <= _MAX_MIXED_ABBREVIATION else PROPER_NOUN
        return None

    def _stems_for_prefixes(self) -> list[str]:
        raise NotImplementedError

    def first_pairs(self) -> frozenset[str]:
        """The first two letters (accents ignored) of every dictionary word: what Level II asks, stored in
        the word tables so that no spin scans the dictionary on the event loop."""
        return frozenset(f[:2] for f in (fold(s) for s in self._stems_for_prefixes()) if len(f) >= 2)

    def any_word_starts_with(self, prefix: str) -> bool:
        """True when some dictionary word starts with prefix, accents ignored (Level II)."""
        with self._prefix_lock:
            if self._prefixes is None:
                self._prefixes = tuple(sorted({fold(s) for s in self._stems_for_prefixes()}))
            words = self._prefixes
        p = fold(prefix)
        i = bisect.bisect_left(words, p)
        return i < len(words) and words[i].startswith(p)


class CaseChecker(LanguageChecker):
    """English and French: proper nouns and abbreviations are stored capitalised, words lower-case."""

    def _judge(self, w: str, low: str) -> Analysis:
        k = key(low)
        if k in self.lists.allow:
            return Analysis((low,), None)
        named = k in self.lists.names or k in self.lists.deny
        if self.speller.check(low):
            # Typed lower-case, a lower-case entry is a word in its own right even when it is also a name:
            # china (porcelain), japan (to lacquer), sally, peter (to peter out): no names list overrides
            # it. Typed Capitalised, the name on the lists (or the curated deny list) is what is meant.
            if named and w != low:
                return Analysis((), PROPER_NOUN)
            return Analysis((low,), None)
        if k in self.lists.deny:
            return Analysis((), PROPER_NOUN)
        mixed = self._mixed_case_reason(w)
        if mixed:
            return Analysis((), mixed)
        # Every ALL-CAPS string passes for any entry, so ask which dictionary stores it only in capitals:
        # NASA is an abbreviation even where another dictionary has it as Nasa.
        if self.speller.stored_upper(low):
            return Analysis((), ABBREVIATION)
        if k in self.lists.names or self.speller.check(capitalised(low)):
            return Analysis((), PROPER_NOUN)
        if k in self.dotted:
            return Analysis((), ABBREVIATION)
        return Analysis((), NOT_A_WORD)

    def _stems_for_prefixes(self) -> list[str]:
        out = []
        for tag in self.speller.tags:
            for stem, _, morph in hunspell_entries(tag):
                if is_letters(stem) and stem.islower() and "po:npr" not in morph and "po:prn" not in morph:
                    k = key(stem)
                    if k not in self.lists.names and k not in self.lists.abbreviations:
                        out.append(stem)
        return out


# Endings of German common nouns made by derivation: a capitalised entry ending so is not a name.
_NOUN_ENDINGS = (
    "ung", "heit", "keit", "schaft", "tum", "ei", "ismus", "ik", "ion", "tät", "enz", "anz",
    "chen", "lein", "ling", "nis", "ment", "logie", "ur", "ie",
)  # fmt: skip


# Shortest head and tail of a compound noun that the tail test accepts (Haus|tür, not Ha|user).
_MIN_COMPOUND_HEAD = 3
_MIN_COMPOUND_TAIL = 4


class GermanData:
    """German noun data derived from german-nouns (Wiktionary) and the hunspell entries' flags."""

    def __init__(self, root: Path, tag: str, name_like: frozenset[str] | None = None) -> None:
        self.noun_lemmas: dict[str, tuple[str, ...]] = {}
        for line in read_lines(root / "nouns.txt"):
            lemma, *forms = line.split(" ")
            for form in (lemma, *forms):
                self.noun_lemmas[form] = (*self.noun_lemmas.get(form, ()), lemma)
        self.names = frozenset(read_lines(root / "names.txt"))
        self.acronyms = frozenset(key(e) for e in read_lines(root / "acronyms.txt"))
        # Capitalised hunspell entries that take no ending but the genitive s: mostly names (Merkel/S).
        # From the word table when there is one: scanning 258k entries at start-up, in the thread that
        # loads the words while the event loop serves players, paused the loop for 30–40 ms.
        self.name_like: frozenset[str] = (
            name_like
            if name_like is not None
            else frozenset(
                stem
                for stem, flags, _ in hunspell_entries(tag)
                if flags in ("", "S") and is_letters(stem) and stem[:1].isupper() and stem[1:].islower()
            )
        )


class GermanChecker(LanguageChecker):
    """German: nouns are capitalised too, so lists tell common nouns from names; SS may stand for ß."""

    def __init__(
        self,
        lists: LanguageLists,
        speller: Speller,
        data: GermanData,
        foreign: list[Speller],
        dotted: frozenset[str] | None = None,
    ) -> None:
        super().__init__(lists, speller, dotted)
        self.data = data
        self._foreign = foreign

    def _judge(self, w: str, low: str) -> Analysis:
        if key(low) in self.lists.deny:
            return Analysis((), PROPER_NOUN)
        reasons: list[str] = []
        # German capitalises nouns, so a word typed Capitalised means the noun or the name: Google is the
        # company even though "google" is a form of googeln. Lower-case or ALL-CAPS input tries both.
        typed = "lower" if w.islower() else "title" if len(w) > 1 and w == capitalised(w) else "other"
        # TopWords: there is no ß tile, SS may stand for ß (STRASSE = Straße, MASSE = Masse or Maße).
        # Ä, Ö, Ü are letters of their own: AE is never read as Ä.
        for spelling in sharp_s_spellings(low) if "ss" in low else [low]:
            accepted, reason = self._judge_spelling(spelling, typed)
            if accepted:
                return Analysis(accepted, None)
            reasons.append(reason)
        mixed = self._mixed_case_reason(w)
        if mixed:
            reasons.append(mixed)
        return Analysis((), _best(reasons))

    def _judge_spelling(self, low: str, typed: str) -> tuple[tuple[str, ...], str]:
        k = key(low)
        title = capitalised(low)
        if k in self.lists.allow:
            return (title if self.speller.check(title) else low,), NOT_A_WORD
        # Typed lower-case, the lower-case reading comes first; typed Capitalised, the noun or name does.
        low_ok: bool | None = None
        if typed == "lower":
            low_ok = self.speller.check(low)
            if low_ok:
                return (low,), NOT_A_WORD
        accepted: list[str] = []
        if self.speller.check(title):
            reason = self._title_reason(title, k)
            if reason is None:
                if typed == "title":
                    return (title,), NOT_A_WORD
                accepted.append(title)
            else:
                if typed != "title" and low_ok is None:
                    low_ok = self.speller.check(low)
                if not low_ok:
                    return (), reason
        if low_ok is None:
            low_ok = self.speller.check(low)
        if low_ok:
            accepted.insert(0, low)
        if accepted:
            return tuple(accepted), NOT_A_WORD
        if self._short_imperative(low):
            return (low,), NOT_A_WORD
        if k in self.lists.names or title in self.data.names:
            return (), PROPER_NOUN
        # Neither lower-case nor Capitalised passed, so an ALL-CAPS pass means a capitals-only entry (ADAC).
        if k in self.data.acronyms or k in self.dotted or self.speller.check(low.upper()):
            return (), ABBREVIATION
        return (), NOT_A_WORD

    def _short_imperative(self, low: str) -> bool:
        """Saug! Kauf! The imperative without its -e is standard German, but hunspell lists it only for
        some verbs: accept a stem whose -en form is a known verb and whose -e form is a word."""
        return (
            len(low) >= 3
            and low[-1] not in "aeiouäöü"
            and key(low + "en") in self.lists.verbs.keys
            and self.speller.check(low + "e")
        )

    def _title_reason(self, title: str, k: str) -> str | None:
        """None when an accepted capitalised word is a common noun, else why not."""
        if k in self.lists.names and k not in self.lists.given_names:
            return PROPER_NOUN
        if k in self.lists.given_names and (
            title in self.data.name_like or title not in self.data.noun_lemmas
        ):
            # A first name or a brand declined as a name (Anna, Porsche): the name is meant.
            return PROPER_NOUN
        if title in self.data.noun_lemmas:
            return None  # a first name or a brand that is also a common noun: Rose, Golf, Mark
        if title in self.data.names:
            return PROPER_NOUN
        if title.endswith(_NOUN_ENDINGS):
            return None
        stems = [title, title[:-1]] if title.endswith("s") else [title]
        if any(s in self.data.name_like for s in stems):
            return PROPER_NOUN
        # A compound ending in a known noun (Haustürschlüssel) is a common noun.
        for i in range(_MIN_COMPOUND_HEAD, len(title) - _MIN_COMPOUND_TAIL + 1):
            if capitalised(title[i:]) in self.data.noun_lemmas:
                return None
        # "English or French know it only capitalised" (WORDS-FACTS): Goethe, Nietzsche.
        for other in self._foreign:
            if other.check(title) and not other.check(k):
                return PROPER_NOUN
        return None

    def _stems_for_prefixes(self) -> list[str]:
        out = []
        for stem, _, _ in hunspell_entries(self.speller.tags[0]):
            if not is_letters(stem) or stem.isupper() or is_mixed_case(stem):
                continue
            word = stem.islower() or (stem in self.data.noun_lemmas and stem not in self.data.names)
            named = key(stem) in self.lists.names and not (
                key(stem) in self.lists.given_names
                and stem in self.data.noun_lemmas
                and stem not in self.data.name_like
            )
            if word and not named and key(stem) not in self.lists.abbreviations:
                out.append(stem)
        return out
