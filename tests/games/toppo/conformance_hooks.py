"""Toppo's hooks for the conformance suite (tests/engine/test_conformance.py): a deck's hidden order changed,
and what its playouts reach.

Every deck lies face down, its owner's too, and the stack as well: only their sizes are public. So a state
whose deck differs only in the order of its cards must look the same to everyone else (the owner sees no
more of it either, but the suite only checks those who may not see it).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import Any

from bot.engine.game import Action, Applied, Game

OWNER_ONLY = "owner"  # the test_conformance constant: nobody but the owner may tell the difference

# What random playouts must reach, so that the checks ran on real play and not only on its first reveals.
# Tops, matches and renewals are counted but not required: random play claims toppo or starts early as often
# as it reveals, so a full line seldom survives long enough to be claimed on (a right top needs one in an
# order that tops as well). tests/games/toppo (rules and the property test's sharp-eyed players) and the
# scenarios play them on purpose.
MUST_REACH = (
    "cards revealed",
    "plays restarted",
    "restarts by the timer",
    "early starts",
    "wrong toppos",
    "games won by toppo",
    "next games dealt",
    "displays replaced by vote",
)


def perturb_secret(game: Game, state: Any, owner: str, rng: random.Random) -> tuple[Any, str, str] | None:
    """Two different cards of the owner's face-down deck swap places (how many cards it holds is public)."""
    deck = state.decks.get(owner, [])
    if owner in state.left or state.phase == "over" or len(set(deck)) < 2:
        return None
    first = rng.randrange(len(deck))
    others = [i for i, card in enumerate(deck) if card != deck[first]]
    second = rng.choice(others)
    swapped = list(deck)
    swapped[first], swapped[second] = deck[second], deck[first]
    changed = replace(state, decks={**state.decks, owner: swapped})
    return changed, OWNER_ONLY, f"{owner}'s deck: cards {first} and {second} swapped"


def tally(sent: Action, applied: Applied) -> Counter[str]:
    reached: Counter[str] = Counter()
    for event in applied.events:
        kind = event["type"]
        if kind == "revealed":
            reached["cards revealed"] += 1
        elif kind == "restarted":
            reached["plays restarted"] += 1
            reached["restarts by the timer"] += bool(event.get("timed_out"))
        elif kind == "topped":
            reached["right tops"] += 1
        elif kind == "matched":
            reached["right matches"] += 1
            reached["lines kept for another match"] += event["kept"]
        elif kind == "renewed":
            reached["renewed lines"] += 1
        elif kind == "penalised":
            reached[
                {
                    "wrong_top": "wrong tops",
                    "wrong_match": "wrong matches",
                    "wrong_toppo": "wrong toppos",
                    "early_start": "early starts",
                }[event["reason"]]
            ] += 1
        elif kind == "toppo":
            reached["games won by toppo"] += 1
        elif kind == "dealt":
            reached["next games dealt"] += 1
        elif kind == "display_replaced":
            reached["displays replaced by vote"] += 1
        elif kind == "stack_refilled":
            reached["stacks refilled"] += 1
    return reached
