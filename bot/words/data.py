"""The curated and derived lists of one language, loaded from dictionaries/."""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from bot.words.lists import read_lines
from bot.words.text import fold, is_letters

log = logging.getLogger(__name__)

LANGUAGES: tuple[str, ...] = ("en", "fr", "de")
CATEGORIES: tuple[str, ...] = ("countries", "first_names", "brands", "verbs")
# First-name lists: `en` the common English first names (US and UK), `fr` France, `de` Germany, `lb` Lebanon.
NAME_COUNTRIES: tuple[str, ...] = ("en", "fr", "de", "lb")
# The first-name list a table uses when it names no country, by its language (RULES-NOTES, Level VII);
# `lb` is there on request.
DEFAULT_NAME_COUNTRY = {"en": "en", "fr": "fr", "de": "de"}


def key(entry: str) -> str:
    """How list entries are compared: lower-cased but with ß kept (Masse and Maße stay apart)."""
    return entry.strip().lower()


class Category:
    """One category list: membership by key and counts of playable entries by first letters."""

    def __init__(self, entries: list[str]) -> None:
        self.entries = tuple(dict.fromkeys(entries))
        self.keys = frozenset(key(e) for e in self.entries)
        # Only one word of letters can be written in Top Stop, so only those count for a letter.
        self._playable = tuple((e, fold(e)) for e in self.entries if is_letters(e))
        self._folded = tuple(folded for _, folded in self._playable)
        # A Level VII spin counts every letter: one pass here, not 26 passes over thousands of first names
        # (16 ms on the event loop for a spin with 7,000 names).
        self._by_letter = Counter(e[:1] for e in self._folded)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and key(word) in self.keys

    def count_starting(self, letters: str) -> int:
        """How many playable entries start with these letters, accents ignored."""
        prefix = fold(letters)
        if len(prefix) == 1:
            return self._by_letter[prefix]
        return sum(1 for e in self._folded if e.startswith(prefix))

    def starting(self, letters: str) -> tuple[str, ...]:
        """The playable entries (one word of letters) that start with these letters, accents ignored, in
        the list's order."""
        prefix = fold(letters)  # the folds are made once: a bot's sheet asks for every category (45 ms each)
        return tuple(e for e, folded in self._playable if folded.startswith(prefix))


@dataclass(frozen=True)
class CommonLists:
    """Lists shared by every language: brands, first names per country, places and famous people."""

    brands: Category
    first_names: dict[str, Category]
    # Places and people: not categories, only proper nouns.
    places: frozenset[str]
    # Each spelling of a first name (key) -> the name's usual spelling (key): Level VII crosses out the
    # same name written in another spelling.
    name_spellings: dict[str, str]

    @classmethod
    def load(cls, root: Path) -> CommonLists:
        """Read the shared lists under root."""
        return cls(
            brands=Category(list(read_lines(root / "brands.txt"))),
            first_names={
                c: Category(list(read_lines(root / "first_names" / f"{c}.txt"))) for c in NAME_COUNTRIES
            },
            places=frozenset(
                key(e) for name in ("places.txt", "people.txt") for e in read_lines(root / name)
            ),
            name_spellings={
                key(spelling): key(line.split()[0])
                for line in read_lines(root / "first_names" / "spellings.txt")
                for spelling in line.split()
            },
        )


@dataclass(frozen=True)
class LanguageLists:
    """Per-language lists: curated allow/deny/abbreviations and the category lists."""

    lang: str
    allow: frozenset[str]
    deny: frozenset[str]
    abbreviations: frozenset[str]
    countries: Category
    verbs: Category
    # Every name that marks a proper noun even when the dictionary also has it lower-case.
    names: frozenset[str]
    # First names and brands: names too, but a word the dictionary knows as a common noun stays a word
    # (German Rose, Golf, Mark: the lists hold thousands of names, many of them also words).
    given_names: frozenset[str] = frozenset()

    @classmethod
    def load(cls, root: Path, lang: str, common: CommonLists, all_countries: frozenset[str]) -> LanguageLists:
        """Read one language's lists under root/lang."""
        d = root / lang

        def keys(name: str) -> frozenset[str]:
            return frozenset(key(e) for e in read_lines(d / name))

        countries = Category([*read_lines(d / "countries.txt"), *read_lines(d / "countries_aliases.txt")])
        deny = keys("deny.txt")
        names = set(all_countries) | common.places | deny
        given = set(common.brands.keys)
        for cat in common.first_names.values():
            given |= cat.keys
        return cls(
            lang=lang,
            allow=keys("allow.txt"),
            deny=deny,
            abbreviations=keys("abbreviations.txt"),
            countries=countries,
            verbs=Category(list(read_lines(d / "verbs.txt"))),
            names=frozenset(names | given),
            given_names=frozenset(given - names),
        )


def country_keys(root: Path) -> frozenset[str]:
    """Country names in every language, as keys: a country is a proper noun whatever the language."""
    out: set[str] = set()
    for lang in LANGUAGES:
        for name in ("countries.txt", "countries_aliases.txt"):
            out |= {key(e) for e in read_lines(root / lang / name)}
    return frozenset(out)
