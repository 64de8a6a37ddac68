"""Placement rules: one line, connection, one tile per square, stacking to 5, never the same letter, no gaps."""

from __future__ import annotations

import pytest
from topwords_helpers import EXAMPLES, SIEB, Table, examples_table

from bot.engine.errors import BadAction, IllegalMove, NotYourTurn
from bot.games.topwords import RuleBroken
from bot.games.topwords.rules import CENTRE, SIZE, empty_board, place, score_placement


def code_of(table: Table, player: str, tiles: list[list[object]]) -> str:
    error = table.refuses(IllegalMove, "place", player, tiles=tiles)
    return error.code


def test_board_is_ten_by_ten_with_four_centre_squares():
    """RULES-NOTES: rows and columns 0–9; centre (4,4), (4,5), (5,4), (5,5)."""
    assert SIZE == 10 and len(empty_board()) == 100
    assert {(4, 4), (4, 5), (5, 4), (5, 5)} == CENTRE
    table = Table(setup={"first_player": "ann", "racks": {"ann": "ABCDEFG"}})
    assert code_of(table, "ann", [[10, 0, "A"], [10, 1, "B"]]) == "off_board"
    assert code_of(table, "ann", [[-1, 4, "A"], [-1, 5, "B"]]) == "off_board"


def test_first_move_must_cover_a_centre_square():
    """ "Mindestens ein Buchstabe muss auf einem der vier zentralen Felder liegen"."""
    table = Table(setup={"first_player": "ann", "racks": {"ann": "SIEBACD"}})
    assert code_of(table, "ann", [[3, 2, "S"], [3, 3, "I"], [3, 4, "E"], [3, 5, "B"]]) == "not_centre"
    for square in CENTRE:
        score_placement(empty_board(), [(square[0], square[1], "A"), (square[0], square[1] + 1, "B")])


def test_first_move_needs_a_word_of_two_letters():
    table = Table(setup={"first_player": "ann", "racks": {"ann": "SIEBACD"}})
    assert code_of(table, "ann", [[4, 4, "S"]]) == "too_short"


def test_tiles_lie_in_one_line():
    """ "Wörter können nur in gerader Linie gebildet werden ... niemals diagonal!" """
    table = Table(setup={"first_player": "ann", "racks": {"ann": "SIEBACD"}})
    assert code_of(table, "ann", [[4, 4, "S"], [5, 5, "I"]]) == "not_in_line"
    assert code_of(table, "ann", [[4, 4, "S"], [4, 5, "I"], [5, 5, "E"]]) == "not_in_line"


def test_later_moves_must_touch_or_stack_on_existing_tiles():
    table = examples_table()
    assert code_of(table, "bob", [[0, 0, "A"], [0, 1, "U"]]) == "not_connected"
    assert code_of(table, "bob", [[3, 7, "A"], [3, 8, "U"]]) == "not_connected"  # diagonal is no contact
    table.place("bob", [[3, 5, "A"], [3, 6, "U"]])  # touches B of SIEB from above: AU and AB... checked later


def test_one_tile_per_square_per_move():
    """RULES-NOTES: a move cannot put two tiles on one square."""
    table = examples_table()
    assert code_of(table, "bob", [[5, 5, "A"], [5, 5, "U"]]) == "square_twice"


def test_stacks_go_up_to_five_and_height_six_is_refused():
    """ "Maximal 5 Buchstaben dürfen übereinander gestapelt werden!" """
    board = place(empty_board(), [(4, 4, "A"), (4, 5, "B")])
    for letter in "CDEF":
        score_placement(board, [(4, 4, letter)])
        board = place(board, [(4, 4, letter)])
    assert len(board[44]) == 5
    with pytest.raises(RuleBroken) as caught:
        score_placement(board, [(4, 4, "G")])
    assert caught.value.code == "stack_too_high"
    assert "E5" in caught.value.message and "5" in caught.value.message


def test_never_the_same_letter_on_the_same_letter():
    """ "Es dürfen niemals 2 gleiche Buchstaben aufeinander gesetzt werden." """
    table = Table(setup={"first_player": "ann", "racks": {"ann": "SIEBACD", "bob": "EIRSTUN"}})
    table.place("ann", SIEB)
    error = table.refuses(IllegalMove, "place", "bob", tiles=[[4, 3, "I"]])
    assert error.code == "same_letter"
    assert "I on I at D5" in error.message
    assert "Niemals 2 gleiche Buchstaben aufeinander" in error.text("de")
    table.place("bob", [[4, 3, "E"]])  # a different letter stacks: SEEB is no word, but words are off here


def test_an_umlaut_may_be_stacked_on_its_base_letter():
    """Ruling (docs/rules/topwords.md): Ä, Ö, Ü are letters of their own, so Ä on A or Ü on U is not
    "the same letter on the same letter"."""
    table = Table(
        setup={"first_player": "ann", "racks": {"ann": "HUTABCD", "bob": "ÜÄEFGIK"}, "board": [[4, 6, "A"]]}
    )
    table.place("ann", [[4, 3, "H"], [4, 4, "U"], [4, 5, "T"]])  # HUTA: words are off here
    record = table.place("bob", [[4, 4, "Ü"]])  # Ü on U: HÜTA
    assert record["words"] == [{"word": "HÜTA", "points": 5}]
    table.place("ann", [[4, 7, "B"]])
    record = table.place("bob", [[4, 6, "Ä"]])  # Ä on A
    assert table.state.board[4 * 10 + 6] == "AÄ" and record["words"][0]["word"] == "HÜTÄB"
    # And the other way: U on Ü, O on Ö. Only the very same letter is refused.
    board = place(empty_board(), [(4, 4, "Ü"), (4, 5, "Ö")])
    assert score_placement(board, [(4, 4, "U"), (4, 5, "O")]).words[0].letters == "UO"
    with pytest.raises(RuleBroken) as caught:
        score_placement(board, [(4, 4, "Ü")])
    assert caught.value.code == "same_letter"


def test_no_gaps_in_the_line():
    """The line and the tiles already there make one unbroken word."""
    table = examples_table()
    error = table.refuses(IllegalMove, "place", "bob", tiles=[[5, 5, "A"], [7, 5, "M"]])
    assert error.code == "gap" and "F7" in error.message


def test_existing_tiles_fill_the_line_between_new_ones():
    """BAUM's B is on the board already: the new A U M join it; RAT's A likewise lies between R and T."""
    table = examples_table()
    table.place("bob", EXAMPLES[0])
    record = table.place("ann", EXAMPLES[1])
    assert record["words"][0]["word"] == "RAT"


def test_cross_words_are_formed_and_listed():
    """ "Berührt einer der Buchstaben andere Wörter, so muss bei jeder Berührung ein neues Wort entstehen"."""
    table = examples_table()
    table.place("bob", EXAMPLES[0])
    record = table.place("ann", EXAMPLES[1])
    assert [w["word"] for w in record["words"]] == ["RAT", "ER"]


def test_a_single_tile_forms_words_in_both_directions():
    table = examples_table()
    table.place("bob", EXAMPLES[0])
    table.place("ann", EXAMPLES[1])
    table.place("bob", EXAMPLES[2])
    record = table.place("ann", EXAMPLES[3])
    assert [w["word"] for w in record["words"]] == ["LIES", "SAUM"]


def test_tiles_must_come_from_the_rack():
    table = examples_table()
    error = table.refuses(IllegalMove, "place", "bob", tiles=[[5, 5, "Q"], [6, 5, "Q"]])
    assert error.code == "not_on_rack" and "Q, Q" in error.message


def test_only_tile_letters_exist():
    """No ß tile; umlauts are their own tiles."""
    table = Table(setup={"first_player": "ann", "racks": {"ann": "SIEBACD"}})
    assert code_of(table, "ann", [[4, 4, "ß"], [4, 5, "A"]]) == "not_a_letter"
    assert code_of(table, "ann", [[4, 4, "AE"], [4, 5, "A"]]) == "not_a_letter"


def test_malformed_tiles_are_bad_actions():
    table = Table()
    table.refuses(BadAction, "place", "ann", tiles="E5 A")
    table.refuses(BadAction, "place", "ann", tiles=[[4, 4]])
    table.refuses(BadAction, "place", "ann", tiles=[[True, 4, "A"]])
    assert code_of(table, "ann", []) == "no_tiles"


def test_only_the_player_to_move_places():
    table = Table()
    table.refuses(NotYourTurn, "place", "bob", tiles=SIEB)


def test_lower_case_letters_are_accepted_as_tiles():
    table = Table(setup={"first_player": "ann", "racks": {"ann": "SIEBACD"}})
    record = table.place("ann", [[4, 2, "s"], [4, 3, "i"], [4, 4, "e"], [4, 5, "b"]])
    assert record["words"][0]["word"] == "SIEB"
