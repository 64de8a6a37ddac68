"""Topple's board (bot/games/topple/board.py): levels, the die, lines, scoring and the balance model, one test
per rule (docs/rules/topple.md)."""

from __future__ import annotations

import math
from collections import Counter

from bot.games.topple.board import (
    HALF_RISK,
    LINES,
    RISK_SCALE,
    SQUARES,
    allowed_squares,
    empty_board,
    level,
    lines_through,
    moment,
    risk,
    risks,
    safest,
    score_placement,
    tilt,
)

R, Y, G, B = "red", "yellow", "green", "blue"


def board_with(stacks: dict[tuple[int, int], list[str]]) -> list[list[list[str]]]:
    board = empty_board()
    for (row, col), colours in stacks.items():
        board[row][col] = list(colours)
    return board


def test_the_board_has_five_levels_by_distance_from_the_centre() -> None:
    assert len(SQUARES) == 25
    assert Counter(level(square) for square in SQUARES) == {1: 1, 2: 4, 3: 8, 4: 8, 5: 4}
    assert level((2, 2)) == 1 and level((1, 2)) == 2 and level((1, 1)) == 3 and level((0, 1)) == 4
    assert {square for square in SQUARES if level(square) == 5} == {(0, 0), (0, 4), (4, 0), (4, 4)}


def test_a_roll_of_1_allows_the_centre_only_2_to_5_that_level_and_6_anywhere() -> None:
    assert allowed_squares(1) == [(2, 2)]
    for roll in range(2, 6):
        assert allowed_squares(roll) and all(level(square) == roll for square in allowed_squares(roll))
    assert allowed_squares(5) == [(0, 0), (0, 4), (4, 0), (4, 4)]
    assert allowed_squares(6) == list(SQUARES)


def test_there_are_twelve_lines_of_five_rows_columns_and_two_diagonals() -> None:
    assert len(LINES) == 12 and all(len(squares) == 5 for squares in LINES.values())
    assert lines_through((2, 2)) == ["row:2", "col:2", "diag:0", "diag:1"]
    assert lines_through((0, 1)) == ["row:0", "col:1"]
    assert lines_through((4, 0)) == ["row:4", "col:0", "diag:1"]


def test_completing_a_line_scores_3_plus_1_per_stack_the_colour_tops_the_new_piece_included() -> None:
    board = board_with({(2, 0): [R], (2, 1): [G, R], (2, 2): [R, B], (2, 4): [Y]})
    scoring = score_placement(board, (2, 3), R)
    assert scoring.completed == (("row:2", 3 + 3),)  # [2,0], [2,1] and the new piece; [2,2] is topped by blue
    assert scoring.added == () and scoring.stack == 0 and scoring.total == 6


def test_an_incomplete_line_scores_nothing() -> None:
    board = board_with({(2, 0): [R], (2, 1): [R]})
    assert score_placement(board, (2, 3), R).total == 0


def test_adding_to_a_complete_line_scores_1_per_stack_the_colour_tops() -> None:
    board = board_with({(0, c): [R] if c in (0, 4) else [G] for c in range(5)})
    scoring = score_placement(board, (0, 2), R)
    assert scoring.added == (("row:0", 3),) and scoring.completed == () and scoring.total == 3
    assert score_placement(board, (0, 2), Y).total == 1  # only the new yellow top


def test_a_stack_that_already_held_three_scores_1_per_piece_of_the_colour() -> None:
    assert score_placement(board_with({(1, 2): [R, G]}), (1, 2), R).stack == 0
    assert score_placement(board_with({(1, 2): [R, G, Y]}), (1, 2), R).stack == 2
    assert score_placement(board_with({(1, 2): [R, G, R, Y, R]}), (1, 2), R).stack == 4
    assert score_placement(board_with({(1, 2): [G, G, G]}), (1, 2), B).stack == 1


def test_the_rules_add_up_the_new_piece_counting_for_every_line_and_its_stack() -> None:
    """The NOTE of HOW TO SCORE, as illustration 5: a stack and two complete lines through the centre."""
    stacks = {(2, 2): [R, Y, G], (0, 2): [R], (1, 2): [Y], (3, 2): [G], (4, 2): [B]}
    stacks |= {(2, 0): [Y], (2, 1): [B], (2, 3): [G], (2, 4): [B]}
    scoring = score_placement(board_with(stacks), (2, 2), R)
    assert scoring.added == (("row:2", 1), ("col:2", 2)) and scoring.stack == 2 and scoring.total == 5
    assert scoring.record() == {
        "completed": [],
        "added": [{"line": "row:2", "points": 1}, {"line": "col:2", "points": 2}],
        "stack": 2,
    }


def test_the_moment_sums_every_pieces_offset_from_the_spindle() -> None:
    board = board_with({(2, 4): [R, Y], (0, 2): [G], (2, 2): [B, B, B]})
    assert moment(board) == (2 + 2, -2)  # east, south: row 0 is north
    assert tilt(board) == math.sqrt(4 * 4 + 2 * 2)
    assert moment(empty_board()) == (0, 0) and tilt(empty_board()) == 0


def test_the_risk_is_tilt_after_times_height_after_over_itself_plus_half_risk() -> None:
    board = board_with({(2, 4): [R, Y], (1, 4): [G]})  # moment (6, -1)
    leverage = math.sqrt(4 * 4 + 1 * 1) * 1  # on [2,0]: moment (4, -1), a stack of 1
    assert risk(board, (2, 0)) == round(RISK_SCALE * leverage / (leverage + HALF_RISK)) == 15
    leverage = math.sqrt(8 * 8 + 1 * 1) * 3  # on [2,4]: moment (8, -1), a stack of 3
    assert risk(board, (2, 4)) == round(RISK_SCALE * leverage / (leverage + HALF_RISK))
    assert risks(board)[2][0] == 15 and len(risks(board)) == 5 and all(len(row) == 5 for row in risks(board))


def test_a_piece_on_the_centre_of_a_level_board_never_topples() -> None:
    assert risk(empty_board(), (2, 2)) == 0
    assert risk(board_with({(2, 2): [R] * 9, (0, 2): [G], (4, 2): [Y]}), (2, 2)) == 0


def test_the_risk_grows_with_the_tilt() -> None:
    leaning = board_with({(2, 4): [R]})
    more = board_with({(2, 4): [R, R, R]})
    assert 0 < risk(leaning, (0, 4)) < risk(more, (0, 4))


def test_the_risk_grows_with_the_height_of_the_stack() -> None:
    short = board_with({(2, 4): [R], (2, 0): [Y]})
    tall = board_with({(2, 4): [R], (2, 0): [Y, Y, Y, Y]})
    tall[2][4] = [R, R, R, R]  # the same lean, both sides taller
    assert risk(short, (2, 4)) < risk(tall, (2, 4))


def test_placing_against_the_lean_is_safer_than_with_it() -> None:
    board = board_with({(2, 4): [R, R]})
    assert risk(board, (2, 0)) < risk(board, (2, 4))
    assert safest(board, allowed_squares(3)) == (2, 0)


def test_the_safest_square_breaks_ties_in_reading_order() -> None:
    assert safest(empty_board(), allowed_squares(5)) == (0, 0)
