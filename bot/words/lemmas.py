"""Lemma sets: two words are the same word (rules 7-8: variants) when their lemma sets intersect."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from bot.words import precomputed
from bot.words.lists import hunspell_file, read_lines

log = logging.getLogger(__name__)


def _simplemma(word: str, lang: str) -> str:
    import simplemma

    return str(simplemma.lemmatize(word, lang=lang))


class SimplemmaTable(Mapping[str, str]):
    """simplemma's dictionary of one language, read from the precomputed word table (written by
    `python -m bot.words build`) instead of decoded into memory: decoding it held the interpreter for
    0.3–1.5 s a language while the event loop served players, and kept a million entries in memory."""

    def __init__(self, table: precomputed.Table) -> None:
        self._table = table

    def get(self, key: str, default: Any = None) -> Any:  # the lookup simplemma makes
        lemma = self._table.simplemma(key)
        return lemma if lemma is not None else default

    def __getitem__(self, key: str) -> str:
        lemma = self._table.simplemma(key)
        if lemma is None:
            raise KeyError(key)
        return lemma

    def __iter__(self) -> Iterator[str]:
        return self._table.simplemma_forms()

    def __len__(self) -> int:
        return self._table.simplemma_count()


class _TableDictionaries:
    """simplemma's DictionaryFactory for one language's table."""

    def __init__(self, lang: str, table: precomputed.Table) -> None:
        self.lang = lang
        self._dictionary = SimplemmaTable(table)

    def get_dictionary(self, lang: str) -> Mapping[str, str]:
        if lang != self.lang:
            raise ValueError(f"this table holds simplemma's {self.lang} dictionary, not {lang}")
        return self._dictionary


def simplemma_with_table(lang: str, table: precomputed.Table) -> Callable[[str], str]:
    """simplemma's lemma of a word, with its dictionary read from the table (the same answers)."""
    from simplemma import Lemmatizer as Simplemma
    from simplemma.strategies import DefaultStrategy

    factory = _TableDictionaries(lang, table)
    lemmatizer = Simplemma(lemmatization_strategy=DefaultStrategy(dictionary_factory=factory))
    return lambda word: str(lemmatizer.lemmatize(word, lang))


def simplemma_entries(lang: str) -> Iterator[tuple[str, str]]:
    """Every (form, lemma) of simplemma's shipped dictionary for the language: for the table's build."""
    from simplemma.strategies.dictionaries import DefaultDictionaryFactory

    yield from DefaultDictionaryFactory(cache_max_size=0).get_dictionary(lang).items()


def _lemminflect_lemmas(word: str) -> set[str]:
    import lemminflect

    found: dict[str, Any] = lemminflect.getAllLemmas(word)
    return {str(lemma) for lemmas in found.values() for lemma in lemmas}


def read_irregular(path: Path) -> dict[str, frozenset[str]]:
    """A curated `form lemma` list for forms the lemmatizers miss (people → person)."""
    out: dict[str, set[str]] = {}
    for line in read_lines(path):
        form, lemma = line.lower().split()
        out.setdefault(form, set()).add(lemma)
    return {form: frozenset(lemmas) for form, lemmas in out.items()}


class HunspellStems:
    """Stems of a word by the hunspell affix rules, through spylls (pure Python); loads on first use."""

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self._lock = threading.Lock()
        self._dictionary: Any = None
        # While the word tables are built: the stems of every form, from the expanded dictionary.
        self.expanded: dict[str, set[str]] | None = None

    def stems(self, word: str) -> set[str]:
        """Every dictionary stem that the affix rules turn into word (écrit → écrire, folle → fou)."""
        if self.expanded is not None and word.islower():
            return set(self.expanded.get(word, ()))
        with self._lock:
            if self._dictionary is None:
                from spylls.hunspell import Dictionary

                dic = hunspell_file(self.tag)
                if dic is None:
                    raise FileNotFoundError(f"no hunspell dictionary for {self.tag}")
                self._dictionary = Dictionary.from_files(str(dic.with_suffix("")))
            forms = list(self._dictionary.lookuper.good_forms(word))
        return {str(form.stem) for form in forms}


class Lemmatizer:
    """Lemma sets of one language from its accepted spellings."""

    def __init__(self, lang: str, irregular: dict[str, frozenset[str]]) -> None:
        self.lang = lang
        self.irregular = irregular
        # simplemma's lemma of a word; the service gives it the table's dictionary when there is one.
        self.simplemma: Callable[[str], str] = partial(_simplemma, lang=lang)

    def lemmas(self, spellings: Iterable[str]) -> tuple[frozenset[str], str]:
        """The lemma set (the spellings and every lemma found for them, lower-cased, ß kept) and its key.

        The key is the word itself when it is a lemma (Haus, not Hau of which Haus is also a form),
        else the smallest lemma found (went → go).
        """
        words: set[str] = set()
        found: set[str] = set()
        for s in spellings:
            low = s.lower()
            words.add(low)
            found |= self.irregular.get(low, frozenset())
            found |= {lemma.lower() for lemma in self._lemmas(s)}
        own = words & found
        key = min(own or found or words)
        return frozenset(words | found), key

    def _lemmas(self, spelling: str) -> set[str]:
        return {self.simplemma(spelling)}


class EnglishLemmatizer(Lemmatizer):
    """English: simplemma and every lemma lemminflect knows (went → go, better → good)."""

    def _lemmas(self, spelling: str) -> set[str]:
        low = spelling.lower()
        return {self.simplemma(low), *_lemminflect_lemmas(low)}


class FrenchLemmatizer(Lemmatizer):
    """French: simplemma and the hunspell stems (simplemma reads écrit, blanche, folle as their own lemmas)."""

    def __init__(self, irregular: dict[str, frozenset[str]], stems: HunspellStems) -> None:
        super().__init__("fr", irregular)
        self.stems = stems

    def _lemmas(self, spelling: str) -> set[str]:
        low = spelling.lower()
        return {self.simplemma(low), *(s for s in self.stems.stems(low) if s.isalpha())}


class GermanLemmatizer(Lemmatizer):
    """German: simplemma, the noun forms of german-nouns (Häuser → Haus) and past participles (ge…t)."""

    def __init__(
        self,
        irregular: dict[str, frozenset[str]],
        noun_lemmas: dict[str, tuple[str, ...]],
        verbs: frozenset[str],
    ) -> None:
        super().__init__("de", irregular)
        self._nouns = noun_lemmas
        self._verbs = verbs

    def _lemmas(self, spelling: str) -> set[str]:
        nouns = self._nouns.get(spelling)
        if nouns:
            # german-nouns has the whole declension; simplemma guesses Rinde → Rind, Schale → Schal.
            return set(nouns)
        out = {self.simplemma(spelling)}
        # An infinitive is not a participle: gehören does not come from hören.
        if spelling.islower() and spelling not in self._verbs:
            out |= self._participle_infinitives(spelling)
        return out

    def _participle_infinitives(self, word: str) -> set[str]:
        """Infinitives a past participle may come from: gespielt → spielen, aufgemacht → aufmachen."""
        out: set[str] = set()
        start = word.find("ge")
        while start != -1:
            prefix, rest = word[:start], word[start + 2 :]
            bases = [rest, rest[1:]] if rest.startswith("g") else [rest]  # gegessen → essen
            for base in bases:
                if base.endswith("en"):
                    candidates = [base]
                elif base.endswith("et"):
                    candidates = [base[:-2] + "en", base[:-1] + "n"]
                elif base.endswith("t"):
                    candidates = [base[:-1] + "en", base[:-1] + "n"]
                else:
                    candidates = []
                out.update(prefix + c for c in candidates if prefix + c in self._verbs)
            start = word.find("ge", start + 1)
        return out
