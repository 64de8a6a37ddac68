"""Counting votes: majority of votes cast; a tie (or no vote) decides nothing."""

from bot.engine.votes import tally


def test_majority_of_votes_cast_decides():
    assert tally({"ann": True, "bob": True, "cat": False}) == "yes"
    assert tally({"ann": False, "bob": False, "cat": True}) == "no"


def test_abstentions_do_not_count():
    assert tally({"ann": True}) == "yes"


def test_a_tie_or_no_vote_is_a_tie():
    assert tally({"ann": True, "bob": False}) == "tie"
    assert tally({}) == "tie"


def test_a_quorum_vote_needs_a_majority_of_the_eligible_when_fewer_than_half_voted():
    # Two of ten cannot end a game for the other eight.
    assert tally({"ann": True, "bob": True}, eligible=10) == "no"
    assert tally({"ann": True, "bob": True}) == "yes"  # without a quorum: the votes cast decide
    # Half or more voted: the votes cast decide.
    assert tally({"a": True, "b": True, "c": True, "d": False, "e": False}, eligible=10) == "yes"
    assert tally({"a": True, "b": True}, eligible=3) == "yes"  # two of three voted: the votes cast decide
    assert tally({}, eligible=4) == "tie"
