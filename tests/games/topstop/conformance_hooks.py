"""Top Stop's hooks for the conformance suite (tests/engine/test_conformance.py): unrevealed words changed, what the sampled lists lead to."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import Any

from bot.engine.game import Action, Applied, Game

OWNER_ONLY = "owner"  # the test_conformance constant: only the owner sees the secret


def perturb_secret(game: Game, state: Any, owner: str, rng: random.Random) -> tuple[Any, str, str] | None:
    """While writing: the owner's words, each changed (as many words: how many is public)."""
    if state.phase != "writing" or not any(state.round.submissions.get(owner, [])):
        return None
    words = state.round.submissions[owner]
    changed_words = [(w[:-1] + ("q" if w[-1] != "q" else "z")) if w else w for w in words]
    current = replace(state.round, submissions={**state.round.submissions, owner: changed_words})
    changed = replace(state, rounds=[*state.rounds[:-1], current])
    return changed, OWNER_ONLY, f"{owner}'s words {words} changed to {changed_words}"


def tally(sent: Action, applied: Applied) -> Counter[str]:
    """Words written and judged, disputes and votes: what Top Stop's sampled lists lead to."""
    counts: Counter[str] = Counter()
    if sent.get("do") == "submit":
        counts["words submitted"] += sum(1 for word in sent.get("words", []) if word)
    for event in applied.events:
        kind = event.get("type")
        if kind == "writing_closed":
            entries = [entry for words in event["lists"].values() for entry in words]
            counts["words judged"] += len(entries)
            counts["words judged invalid"] += sum(1 for entry in entries if not entry["valid"])
        elif kind == "dispute_opened":
            counts["disputes"] += 1
        elif kind == "vote_cast":
            counts["votes"] += 1
        elif kind == "vote_closed":
            counts["votes closed"] += 1
        elif kind == "respin":
            counts["re-spins"] += 1
        elif kind == "review_done":
            counts["nothing to dispute"] += 1
            if not event["waiting"]:
                counts["reviews closed by everyone"] += 1
    return counts


# The sampler (TopStop.sample_action) writes real words: playouts reach judging, disputes and votes.
MUST_REACH = (
    "words submitted",
    "words judged",
    "words judged invalid",
    "disputes",
    "votes",
    "votes closed",
    "nothing to dispute",
    "reviews closed by everyone",
)
