"""Votes, for every game and the table layer: who may vote, one ballot each (the last counts), and the count.

Every count goes through `tally`, under a named `Rule`; a `Tally` says yes, no, missing and the result, and
displays read it instead of counting ballots themselves.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from bot.engine.errors import NotAPlayer
from bot.i18n import N_

VoteResult = Literal["yes", "no", "tie"]


class Rule(StrEnum):
    """How ballots decide."""

    MAJORITY = "majority"
    """The majority of the votes cast; equal counts (no vote at all included) are a tie, which decides nothing."""
    QUORUM = "quorum"
    """A majority, but when fewer than half of the eligible voted, 'yes' — which those votes could never
    reach among all the eligible — is out of reach: two of ten cannot end a game for the other eight."""
    UNANIMOUS = "unanimous"
    """Every eligible voter says yes; a missing ballot or one no is 'no'. Never a tie."""


@dataclass(frozen=True, slots=True)
class Tally:
    """The count of one vote: eligible ballots only; `missing` eligible voters have not voted (yet)."""

    rule: Rule
    yes: int
    no: int
    missing: int
    result: VoteResult

    @property
    def voted(self) -> int:
        return self.yes + self.no

    @property
    def eligible(self) -> int:
        return self.yes + self.no + self.missing

    @property
    def everyone_voted(self) -> bool:
        return self.missing == 0

    @property
    def passed(self) -> bool:
        return self.result == "yes"

    @property
    def decision(self) -> bool | None:
        """True accepted, False refused, None when a tie decides nothing."""
        return None if self.result == "tie" else self.result == "yes"

    def shown(self, *, secret: bool = False) -> dict[str, Any]:
        """The tally for a view or an event; while the ballots are `secret`, only how many voted."""
        counts: dict[str, Any] = {"voted": self.voted, "missing": self.missing, "eligible": self.eligible}
        if not secret:
            counts.update(yes=self.yes, no=self.no, result=self.result)
        return counts


def tally(ballots: Mapping[str, bool], voters: Collection[str], rule: Rule = Rule.MAJORITY) -> Tally:
    """Count the ballots of `voters` (anyone else's is not a vote) under `rule`."""
    yes = no = 0
    for voter, accept in ballots.items():
        if voter in voters:
            yes, no = (yes + 1, no) if accept else (yes, no + 1)
    missing = len(voters) - yes - no
    return Tally(rule, yes, no, missing, _result(rule, yes, no, missing))


def _result(rule: Rule, yes: int, no: int, missing: int) -> VoteResult:
    if rule is Rule.UNANIMOUS:
        return "yes" if no == 0 and missing == 0 else "no"
    voted = yes + no
    if rule is Rule.QUORUM and voted and 2 * voted < voted + missing:
        return "no"
    if yes == no:
        return "tie"
    return "yes" if yes > no else "no"


def require_voter(voters: Collection[str], voter: str, refusal: str = N_("engine.no_vote")) -> None:
    """Who may vote: only `voters`; anyone else is refused with the catalogue key `refusal`."""
    if voter not in voters:
        raise NotAPlayer(refusal)


def cast(voters: Sequence[str], ballots: Mapping[str, bool], voter: str, yes: bool) -> dict[str, bool]:
    """The ballots with `voter`'s vote (a changed mind replaces the earlier one); only `voters` may vote."""
    require_voter(voters, voter)
    return {**ballots, voter: yes}


def everyone_voted(voters: Sequence[str], ballots: Mapping[str, bool]) -> bool:
    """The vote can close early once every eligible voter has cast a ballot."""
    return tally(ballots, voters).everyone_voted
