"""A TopWords table for unit tests, and a stand-in words service (the real one runs in the scenarios)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

import pytest

from bot.engine.errors import GameError
from bot.engine.game import Applied, step
from bot.games.topwords import TopWords
from bot.games.topwords.state import State

# The rulebook's six illustrated examples, after the start word SIEB (C5–F5), as (player, tiles).
SIEB = [[4, 2, "S"], [4, 3, "I"], [4, 4, "E"], [4, 5, "B"]]
EXAMPLES = [
    [[5, 5, "A"], [6, 5, "U"], [7, 5, "M"]],  # 1: BAUM down from the B of SIEB
    [[5, 4, "R"], [5, 6, "T"]],  # 2: RAT across the A, ER down from the E
    [[4, 2, "L"]],  # 3: L on S: LIEB
    [[4, 5, "S"]],  # 4: S on B: LIES and SAUM
    [[7, 3, "N"], [7, 4, "A"], [7, 5, "G"], [7, 6, "E"], [7, 7, "L"]],  # 5: NAGEL, G on M: SAUG
    [[4, 7, "F"], [5, 7, "E"], [6, 7, "R"], [7, 7, "N"], [8, 7, "E"]],  # 6: FERNE, RATE, N on L: NAGEN
]
EXAMPLE_POINTS = [8, 10, 5, 11, 12, 17]
# Racks and draw order that let ann and bob play SIEB and the six examples in turn.
EXAMPLE_SETUP: dict[str, Any] = {
    "first_player": "ann",
    "racks": {"ann": "SIEBRTS", "bob": "AUMLNAG"},
    "bag": "FERNELOEHDK",
}


@dataclass(frozen=True)
class StubVerdict:
    word: str
    valid: bool
    reason: str | None


class StubWords:
    """A test double of bot.words.WordService: every word is valid unless listed as bad."""

    def __init__(self, bad: dict[str, str] | None = None) -> None:
        self.bad = bad or {}
        self.checked: list[str] = []

    def check_tiles(self, tiles: str, lang: str = "de") -> StubVerdict:
        self.checked.append(tiles)
        reason = self.bad.get(tiles)
        return StubVerdict(tiles.capitalize(), reason is None, reason)

    def lemma_key(self, word: str, lang: str) -> str:
        return word.lower()


class Table:
    """One game driven through `step`, as live play and replay drive it."""

    def __init__(
        self,
        players: tuple[str, ...] = ("ann", "bob"),
        *,
        words: Any = None,
        setup: dict[str, Any] | None = None,
        seed: int = 0,
        **options: Any,
    ) -> None:
        self.game = TopWords(words)
        self.players = list(players)
        self.options = {"check_words": words is not None, **options}
        self.setup = {"first_player": players[0]} if setup is None else setup
        self.seed = seed
        self.state: State = self.game.new_game(self.options, self.players, self.setup, random.Random(seed))
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

    def place(self, player: str, tiles: list[list[Any]]) -> dict[str, Any]:
        """Place and return the move's history record."""
        self.do("place", player, tiles=tiles)
        record: dict[str, Any] = self.state.history[-1]
        return record

    def refuses(self, error: type[GameError], do: str, player: str | None = None, **args: Any) -> GameError:
        before = json.dumps(self.game.dump(self.state), sort_keys=True)
        with pytest.raises(error) as caught:
            self.do(do, player, **args)
        assert json.dumps(self.game.dump(self.state), sort_keys=True) == before
        return caught.value

    def events(self, kind: str) -> list[dict[str, Any]]:
        assert self.last is not None
        return [e for e in self.last.events if e["type"] == kind]

    def output(self) -> dict[str, Any]:
        return self.game.replay_output(self.state)

    def tiles(self) -> int:
        s = self.state
        return sum(map(len, s.board)) + sum(map(len, s.racks.values())) + len(s.bag)


def examples_table(**kwargs: Any) -> Table:
    """ann and bob with the racks for SIEB and the six examples; SIEB already played by ann."""
    setup = {**EXAMPLE_SETUP, "racks": {**EXAMPLE_SETUP["racks"], "cat": "RTEOKHP"}}
    if "cat" not in kwargs.get("players", ()):
        setup = dict(EXAMPLE_SETUP)
    table = Table(setup=setup, **kwargs)
    table.place("ann", SIEB)
    return table
