"""Judging the revealed lists of a round: each word valid or crossed out with the first rule it breaks."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from bot.games.topstop.state import Entry


class VerdictLike(Protocol):
    @property
    def valid(self) -> bool: ...
    @property
    def reason(self) -> str | None: ...


class WordsService(Protocol):
    """The part of bot.words.WordService the rules use."""

    def normalise(self, word: str) -> str: ...
    def check(self, word: str, lang: str) -> VerdictLike: ...
    def lemmas(self, word: str, lang: str) -> frozenset[str]: ...
    def lemma_key(self, word: str, lang: str) -> str: ...
    def starts_with(self, word: str, letter: str) -> bool: ...
    def prefetch(self, words: list[str], lang: str) -> None: ...


# What bot.words may answer for a word the dictionary refuses; anything else counts as `not_a_word`.
_DICTIONARY_REASONS = ("not_a_word", "proper_noun", "abbreviation")


class Lexicon:
    """The words service for one table's language; without a service (only with `check_words` off) a
    plain stand-in that normalises and compares letters but knows no dictionary and no variants."""

    def __init__(
        self,
        service: WordsService | None,
        language: str,
        check_words: bool,
        server_words: Mapping[str, Mapping[str, object]] | None = None,
    ) -> None:
        self.service = service
        self.language = language
        self.check_words = check_words
        self.server_words = server_words or {}

    def ruled(self, word: str) -> str | None:
        """The day this server's own dictionary decided `word`, if it did (it overrides the spellchecker)."""
        entry = self.server_words.get(word) if self.check_words else None
        return str(entry["day"]) if entry is not None else None

    def prefetch(self, words: Iterable[str]) -> None:
        """Let the service look a round's words up together, before they are judged one by one."""
        if self.service is not None:
            self.service.prefetch([w for w in words if w], self.language)

    def normalise(self, word: str) -> str:
        if self.service is not None:
            return self.service.normalise(word)
        return unicodedata.normalize("NFC", unicodedata.normalize("NFC", word.strip()).casefold())

    def starts_with(self, word: str, letter: str) -> bool:
        if self.service is not None:
            return self.service.starts_with(word, letter)
        base = unicodedata.normalize("NFD", word[:1])[:1]
        return base.casefold() == letter.casefold()

    def lemmas(self, word: str) -> frozenset[str]:
        # The word itself is always in its own set, so identical words match even if the service knows
        # no lemma for them.
        if self.service is None or not word.isalpha():
            return frozenset({word})
        return self.service.lemmas(word, self.language) | {word}

    def lemma_key(self, word: str) -> str:
        if self.service is None or not word.isalpha():
            return word
        return self.service.lemma_key(word, self.language)

    def own_reason(self, word: str, letter: str) -> str | None:
        """The first of rules 1–4 the word breaks on its own: not_a_word, wrong_letter, proper_noun, abbreviation."""
        # RULES-NOTES: only single words of letters; hyphens, apostrophes, digits and spaces are invalid.
        if not word.isalpha():
            return "not_a_word"
        dictionary_reason = None
        server = self.server_words.get(word) if self.check_words else None
        if server is not None:
            # A vote in an earlier game on this server decided the word: not the spellchecker.
            if not server["valid"]:
                return "voted_out"
        elif self.check_words:
            assert self.service is not None  # new_game refuses check_words without a service
            verdict = self.service.check(word, self.language)
            if not verdict.valid:
                reason = verdict.reason
                dictionary_reason = reason if reason in _DICTIONARY_REASONS else "not_a_word"
        if dictionary_reason == "not_a_word":  # Rule 1
            return "not_a_word"
        if not self.starts_with(word, letter):  # Rule 2
            return "wrong_letter"
        return dictionary_reason  # Rules 3 and 4: proper_noun, abbreviation


def judge_lists(
    lists: Mapping[str, Sequence[str]],
    letter: str,
    earlier_lemmas: Iterable[str],
    lexicon: Lexicon,
) -> dict[str, list[Entry]]:
    """Every word of every list with the first reason it is crossed out (RULES-NOTES order), or None."""
    lexicon.prefetch(w for words in lists.values() for w in words)
    entries = {
        player: [
            Entry(
                word=w,
                lemmas=sorted(lexicon.lemmas(w)),
                lemma_key=lexicon.lemma_key(w),
                reason=None,
                ruled=lexicon.ruled(w),
            )
            for w in words
        ]
        for player, words in lists.items()
    }
    used_before = set(earlier_lemmas)
    for player, own in entries.items():
        others = [set(e.lemmas) for p, es in entries.items() if p != player for e in es]
        for index, entry in enumerate(own):
            lemmas = set(entry.lemmas)
            if (reason := lexicon.own_reason(entry.word, letter)) is not None:
                entry.reason = reason
            # Rule 5 and Case 2: written by two or more players this round, or variants of each other.
            elif any(lemmas & other for other in others):
                entry.reason = "common"
            # Rule 6 and Case 3: revealed in an earlier round by anyone, or a variant of such a word.
            elif lemmas & used_before:
                entry.reason = "duplicate"
            # Rules 7-8, Case 1: the same player's variants; the first in the list counts.
            elif any(lemmas & set(e.lemmas) for e in own[:index]):
                entry.reason = "variant"
    return entries
