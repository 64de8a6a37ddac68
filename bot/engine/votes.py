"""Counting a vote: the majority of the ballots cast decides; a tie decides nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

VoteResult = Literal["yes", "no", "tie"]


def tally(ballots: Mapping[str, bool]) -> VoteResult:
    """'yes' or 'no' by the majority of votes cast; 'tie' when equal (including no votes at all)."""
    yes = sum(1 for accept in ballots.values() if accept)
    no = len(ballots) - yes
    if yes == no:
        return "tie"
    return "yes" if yes > no else "no"
