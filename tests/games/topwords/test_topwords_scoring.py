"""Scoring: stack heights, the doubling (RULES-NOTES on example 6), J Q X Y Z and seven-tile bonuses."""

from __future__ import annotations

import pytest
from topwords_helpers import EXAMPLE_POINTS, EXAMPLES, SIEB, Table, examples_table

from bot.games.topwords.rules import empty_board, place, score_placement


def test_start_word_scores_double_automatically():
    """ "Der Startspieler erhält automatisch diesen Bonus": SIEB = 4 × 2."""
    record = Table(setup={"first_player": "ann", "racks": {"ann": "SIEBACD"}}).place("ann", SIEB)
    assert record["words"] == [{"word": "SIEB", "points": 4}]
    assert (record["doubled"], record["bonus"], record["points"]) == (True, 0, 8)


def test_six_illustrated_examples_score_8_10_5_11_12_17():
    """The rulebook's Abb. 1–6 are normative (RULES-NOTES)."""
    table = examples_table()
    players = ["bob", "ann"]
    got = [table.place(players[i % 2], tiles)["points"] for i, tiles in enumerate(EXAMPLES)]
    assert got == EXAMPLE_POINTS
    words = [[(w["word"], w["points"]) for w in record["words"]] for record in table.state.history[1:]]
    assert words == [
        [("BAUM", 4)],
        [("RAT", 3), ("ER", 2)],
        [("LIEB", 5)],
        [("LIES", 6), ("SAUM", 5)],
        [("NAGEL", 6), ("SAUG", 6)],
        [("FERNE", 6), ("RATE", 4), ("NAGEN", 7)],
    ]


def test_word_points_are_the_sum_of_stack_heights():
    """ "Entsteht ein Wort durch Übereinanderstapeln ... für jeden Buchstaben im Stapel einen Punkt"."""
    board = place(empty_board(), [(4, 4, "O"), (4, 5, "H")])
    board = place(board, [(4, 4, "A")])  # AH with A on O: heights 2, 1
    scored = score_placement(board, [(4, 5, "B")])  # AB: 2 + 2
    assert [(w.letters, w.points) for w in scored.words] == [("AB", 4)]
    assert not scored.doubled and scored.points == 4


def test_doubling_is_lost_for_the_whole_move_when_any_word_has_a_stack():
    """Example 6: RATE is flat but FERNE and NAGEN have stacks, so nothing doubles (4, not 8)."""
    table = examples_table()
    for i, tiles in enumerate(EXAMPLES[:5]):
        table.place(["bob", "ann"][i % 2], tiles)
    record = table.place("ann", EXAMPLES[5])
    assert not record["doubled"]
    assert record["points"] == 6 + 4 + 7


def test_doubling_applies_to_every_word_when_all_are_flat():
    """Example 2: RAT and ER are both flat: (3 + 2) × 2."""
    table = examples_table()
    table.place("bob", EXAMPLES[0])
    record = table.place("ann", EXAMPLES[1])
    assert record["doubled"] and record["points"] == 10


@pytest.mark.parametrize("letter", list("JQXYZ"))
def test_bonus_letters_add_two_after_the_doubling(letter):
    """J, Q, X, Y, Z: +2 per tile placed; "Bonuses are added after the doubling" (RULES-NOTES)."""
    board = place(empty_board(), [(4, 4, "A"), (4, 5, "B")])
    scored = score_placement(board, [(3, 4, letter)])  # a flat two-letter word down
    assert scored.bonus == 2
    assert scored.points == 2 * 2 + 2


def test_bonus_letters_count_once_per_tile_placed_only():
    """ "Dieser Bonus gilt aber nur einmal - beim Einsetzen": a Z already on the board adds nothing."""
    board = place(empty_board(), [(4, 4, "Z"), (4, 5, "A")])
    scored = score_placement(board, [(4, 6, "N")])
    assert scored.bonus == 0
    two = score_placement(empty_board(), [(4, 4, "X"), (4, 5, "Y")])
    assert two.bonus == 4 and two.points == 2 * 2 + 4


def test_seven_tile_bonus_is_ten_and_never_doubled():
    """ "Kann ein Spieler alle sieben Buchstaben ... setzen, so erhält er zusätzlich 10 Punkte"."""
    scored = score_placement(empty_board(), [(4, c, ch) for c, ch in enumerate("GARTENS", start=2)])
    assert scored.bonus == 10
    assert scored.points == 7 * 2 + 10


def test_seven_tile_bonus_in_play_with_the_rack_emptied():
    table = Table(setup={"first_player": "ann", "racks": {"ann": "GARTENS"}})
    record = table.place("ann", [[4, c, ch] for c, ch in enumerate("GARTENS", start=2)])
    assert (record["bonus"], record["points"]) == (10, 24)
    assert len(table.state.racks["ann"]) == 7  # refilled


def test_words_merely_touched_score_nothing():
    """Abb. 1: "Für die Benutzung des B in SIEB gibt es keine Punkte"."""
    table = examples_table()
    record = table.place("bob", EXAMPLES[0])
    assert [w["word"] for w in record["words"]] == ["BAUM"]


def test_a_letter_in_two_words_scores_in_both_with_its_stack():
    """ "Befindet sich der betroffene Buchstabe auf einem Stapel ... zweimal Punkte" (Abb. 4)."""
    table = examples_table()
    for i, tiles in enumerate(EXAMPLES[:3]):
        table.place(["bob", "ann"][i % 2], tiles)
    record = table.place("ann", EXAMPLES[3])
    assert record["words"] == [{"word": "LIES", "points": 6}, {"word": "SAUM", "points": 5}]
