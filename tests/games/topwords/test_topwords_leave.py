"""Leaving a TopWords game, and the turn timer (docs/rules/topwords.md, "Leaving and the turn timer")."""

from __future__ import annotations

from collections import Counter

from topwords_helpers import Table

from bot.engine.errors import BadAction, IllegalMove, NotAPlayer, StaleAction
from bot.engine.game import Outcome, Termination
from bot.games.topwords.game import IDLE_TURNS

# Any letters make words (no dictionary): ann and bob hold what the tests place.
DEAL = {"first_player": "ann", "racks": {"ann": "ABCDEFG", "bob": "ABCDEFG"}}


def test_a_leavers_tiles_go_back_into_the_bag_and_no_tile_is_lost():
    table = Table(("ann", "bob", "cat"))
    before = table.tiles()
    rack = table.state.racks["bob"]
    bag = Counter(table.state.bag)
    table.do("leave", "bob")
    assert table.state.racks["bob"] == "" and table.state.left == ["bob"]
    assert Counter(table.state.bag) == bag + Counter(rack) and table.tiles() == before
    assert table.events("player_left") == [{"type": "player_left", "player": "bob", "tiles": 7}]
    assert all(rack not in str(event) for event in table.last.events)  # never the letters


def test_a_leaver_is_refused_every_action_and_their_seat_is_skipped():
    table = Table(("ann", "bob", "cat"))
    table.do("leave", "bob")
    table.refuses(NotAPlayer, "pass", "bob")
    table.do("pass", "ann")
    assert table.state.current == "cat"
    assert table.game.legal_actions(table.state, "bob") == []


def test_leaving_on_your_turn_passes_the_turn_and_the_all_passed_end_counts_only_the_seated():
    table = Table(("ann", "bob", "cat"))
    table.do("leave", "ann")
    assert table.state.current == "bob"
    table.do("pass", "bob")
    table.do("pass", "cat")
    assert table.state.phase == "over" and table.state.end_reason == "passes"


def test_with_one_player_left_the_game_ends_and_a_leaver_never_wins():
    table = Table(("ann", "bob"))
    table.do("leave", "bob")
    assert table.state.end_reason == "players_left"
    outcome = table.game.outcome(table.state)
    assert outcome is not None and outcome.winners == ["ann"]
    assert outcome.scores == {"ann": -35, "bob": 0}  # bob has more points, but he left
    assert outcome.ranks() == {"ann": 1, "bob": 2} and outcome.result_of("bob") == "lost"


def test_a_vote_loses_its_subject_or_a_voter_when_a_player_leaves():
    table = Table(("ann", "bob", "cat", "dan"))
    table.do("propose_end", "ann")
    table.do("leave", "ann")  # she raised it: dropped
    assert table.state.vote is None and table.state.phase == "play" and table.state.current == "bob"
    assert table.events("vote_cancelled")
    table.do("propose_end", "bob")
    table.do("vote", "cat", accept=True)
    table.do("leave", "dan")  # the last voter waited for: everyone left voted
    assert table.state.end_reason == "no_words"


def test_a_leavers_move_stays_and_becomes_final():
    table = Table(("ann", "bob", "cat"), mode="challenge", setup={**DEAL, "racks": {"ann": "ABCDEFG"}})
    table.place("ann", [[4, 4, "A"], [4, 5, "B"]])
    assert table.state.pending is not None  # it could still be challenged
    table.do("leave", "ann")
    assert table.state.pending is None and len(table.state.history) == 1
    table.refuses(IllegalMove, "challenge", "bob")


def test_the_turn_timer_passes_the_turn_and_a_late_timer_is_stale():
    table = Table(("ann", "bob"), turn_seconds=60)
    [timer] = table.game.timers(table.state)
    assert timer.key == "turn:0" and timer.action == {"do": "turn_timeout", "turn": 0}
    table.do("turn_timeout", turn=0)
    assert table.state.current == "bob" and table.state.idle == {"ann": 1}
    assert table.events("turn_timed_out") == [{"type": "turn_timed_out", "player": "ann"}]
    table.refuses(StaleAction, "turn_timeout", turn=0)  # armed for ann's turn, which has passed
    assert Table(("ann", "bob")).game.timers(Table(("ann", "bob")).state) == []  # no timer by default


def test_a_turn_lost_to_the_timer_is_not_a_pass_so_idle_players_never_end_the_game_by_passes():
    """RULES-NOTES: a turn lost to the timer is not a pass for "every player passed in a row"."""
    table = Table(("ann", "bob"), turn_seconds=60)
    table.do("pass", "ann")
    table.do("turn_timeout", turn=table.state.turn_no)  # bob stepped away: not a second pass
    assert table.state.phase == "play" and table.state.passes == 0
    assert not table.events("passed")  # the table does not say he passed
    for _ in range(3):  # both away: turns are lost, the game goes on until one of them leaves
        table.do("turn_timeout", turn=table.state.turn_no)
        assert table.state.phase == "play"
    table.do("turn_timeout", turn=table.state.turn_no)  # bob's third lost turn in a row
    assert table.state.left == ["bob"] and table.state.end_reason == "players_left"
    assert [entry.get("timed_out", False) for entry in table.state.passes_log] == [False] + [True] * 5


def test_three_timeouts_in_a_row_and_the_player_leaves_an_own_action_resets_the_count():
    table = Table(
        ("ann", "bob"), turn_seconds=60, setup={**DEAL, "racks": {"ann": "XYZJVQW", "bob": "ABCDEFG"}}
    )
    table.do("turn_timeout", turn=0)
    table.place("bob", [[4, 4, "A"], [4, 5, "B"]])
    table.do("pass", "ann")  # her own action: the count starts again
    assert table.state.idle.get("ann", 0) == 0
    for row, letter in ((5, "C"), (6, "D")):
        table.place("bob", [[row, 4, letter]])
        table.do("turn_timeout", turn=table.state.turn_no)
    assert table.state.idle["ann"] == IDLE_TURNS - 1 and not table.state.left
    table.place("bob", [[7, 4, "E"]])
    table.do("turn_timeout", turn=table.state.turn_no)
    assert table.state.left == ["ann"] and table.state.end_reason == "players_left"
    assert table.events("player_idle_left") == [{"type": "player_idle_left", "player": "ann", "turns": 3}]


def test_options_refuse_a_bad_turn_timer():
    for bad in (-1, True, "60"):
        try:
            Table(("ann", "bob"), turn_seconds=bad)
        except BadAction as refused:
            assert refused.key == "topwords.refusal.turn_seconds"
        else:
            raise AssertionError(bad)


def test_an_outcome_ranks_players_who_left_after_those_who_stayed():
    outcome = Outcome(
        winners=["b"],
        scores={"a": 50, "b": 10, "c": 5},
        left=["a"],
        termination=Termination.LAST_PLAYER_STANDING,
        draw=False,
    )
    assert outcome.ranks() == {"b": 1, "c": 2, "a": 3}
