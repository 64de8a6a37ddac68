"""The skeleton game's hooks for the conformance suite (tests/engine/test_conformance.py): a hand changed."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from bot.engine.game import Game

OWNER_ONLY = "owner"  # the test_conformance constant: only the owner sees the secret


def perturb_secret(game: Game, state: Any, owner: str, rng: random.Random) -> tuple[Any, str, str] | None:
    """One card of the owner's hand swapped with one of the deck (how many cards each holds is public)."""
    hand = state.hands.get(owner, [])
    swappable = [card for card in state.deck if card not in hand]
    if not hand or not swappable or owner in state.left or state.phase == "over":
        return None
    index = rng.randrange(len(hand))
    card = rng.choice(swappable)
    new_hand = [*hand[:index], card, *hand[index + 1 :]]
    new_deck = sorted([c for c in state.deck if c != card] + [hand[index]])
    changed = replace(state, hands={**state.hands, owner: new_hand}, deck=new_deck)
    return changed, OWNER_ONLY, f"{owner}'s hand {hand} changed to {new_hand} (a card swapped with the deck)"
