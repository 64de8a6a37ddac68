"""A table to play Top Stop in unit tests, and a small stand-in words service for pure judging logic."""

from __future__ import annotations

import json
import random
import unicodedata
from dataclasses import dataclass
from typing import Any

import pytest

from bot.engine.errors import GameError
from bot.engine.game import Applied, step
from bot.games.topstop import TopStop
from bot.games.topstop.state import TopStopState


@dataclass(frozen=True)
class StubVerdict:
    word: str
    valid: bool
    reason: str | None


class StubWords:
    """A test double of bot.words.WordService with a hand-made vocabulary (the real one runs in scenarios)."""

    def __init__(
        self,
        lemmas: dict[str, set[str]] | None = None,
        proper: set[str] | frozenset[str] = frozenset(),
        abbreviations: set[str] | frozenset[str] = frozenset(),
        unknown: set[str] | frozenset[str] = frozenset(),
    ) -> None:
        self._lemmas = lemmas or {}
        self.proper = proper
        self.abbreviations = abbreviations
        self.unknown = unknown

    def normalise(self, word: str) -> str:
        return unicodedata.normalize("NFC", word.strip().casefold())

    def check(self, word: str, lang: str) -> StubVerdict:
        for reason, words in (
            ("not_a_word", self.unknown),
            ("proper_noun", self.proper),
            ("abbreviation", self.abbreviations),
        ):
            if word in words:
                return StubVerdict(word, False, reason)
        return StubVerdict(word, True, None)

    def lemmas(self, word: str, lang: str) -> frozenset[str]:
        return frozenset(self._lemmas.get(word, {word}))

    def lemma_key(self, word: str, lang: str) -> str:
        return min(self.lemmas(word, lang))

    def starts_with(self, word: str, letter: str) -> bool:
        return unicodedata.normalize("NFD", word)[:1].casefold() == letter.casefold()

    def prefetch(self, words: list[str], lang: str) -> None:
        """Nothing to look up ahead: the vocabulary is in memory."""


class Table:
    """One game driven through `step`, as live play and replay drive it."""

    def __init__(
        self,
        players: tuple[str, ...] = ("ann", "bob", "cat"),
        *,
        service: Any = None,
        first: str | None = "ann",
        seed: int = 0,
        **options: Any,
    ) -> None:
        self.game = TopStop(service)
        self.players = list(players)
        self.options = {"check_words": False, **options}
        self.setup = {"first_player": first} if first else {}
        self.seed = seed
        self.state: TopStopState = self.game.new_game(
            self.options, self.players, self.setup, random.Random(seed)
        )
        self.log: list[dict[str, Any]] = []
        self.last: Applied | None = None

    def do(self, do: str, player: str | None = None, **args: Any) -> Applied:
        action: dict[str, Any] = {"do": do, **args}
        if player is not None:
            action["player"] = player
        complete, applied = step(self.game, self.state, self.seed, len(self.log), action)
        self.state = applied.state
        self.log.append(complete)
        self.last = applied
        return applied

    def refuses(self, error: type[GameError], do: str, player: str | None = None, **args: Any) -> GameError:
        before = json.dumps(self.game.dump(self.state), sort_keys=True)
        with pytest.raises(error) as caught:
            self.do(do, player, **args)
        assert json.dumps(self.game.dump(self.state), sort_keys=True) == before
        return caught.value

    def events(self, kind: str) -> list[dict[str, Any]]:
        assert self.last is not None
        return [e for e in self.last.events if e["type"] == kind]

    def play_round(
        self, letter: str, lists: dict[str, list[str]], stop: str | None = None, *, score: bool = True
    ) -> dict[str, Any]:
        """Spin, submit every list, optionally STOP, close writing, and (by default) score: the round's record."""
        self.do("spin", self.state.round.spinner, letter=letter)
        for player, words in lists.items():
            self.do("submit", player, words=words)
        if stop is not None:
            self.do("stop", stop)
        self.do("end_writing")
        if score:
            self.do("end_round")
        record: dict[str, Any] = self.output()["history"][-1]
        return record

    def output(self) -> dict[str, Any]:
        return self.game.replay_output(self.state)

    def verdicts(self, player: str) -> list[tuple[str, str | None]]:
        record = self.output()["history"][-1]
        return [(w["word"], w["reason"]) for w in record["words"][player]]
