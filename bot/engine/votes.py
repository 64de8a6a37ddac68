"""Votes, for every game: who may vote, one ballot each (the last counts), majority of votes cast."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from bot.engine.errors import NotAPlayer

VoteResult = Literal["yes", "no", "tie"]


def tally(ballots: Mapping[str, bool], eligible: int | None = None) -> VoteResult:
    """'yes' or 'no' by the majority of votes cast; 'tie' when equal (including no votes at all).

    With `eligible` (a quorum, e.g. to end a game): 'yes' needs a majority of all eligible voters when fewer
    than half of them voted — which those votes can never reach — so two of ten cannot end a game for the
    other eight: the answer is 'no'.
    """
    yes = sum(1 for accept in ballots.values() if accept)
    no = len(ballots) - yes
    if eligible is not None and ballots and 2 * len(ballots) < eligible:
        return "no"
    if yes == no:
        return "tie"
    return "yes" if yes > no else "no"


def cast(voters: Sequence[str], ballots: Mapping[str, bool], voter: str, yes: bool) -> dict[str, bool]:
    """The ballots with `voter`'s vote (a changed mind replaces the earlier one); only `voters` may vote."""
    if voter not in voters:
        raise NotAPlayer("engine.no_vote")
    return {**ballots, voter: yes}


def everyone_voted(voters: Sequence[str], ballots: Mapping[str, bool]) -> bool:
    """The vote can close early once every eligible voter has cast a ballot."""
    return all(voter in ballots for voter in voters)


def decision(ballots: Mapping[str, bool]) -> bool | None:
    """The tally as a decision: True accepted, False refused, None when a tie decides nothing."""
    result = tally(ballots)
    return None if result == "tie" else result == "yes"
