"""TopWords's hooks for the conformance suite (tests/engine/test_conformance.py): a rack changed, what playouts reached."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import Any

from bot.engine.game import Action, Applied, Game

OWNER_ONLY = "owner"  # the test_conformance constant: only the owner sees the secret


def perturb_secret(game: Game, state: Any, owner: str, rng: random.Random) -> tuple[Any, str, str] | None:
    """The owner's rack, one tile swapped with one far down the bag (the next draws stay the same); a vote,
    a move or a take-back of theirs still open (its tiles come from the rack) leaves it alone."""
    rack, bag = state.racks.get(owner, ""), state.bag
    busy = (state.pending or {}).get("player") == owner or (state.taken_back or {}).get("player") == owner
    if not rack or owner in state.left or busy or (state.vote or {}).get("of") == owner:
        return None
    index = rng.randrange(len(rack))
    far = [j for j in range(max(8, len(bag) // 2), len(bag)) if bag[j] != rack[index]]
    if far:
        j = rng.choice(far)
        new_rack = rack[:index] + bag[j] + rack[index + 1 :]
        new_bag = bag[:j] + rack[index] + bag[j + 1 :]
    elif len(set(rack)) > 1:  # too few tiles left in the bag: the rack's order is the owner's alone too
        new_rack, new_bag = rack[1:] + rack[0], bag
    else:
        return None
    changed = replace(state, racks={**state.racks, owner: new_rack}, bag=new_bag)
    return changed, OWNER_ONLY, f"{owner}'s rack {rack} changed to {new_rack} (a tile swapped with the bag)"


def tally(sent: Action, applied: Applied) -> Counter[str]:
    counts: Counter[str] = Counter()
    for event in applied.events:
        kind = event.get("type")
        if kind in ("moved", "taken_back", "challenged", "vote_open", "vote_cancelled", "voted"):
            counts[kind] += 1
    return counts
