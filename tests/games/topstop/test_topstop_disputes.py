"""Top Stop: disputes and votes in the review phase (rule 9, FAQ 4)."""

from __future__ import annotations

from topstop_helpers import Table

from bot.engine.errors import BadAction, IllegalMove, WrongPhase


def reviewing(players: tuple[str, ...] = ("ann", "bob", "cat", "dan")) -> Table:
    """A table in review: ann and bob both wrote "can" (common), ann also "cot" (valid)."""
    table = Table(players)
    table.play_round("C", {"ann": ["can", "cot"], "bob": ["can", "cup"]}, score=False)
    assert table.state.phase == "review"
    return table


def test_rule_faq4_dispute_can_accept_a_crossed_out_word() -> None:
    table = reviewing()
    table.do("dispute", "ann", of="ann", word="CAN")
    assert table.events("dispute_opened")[0]["voters"] == ["bob", "cat", "dan"]
    table.do("vote", "bob", accept=True)
    table.do("vote", "cat", accept=True)
    table.do("vote", "dan", accept=False)  # the last vote closes it
    closed = table.events("vote_closed")[0]
    assert closed == {
        "type": "vote_closed",
        "of": "ann",
        "word": "can",
        "accept": 2,
        "reject": 1,
        "valid": True,
        "reason": None,
        "seconds": 30.0,
    }
    table.do("end_round")
    record = table.output()["history"][0]
    assert record["words"]["ann"][0] == {"word": "can", "valid": True, "reason": None}
    assert record["words"]["bob"][0] == {"word": "can", "valid": False, "reason": "common"}  # bob's stays
    assert record["points"] == {"ann": 2, "bob": 1, "cat": 0, "dan": 0}
    assert record["disputes"] == [
        {"by": "ann", "of": "ann", "word": "can", "accept": 2, "reject": 1, "result": "accepted"}
    ]


def test_rule_faq4_dispute_can_vote_out_an_accepted_word() -> None:
    table = reviewing()
    table.do("dispute", "bob", of="ann", word="cot")
    table.do("vote", "ann", accept=True)  # the owner votes too when someone else disputes
    table.do("vote", "cat", accept=False)
    table.do("vote", "dan", accept=False)
    table.do("end_round")
    record = table.output()["history"][0]
    assert record["words"]["ann"][1] == {"word": "cot", "valid": False, "reason": "voted_out"}
    assert record["points"]["ann"] == 0


def test_rule_vote_rejecting_a_crossed_word_keeps_its_reason() -> None:
    table = reviewing()
    table.do("dispute", "ann", of="ann", word="can")
    for voter in ("bob", "cat", "dan"):
        table.do("vote", voter, accept=False)
    assert table.output()["history"][0]["words"]["ann"][0]["reason"] == "common"


def test_rule_vote_tie_keeps_the_verdict() -> None:
    table = reviewing()
    table.do("dispute", "ann", of="ann", word="can")
    table.do("vote", "bob", accept=True)
    table.do("vote", "cat", accept=False)
    table.do("close_vote")  # dan did not vote: the window closed on a tie
    words = table.output()["history"][0]["words"]
    assert words["ann"][0] == {"word": "can", "valid": False, "reason": "common"}
    assert table.output()["history"][0]["disputes"][0]["result"] == "kept"


def test_rule_vote_with_no_votes_cast_keeps_the_verdict() -> None:
    table = reviewing()
    table.do("dispute", "bob", of="ann", word="cot")
    table.do("close_vote")
    assert table.output()["history"][0]["words"]["ann"][1]["valid"] is True


def test_rule_disputer_does_not_vote_and_each_voter_votes_once() -> None:
    table = reviewing()
    table.do("dispute", "ann", of="ann", word="can")
    table.refuses(IllegalMove, "vote", "ann", accept=True)
    table.do("vote", "bob", accept=True)
    table.refuses(IllegalMove, "vote", "bob", accept=False)
    table.refuses(BadAction, "vote", "cat", accept="yes")


def test_rule_one_vote_at_a_time_and_one_vote_per_word() -> None:
    table = reviewing()
    table.do("dispute", "ann", of="ann", word="can")
    table.refuses(IllegalMove, "dispute", "bob", of="bob", word="can")
    table.do("close_vote")
    table.refuses(IllegalMove, "dispute", "bob", of="ann", word="can")  # already put to the vote
    table.do("dispute", "bob", of="bob", word="can")  # bob's own "can" is another word on another list


def test_rule_dispute_names_a_word_of_the_round() -> None:
    table = reviewing()
    table.refuses(IllegalMove, "dispute", "ann", of="cat", word="can")  # cat submitted no list
    table.refuses(IllegalMove, "dispute", "ann", of="bob", word="cot")
    table.refuses(BadAction, "dispute", "ann", of="bob")
    table.refuses(IllegalMove, "vote", "bob", accept=True)  # no vote open


def test_rule_disputes_only_in_review() -> None:
    table = Table()
    table.do("spin", "ann", letter="C")
    table.do("submit", "bob", words=["cup"])
    table.refuses(WrongPhase, "dispute", "ann", of="bob", word="cup")
    table.do("end_writing")
    table.do("end_round")
    table.refuses(WrongPhase, "dispute", "ann", of="bob", word="cup")


def test_rule_end_round_waits_for_the_open_vote() -> None:
    table = reviewing()
    table.do("dispute", "ann", of="ann", word="can")
    table.refuses(IllegalMove, "end_round")
    table.do("close_vote")
    table.do("end_round")
    assert table.state.phase == "spin"


def test_rule_ballots_are_secret_until_the_vote_closes() -> None:
    table = reviewing()
    table.do("dispute", "ann", of="ann", word="can")
    applied = table.do("vote", "bob", accept=False)
    assert applied.events == [{"type": "vote_cast", "player": "bob", "votes": 1, "voters": 3}]
    spectator = table.game.view_for(table.state, None)["round"]["dispute"]
    assert spectator["voted"] == ["bob"] and "your_vote" not in spectator
    assert table.game.view_for(table.state, "bob")["round"]["dispute"]["your_vote"] is False


def test_rule_two_players_the_other_one_decides() -> None:
    table = reviewing(("ann", "bob"))
    table.do("dispute", "ann", of="ann", word="can")
    assert table.state.round.dispute is not None and table.state.round.dispute.voters == ["bob"]
    table.do("vote", "bob", accept=True)
    assert table.state.round.dispute is None
    assert table.output()["history"][0]["words"]["ann"][0]["valid"] is True
