"""Top Drop's hooks for the conformance suite (tests/engine/test_conformance.py): a hand changed, and what the
playouts reach."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import Any

from bot.engine.game import Action, Applied, Game

OWNER_ONLY = "owner"  # the test_conformance constant: only the owner sees the secret


def perturb_secret(game: Game, state: Any, owner: str, rng: random.Random) -> tuple[Any, str, str] | None:
    """One card of the owner's hand swapped with one of the draw pile (how many each holds is public)."""
    hand = state.hands.get(owner, [])
    if not hand or not state.deck or owner in state.left or state.phase == "over":
        return None
    index = rng.randrange(len(hand))
    card = rng.choice(state.deck)
    new_hand = sorted([*hand[:index], card, *hand[index + 1 :]])
    new_deck = sorted([c for c in state.deck if c != card] + [hand[index]])
    changed = replace(state, hands={**state.hands, owner: new_hand}, deck=new_deck)
    return (
        changed,
        OWNER_ONLY,
        f"{owner}'s hand {hand} changed to {new_hand} (a card swapped with the draw pile)",
    )


def tally(sent: Action, applied: Applied) -> Counter[str]:
    reached: Counter[str] = Counter()
    for event in applied.events:
        kind = event["type"]
        if kind == "played":
            reached["turns played"] += 1
            reached["two-card turns"] += len(event["cards"]) == 2
            reached["action cards used"] += event["action"] is not None and not event["wild"]
            reached["wild cards used"] += event["wild"]
            reached["skips"] += event["action"] == "skip"
            reached["colour turns"] += event["action"] == "color"
            reached["refills"] += event["drew"] > 0
        elif kind == "turn":
            reached["empty hands skipped"] += len(event["skipped"])
        elif kind == "hint":
            reached["hints"] += 1
        elif kind == "reminded":
            reached["reminders"] += 1
        elif kind == "wait_vote":
            reached["wait votes"] += 1
        elif kind == "wait_vote_result":
            reached["wait votes decided"] += 1
        elif kind == "stuck":
            reached["defeats: a player could not play"] += 1
    return reached


# What random playouts must reach, so that the checks ran on real play and not only on the first turns.
# Victory and the 1 and the 60 need a planned game: the rule tests and the scenarios play them on purpose.
MUST_REACH = (
    "turns played",
    "two-card turns",
    "action cards used",
    "wild cards used",
    "skips",
    "colour turns",
    "refills",
    "hints",
    "reminders",
    "wait votes",
    "wait votes decided",
    "defeats: a player could not play",
)
