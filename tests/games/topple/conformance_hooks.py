"""Topple's hooks for the conformance suite (tests/engine/test_conformance.py): what its playouts reach.

Topple has no secret (the board, the supplies, the rolls and the risks are everyone's), so it declares no
`perturb_secret`: the suite's other secrecy checks still run on every view and event.
"""

from __future__ import annotations

from collections import Counter

from bot.engine.game import Action, Applied

# What random playouts must reach, so that the checks ran on real play and not only on the first turns.
# Topples are counted but not required: the tuned model topples about once in 36 placements, so a playout of
# 100 steps meets one only by luck; the rule tests, the scenarios and the property tests (tests/games/topple)
# play them, and the young version's eliminations, on purpose.
MUST_REACH = (
    "opening roll-offs settled",
    "placements",
    "completed lines scored",
    "tall stacks scored",
    "rounds ended",
    "two-colour placements",
    "timed-out placements",
)


def tally(sent: Action, applied: Applied) -> Counter[str]:
    reached: Counter[str] = Counter()
    for event in applied.events:
        kind = event["type"]
        if kind == "first_player":
            reached["opening roll-offs settled"] += 1
        elif kind == "placed":
            reached["placements"] += 1
            scoring = event.get("scoring", {})
            reached["completed lines scored"] += len(scoring.get("completed", []))
            reached["tall stacks scored"] += bool(scoring.get("stack"))
            reached["topples"] += event["toppled"]
            reached["players toppled out"] += bool(event.get("out"))
            reached["two-colour placements"] += len(applied.state.colours[event["player"]]) == 2
            reached["timed-out placements"] += bool(event.get("timed_out"))
        elif kind == "round_over":
            reached["rounds ended"] += 1
    return reached
