"""Top Stop, advanced game: what each Level card asks of a word, and judging a round under a Level.

Rulebook, LEVEL CARDS; RULES-NOTES (Level I letters, Level II second letters, Level VII categories,
Level X staircase). Words that break the Level's rule are crossed out with the reason `level`, words
outside a Level VII category with `category` (the last two codes of RULES-NOTES' order).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.games.topstop.cards import MIN_CATEGORY_ENTRIES
from bot.games.topstop.judging import Lexicon
from bot.games.topstop.state import Entry
from bot.words.text import fold

# Levels under which every word still begins with the target letter (rule 2 applies as in the base game);
# under V, VI and X the target letter's place is the Level's own rule.
_BEGINNING = frozenset({None, "I", "II", "III", "IV", "VII"})
# Level VII categories made of names: the dictionary's verdict (not a word, proper noun) does not apply,
# membership of the category list decides.
_NAME_CATEGORIES = frozenset({"brands", "countries", "first_names"})


class CategoryWords(Protocol):
    """The part of bot.words.WordService that the Level cards use."""

    def in_category(self, word: str, lang: str, category: str, *, country: str | None = None) -> bool: ...
    def category_entries(
        self, lang: str, category: str, letter: str, *, country: str | None = None
    ) -> int: ...
    def any_word_starts_with(self, prefix: str, lang: str) -> bool: ...
    def name_key(self, word: str) -> str: ...


@dataclass(frozen=True)
class LevelRule:
    """The rule words are judged by this round."""

    level: str | None
    letter: str
    second: str | None = None  # Level II
    category: str | None = None  # Level VII
    country: str | None = None  # Level VII first names: the table's country


def keeps_slots(level: str | None) -> bool:
    """Level X: a word's slot is its position in the staircase, so empty slots keep their place."""
    return level == "X"


def breaks_level(word: str, slot: int, rule: LevelRule) -> bool:
    """Does the word break the Level's own rule (reason `level`)? `slot` counts from 1."""
    level, plain, letter = rule.level, fold(word), fold(rule.letter)
    if level == "II":
        return rule.second is not None and not plain.startswith(letter + fold(rule.second))
    if level == "III":
        return len(word) != 3
    if level == "IV":
        return len(word) < 4
    if level == "V":
        return letter in plain
    if level == "VI":
        return not plain.endswith(letter)
    if level == "X":
        # The staircase: the target letter at position k in the word of slot k.
        return plain[slot - 1 : slot] != letter
    return False


def letter_excluded(
    service: CategoryWords, lang: str, category: str, letter: str, country: str | None
) -> bool:
    """Level VII: a letter with fewer than 3 entries in the category is excluded: spin again."""
    return service.category_entries(lang, category, letter, country=country) < MIN_CATEGORY_ENTRIES


def combinable(service: CategoryWords, lang: str, letter: str, seconds: Iterable[str]) -> list[str]:
    """Level II: the second letters that some dictionary word begins with after the target letter."""
    return [s for s in seconds if service.any_word_starts_with(letter + s, lang)]


def judge_level_lists(
    lists: Mapping[str, Sequence[str]],
    rule: LevelRule,
    earlier_lemmas: Iterable[str],
    lexicon: Lexicon,
    immune: Collection[str],
) -> dict[str, list[Entry]]:
    """Every word of every list with the first reason it is crossed out (RULES-NOTES order), or None.

    As the base game's judging, plus: the Level's rule (`level`), the Level VII category (`category`),
    Level X slots (blank entries keep their place), first names in another spelling, and immunity
    (a Ba Oossee card: the immune player's words count even if common or duplicates).
    """
    service = _category_words(lexicon)
    names = service is not None and rule.level == "VII" and rule.category == "first_names"
    lexicon.prefetch(w for words in lists.values() for w in words)
    slots = {p: [(i + 1, w) for i, w in enumerate(words) if w] for p, words in lists.items()}
    entries: dict[str, list[tuple[int, Entry]]] = {}
    for player, written in slots.items():
        entries[player] = []
        for slot, word in written:
            lemmas = set(lexicon.lemmas(word))
            if names:
                assert service is not None
                lemmas.add(service.name_key(word))
            entries[player].append(
                (
                    slot,
                    Entry(
                        word=word,
                        lemmas=sorted(lemmas),
                        lemma_key=lexicon.lemma_key(word),
                        reason=None,
                        ruled=lexicon.ruled(word),
                    ),
                )
            )
    used_before = set(earlier_lemmas)
    for player, own in entries.items():
        others = [set(e.lemmas) for p, es in entries.items() if p != player for _, e in es]
        counts = player not in immune
        for index, (slot, entry) in enumerate(own):
            lemmas = set(entry.lemmas)
            if (reason := _own_reason(entry.word, rule, lexicon, service)) is not None:
                entry.reason = reason
            elif counts and any(lemmas & other for other in others):
                entry.reason = "common"
            elif counts and lemmas & used_before:
                entry.reason = "duplicate"
            elif any(lemmas & set(e.lemmas) for _, e in own[:index]) or (
                # The same name in another spelling: every entry is crossed out, the first one too.
                names and any(lemmas & set(e.lemmas) and e.word != entry.word for _, e in own[index + 1 :])
            ):
                entry.reason = "variant"
            elif breaks_level(entry.word, slot, rule):
                entry.reason = "level"
            elif _outside_category(entry.word, rule, lexicon, service):
                entry.reason = "category"
    return {player: [entry for _, entry in own] for player, own in entries.items()}


def _category_words(lexicon: Lexicon) -> CategoryWords | None:
    """The words service when words are checked: without it there are no lists to judge categories by."""
    if not lexicon.check_words or lexicon.service is None:
        return None
    service = lexicon.service
    if not all(hasattr(service, m) for m in ("in_category", "category_entries", "name_key")):
        return None
    return service  # type: ignore[return-value]


def _own_reason(word: str, rule: LevelRule, lexicon: Lexicon, service: CategoryWords | None) -> str | None:
    """Rules 1-4 under the Level: a name category replaces the dictionary; V, VI and X drop rule 2."""
    if rule.level == "VII" and rule.category in _NAME_CATEGORIES and service is not None:
        # Brands, countries and first names are proper nouns the dictionary refuses: only the list decides.
        if not word.isalpha():
            return "not_a_word"
        return None if lexicon.starts_with(word, rule.letter) else "wrong_letter"
    reason = lexicon.own_reason(word, rule.letter)
    if reason == "wrong_letter" and rule.level not in _BEGINNING:
        # Rule 2 does not apply: judge the dictionary's verdict alone (an impossible letter never matches).
        reason = lexicon.own_reason(word, word[:1])
    return reason


def _outside_category(word: str, rule: LevelRule, lexicon: Lexicon, service: CategoryWords | None) -> bool:
    if rule.level != "VII" or rule.category is None or service is None:
        return False
    return not service.in_category(word, lexicon.language, rule.category, country=rule.country)
