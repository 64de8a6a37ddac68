"""Stale buttons: an action may name the round (and a vote its dispute) it was made for; the rules refuse it
when the table has moved on (StaleAction), and accept actions that name none (scenarios, slash commands,
buttons drawn before ids named their round)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from topstop_helpers import Table

from bot.engine.errors import BadAction, StaleAction

# The engine refuses a click on an earlier message with one text for every game (bot/engine/game.py).
STALE = "The table has moved on since that message: use the latest one."


def round_two() -> Table:
    table = Table()
    table.play_round("P", {"ann": ["pear"], "bob": ["plum"], "cat": ["pip"]})
    table.do("spin", "bob", letter="C", round=2)  # the right round: accepted
    table.do("submit", "ann", words=["cake"], round=2)
    return table


@pytest.mark.parametrize(
    ("do", "player", "args"),
    [
        ("stop", "ann", {}),
        ("submit", "bob", {"words": ["cow"]}),
        ("respin", "cat", {}),
    ],
)
def test_rule_stale_a_previous_rounds_button_is_refused(do: str, player: str, args: dict[str, Any]) -> None:
    table = round_two()
    error = table.refuses(StaleAction, do, player, round=1, **args)
    assert error.code == "stale_action"
    assert error.message == STALE


def test_rule_stale_an_action_naming_no_round_is_accepted() -> None:
    table = round_two()
    table.do("stop", "ann")
    assert table.state.round.stopped_by == "ann"


def test_rule_stale_the_first_spins_button_cannot_spin_a_round() -> None:
    table = Table(("ann", "bob"), first=None)
    table.do("spin", "ann", letter="B", round=0)
    table.do("spin", "bob", letter="D", round=0)
    assert table.state.phase == "spin" and table.state.round.spinner == "ann"
    error = table.refuses(StaleAction, "spin", "ann", letter="K", round=0)
    assert error.message == STALE
    table.do("spin", "ann", letter="K", round=1)


def test_rule_stale_a_later_round_or_a_bad_round_is_refused() -> None:
    table = round_two()
    table.refuses(StaleAction, "stop", "ann", round=3)
    table.refuses(StaleAction, "stop", "ann", round=-1)
    for bad in ("2", True, 1.5):
        table.refuses(BadAction, "stop", "ann", round=bad)


def test_rule_stale_a_previous_rounds_dispute_menu_is_refused() -> None:
    table = Table()
    table.play_round("P", {"ann": ["pear"], "bob": ["plum"]})
    table.play_round("C", {"ann": ["pear"], "bob": ["cake"]}, score=False)
    error = table.refuses(StaleAction, "dispute", "cat", of="ann", word="pear", round=1)
    assert error.message == STALE
    table.do("dispute", "cat", of="ann", word="pear", round=2)


def test_rule_stale_a_vote_button_names_its_dispute() -> None:
    table = Table()
    table.play_round("P", {"ann": ["pear", "plum"], "bob": ["pip"], "cat": ["peach"]}, score=False)
    table.do("dispute", "cat", of="ann", word="pear", round=1)
    assert table.events("dispute_opened")[0]["dispute"] == 1
    assert table.output()["history"][0]["disputes"] == []
    assert table.game.view_for(table.state, None)["round"]["dispute"]["number"] == 1
    table.do("vote", "ann", accept=True, round=1, dispute=1)
    table.do("vote", "bob", accept=True)  # no dispute named: accepted; the vote closes
    table.do("dispute", "bob", of="ann", word="plum")
    assert table.state.round.dispute is not None and table.state.round.dispute.number == 2
    error = table.refuses(StaleAction, "vote", "cat", accept=False, round=1, dispute=1)
    assert error.message == STALE
    table.refuses(BadAction, "vote", "cat", accept=False, dispute="2")
    table.do("vote", "cat", accept=False, round=1, dispute=2)


def test_rule_stale_a_cancelled_vote_keeps_its_number() -> None:
    # The disputer leaving drops the vote; the next vote gets a new number, so the dropped vote's buttons
    # cannot land on it.
    table = Table(("ann", "bob", "cat", "dan"))
    table.play_round("P", {"ann": ["pear"], "bob": ["plum"]}, score=False)
    table.do("dispute", "dan", of="ann", word="pear")
    table.do("leave", "dan")
    table.do("dispute", "cat", of="ann", word="pear")
    assert table.state.round.dispute is not None and table.state.round.dispute.number == 2
    table.refuses(StaleAction, "vote", "bob", accept=True, dispute=1)
    table.do("vote", "bob", accept=True, dispute=2)


def test_rule_stale_states_saved_before_votes_were_numbered_still_load() -> None:
    table = Table()
    table.play_round("P", {"ann": ["pear", "plum"], "bob": ["pip"]}, score=False)
    table.do("dispute", "cat", of="ann", word="pear")
    table.do("vote", "ann", accept=True)
    table.do("vote", "bob", accept=True)
    table.do("dispute", "cat", of="ann", word="plum")
    data = json.loads(json.dumps(table.game.dump(table.state)))
    current = data["rounds"][-1]
    del current["opened_disputes"], current["dispute"]["number"]
    for closed in current["disputes"]:
        del closed["number"]
    old = table.game.load(data)
    assert old.round.opened_disputes == 2 and old.round.dispute is not None and old.round.dispute.number == 0
    table.state = old
    table.do("vote", "bob", accept=True, dispute=0)  # the number its buttons were drawn with


def test_rule_stale_words_written_for_the_letter_before_a_re_spin_are_refused() -> None:
    """FAQ 2's unanimous re-spin keeps the round but not the letter: a form opened for B names the re-spins
    it was opened after, so its words are refused (stale_action) once K is spun, not written for K."""
    table = Table()
    table.do("spin", "ann", letter="B", round=1)
    form_for_b = table.game.freshness(table.state)
    for player in ("ann", "bob", "cat"):
        table.do("respin", player, **form_for_b)
    table.do("spin", "ann", letter="K", round=1)
    assert table.game.freshness(table.state)["round"] == form_for_b["round"]
    assert table.game.freshness(table.state) != form_for_b
    error = table.refuses(StaleAction, "submit", "bob", words=["bear"], **form_for_b)
    assert error.message == STALE
    assert table.state.round.submissions == {}
    table.do("submit", "bob", words=["kite"], **table.game.freshness(table.state))


def test_rule_stale_a_dispute_vote_number_never_comes_back_in_a_later_round() -> None:
    """Votes are numbered through the game, not per round: round 2's first vote is not round 1's vote 1."""
    table = Table()
    table.play_round("P", {"ann": ["pear"], "bob": ["plum"], "cat": ["pip"]}, score=False)
    table.do("dispute", "cat", of="ann", word="pear")
    first = table.game.freshness(table.state)["dispute"]
    table.do("vote", "ann", accept=True)
    table.do("vote", "bob", accept=True)
    table.do("end_round")
    table.play_round("C", {"ann": ["cake"], "bob": ["cow"], "cat": ["cat"]}, score=False)
    table.do("dispute", "ann", of="bob", word="cow")
    assert table.game.freshness(table.state)["dispute"] != first


def test_rule_stale_states_saved_before_the_game_wide_counters_load_with_them() -> None:
    table = Table()
    table.play_round("P", {"ann": ["pear"], "bob": ["plum"]}, score=False)
    table.do("dispute", "cat", of="ann", word="pear")
    data = json.loads(json.dumps(table.game.dump(table.state)))
    del data["respins"], data["disputes_opened"]
    assert table.game.load(data) == table.state
