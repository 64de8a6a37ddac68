"""The Discord form (word, square "E5", across|down) turned into the tiles of a `place` action."""

from __future__ import annotations

import pytest
from topwords_helpers import EXAMPLES, examples_table

from bot.games.topwords import RuleBroken, parse_square, square_name, tiles_for_word
from bot.games.topwords.commands import tiles_for_command, word_tiles
from bot.games.topwords.rules import empty_board


def test_square_names_columns_a_to_j_rows_1_to_10():
    """Columns are letters A–J left to right, rows 1–10 top to bottom: E5 is (row 4, col 4), a centre square."""
    assert parse_square("E5") == (4, 4)
    assert parse_square("a1") == (0, 0)
    assert parse_square(" J10 ") == (9, 9)
    assert parse_square("F6") == (5, 5)
    assert square_name(4, 4) == "E5" and square_name(9, 0) == "A10"
    for text in ("K1", "A0", "A11", "5E", "", "E 5 5"):
        with pytest.raises(RuleBroken) as caught:
            parse_square(text)
        assert caught.value.code == "bad_square"


def test_a_word_on_an_empty_board_is_all_new_tiles():
    assert tiles_for_word(empty_board(), "sieb", 4, 2, "across") == [
        (4, 2, "S"),
        (4, 3, "I"),
        (4, 4, "E"),
        (4, 5, "B"),
    ]
    assert tiles_for_word(empty_board(), "Da", 4, 4, "down") == [(4, 4, "D"), (5, 4, "A")]


def test_squares_with_the_same_top_letter_are_reused():
    """BAUM from F5 down reuses SIEB's B (Abb. 1)."""
    table = examples_table()
    assert tiles_for_command(table.state, "BAUM", "F5", "down") == [(5, 5, "A"), (6, 5, "U"), (7, 5, "M")]


def test_other_letters_are_stacked_on_what_lies_there():
    """LIEB from C5 across stacks L on S (Abb. 3); the view form works as well as the state."""
    table = examples_table()
    table.place("bob", EXAMPLES[0])
    table.place("ann", EXAMPLES[1])
    view = table.game.view_for(table.state, "bob")
    assert tiles_for_command(view, "lieb", "C5", "across") == [(4, 2, "L")]
    assert tiles_for_word(table.state, "LIES", 4, 2, "waagrecht") == [(4, 2, "L"), (4, 5, "S")]


def test_eszett_becomes_ss_and_umlauts_stay():
    assert word_tiles("Straße") == "STRASSE"
    assert word_tiles("müde") == "MÜDE"
    with pytest.raises(RuleBroken) as caught:
        word_tiles("don't")
    assert caught.value.code == "not_a_letter"


def test_helper_errors_are_clear():
    board = empty_board()
    cases = [
        (("BAUM", 8, 0, "down"), "word_off_board", "BAUM from A9 down runs off the board."),
        (("BAUM", 0, 8, "across"), "word_off_board", None),
        (("BAUM", 0, 0, "diagonal"), "bad_direction", None),
        (("B", 0, 0, "across"), "too_short", None),
        (("BAUM", 10, 0, "across"), "off_board", None),
    ]
    for args, code, message in cases:
        with pytest.raises(RuleBroken) as caught:
            tiles_for_word(board, *args)
        assert caught.value.code == code
        if message:
            assert caught.value.message == message


def test_a_word_already_there_needs_no_tiles():
    table = examples_table()
    with pytest.raises(RuleBroken) as caught:
        tiles_for_command(table.state, "SIEB", "C5", "across")
    assert caught.value.code == "already_there" and "SIEB" in caught.value.message


def test_helper_tiles_feed_the_place_action():
    table = examples_table()
    tiles = tiles_for_command(table.state, "BAUM", "F5", "down")
    record = table.place("bob", [list(tile) for tile in tiles])
    assert record["points"] == 8
