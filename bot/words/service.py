"""WordService: the one object the games use to check words, compare variants and look up categories."""

from __future__ import annotations

import logging
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from bot.words import precomputed
from bot.words.checkers import CaseChecker, GermanChecker, GermanData, LanguageChecker
from bot.words.data import (
    CATEGORIES,
    DEFAULT_NAME_COUNTRY,
    LANGUAGES,
    NAME_COUNTRIES,
    Category,
    CommonLists,
    LanguageLists,
    country_keys,
    key,
)
from bot.words.lemmas import (
    EnglishLemmatizer,
    FrenchLemmatizer,
    GermanLemmatizer,
    HunspellStems,
    Lemmatizer,
    read_irregular,
    simplemma_entries,
    simplemma_with_table,
)
from bot.words.lists import DEFAULT_DIR
from bot.words.spell import Speller
from bot.words.text import capitalised, fold, normalise

log = logging.getLogger(__name__)

# Hunspell dictionaries per language: English accepts en_US or en_GB spellings.
SPELLERS: dict[str, tuple[str, ...]] = {"en": ("en_US", "en_GB"), "fr": ("fr",), "de": ("de_DE",)}

_CACHE_SIZE = 1 << 16
# Sets the checkers derive from every hunspell entry, kept in the word tables under these names.
DOTTED = "dotted_abbreviations"
NAME_LIKE = "name_like"
FIRST_PAIRS = "first_pairs"  # Level II: the first two letters of every dictionary word


class Verdict(NamedTuple):
    """A check's answer: reason is None when valid, else not_a_word, proper_noun or abbreviation."""

    word: str
    valid: bool
    reason: str | None


@dataclass(frozen=True)
class _Language:
    checker: LanguageChecker
    lemmatizer: Lemmatizer


class WordService:
    """Checks, lemmas and categories for en, fr and de; loads each language on first use; thread-safe."""

    languages: tuple[str, ...] = LANGUAGES

    def __init__(self, dictionaries: Path | None = None, tables: Path | None = None) -> None:
        self.root = dictionaries or DEFAULT_DIR
        self.tables_dir = tables or precomputed.default_dir()
        self._lock = threading.RLock()
        self._common: CommonLists | None = None
        self._countries: frozenset[str] | None = None
        self._languages: dict[str, _Language] = {}
        self._spellers: dict[str, Speller] = {}
        self._tables: dict[str, precomputed.Table | None] = {}
        self._cached_lemmas = lru_cache(maxsize=_CACHE_SIZE)(self._lemmas)
        self._rows: dict[tuple[str, str], precomputed.Row | None] = {}  # the tables' answers seen lately
        self._pairs: dict[str, frozenset[str] | None] = {}  # Level II's first letter pairs, from the tables

    # -- loading ---------------------------------------------------------------------------------

    @staticmethod
    def import_libraries() -> None:
        """Import the spelling and lemma libraries on the caller's thread, before the bot serves anyone.

        Imported by the warm-up thread while players play, their extension modules (numpy among them) held
        the interpreter for up to 70 ms at a time: a pause every player felt.
        """
        import enchant  # noqa: F401
        import lemminflect  # noqa: F401
        import simplemma  # noqa: F401
        import simplemma.strategies.dictionaries  # noqa: F401
        import spylls.hunspell  # noqa: F401

    def _language(self, lang: str) -> str:
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r}; expected one of {', '.join(LANGUAGES)}")
        return lang

    def _common_lists(self) -> CommonLists:
        with self._lock:
            if self._common is None:
                self._common = CommonLists.load(self.root)
                self._countries = country_keys(self.root)
            return self._common

    def _get(self, lang: str) -> _Language:
        language = self._languages.get(lang)
        if language is not None:
            return language
        with self._lock:
            language = self._languages.get(self._language(lang))
            if language is None:
                language = self._load(lang)
                self._languages[lang] = language
            return language

    def _checker(self, lang: str) -> LanguageChecker:
        return self._get(lang).checker

    def _speller(self, lang: str) -> Speller:
        with self._lock:
            speller = self._spellers.get(lang)
            if speller is None:
                speller = self._spellers[lang] = Speller(SPELLERS[lang])
            return speller

    def _load(self, lang: str) -> _Language:
        common = self._common_lists()
        assert self._countries is not None
        lists = LanguageLists.load(self.root, lang, common, self._countries)
        speller = self._speller(lang)
        irregular = read_irregular(self.root / lang / "lemmas.txt")
        table = self.table(lang)
        # What the checkers derive from every hunspell entry, as the table's build found it (if it did).
        dotted = table.entries(DOTTED) if table is not None else None
        checker: LanguageChecker
        lemmatizer: Lemmatizer
        if lang == "de":
            name_like = table.entries(NAME_LIKE) if table is not None else None
            data = GermanData(self.root / "de", SPELLERS["de"][0], name_like)
            foreign = [self._speller(o) for o in ("en", "fr")]
            checker = GermanChecker(lists, speller, data, foreign, dotted)
            lemmatizer = GermanLemmatizer(irregular, data.noun_lemmas, lists.verbs.keys)
        elif lang == "fr":
            checker = CaseChecker(lists, speller, dotted)
            stems = HunspellStems(SPELLERS["fr"][0])
            if table is not None:
                # The table holds every form the affix rules make, with its stems: a word it lacks has none,
                # so the rules never need running backwards at play time.
                stems.expanded = {}
            lemmatizer = FrenchLemmatizer(irregular, stems)
        else:
            checker = CaseChecker(lists, speller, dotted)
            lemmatizer = EnglishLemmatizer("en", irregular)
        if table is not None and table.has_simplemma():
            lemmatizer.simplemma = simplemma_with_table(lang, table)
        log.info("loaded words for %s", lang)
        return _Language(checker, lemmatizer)

    # -- the precomputed tables (bot/words/precomputed.py) ---------------------------------------

    def table(self, lang: str) -> precomputed.Table | None:
        """The language's precomputed table, if one was built for these dictionaries and lists."""
        if lang in self._tables:
            return self._tables[lang]
        with self._lock:
            if lang not in self._tables:
                stamp = precomputed.fingerprint(SPELLERS[self._language(lang)], self.root)
                self._tables[lang] = precomputed.Table.open(self.tables_dir / f"{lang}.sqlite", stamp)
            return self._tables[lang]

    def _row(self, word: str, lang: str) -> precomputed.Row | None:
        key = (word, lang)
        try:
            return self._rows[key]
        except KeyError:
            pass
        table = self.table(lang)
        row = table.get(word) if table is not None else None
        self._remember(key, row)
        return row

    def _remember(self, key: tuple[str, str], row: precomputed.Row | None) -> None:
        if len(self._rows) >= _CACHE_SIZE:
            self._rows.clear()  # a round's words are asked together: recent ones matter, old ones not
        self._rows[key] = row

    def prefetch(self, words: list[str], lang: str) -> None:
        """Look these words up in one go (a round's lists, before they are judged word by word)."""
        table = self.table(lang)
        if table is None:
            return
        wanted = [w for w in dict.fromkeys(words) if (w, lang) not in self._rows]
        found = table.get_many(wanted)
        for word in wanted:
            self._remember((word, lang), found.get(word))

    def build_table(self, lang: str) -> int:
        """Expand the language's dictionaries and judge every form with the live checker: its table."""
        forms: dict[str, set[str]] = {}
        for tag in SPELLERS[self._language(lang)]:
            for form, stems in precomputed.expand(tag).items():
                forms.setdefault(form, set()).update(stems)
        lemmatizer = self._get(lang).lemmatizer
        before = lemmatizer.stems.expanded if isinstance(lemmatizer, FrenchLemmatizer) else None
        if isinstance(lemmatizer, FrenchLemmatizer):
            lemmatizer.stems.expanded = forms  # the affix rules' answers, without running them backwards
        try:

            def judge(form: str) -> tuple[str | None, str, frozenset[str]]:
                lemmas, key = self._lemmas(form, lang)
                return self._checker(lang).analyse(form).reason, key, lemmas

            stamp = precomputed.fingerprint(SPELLERS[lang], self.root)
            checker = self._checker(lang)
            entries = {DOTTED: checker.dotted, FIRST_PAIRS: checker.first_pairs()}
            if isinstance(checker, GermanChecker):
                entries[NAME_LIKE] = checker.data.name_like
            count = precomputed.build(
                self.tables_dir / f"{lang}.sqlite",
                sorted(forms),
                judge,
                stamp,
                simplemma_entries(lang),
                entries,
            )
        finally:
            if isinstance(lemmatizer, FrenchLemmatizer):
                lemmatizer.stems.expanded = before
        with self._lock:
            self._tables.pop(lang, None)
            self._pairs.pop(lang, None)
            self._rows.clear()
        return count

    def warm(self, lang: str) -> None:
        """Load what a word the table lacks needs (the checker, its lists, the lemmatizers), so that no
        player's word waits for it."""
        self.table(lang)
        self._first_pairs(lang)
        language = self._get(lang)
        language.checker.analyse("warming")
        language.lemmatizer.lemmas(("warming",))

    # -- the API ---------------------------------------------------------------------------------

    def normalise(self, word: str) -> str:
        """Identity of a word: trimmed, case-folded, Unicode NFC."""
        return normalise(word)

    def check(self, word: str, lang: str) -> Verdict:
        """Is word a valid word of lang, and if not why (not_a_word, proper_noun, abbreviation)."""
        row = self._row(word, lang)
        if row is not None:
            return Verdict(word, row.reason is None, row.reason)
        analysis = self._checker(lang).analyse(word)
        return Verdict(word, analysis.reason is None, analysis.reason)

    def check_tiles(self, tiles: str, lang: str = "de") -> Verdict:
        """TopWords: an ALL-CAPS tile string, case fixed before checking and SS allowed to stand for ß."""
        # The case is fixed inside every checker (never check ALL-CAPS as typed); lower-casing here
        # also keeps tiles from being read as a mixed-case abbreviation.
        verdict = self.check(tiles.strip().lower(), lang)
        return Verdict(tiles, verdict.valid, verdict.reason)

    def _lemmas(self, word: str, lang: str) -> tuple[frozenset[str], str]:
        row = self._row(word, lang)
        if row is not None:
            return frozenset(row.lemmas.split(" ")), row.lemma_key
        language = self._get(lang)
        w = unicodedata.normalize("NFC", word.strip())
        spellings = language.checker.analyse(w).spellings
        if not spellings:
            spellings = (w.lower(), capitalised(w)) if lang == "de" else (w.lower(),)
        elif w in spellings:
            # German case tells the reading: wässern is the verb, Wässern the noun (ALL-CAPS tries both).
            spellings = (w,)
        return language.lemmatizer.lemmas(spellings)

    def lemmas(self, word: str, lang: str) -> frozenset[str]:
        """The word's lemma set (lower-case, ß kept): the word itself and every lemma found for it."""
        return self._cached_lemmas(word, lang)[0]

    def lemma_key(self, word: str, lang: str) -> str:
        """One canonical lemma for storage: the word when it is a lemma itself, else its smallest lemma."""
        row = self._row(word, lang)
        if row is not None:
            return row.lemma_key
        return self._cached_lemmas(word, lang)[1]

    def same_word(self, a: str, b: str, lang: str) -> bool:
        """Rules 7-8: a and b are variants of one word when their lemma sets intersect."""
        return not self.lemmas(a, lang).isdisjoint(self.lemmas(b, lang))

    def starts_with(self, word: str, letter: str) -> bool:
        """Does word start with letter (one or two letters), accents ignored: É counts as E."""
        prefix = fold(letter)
        return bool(prefix) and fold(word).startswith(prefix)

    def _category(self, lang: str, category: str, country: str | None) -> Category:
        self._language(lang)
        if category not in CATEGORIES:
            raise ValueError(f"unknown category {category!r}; expected one of {', '.join(CATEGORIES)}")
        common = self._common_lists()
        if category == "brands":
            return common.brands
        if category == "first_names":
            c = country or DEFAULT_NAME_COUNTRY[lang]
            if c not in NAME_COUNTRIES:
                raise ValueError(f"unknown country {c!r}; expected one of {', '.join(NAME_COUNTRIES)}")
            return common.first_names[c]
        lists = self._checker(lang).lists
        return lists.countries if category == "countries" else lists.verbs

    def in_category(self, word: str, lang: str, category: str, *, country: str | None = None) -> bool:
        """Level VII: is word in the category list (verbs: in any form; first names: the table's country)."""
        cat = self._category(lang, category, country)
        if word in cat:
            return True
        if category == "verbs":
            return any(lemma in cat for lemma in self.lemmas(word, lang))
        return False

    def name_key(self, word: str) -> str:
        """Level VII first names: one key for every spelling of a name (Ahmed and Ahmad give "ahmad")."""
        spelled = key(word)
        return self._common_lists().name_spellings.get(spelled, spelled)

    def category_entries(self, lang: str, category: str, letter: str, *, country: str | None = None) -> int:
        """Level VII: how many playable entries of the category start with letter (fewer than 3: spin again)."""
        return self._category(lang, category, country).count_starting(letter)

    def category_words(
        self, lang: str, category: str, letter: str, *, country: str | None = None
    ) -> tuple[str, ...]:
        """The playable entries of the category that start with letter, in the list's order (words a
        simulated player may write: Top Stop's `sample_action`)."""
        return self._category(lang, category, country).starting(letter)

    def any_word_starts_with(self, prefix: str, lang: str) -> bool:
        """Level II: does any dictionary word start with this combination (if not, spin again). Two letters
        are one set lookup in the pairs the table stores; without a table the dictionary is scanned once."""
        pairs = self._first_pairs(lang)
        folded = fold(prefix)
        if pairs is not None and len(folded) == 2:
            return folded in pairs
        return self._checker(lang).any_word_starts_with(prefix)

    def _first_pairs(self, lang: str) -> frozenset[str] | None:
        if lang not in self._pairs:
            table = self.table(lang)
            self._pairs[lang] = table.entries(FIRST_PAIRS) if table is not None else None
        return self._pairs[lang]
