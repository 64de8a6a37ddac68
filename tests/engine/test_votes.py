"""Counting votes, one rule at a time: majority of votes cast, majority with a quorum, unanimity; who may
vote; and the tally that displays read."""

import pytest

from bot.engine.errors import NotAPlayer
from bot.engine.votes import Rule, Tally, cast, everyone_voted, require_voter, tally

VOTERS = ["ann", "bob", "cat"]
TEN = [f"p{i}" for i in range(10)]


def test_majority_of_votes_cast_decides():
    assert tally({"ann": True, "bob": True, "cat": False}, VOTERS).result == "yes"
    assert tally({"ann": False, "bob": False, "cat": True}, VOTERS).result == "no"


def test_majority_abstentions_do_not_count():
    counted = tally({"ann": True}, VOTERS)
    assert counted == Tally(Rule.MAJORITY, yes=1, no=0, missing=2, result="yes")
    assert counted.decision is True and not counted.everyone_voted


def test_majority_a_tie_or_no_vote_is_a_tie_and_decides_nothing():
    assert tally({"ann": True, "bob": False}, VOTERS).result == "tie"
    empty = tally({}, VOTERS)
    assert empty.result == "tie" and empty.decision is None and empty.missing == 3


def test_quorum_fewer_than_half_voting_cannot_pass_it():
    # Two of ten cannot end a game for the other eight.
    two_of_ten = {"p0": True, "p1": True}
    assert tally(two_of_ten, TEN, Rule.QUORUM).result == "no"
    assert tally(two_of_ten, TEN).result == "yes"  # without a quorum: the votes cast decide


def test_quorum_half_or_more_voting_the_votes_cast_decide():
    assert (
        tally({"p0": True, "p1": True, "p2": True, "p3": False, "p4": False}, TEN, Rule.QUORUM).result
        == "yes"
    )
    assert tally({"ann": True, "bob": True}, VOTERS, Rule.QUORUM).result == "yes"  # two of three voted
    assert tally({}, TEN[:4], Rule.QUORUM).result == "tie"


def test_unanimous_every_voter_says_yes():
    counted = tally(dict.fromkeys(VOTERS, True), VOTERS, Rule.UNANIMOUS)
    assert counted.passed and counted.decision is True and counted.everyone_voted


def test_unanimous_a_missing_ballot_or_one_no_is_no_never_a_tie():
    assert tally({"ann": True, "bob": True}, VOTERS, Rule.UNANIMOUS).result == "no"
    assert tally({"ann": True, "bob": True, "cat": False}, VOTERS, Rule.UNANIMOUS).result == "no"
    assert tally({}, VOTERS, Rule.UNANIMOUS).result == "no"


def test_unanimous_nobody_left_to_ask_agrees():
    # TopWords: an end proposed with no other player seated is decided at once, as agreed.
    assert tally({}, [], Rule.UNANIMOUS).result == "yes"


@pytest.mark.parametrize("rule", list(Rule))
def test_only_eligible_ballots_are_counted_under_every_rule(rule: Rule):
    with_a_stranger = tally({"ann": True, "zed": False}, ["ann"], rule)
    assert (with_a_stranger.yes, with_a_stranger.no, with_a_stranger.missing) == (1, 0, 0)
    assert with_a_stranger.result == "yes"


def test_the_tally_counts_eligible_and_voted():
    counted = tally({"ann": True, "bob": False}, VOTERS)
    assert (counted.voted, counted.eligible) == (2, 3)


def test_a_secret_tally_shows_how_many_voted_not_how():
    counted = tally({"ann": True, "bob": False}, VOTERS)
    assert counted.shown(secret=True) == {"voted": 2, "missing": 1, "eligible": 3}
    assert counted.shown() == {"voted": 2, "missing": 1, "eligible": 3, "yes": 1, "no": 1, "result": "tie"}


def test_eligibility_only_voters_may_vote():
    with pytest.raises(NotAPlayer) as refused:
        cast(VOTERS, {}, "zed", True)
    assert refused.value.key == "engine.no_vote"
    with pytest.raises(NotAPlayer) as refused:
        require_voter(VOTERS, "zed", refusal="ui.vote.not_eligible")
    assert refused.value.key == "ui.vote.not_eligible"
    require_voter(VOTERS, "ann")  # a voter passes


def test_cast_the_last_ballot_counts():
    ballots = cast(VOTERS, {"ann": True}, "ann", False)
    assert ballots == {"ann": False}
    assert not everyone_voted(VOTERS, ballots)
    assert everyone_voted(VOTERS, {**ballots, "bob": True, "cat": True})
