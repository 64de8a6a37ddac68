"""Top Stop: scoring, the winning score, tiebreakers (FAQ 9), players leaving and ending the game."""

from __future__ import annotations

import pytest
from topstop_helpers import Table

from bot.engine.errors import BadAction, GameOver, IllegalMove, NotAPlayer
from bot.engine.game import Outcome, Termination
from bot.games.topstop.game import winning_score

FIVE_P = ["pear", "plum", "peach", "pip", "prune"]


def names(count: int) -> tuple[str, ...]:
    return tuple(f"p{i}" for i in range(count))


@pytest.mark.parametrize(
    ("players", "target"), [(2, 50), (3, 50), (4, 50), (5, 100), (8, 100), (9, 150), (12, 150)]
)
def test_rule_winning_score_by_player_count(players: int, target: int) -> None:
    assert winning_score(players) == target
    assert Table(names(players), first="p0").state.options.target == target


def test_rule_target_option_overrides_the_table() -> None:
    assert Table(target=7).state.options.target == 7
    with pytest.raises(BadAction):
        Table(target=0)


def test_rule_non_submitter_scores_zero_without_penalty() -> None:
    table = Table()
    record = table.play_round("P", {"ann": ["pear"]}, stop="ann")
    assert record["points"] == {"ann": 0, "bob": 0, "cat": 0}
    assert "bob" not in record["words"]
    assert table.output()["penalties"] == {"ann": 1, "bob": 0, "cat": 0}


def test_rule_scores_never_go_below_zero() -> None:
    table = Table(("ann", "bob"))
    table.play_round("P", {"ann": ["pear"]})
    record = table.play_round("Q", {"ann": []}, stop="ann")
    assert record["points"]["ann"] == -1  # the round's points show the penalty
    assert table.state.scores["ann"] == 0
    table.play_round("R", {"ann": ["rose", "rice"]}, stop="ann")  # second penalty: 2 - 2
    assert table.state.scores["ann"] == 0


def test_rule_reaching_the_target_highest_score_wins() -> None:
    table = Table(target=5)
    table.play_round("P", {"ann": ["pear", "plum", "peach"], "bob": ["pip"]})
    table.play_round("B", {"ann": ["bean"], "bob": ["bat", "bee", "bin", "bun"], "cat": ["bow"]})
    # bob 5, ann 4: bob reaches the target and wins
    assert table.state.phase == "over"
    assert table.game.outcome(table.state) == Outcome(
        winners=["bob"],
        scores={"ann": 4, "bob": 5, "cat": 1},
        termination=Termination.TARGET_REACHED,
        draw=False,
    )
    assert table.events("game_over")[0]["reason"] == "target"


def test_rule_highest_wins_even_when_several_pass_the_target() -> None:
    table = Table(target=2)
    table.play_round("P", {"ann": ["pear", "plum"], "bob": ["pip", "peach", "prune"]})
    assert table.output()["winners"] == ["bob"]


def test_rule_tie_at_the_top_starts_tiebreak_rounds_among_the_tied() -> None:
    table = Table(target=2, first="ann")
    table.play_round("P", {"ann": ["pear", "plum"], "bob": ["pip", "peach"], "cat": ["prune"]})
    assert table.state.phase == "spin"
    assert table.output()["tiebreakers"] == ["ann", "bob"]
    # FAQ 9: the spinner is whoever was next in the regular order (here bob, after ann).
    assert table.state.round.spinner == "bob"
    assert table.state.round.tiebreak is True
    table.do("spin", "bob", letter="B")
    table.refuses(IllegalMove, "submit", "cat", words=["bat"])  # cat is not tied
    table.do("submit", "ann", words=["bat", "bee"])
    table.do("submit", "bob", words=["bin"])
    table.do("end_writing")
    table.do("end_round")
    assert table.output()["winners"] == ["ann"]
    assert table.output()["history"][1]["points"] == {"ann": 2, "bob": 1}


def test_rule_faq9_non_tied_spinner_spins_for_the_tied_players() -> None:
    table = Table(target=1, first="cat")
    table.play_round("P", {"ann": ["pear"], "bob": ["pip"]})  # cat spun; ann and bob tie at 1
    assert table.state.round.spinner == "ann"
    table.play_round("Q", {})  # still tied: the regular order goes on
    assert table.state.round.spinner == "bob"
    table.play_round("R", {"ann": ["rose"]}, stop="ann")  # 1 - 1 = 0: still tied at 1
    assert table.state.round.spinner == "cat"
    record = table.play_round("S", {"bob": ["sun"]})
    assert record["spinner"] == "cat"
    assert record["players"] == ["ann", "bob"]
    assert table.output()["winners"] == ["bob"]


def test_rule_tiebreak_narrows_to_those_still_tied() -> None:
    table = Table(target=1)
    table.play_round("P", {"ann": ["pear"], "bob": ["pip"], "cat": ["plum"]})
    assert table.output()["tiebreakers"] == ["ann", "bob", "cat"]
    table.play_round("B", {"ann": ["bat"], "bob": ["bee"]})
    assert table.output()["tiebreakers"] == ["ann", "bob"]
    assert table.state.round.players == ["ann", "bob"]


def test_rule_leaving_the_game_goes_on_while_two_remain() -> None:
    table = Table()
    table.do("spin", "ann", letter="P")
    table.do("submit", "bob", words=["pear"])
    table.do("leave", "bob")
    assert table.state.phase == "writing"
    table.refuses(NotAPlayer, "submit", "bob", words=["pear"])
    table.do("end_writing")
    assert "bob" not in table.output()["history"][0]["words"]  # a leaver's words are never revealed
    table.do("end_round")
    assert table.output()["history"][0]["points"] == {"ann": 0, "cat": 0}
    assert table.state.round.spinner == "cat"  # bob's seat is skipped
    assert table.output()["left"] == ["bob"]


def test_rule_leaving_below_two_players_ends_the_game() -> None:
    table = Table()
    table.play_round("P", {"cat": ["pear"]})
    table.do("leave", "ann")
    table.do("leave", "cat")
    assert table.state.phase == "over"
    assert table.output()["winners"] == ["bob"]
    assert table.events("game_over")[0]["reason"] == "players_left"
    table.refuses(GameOver, "spin", "bob", letter="A")


def test_rule_spinner_leaving_passes_the_spin_to_the_next_seat() -> None:
    table = Table()
    table.do("leave", "ann")
    assert table.state.round.spinner == "bob"
    table.do("spin", "bob", letter="P")


def test_rule_leaving_during_the_first_spin() -> None:
    table = Table(("ann", "bob", "cat"), first=None)
    table.do("spin", "ann", letter="D")
    table.do("spin", "bob", letter="D")
    table.do("spin", "cat", letter="Q")  # ann and bob spin again
    table.do("leave", "ann")
    assert table.state.round.spinner == "bob"


def test_rule_leaving_a_vote() -> None:
    table = Table(("ann", "bob", "cat"))
    table.play_round("C", {"ann": ["cot"]}, score=False)
    table.do("dispute", "bob", of="ann", word="cot")
    table.do("vote", "ann", accept=False)
    table.do("leave", "cat")  # the last voter leaves: the vote closes with the votes cast
    assert table.state.round.dispute is None
    assert table.output()["history"][0]["words"]["ann"][0]["reason"] == "voted_out"


def test_rule_the_disputer_leaving_drops_the_vote() -> None:
    table = Table(("ann", "bob", "cat"))
    table.play_round("C", {"ann": ["cot"]}, score=False)
    table.do("dispute", "bob", of="ann", word="cot")
    table.do("leave", "bob")
    assert table.state.round.dispute is None
    table.do("dispute", "cat", of="ann", word="cot")  # the word may be disputed again


def test_rule_a_tied_player_leaving_hands_the_tiebreak_to_the_other() -> None:
    table = Table(target=1)
    table.play_round("P", {"ann": ["pear"], "bob": ["pip"]})
    table.do("leave", "ann")
    assert table.output()["winners"] == ["bob"]


def test_rule_leaving_a_respin_vote_can_make_it_unanimous() -> None:
    table = Table()
    table.do("spin", "ann", letter="X")
    table.do("respin", "ann")
    table.do("respin", "bob")
    table.do("leave", "cat")
    assert table.state.phase == "spin"


def test_rule_end_by_the_bot_or_the_host_highest_score_wins() -> None:
    table = Table()
    table.play_round("P", {"ann": ["pear"], "bob": ["pip"], "cat": []})
    table.refuses(IllegalMove, "end", "bob")
    table.do("end", "ann")
    assert table.output()["winners"] == ["ann", "bob"]
    assert table.output()["end_reason"] == "ended"
    system = Table()
    system.do("end")
    assert system.output()["finished"] is True


def test_rule_host_is_the_next_seat_when_the_first_leaves() -> None:
    table = Table()
    table.do("leave", "ann")
    table.do("end", "bob")
    assert table.state.phase == "over"


def test_rule_full_game_ends_when_the_target_is_reached() -> None:
    table = Table(("ann", "bob"))
    for letter in "ABCDEFGHIJ":
        assert table.state.phase == "spin"
        table.play_round(letter, {"ann": [letter.lower() + suffix for suffix in ("a", "b", "c", "d", "e")]})
    assert table.state.scores == {"ann": 50, "bob": 0}
    assert table.output()["winners"] == ["ann"]
    assert len(table.output()["history"]) == 10


def test_rule_a_stopper_who_leaves_takes_no_penalty() -> None:
    table = Table()
    table.do("spin", "ann", letter="P")
    table.do("submit", "bob", words=["pear"])
    table.do("stop", "bob")
    table.do("leave", "bob")
    table.do("end_writing")
    table.do("end_round")
    record = table.output()["history"][0]
    assert record["stopped_by"] == "bob"
    assert record["penalties"] == {}
    assert table.output()["penalties"]["bob"] == 0


def test_rule_a_player_outside_the_tiebreak_leaving_does_not_touch_its_vote() -> None:
    table = Table(("ann", "bob", "cat", "dan"), target=1)
    table.play_round("P", {"ann": ["pear"], "bob": ["plum"], "cat": ["pip"]})
    table.play_round("B", {"ann": ["bat"], "bob": ["bee"], "cat": ["bin"]}, score=False)
    table.do("dispute", "ann", of="bob", word="bee")
    table.do("leave", "dan")  # not tied, not a voter
    assert table.state.round.dispute is not None
    assert table.state.round.dispute.voters == ["bob", "cat"]
