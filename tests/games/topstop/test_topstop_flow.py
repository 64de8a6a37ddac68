"""Top Stop: the spin, writing, STOP and the deadlines of each phase."""

from __future__ import annotations

import random

import pytest
from topstop_helpers import Table

from bot.engine.errors import BadAction, IllegalMove, NotYourTurn, WrongPhase
from bot.engine.game import Timer

# -- Starting the game -------------------------------------------------------------------------------


def test_rule_first_spin_lowest_letter_starts() -> None:
    table = Table(first=None)
    assert table.state.phase == "first_spin"
    table.do("spin", "ann", letter="M")
    table.do("spin", "bob", letter="C")
    assert table.state.phase == "first_spin"
    table.do("spin", "cat", letter="T")
    assert table.state.phase == "spin"
    assert table.state.round.spinner == "bob"
    assert table.events("first_spinner") == [{"type": "first_spinner", "player": "bob"}]


def test_rule_first_spin_ties_spin_again_among_tied() -> None:
    table = Table(("ann", "bob", "cat", "dan"), first=None)
    for player, letter in (("ann", "B"), ("bob", "Q"), ("cat", "B"), ("dan", "A")):
        table.do("spin", player, letter=letter)
    assert table.state.round.spinner == "dan"

    table = Table(("ann", "bob", "cat", "dan"), first=None)
    for player, letter in (("ann", "B"), ("bob", "Q"), ("cat", "B"), ("dan", "X")):
        table.do("spin", player, letter=letter)
    assert table.events("first_spin_tie") == [
        {"type": "first_spin_tie", "players": ["ann", "cat"], "letter": "B"}
    ]
    assert table.state.phase == "first_spin"
    table.refuses(IllegalMove, "spin", "bob", letter="A")  # only the tied players spin again
    table.do("spin", "cat", letter="K")
    table.refuses(IllegalMove, "spin", "cat", letter="A")  # once each
    table.do("spin", "ann", letter="L")
    assert table.state.round.spinner == "cat"
    assert table.output()["first_spins"] == [
        {"ann": "B", "bob": "Q", "cat": "B", "dan": "X"},
        {"cat": "K", "ann": "L"},
    ]


def test_rule_setup_first_player_forces_the_first_spinner() -> None:
    table = Table(first="cat")
    assert table.state.phase == "spin"
    assert table.state.round.spinner == "cat"
    with pytest.raises(BadAction):
        Table(first="zed")


# -- The spin ---------------------------------------------------------------------------------------


def test_rule_only_the_spinner_spins() -> None:
    table = Table()
    table.refuses(NotYourTurn, "spin", "bob", letter="P")
    table.do("spin", "ann", letter="P")
    assert table.state.phase == "writing"
    assert table.state.round.letter == "P"
    table.refuses(WrongPhase, "spin", "ann", letter="Q")


def test_rule_spin_letter_is_one_of_26_chosen_uniformly() -> None:
    table = Table()
    seen = set()
    for seed in range(400):
        action = table.game.resolve_chance(table.state, {"do": "spin", "player": "ann"}, random.Random(seed))
        seen.add(action["letter"])
    assert seen == set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    forced = table.game.resolve_chance(
        table.state, {"do": "spin", "player": "ann", "letter": "Q"}, random.Random(1)
    )
    assert forced["letter"] == "Q"
    table.do("spin", "ann")  # the seeded RNG decides
    assert table.state.round.letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@pytest.mark.parametrize("letter", ["", "AB", "1", "é", 5])
def test_rule_spin_letter_must_be_a_to_z(letter: object) -> None:
    Table().refuses(BadAction, "spin", "ann", letter=letter)


def test_rule_next_spinner_is_the_player_on_the_left() -> None:
    table = Table(first="bob")
    spinners = []
    for letter in "PQR":
        spinners.append(table.play_round(letter, {})["spinner"])
    assert spinners == ["bob", "cat", "ann"]
    assert table.state.round.spinner == "bob"


def test_rule_same_target_letter_may_come_up_again() -> None:
    table = Table()
    table.play_round("P", {"ann": ["pear"]})
    record = table.play_round("P", {"bob": ["plum"]})
    assert record["letter"] == "P"
    assert record["points"]["bob"] == 1


def test_rule_faq2_unanimous_respin() -> None:
    table = Table()
    table.do("spin", "ann", letter="X")
    table.do("respin", "ann")
    table.do("respin", "bob")
    assert table.state.phase == "writing"
    table.refuses(IllegalMove, "respin", "bob")  # one vote each
    table.do("respin", "cat")
    assert table.state.phase == "spin"
    assert table.state.round.spinner == "ann"
    assert table.events("respin") == [{"type": "respin", "round": 1, "spinner": "ann"}]
    table.do("spin", "ann", letter="P")
    table.do("submit", "bob", words=["pear"])
    table.do("end_writing")
    table.do("end_round")
    record = table.output()["history"][0]
    assert record["letter"] == "P"
    assert record["respun"] == ["X"]


def test_rule_faq2_respin_refused_once_a_player_has_words() -> None:
    table = Table()
    table.do("spin", "ann", letter="X")
    table.do("respin", "ann")
    table.do("submit", "bob", words=["xylophone"])
    assert table.events("respin_cancelled") == [{"type": "respin_cancelled", "player": "bob"}]
    assert table.state.round.respin_votes == []
    table.refuses(IllegalMove, "respin", "cat")
    table.do("end_writing")
    table.refuses(WrongPhase, "respin", "ann")


def test_rule_faq2_empty_list_does_not_block_a_respin() -> None:
    table = Table(("ann", "bob"))
    table.do("spin", "ann", letter="X")
    table.do("submit", "ann", words=[])
    table.do("respin", "ann")
    table.do("respin", "bob")
    assert table.state.phase == "spin"


# -- Writing and STOP -------------------------------------------------------------------------------


def test_rule_submission_is_editable_until_writing_closes() -> None:
    table = Table()
    table.do("spin", "ann", letter="P")
    table.do("submit", "bob", words=["pear", "plum"])
    table.do("submit", "bob", words=["peach"])
    table.do("end_writing")
    assert [w["word"] for w in table.output()["history"][0]["words"]["bob"]] == ["peach"]


def test_rule_submit_only_while_writing() -> None:
    table = Table()
    table.refuses(WrongPhase, "submit", "bob", words=["pear"])
    table.do("spin", "ann", letter="P")
    table.do("end_writing")
    table.refuses(WrongPhase, "submit", "bob", words=["pear"])


@pytest.mark.parametrize(
    "words",
    [
        "pear",
        ["pear", 3],
        ["a", "b", "c", "d", "e", "f"],
        ["p" * 41],
        None,
    ],
)
def test_rule_submit_arguments_are_checked(words: object) -> None:
    table = Table()
    table.do("spin", "ann", letter="P")
    error = table.refuses(BadAction, "submit", "bob", words=words)
    assert error.message


def test_rule_blank_entries_are_ignored_and_words_normalised() -> None:
    table = Table()
    table.do("spin", "ann", letter="P")
    applied = table.do("submit", "bob", words=["  Pear ", "", "   ", "PLUM", "p" * 40, "", ""])
    assert applied.events[0] == {"type": "submitted", "player": "bob", "count": 3}
    assert table.state.round.submissions["bob"] == ["pear", "plum", "p" * 40]


def test_rule_words_option_sets_how_many_words() -> None:
    table = Table(words=3)
    table.do("spin", "ann", letter="P")
    table.refuses(BadAction, "submit", "bob", words=["pear", "plum", "peach", "pip"])
    table.do("submit", "bob", words=["pear", "plum", "peach"])
    table.do("stop", "bob")
    assert table.state.round.stop_penalty == 0  # three words are the full list here


def test_rule_stop_needs_a_submitted_list() -> None:
    table = Table()
    table.do("spin", "ann", letter="P")
    table.refuses(IllegalMove, "stop", "bob")
    table.do("submit", "bob", words=["pear"])
    table.do("stop", "bob")
    assert table.state.round.stopped_by == "bob"
    table.do("submit", "cat", words=["pip"])
    table.refuses(IllegalMove, "stop", "cat")  # STOP is called once a round


def test_rule_stop_freezes_the_stoppers_list_but_others_finish_in_grace() -> None:
    table = Table()
    table.do("spin", "ann", letter="P")
    table.do("submit", "bob", words=["pear", "plum", "peach", "pip", "prune"])
    table.do("stop", "bob")
    table.refuses(IllegalMove, "submit", "bob", words=["pear"])
    table.do("submit", "cat", words=["parsnip"])  # the grace period lets others finish
    table.do("end_writing")
    table.do("end_round")
    assert table.output()["history"][0]["points"] == {"ann": 0, "bob": 5, "cat": 1}


def test_rule_stop_penalty_grows_per_player() -> None:
    table = Table(("ann", "bob"))
    first = table.play_round("P", {"ann": ["pear", "plum"]}, stop="ann")
    assert first["points"]["ann"] == 2 - 1
    assert first["penalties"] == {"ann": 1}
    second = table.play_round("B", {"bob": ["bean"], "ann": ["bat", "bee", "bin"]}, stop="ann")
    assert second["points"] == {"ann": 3 - 2, "bob": 1}
    third = table.play_round("C", {"bob": ["cat"]}, stop="bob")  # bob's first penalty: his own count
    assert third["points"]["bob"] == 1 - 1
    assert table.output()["penalties"] == {"ann": 2, "bob": 1}


def test_rule_stop_with_full_list_has_no_penalty() -> None:
    table = Table(("ann", "bob"))
    record = table.play_round("P", {"ann": ["pear", "plum", "peach", "pip", "prune"]}, stop="ann")
    assert record["points"]["ann"] == 5
    assert record["penalties"] == {}


def test_rule_stop_penalty_counts_words_written_not_valid() -> None:
    table = Table(("ann", "bob"))
    record = table.play_round("P", {"ann": ["pear", "plum", "peach", "pip", "x-ray"]}, stop="ann")
    assert record["points"]["ann"] == 4
    assert record["penalties"] == {}


# -- Deadlines --------------------------------------------------------------------------------------


def test_rule_writing_time_limit_closes_writing() -> None:
    table = Table(writing_time=120)
    assert [t.action for t in table.game.timers(table.state)] == [{"do": "auto_spin"}]  # no writing yet
    table.do("spin", "ann", letter="P")
    assert table.game.timers(table.state) == [Timer("writing:1:0", 120.0, {"do": "end_writing"})]


def test_rule_grace_period_after_stop() -> None:
    table = Table()
    table.do("spin", "ann", letter="P")
    table.do("submit", "bob", words=["pear"])
    table.do("stop", "bob")
    assert table.game.timers(table.state) == [Timer("grace:1", 10.0, {"do": "end_writing"})]
    assert table.events("stopped") == [
        {"type": "stopped", "player": "bob", "count": 1, "penalty": 1, "grace": 10.0}
    ]


def test_rule_respin_restarts_the_time_limit() -> None:
    table = Table(("ann", "bob"))
    table.do("spin", "ann", letter="X")
    table.do("respin", "ann")
    table.do("respin", "bob")
    table.do("spin", "ann", letter="P")
    assert [t.key for t in table.game.timers(table.state)] == ["writing:1:1"]


def test_rule_review_window_and_vote_window_timers() -> None:
    table = Table(review_time=20, vote_time=15)
    table.play_round("P", {"ann": ["pear"]}, score=False)
    assert table.game.timers(table.state) == [Timer("review:1:0", 20.0, {"do": "end_round"})]
    table.do("dispute", "bob", of="ann", word="pear")
    assert table.game.timers(table.state) == [Timer("vote:1:0", 15.0, {"do": "close_vote"})]
    table.do("close_vote")
    assert table.game.timers(table.state) == [Timer("review:1:1", 20.0, {"do": "end_round"})]


def test_rule_system_actions_only_in_their_phase() -> None:
    table = Table()
    table.refuses(WrongPhase, "end_writing")
    table.refuses(WrongPhase, "end_round")
    table.refuses(WrongPhase, "close_vote")
    table.do("spin", "ann", letter="P")
    table.refuses(WrongPhase, "end_round")
    table.do("end_writing")
    table.refuses(IllegalMove, "close_vote")
    table.refuses(WrongPhase, "end_writing")


def test_ruling_respin_refused_after_stop_and_pending_requests_dropped() -> None:
    # Our ruling: once STOP is called the letter is final. A re-spin would otherwise carry the STOP (and
    # its penalty) over to the new letter.
    table = Table()
    table.do("spin", "ann", letter="Q")
    table.do("respin", "ann")
    table.do("respin", "bob")
    table.do("submit", "cat", words=[])  # an empty list: the re-spin requests still stand (FAQ 2)
    table.do("stop", "cat")
    assert table.events("respin_cancelled") == [{"type": "respin_cancelled", "player": "cat"}]
    assert table.state.round.respin_votes == []
    error = table.refuses(WrongPhase, "respin", "cat")
    assert "cat has called STOP: the letter Q is final" in error.message
    table.refuses(WrongPhase, "respin", "ann")
    assert table.state.phase == "writing" and table.state.round.letter == "Q"
    table.do("end_writing")
    table.do("end_round")
    record = table.output()["history"][0]
    assert record["respun"] == [] and record["stopped_by"] == "cat" and record["penalties"] == {"cat": 1}


def test_ruling_leaving_after_stop_never_triggers_a_respin() -> None:
    table = Table()
    table.do("spin", "ann", letter="Q")
    table.do("submit", "ann", words=[])
    table.do("stop", "ann")
    table.refuses(WrongPhase, "respin", "bob")
    table.do("leave", "cat")
    assert table.state.phase == "writing" and table.state.round.stopped_by == "ann"


@pytest.mark.parametrize(
    ("word", "length"),
    [("ﬃ" * 13, 39), ("ß" * 20, 40), ("Maße" * 10, 50), ("ﬃ" * 40, 120), ("ß" * 21, 42)],
)
def test_rule_word_length_counts_after_normalising(word: str, length: int) -> None:
    # The 40-character limit is checked on the normalised word (what is stored, shown back in the form and
    # put in a dispute's menu): case folding lengthens ﬃ to ffi and ß to ss.
    table = Table()
    table.do("spin", "ann", letter="F")
    if length <= 40:
        table.do("submit", "bob", words=[word])
        assert [len(w) for w in table.state.round.submissions["bob"]] == [length]
    else:
        error = table.refuses(BadAction, "submit", "bob", words=[word])
        assert f"has {length})" in error.message and "at most 40 characters" in error.message
