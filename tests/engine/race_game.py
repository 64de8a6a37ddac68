"""A tiny game for engine tests: players take turns adding a die roll; first to the target wins.

It exercises every part of the contract the engine relies on: chance outcomes, turns, a timer that
skips an idle player, secrets (each player's private note), a sampler for a free argument (the note's
text) and an outcome. A player may also `advance` by a number they choose (1 to 6): tests that need a
known score use it, since a roll sent through the session manager is always the engine's own.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from bot.engine.errors import BadAction, GameOver, NotAPlayer, NotYourTurn
from bot.engine.game import Action, Applied, Outcome, Termination, Timer

MAX_TARGET = 1000


@dataclass(frozen=True)
class RaceState:
    players: list[str]
    target: int
    scores: dict[str, int]
    turn: int = 0
    notes: dict[str, str] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list)


class RaceGame:
    name = "race"
    min_players = 2
    max_players = 4
    action_names = frozenset({"roll", "advance", "skip", "note"})
    slow_actions = frozenset({"note"})  # applied in a worker thread, as a dictionary's check would be
    chance_keys = {"roll": frozenset({"roll"})}

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        if set(options) - {"target"}:
            raise BadAction(f"unknown options: {sorted(set(options) - {'target'})}")
        target = options.get("target", 10)
        if isinstance(target, bool) or not isinstance(target, int) or not 1 <= target <= MAX_TARGET:
            raise BadAction(f"target must be a positive number, at most {MAX_TARGET}")
        return {"target": target}

    def new_game(
        self, options: Mapping[str, Any], players: Sequence[str], setup: Mapping[str, Any], rng: random.Random
    ) -> RaceState:
        target = self.validate_options(options)["target"]
        order = list(players)
        if "first_player" in setup:
            first = order.index(setup["first_player"])
            order = order[first:] + order[:first]
        return RaceState(order, target, {p: 0 for p in order})

    def resolve_chance(self, state: RaceState, action: Action, rng: random.Random) -> Action:
        if action["do"] == "roll" and "roll" not in action:
            action["roll"] = rng.randint(1, 6)
        return action

    def apply(self, state: RaceState, action: Action) -> Applied:
        if self.outcome(state) is not None:
            raise GameOver("the race is over")
        current = state.players[state.turn % len(state.players)]
        if action["do"] in ("note", "roll", "advance") and action.get("player") not in state.players:
            raise NotAPlayer("a player's action needs a seated player")
        if action["do"] == "note":
            if not isinstance(action.get("text"), str):
                raise BadAction("a note is text")
            notes = {**state.notes, action["player"]: action["text"]}
            applied = Applied(replace(state, notes=notes))
            applied.tell(action["player"], {"type": "noted", "text": notes[action["player"]]})
            return applied
        if action["do"] == "skip":
            if action.get("player") is not None:
                raise BadAction("only the turn timer skips a turn")
            return Applied(replace(state, turn=state.turn + 1), [{"type": "skipped", "player": current}])
        if action.get("player") != current:
            raise NotYourTurn("topwords.refusal.not_your_turn", player=current)
        moved = action.get("roll" if action["do"] == "roll" else "by")
        if isinstance(moved, bool) or not isinstance(moved, int) or not 1 <= moved <= 6:
            raise BadAction("a roll or an advance is a number from 1 to 6")
        scores = {**state.scores, current: state.scores[current] + moved}
        record = {"player": current, "roll": moved}
        new = replace(state, scores=scores, turn=state.turn + 1, history=[*state.history, record])
        return Applied(new, [{"type": "rolled" if action["do"] == "roll" else "advanced", **record}])

    def freshness(self, state: RaceState) -> dict[str, Any]:
        return {"turn": state.turn}

    def legal_actions(self, state: RaceState, player: str) -> list[Action] | None:
        if player not in state.players:
            return None
        if self.outcome(state) is not None:
            return []
        mine = (
            [{"do": "roll"}, {"do": "advance", "by": 1}]
            if state.players[state.turn % len(state.players)] == player
            else []
        )
        return [*mine, {"do": "note", "text": "secret"}]

    def sample_action(self, state: RaceState, player: str, rng: random.Random) -> Action | None:
        """A note of the player's own words (the note's text is free; legal_actions offers one example)."""
        if player not in state.players or self.outcome(state) is not None:
            return None
        return {
            "do": "note",
            "player": player,
            "text": rng.choice(["left", "right", "6", "x"]) * rng.randint(1, 3),
        }

    def table_actions(self, state: RaceState, player: str | None) -> frozenset[str]:
        return frozenset(a["do"] for a in self.legal_actions(state, player) or []) if player else frozenset()

    def outcome(self, state: RaceState) -> Outcome | None:
        best = max(state.scores.values())
        if best < state.target:
            return None
        winners = [p for p, s in state.scores.items() if s == best]
        return Outcome(
            winners, dict(state.scores), termination=Termination.TARGET_REACHED, draw=len(winners) > 1
        )

    def view_for(self, state: RaceState, player: str | None) -> dict[str, Any]:
        view = asdict(state)
        view["notes"] = {p: n for p, n in state.notes.items() if p == player}
        return view

    def timers(self, state: RaceState) -> list[Timer]:
        return [Timer(f"turn:{state.turn}", 30.0, {"do": "skip"})]

    def dump(self, state: RaceState) -> dict[str, Any]:
        return asdict(state)

    def load(self, data: dict[str, Any]) -> RaceState:
        return RaceState(**data)

    def replay_output(self, state: RaceState) -> dict[str, Any]:
        outcome = self.outcome(state)
        return {
            "phase": "over" if outcome else "racing",
            "finished": outcome is not None,
            "winners": outcome.winners if outcome else [],
            "scores": dict(state.scores),
            "history": list(state.history),
        }
