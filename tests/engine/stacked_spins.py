"""Spins stacked by a test. The engine draws every chance outcome (a `letter` sent to the session manager is
dropped), so a test that needs known letters stacks the arrow of the rules object it gives the manager, as
tests/e2e's `rig_next_spin` does."""

from __future__ import annotations

import random
from typing import Any


def stack_spins(game: Any, letters: str) -> None:
    """The next spins of `game` (the first spin's and the rounds') land on `letters` in order; then chance."""
    real = game.resolve_chance
    pending = list(letters)

    def resolve(state: Any, action: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        if action.get("do") == "spin" and action.get("letter") is None and pending:
            action = {**action, "letter": pending.pop(0)}
        resolved: dict[str, Any] = real(state, action, rng)
        return resolved

    game.resolve_chance = resolve
