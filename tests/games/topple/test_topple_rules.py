"""Topple's rules (docs/rules/topple.md), one test per rule, through `step` as live play applies actions."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.engine.errors import (
    BadAction,
    GameOver,
    IllegalMove,
    NotAPlayer,
    NotYourTurn,
    StaleAction,
    WrongPhase,
)
from bot.engine.game import Applied, Termination, live_action, step
from bot.games import make_game
from bot.games.topple import State
from bot.games.topple.board import RISK_SCALE, allowed_squares, empty_board, risk

A, B, C, D = "ann", "bob", "cat", "dan"
FOUR = [A, B, C, D]
SEED = 11


@pytest.fixture
def game() -> Any:
    return make_game("topple", None)


def start(game: Any, players: list[str] = FOUR, setup: dict[str, Any] | None = None, **options: Any) -> State:
    state: State = game.new_game(
        options, players, {"first_player": players[0], **(setup or {})}, random.Random(0)
    )
    return state


def act(game: Any, state: State, action: dict[str, Any], version: int = 0) -> Applied:
    return step(game, state, SEED, version, action)[1]


def turn(
    game: Any, state: State, roll: int, square: tuple[int, int], topple: bool = False, **extra: Any
) -> State:
    """The player on turn rolls `roll` and places on `square` (the topple forced)."""
    player = state.current
    state = act(game, state, {"do": "roll", "player": player, "roll": roll}).state
    place = {"do": "place", "player": player, "square": list(square), "topple": topple, **extra}
    return act(game, state, place).state


def row_two_but(col: int, colours: list[str]) -> list[list[list[str]]]:
    """A board whose row 2 holds one piece per square (colours in order) except on `col`."""
    board = empty_board()
    others = iter(colours)
    for c in range(5):
        if c != col:
            board[2][c] = [next(others)]
    return board


# -- pieces, colours, the first player -------------------------------------------------------------------


def test_each_seat_takes_a_colour_of_twelve_pieces(game: Any) -> None:
    state = start(game)
    assert state.colours == {A: ["red"], B: ["yellow"], C: ["green"], D: ["blue"]}
    assert state.supply == {"red": 12, "yellow": 12, "green": 12, "blue": 12}
    assert start(game, [A, B, C]).supply == {"red": 12, "yellow": 12, "green": 12}


def test_two_players_play_two_colours_each(game: Any) -> None:
    state = start(game, [A, B])
    assert state.colours == {A: ["red", "yellow"], B: ["green", "blue"]}
    assert sum(state.supply.values()) == 48


def test_the_highest_opening_roll_goes_first_and_a_tie_rolls_again(game: Any) -> None:
    state = game.new_game({}, [A, B, C], {}, random.Random(0))
    assert state.phase == "opening" and game.table_actions(state, None) == {"roll"}
    for player, roll in ((A, 6), (B, 6), (C, 4)):
        state = act(game, state, {"do": "roll", "player": player, "roll": roll}).state
    assert state.phase == "opening" and state.opening == {A: None, B: None}
    with pytest.raises(IllegalMove):
        act(game, state, {"do": "roll", "player": C, "roll": 6})
    state = act(game, state, {"do": "roll", "player": A, "roll": 2}).state
    applied = act(game, state, {"do": "roll", "player": B, "roll": 3})
    assert applied.state.current == B and applied.state.phase == "roll" and applied.state.round == 1
    assert {"type": "first_player", "player": B, "roll": 3, "turn": 3} in applied.events
    assert applied.state.opening_rolls == [{A: 6, B: 6, C: 4}, {A: 2, B: 3}]


def test_a_roll_is_chance_the_engine_draws_never_the_player(game: Any) -> None:
    state = start(game)
    sent = live_action(game, {"do": "roll", "player": A, "roll": 6}, 0.0)
    assert "roll" not in sent
    rolls = {step(game, state, seed, 0, sent)[0]["roll"] for seed in range(40)}
    assert rolls == {1, 2, 3, 4, 5, 6}


# -- a turn ----------------------------------------------------------------------------------------------------


def test_a_turn_is_a_roll_then_a_placement_on_an_allowed_square(game: Any) -> None:
    state = start(game)
    with pytest.raises(WrongPhase):
        act(game, state, {"do": "place", "player": A, "square": [2, 2], "topple": False})
    with pytest.raises(NotYourTurn):
        act(game, state, {"do": "roll", "player": B, "roll": 1})
    rolled = act(game, state, {"do": "roll", "player": A, "roll": 2}).state
    with pytest.raises(WrongPhase):
        act(game, rolled, {"do": "roll", "player": A, "roll": 3})
    with pytest.raises(IllegalMove):
        act(game, rolled, {"do": "place", "player": A, "square": [2, 2], "topple": False})
    with pytest.raises(BadAction):
        act(game, rolled, {"do": "place", "player": A, "square": [2, 5], "topple": False})
    placed = act(game, rolled, {"do": "place", "player": A, "square": [1, 2], "topple": False}).state
    assert placed.board[1][2] == ["red"] and placed.supply["red"] == 11
    assert placed.current == B and placed.phase == "roll" and placed.turn == 2


def test_a_stale_turn_is_refused(game: Any) -> None:
    state = turn(game, start(game), 1, (2, 2))
    with pytest.raises(StaleAction):
        act(game, state, {"do": "roll", "player": B, "roll": 2, "turn": 1})
    assert act(game, state, {"do": "roll", "player": B, "roll": 2, "turn": 2}).state.roll == 2


def test_a_placement_scores_its_rules_and_the_record_says_which(game: Any) -> None:
    state = start(game, setup={"board": row_two_but(3, ["yellow", "green", "blue", "green"])})
    state = turn(game, state, 2, (2, 3))
    assert state.scores[A] == 4
    assert state.history[-1]["scoring"] == {
        "completed": [{"line": "row:2", "points": 4}],
        "added": [],
        "stack": 0,
    }


# -- toppling --------------------------------------------------------------------------------------------------


def test_whether_a_placement_topples_is_drawn_from_the_squares_published_risk(game: Any) -> None:
    board = empty_board()
    board[2][4] = ["red"] * 6
    board[2][3] = ["green"] * 6
    state = act(game, start(game, setup={"board": board}), {"do": "roll", "player": A, "roll": 6}).state
    published = {tuple(choice["square"]): choice["risk"] for choice in game.view_for(state, None)["choices"]}
    assert published[(2, 4)] == risk(state.board, (2, 4)) > 0
    sent = live_action(game, {"do": "place", "player": A, "square": [2, 4], "topple": False}, 0.0)
    assert "topple" not in sent  # a player never decides it
    draws = [step(game, state, seed, 0, sent)[0]["topple"] for seed in range(3000)]
    share = sum(draws) / len(draws)
    assert abs(share - published[(2, 4)] / RISK_SCALE) < 0.03


def test_a_topple_costs_the_placer_10_and_gives_the_player_before_3(game: Any) -> None:
    state = turn(game, start(game), 1, (2, 2))
    state = turn(game, state, 6, (0, 0), topple=True)
    assert state.scores == {A: 3, B: -10, C: 0, D: 0}
    assert state.history[-1]["bonus"] == {"player": A, "points": 3} and state.history[-1]["toppled"]


def test_a_topple_on_the_games_first_placement_gives_no_bonus(game: Any) -> None:
    state = turn(game, start(game), 1, (2, 2), topple=True)
    assert state.scores == {A: -10, B: 0, C: 0, D: 0} and "bonus" not in state.history[-1]


def test_a_topple_ends_the_round_and_the_seat_after_the_toppler_opens_the_next(game: Any) -> None:
    state = turn(game, start(game), 1, (2, 2))
    state = turn(game, state, 6, (0, 0), topple=True)
    assert state.rounds[-1]["ended"] == "topple" and state.rounds[-1]["toppler"] == B
    assert state.round == 2 and state.current == C and state.board == empty_board()
    assert state.supply == {"red": 12, "yellow": 12, "green": 12, "blue": 12}


# -- rounds and the end ---------------------------------------------------------------------------------------


def almost_full_board() -> list[list[list[str]]]:
    """33 pieces, 11 of each of red, yellow and green: three placements end the round."""
    board = empty_board()
    for index, colour in enumerate(["red", "yellow", "green"] * 11):
        board[(index % 25) // 5][index % 5].append(colour)
    return board


def test_a_round_ends_when_every_piece_is_placed_and_the_seat_after_the_last_placer_opens_the_next(
    game: Any,
) -> None:
    state = start(game, [A, B, C], setup={"first_player": B, "board": almost_full_board()}, target=1000)
    for _ in range(3):
        state = turn(game, state, 6, (4, 4))
    assert state.rounds[-1]["ended"] == "all_placed" and state.round == 2
    assert state.current == B  # A placed last
    assert state.board == empty_board() and state.supply == {"red": 12, "yellow": 12, "green": 12}


def test_reaching_the_target_ends_the_game_only_at_the_end_of_the_round(game: Any) -> None:
    state = start(game, setup={"board": row_two_but(3, ["yellow", "green", "blue", "green"])}, target=4)
    state = turn(game, state, 2, (2, 3))
    assert state.scores[A] == 4 and game.outcome(state) is None and state.current == B


def test_the_highest_total_wins_at_the_end_of_the_round(game: Any) -> None:
    state = start(game, [A, B, C], target=3)
    state = turn(game, state, 1, (2, 2))
    state = turn(game, state, 6, (0, 0), topple=True)
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winners == [A] and not outcome.draw
    assert outcome.termination == Termination.TARGET_REACHED and outcome.scores == {A: 3, B: -10, C: 0}


def test_a_tie_at_the_top_is_a_shared_win(game: Any) -> None:
    state = start(game, [A, B, C], setup={"board": row_two_but(3, ["green"] * 4)}, target=4)
    state = turn(game, state, 2, (2, 3))  # ann completes row 2: 4
    state = turn(game, state, 2, (2, 1))  # bob adds to it: 1
    state = turn(game, state, 6, (0, 0), topple=True)  # cat topples: bob +3
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winners == [A, B] and outcome.draw
    assert outcome.ranks() == {A: 1, B: 1, C: 3}


# -- the two-player version ------------------------------------------------------------------------------------


def test_two_players_name_the_colour_they_place_and_only_their_own(game: Any) -> None:
    state = act(game, start(game, [A, B]), {"do": "roll", "player": A, "roll": 6}).state
    with pytest.raises(BadAction):
        act(game, state, {"do": "place", "player": A, "square": [0, 0], "topple": False})
    with pytest.raises(IllegalMove):
        act(game, state, {"do": "place", "player": A, "square": [0, 0], "colour": "blue", "topple": False})
    placed = act(
        game, state, {"do": "place", "player": A, "square": [0, 0], "colour": "yellow", "topple": False}
    )
    assert placed.state.board[0][0] == ["yellow"] and placed.state.supply["yellow"] == 11


def test_a_colour_with_no_piece_left_is_refused(game: Any) -> None:
    board = empty_board()
    board[0] = [["yellow"] * 3, ["yellow"] * 3, ["yellow"] * 3, ["yellow"] * 3, []]
    state = act(
        game, start(game, [A, B], setup={"board": board}), {"do": "roll", "player": A, "roll": 6}
    ).state
    assert state.supply["yellow"] == 0
    with pytest.raises(IllegalMove):
        act(game, state, {"do": "place", "player": A, "square": [4, 4], "colour": "yellow", "topple": False})
    assert [a.get("colour") for a in game.legal_actions(state, A) if a["do"] == "place"] == ["red"] * 25


def test_a_two_player_score_is_the_sum_of_what_each_colour_scored(game: Any) -> None:
    board = row_two_but(3, ["red", "red", "green", "blue"])
    state = start(game, [A, B], setup={"board": board})
    state = turn(game, state, 2, (2, 3), colour="yellow")  # only yellow tops count: 3 + 1
    state = turn(game, state, 2, (1, 2), colour="green")
    state = turn(game, state, 2, (2, 1), colour="red")  # the red at [2,0] and the new red top
    assert [record["points"] for record in state.history] == [4, 0, 2] and state.scores[A] == 6


# -- the young people version -------------------------------------------------------------------------------


def test_the_young_version_scores_nothing(game: Any) -> None:
    board = row_two_but(3, ["yellow", "green", "blue", "green"])
    state = turn(game, start(game, setup={"board": board}, variant="young"), 2, (2, 3))
    assert state.scores == dict.fromkeys(FOUR, 0) and state.history[-1]["points"] == 0


def test_in_the_young_version_a_toppler_is_out_and_the_others_play_on(game: Any) -> None:
    state = start(game, [A, B, C], variant="young")
    state = turn(game, state, 1, (2, 2))
    state = turn(game, state, 6, (0, 0), topple=True)
    assert state.out == [B] and state.current == C and state.round == 2
    assert "yellow" not in state.supply and game.legal_actions(state, B) == []
    with pytest.raises(NotAPlayer):
        act(game, state, {"do": "roll", "player": B, "roll": 1})
    state = turn(game, state, 1, (2, 2))
    assert state.current == A  # bob is skipped
    state = turn(game, state, 6, (4, 4), topple=True)
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winners == [C]
    assert outcome.termination == Termination.LAST_PLAYER_STANDING


def test_the_young_version_ranks_every_player_by_the_order_they_went_out(game: Any) -> None:
    state = start(game, FOUR, variant="young")
    for toppler_roll in (1, 1, 1):
        state = turn(game, state, toppler_roll, (2, 2), topple=True)
    outcome = game.outcome(state)
    assert outcome is not None and state.out == [A, B, C] and outcome.winners == [D]
    assert outcome.ranks() == {D: 1, C: 2, B: 3, A: 4}


# -- timers, options, the view, leaving ----------------------------------------------------------------------


def test_an_idle_turn_is_rolled_for_and_placed_on_the_lowest_risk_square(game: Any) -> None:
    board = empty_board()
    board[2][4], board[1][4] = ["yellow", "yellow"], ["green"]
    state = start(game, setup={"board": board}, turn_seconds=45)
    assert game.timers(state)[0].key == "turn:1" and game.timers(state)[0].seconds == 45
    timer = game.timers(state)[0].action
    complete, applied = step(game, state, SEED, 0, dict(timer))
    assert set(complete) >= {"roll", "topple"}
    record = applied.state.history[-1]
    allowed = allowed_squares(complete["roll"])
    assert record["timed_out"] and record["player"] == A
    assert record["risk"] == min(risk(board, square) for square in allowed)
    forced = act(game, state, {**timer, "roll": 3, "topple": False})
    assert forced.state.history[-1]["square"] == [2, 0] and forced.state.current == B


def test_an_idle_opening_roll_is_rolled_for_everyone_still_to_roll(game: Any) -> None:
    state = game.new_game({}, [A, B, C], {}, random.Random(0))
    state = act(game, state, {"do": "roll", "player": A, "roll": 6}).state
    complete, applied = step(game, state, SEED, 1, {"do": "timeout", "turn": 1})
    assert sorted(complete["rolls"]) == [B, C]
    assert applied.state.opening_rolls[0] == {A: 6, **complete["rolls"]}


def test_options_have_defaults_and_clear_refusals(game: Any) -> None:
    assert game.validate_options({}) == {"target": 100, "turn_seconds": 120, "variant": "standard"}
    assert game.validate_options({"variant": "young", "target": 30})["variant"] == "young"
    for wrong in (
        {"target": 0},
        {"target": True},
        {"turn_seconds": 5},
        {"variant": "two_player"},
        {"colour": 1},
    ):
        with pytest.raises(BadAction) as refused:
            game.validate_options(wrong)
        assert refused.value.key.startswith("topple.option.")


def test_the_view_shows_the_tilt_and_after_the_roll_each_allowed_squares_risk_and_points(game: Any) -> None:
    board = row_two_but(3, ["yellow", "green", "blue", "green"])
    state = start(game, setup={"board": board})
    view = game.view_for(state, None)
    # Pieces on columns 0, 1, 2 and 4 of the middle row: offsets -2, -1, 0 and +2.
    assert view["tilt"] == {"east": -1, "south": 0, "amount": 1.0, "towards": "w"}
    assert view["allowed"] == [] and view["choices"] == [] and view["offered"] == ["roll"]
    state = act(game, state, {"do": "roll", "player": A, "roll": 2}).state
    view = game.view_for(state, B)
    assert view["allowed"] == [[1, 2], [2, 1], [2, 3], [3, 2]] and view["offered"] == ["place"]
    choice = next(c for c in view["choices"] if c["square"] == [2, 3])
    assert choice == {"square": [2, 3], "risk": risk(state.board, (2, 3)), "points": {"red": 4}}
    assert view["risks"][2][3] == choice["risk"] and view["freshness"] == {"turn": 1}
    assert view["offered_to_you"] == [] and game.view_for(state, A)["offered_to_you"] == ["place"]


def test_a_player_who_leaves_is_skipped_and_below_two_players_the_game_ends(game: Any) -> None:
    state = turn(game, start(game, [A, B, C]), 1, (2, 2))
    state = act(game, state, {"do": "leave", "player": B}).state
    assert state.current == C and "yellow" not in state.supply
    state = act(game, state, {"do": "leave", "player": C}).state
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winners == [A] and outcome.left == [B, C]
    with pytest.raises(GameOver):
        act(game, state, {"do": "roll", "player": A, "roll": 1})


def test_the_host_or_the_tables_vote_ends_the_game_and_the_best_total_wins(game: Any) -> None:
    state = turn(game, start(game), 1, (2, 2))
    state = turn(game, state, 6, (0, 0), topple=True)
    outcome = game.outcome(act(game, state, {"do": "end", "by": "vote"}).state)
    assert outcome is not None and outcome.winners == [A]
    assert outcome.termination == Termination.ENDED_BY_VOTE
    with pytest.raises(NotAPlayer):
        act(game, state, {"do": "end", "player": A})
