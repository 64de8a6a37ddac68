"""A finished game step by step, as a spectator saw it: the rules replay the stored log from the session's
seed and setup, and each step keeps only the spectators' view (`view_for(state, None)`) and the public
events of the action that led to it. The seed, the setup and every private event stay here: no page is
given anything else."""

from __future__ import annotations

import random
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from bot.engine.errors import GameError
from bot.engine.game import Event, Game, step
from bot.store.repositories import ActionRecord, SessionRecord


@dataclass(frozen=True)
class Step:
    """The table after an action (the first step: as the game started)."""

    view: dict[str, Any]
    events: list[Event]
    player: str | None  # who acted (None: the start, or the bot's own action: a timer)
    at: float  # when


def replay_steps(game: Game, record: SessionRecord, actions: list[ActionRecord]) -> list[Step]:
    """Every step of the stored game; a log the rules refuse stops where they refuse it."""
    state = game.new_game(record.options, record.players, record.setup, random.Random(record.seed))
    steps = [Step(game.view_for(state, None), [], None, record.created_at)]
    for logged in actions:
        try:
            _, applied = step(game, state, record.seed, logged.version, logged.action)
        except GameError:
            break
        state = applied.state
        steps.append(Step(game.view_for(state, None), list(applied.events), logged.player, logged.created_at))
    return steps


class ReplayCache:
    """The steps of the last few games replayed: finished games never change, and a reader steps through one
    page after another."""

    def __init__(self, kept: int = 8) -> None:
        self.kept = kept
        self._steps: OrderedDict[int, list[Step]] = OrderedDict()

    def get(self, session_id: int) -> list[Step] | None:
        steps = self._steps.get(session_id)
        if steps is not None:
            self._steps.move_to_end(session_id)
        return steps

    def put(self, session_id: int, steps: list[Step]) -> None:
        self._steps[session_id] = steps
        while len(self._steps) > self.kept:
            self._steps.popitem(last=False)
