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
