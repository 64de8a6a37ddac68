"""A game for rating tests that ends on its first action, with the outcome the action names: scores, who
left, the direction (`lower_is_better`, as in Toppo) and a cooperative team's result (as in Top Drop)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from bot.engine.errors import BadAction, GameOver
from bot.engine.game import Action, Applied, Outcome, Termination, Timer


@dataclass(frozen=True)
class TallyState:
    players: list[str]
    scores: dict[str, int] = field(default_factory=dict)
    left: list[str] = field(default_factory=list)
    lower_is_better: bool = False
    team_result: str | None = None
    over: bool = False


class TallyGame:
    name = "tally"
    min_players = 1
    max_players = 8
    action_names = frozenset({"finish"})
    slow_actions: frozenset[str] = frozenset()
    chance_keys: dict[str, frozenset[str]] = {}

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    def new_game(
        self, options: Mapping[str, Any], players: Sequence[str], setup: Mapping[str, Any], rng: random.Random
    ) -> TallyState:
        return TallyState(list(players))

    def resolve_chance(self, state: TallyState, action: Action, rng: random.Random) -> Action:
        return action

    def apply(self, state: TallyState, action: Action) -> Applied:
        if state.over:
            raise GameOver("over")
        if action.get("do") != "finish" or set(action["scores"]) != set(state.players):
            raise BadAction("finish with every player's score")
        return Applied(
            replace(
                state,
                scores=dict(action["scores"]),
                left=list(action.get("left", [])),
                lower_is_better=bool(action.get("lower_is_better")),
                team_result=action.get("team_result"),
                over=True,
            )
        )

    def freshness(self, state: TallyState) -> dict[str, Any]:
        return {"over": int(state.over)}

    def legal_actions(self, state: TallyState, player: str) -> list[Action] | None:
        return None

    def table_actions(self, state: TallyState, player: str | None) -> frozenset[str]:
        return frozenset()

    def outcome(self, state: TallyState) -> Outcome | None:
        if not state.over:
            return None
        sign = -1 if state.lower_is_better else 1
        stayed = {p: s for p, s in state.scores.items() if p not in state.left}
        best = max(sign * s for s in stayed.values())
        winners = [p for p, s in stayed.items() if sign * s == best]
        if state.team_result is not None:
            winners = list(stayed) if state.team_result == "won" else []
        return Outcome(
            winners,
            dict(state.scores),
            lower_is_better=state.lower_is_better,
            team_result=state.team_result,
            team_rating=3 if state.team_result == "won" else 1 if state.team_result else None,
            left=list(state.left),
            termination=Termination.TARGET_REACHED,
            draw=state.team_result is None and len(winners) > 1,
        )

    def view_for(self, state: TallyState, player: str | None) -> dict[str, Any]:
        return asdict(state)

    def timers(self, state: TallyState) -> list[Timer]:
        return []

    def dump(self, state: TallyState) -> dict[str, Any]:
        return asdict(state)

    def load(self, data: dict[str, Any]) -> TallyState:
        return TallyState(**data)
