"""The contract every game's pure rules implement, and the deterministic step both live play and replay use."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

# Actions and events are plain JSON objects so that they can be logged, stored and replayed as they are.
# An action: {"do": NAME, "player": ID | absent for the system, ...arguments}.
# An event: {"type": NAME, ...}; an event with "private_to": ID carries hidden information for that player only.
Action = dict[str, Any]
Event = dict[str, Any]
JSON = dict[str, Any]


@dataclass(frozen=True)
class Timer:
    """A deadline the game asks for: after `seconds`, the system action `action` is applied.

    `key` identifies the timer across state changes (e.g. "writing:3"): a key that stays in
    `timers(state)` keeps its first deadline; a key that disappears is cancelled.
    """

    key: str
    seconds: float
    action: Action


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: winners (may be several on a tie) and final scores."""

    winners: list[str]
    scores: dict[str, int]
    result: str | None = None  # cooperative games: "victory" | "defeat"


@dataclass(frozen=True)
class UsedWord:
    """A word a move made public, recorded in the used-word history."""

    round: int
    player: str
    word: str
    lemma_key: str


@dataclass
class Applied:
    """The result of one step: the new state, the events for the table, words to record."""

    state: Any
    events: list[Event] = field(default_factory=list)
    used_words: list[UsedWord] = field(default_factory=list)


class Game(Protocol):
    """Pure rules of one game: no discord, no I/O, no asyncio, no clock."""

    name: str
    min_players: int
    max_players: int

    def new_game(
        self, options: Mapping[str, Any], players: Sequence[str], setup: Mapping[str, Any], rng: random.Random
    ) -> Any:
        """Initial state; chance outcomes not forced by `setup` come from `rng`."""
        ...

    def resolve_chance(self, state: Any, action: Action, rng: random.Random) -> Action:
        """Fill every chance argument the action leaves out (letter, roll, card) so the log is exact."""
        ...

    def apply(self, state: Any, action: Action) -> Applied:
        """Apply a complete action or raise a GameError; never mutates `state`."""
        ...

    def legal_actions(self, state: Any, player: str) -> list[Action] | None:
        """The actions `player` may take now, where that set is finite; None where it is not."""
        ...

    def outcome(self, state: Any) -> Outcome | None:
        """None while the game goes on."""
        ...

    def view_for(self, state: Any, player: str | None) -> JSON:
        """The state as `player` may see it (None: a spectator): every secret of others removed."""
        ...

    def timers(self, state: Any) -> list[Timer]:
        """The deadlines the current state runs on."""
        ...

    def dump(self, state: Any) -> JSON:
        """The state as JSON; `load(dump(s)) == s`."""
        ...

    def load(self, data: JSON) -> Any:
        """Inverse of dump."""
        ...

    def replay_output(self, state: Any) -> JSON:
        """The scenario output (SCENARIOS.md): players, phase, finished, winners, scores, history, …"""
        ...


def chance_rng(seed: int, version: int) -> random.Random:
    """The RNG for the chance outcomes of the action applied at `version`: reproducible from the seed."""
    return random.Random(f"{seed}:{version}")


def step(game: Game, state: Any, seed: int, version: int, action: Action) -> tuple[Action, Applied]:
    """Resolve chance, then apply: the one path from an action to a new state."""
    complete = game.resolve_chance(state, dict(action), chance_rng(seed, version))
    return complete, game.apply(state, complete)
