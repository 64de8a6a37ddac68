"""Top Stop: "nothing to dispute" in the review (our ruling, docs/rules/topstop.md): once every player of the
round still seated has said it and no vote is open, the round is scored at once; a new dispute clears the
marks; the review window's timer still closes it for a table where someone never says it."""

from __future__ import annotations

from typing import Any

from topstop_helpers import Table

from bot.engine.errors import IllegalMove, StaleAction, WrongPhase
from bot.games.topstop.state import REVIEW, SPIN


def reviewing(players: tuple[str, ...] = ("ann", "bob", "cat"), **options: Any) -> Table:
    table = Table(players, **options)
    table.play_round("P", {"ann": ["pear", "plum"], "bob": ["pip"], "cat": ["peach"]}, score=False)
    assert table.state.phase == REVIEW
    return table


def offered(table: Table, player: str) -> bool:
    return {"do": "review_done", "player": player} in (table.game.legal_actions(table.state, player) or [])


def test_rule_ready_every_player_saying_it_scores_the_round_at_once() -> None:
    table = reviewing()
    table.do("review_done", "ann")
    table.do("review_done", "bob")
    assert table.state.phase == REVIEW and table.events("review_done") == [
        {"type": "review_done", "round": 1, "player": "bob", "waiting": ["cat"]}
    ]
    table.do("review_done", "cat")  # the last one: no timer needed
    assert table.events("round_scored")[0]["points"] == {"ann": 2, "bob": 1, "cat": 1}
    assert table.state.phase == SPIN and table.state.round.number == 2


def test_rule_ready_is_said_once_and_shown_to_everyone() -> None:
    table = reviewing()
    assert offered(table, "ann")
    table.do("review_done", "ann")
    assert not offered(table, "ann") and offered(table, "bob")
    table.refuses(IllegalMove, "review_done", "ann")
    assert table.game.view_for(table.state, None)["round"]["ready"] == ["ann"]
    assert table.game.view_for(table.state, "cat")["round"]["ready"] == ["ann"]
    # The review window's timer stays as it was: a player who never says it does not hold the table.
    assert [t.key for t in table.game.timers(table.state)] == ["review:1:0"]
    table.do("end_round")
    assert table.state.phase == SPIN


def test_rule_ready_a_player_who_said_it_may_still_dispute() -> None:
    table = reviewing()
    table.do("review_done", "ann")
    assert {"do": "dispute", "player": "ann", "of": "bob", "word": "pip"} in table.game.legal_actions(
        table.state, "ann"
    )
    table.do("dispute", "ann", of="bob", word="pip")
    assert table.state.round.dispute is not None


def test_rule_ready_a_dispute_clears_every_mark_and_no_one_says_it_during_the_vote() -> None:
    table = reviewing()
    table.do("review_done", "ann")
    table.do("review_done", "bob")
    table.do("dispute", "cat", of="ann", word="plum")
    assert table.state.round.ready == []
    assert not any(offered(table, p) for p in ("ann", "bob", "cat"))
    error = table.refuses(IllegalMove, "review_done", "ann")
    assert error.code == "illegal_move"
    table.do("vote", "ann", accept=True)
    table.do("vote", "bob", accept=False)  # the vote closes: the review goes on, nobody is ready
    assert table.state.phase == REVIEW and all(offered(table, p) for p in ("ann", "bob", "cat"))
    table.do("review_done", "ann")
    table.do("review_done", "bob")
    assert table.state.phase == REVIEW  # cat has not said it since the vote
    table.do("review_done", "cat")
    assert table.state.phase == SPIN


def test_rule_ready_a_cancelled_vote_leaves_the_marks_cleared() -> None:
    table = reviewing(("ann", "bob", "cat", "dan"))
    table.do("review_done", "ann")
    table.do("dispute", "dan", of="ann", word="pear")
    table.do("leave", "dan")  # the disputer leaves: the vote is dropped
    assert table.state.round.dispute is None and table.state.round.ready == []
    for player in ("ann", "bob"):
        table.do("review_done", player)
    assert table.state.phase == REVIEW
    table.do("review_done", "cat")
    assert table.state.phase == SPIN


def test_rule_ready_the_last_player_still_reviewing_leaving_scores_the_round() -> None:
    table = reviewing(("ann", "bob", "cat", "dan"))
    table.do("review_done", "ann")
    table.do("review_done", "bob")
    table.do("leave", "dan")  # dan was never ready, cat is still reviewing: the review goes on
    assert table.state.phase == REVIEW
    table.do("review_done", "cat")
    table.refuses(WrongPhase, "review_done", "ann")  # round 2 is spinning
    table = reviewing(("ann", "bob", "cat", "dan"))
    for player in ("ann", "bob", "cat"):
        table.do("review_done", player)
    table.do("leave", "dan")
    assert table.events("round_scored")[0]["points"] == {"ann": 2, "bob": 1, "cat": 1}


def test_rule_ready_only_the_tiebreak_players_say_it_in_a_tiebreak() -> None:
    table = Table(target=2)
    table.play_round("P", {"ann": ["pear", "plum"], "bob": ["pip", "peach"], "cat": ["prune"]})
    assert table.state.round.tiebreak and table.state.round.players == ["ann", "bob"]
    table.play_round("B", {"ann": ["bat"], "bob": ["bee", "bin"]}, score=False)
    assert not offered(table, "cat")
    table.refuses(IllegalMove, "review_done", "cat")  # cat does not play the tiebreak
    table.do("review_done", "ann")
    table.do("review_done", "bob")
    assert table.output()["winners"] == ["bob"]  # the ready that ends the last round ends the game


def test_rule_ready_outside_the_review_is_refused() -> None:
    table = Table()
    table.do("spin", "ann", letter="P")
    table.refuses(WrongPhase, "review_done", "ann")


def test_rule_stale_a_ready_made_before_a_vote_does_not_count_after_it() -> None:
    table = reviewing()
    window = table.game.freshness(table.state)["review"]
    table.do("dispute", "cat", of="ann", word="plum")
    assert "review" not in table.game.freshness(table.state)  # during a vote, the vote names the state
    table.do("vote", "ann", accept=True)
    table.do("vote", "bob", accept=True)
    now = table.game.freshness(table.state)["review"]
    assert now > window
    table.refuses(StaleAction, "review_done", "ann", round=1, review=window)
    table.do("review_done", "ann", round=1, review=now)
    for player in ("bob", "cat"):
        table.do("review_done", player)
    table.play_round("B", {"ann": ["bat"]}, score=False)  # the next round's review is a window of its own
    assert table.game.freshness(table.state)["review"] > now


def test_rule_ready_marks_round_trip_and_older_states_load_without_them() -> None:
    table = reviewing()
    table.do("review_done", "bob")
    dumped = table.game.dump(table.state)
    assert dumped["rounds"][-1]["ready"] == ["bob"]
    assert table.game.load(dumped) == table.state
    del dumped["rounds"][-1]["ready"]  # saved before the review had its marks
    older = table.game.load(dumped)
    assert older.round.ready == []
    table.state = older
    for player in ("ann", "bob", "cat"):
        table.do("review_done", player)
    assert table.state.phase == SPIN
