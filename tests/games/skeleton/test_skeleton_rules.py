"""Skeleton's rules (docs/rules/skeleton.md), one test per rule, through `step` as live play applies them."""

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
from bot.engine.game import Applied, Termination, step
from bot.games import make_game
from bot.games.skeleton import DECK, State

A, B, C = "ann", "bob", "cy"
SEED = 7


@pytest.fixture
def game() -> Any:
    return make_game("skeleton", None)


def start(game: Any, players: tuple[str, ...] = (A, B), **options: Any) -> State:
    state: State = game.new_game(options, list(players), {"first_player": players[0]}, random.Random(0))
    return state


def act(game: Any, state: State, action: dict[str, Any], version: int = 0) -> tuple[dict[str, Any], Applied]:
    return step(game, state, SEED, version, action)


def turn_of(game: Any, state: State, player: str, card: str | None = None, play: bool = True) -> State:
    """`player` draws (`card` if forced) then plays the card drawn, or passes."""
    draw: dict[str, Any] = {"do": "draw", "player": player}
    if card is not None:
        draw["card"] = card
    complete, applied = act(game, state, draw)
    if not play:
        return act(game, applied.state, {"do": "pass", "player": player})[1].state
    return act(game, applied.state, {"do": "play", "player": player, "card": complete["card"]})[1].state


def test_a_drawn_card_is_told_to_the_drawer_alone(game: Any) -> None:
    complete, applied = act(game, start(game), {"do": "draw", "player": A})
    card = complete["card"]
    assert applied.private == {A: [{"type": "card_drawn", "card": card}]}
    assert card not in repr(applied.events)
    assert game.view_for(applied.state, A)["hand"] == [card]
    assert card not in repr(game.view_for(applied.state, B)) and card not in repr(
        game.view_for(applied.state, None)
    )
    assert game.view_for(applied.state, B)["hand_counts"] == {A: 1, B: 0}


def test_the_card_drawn_comes_from_the_seed_and_a_logged_card_stays(game: Any) -> None:
    state = start(game)
    first = act(game, state, {"do": "draw", "player": A})[0]
    assert act(game, state, {"do": "draw", "player": A})[0] == first  # same seed and version: same card
    drawn = {
        step(game, state, SEED, version, {"do": "draw", "player": A})[0]["card"] for version in range(30)
    }
    assert len(drawn) > 1 and drawn <= set(DECK)
    assert act(game, state, {"do": "draw", "player": A, "card": "5c"})[0]["card"] == "5c"


def test_a_forced_card_must_be_in_the_deck(game: Any) -> None:
    state = turn_of(game, start(game), A, "5c")
    with pytest.raises(BadAction):
        act(game, state, {"do": "draw", "player": B, "card": "5c"})  # on the pile now
    with pytest.raises(BadAction):
        act(game, state, {"do": "draw", "player": B, "card": "9x"})


def test_playing_a_card_scores_its_rank_and_puts_it_on_the_pile(game: Any) -> None:
    state = turn_of(game, start(game), A, "4d")
    assert state.scores == {A: 4, B: 0} and state.pile == ["4d"] and state.hands[A] == []
    assert (state.current, state.turn, state.phase) == (B, 2, "draw")


def test_a_turn_is_draw_then_play_or_pass(game: Any) -> None:
    state = start(game)
    with pytest.raises(WrongPhase):
        act(game, state, {"do": "pass", "player": A})
    drawn = act(game, state, {"do": "draw", "player": A, "card": "2s"})[1].state
    with pytest.raises(WrongPhase):
        act(game, drawn, {"do": "draw", "player": A})
    with pytest.raises(IllegalMove):
        act(game, drawn, {"do": "play", "player": A, "card": "3s"})
    passed = act(game, drawn, {"do": "pass", "player": A})[1].state
    assert passed.hands[A] == ["2s"] and passed.current == B


def test_only_the_player_on_turn_acts_and_only_seated_players(game: Any) -> None:
    state = start(game)
    with pytest.raises(NotYourTurn):
        act(game, state, {"do": "draw", "player": B})
    with pytest.raises(NotAPlayer):
        act(game, state, {"do": "draw", "player": "stranger"})
    with pytest.raises(NotAPlayer):
        act(game, state, {"do": "end", "player": A})  # a system action


def test_a_button_of_an_older_turn_is_stale(game: Any) -> None:
    state = turn_of(game, start(game), A, "1h")
    with pytest.raises(StaleAction):
        act(game, state, {"do": "draw", "player": B, "turn": 1})
    assert act(game, state, {"do": "draw", "player": B, "turn": 2})[1].state.phase == "play"


def test_reaching_the_target_wins_at_once(game: Any) -> None:
    state = start(game, target=8)
    for card_a, card_b in (("5s", "1s"), ("3s", "1h")):
        state = turn_of(game, state, A, card_a)
        if state.phase == "over":
            break
        state = turn_of(game, state, B, card_b)
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winners == [A] and outcome.scores == {A: 8, B: 1}
    with pytest.raises(GameOver):
        act(game, state, {"do": "draw", "player": B})


def test_an_idle_turn_draws_face_down_for_the_player_and_passes(game: Any) -> None:
    state = start(game)
    [timer] = game.timers(state)
    assert timer.key == "turn:1" and timer.seconds == 120
    complete, applied = act(game, state, timer.action)
    card = complete["card"]
    assert applied.private == {A: [{"type": "card_drawn", "card": card}]}  # news for a player who did not act
    assert card not in repr(applied.events)
    assert applied.state.hands[A] == [card] and applied.state.current == B
    assert applied.state.history == [
        {"turn": 1, "player": A, "passed": True, "timed_out": True, "drew": True}
    ]
    [after] = game.timers(applied.state)
    assert after.key == "turn:2"


def test_a_timeout_of_another_turn_changes_nothing(game: Any) -> None:
    state = turn_of(game, start(game), A, "1h")
    with pytest.raises(StaleAction):
        act(game, state, {"do": "timeout", "turn": 1})


def test_when_no_card_is_left_the_best_score_wins_and_ties_share(game: Any) -> None:
    state = start(game, target=60)
    cards = sorted(DECK, key=lambda card: (card[1], card[0]))  # both players get the same ranks
    for index, card in enumerate(cards):
        state = turn_of(game, state, (A, B)[index % 2], card)
    assert state.phase == "over" and state.deck == []
    outcome = game.outcome(state)
    assert outcome is not None and outcome.scores[A] == outcome.scores[B] and outcome.winners == [A, B]


def test_leaving_below_two_ends_the_game_and_who_left_ranks_last(game: Any) -> None:
    state = turn_of(game, start(game, (A, B, C)), A, "5h")
    state = act(game, state, {"do": "leave", "player": B})[1].state  # on turn: the turn moves on
    assert state.current == C and state.phase == "draw"
    state = act(game, state, {"do": "leave", "player": A})[1].state
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winners == [C]
    assert outcome.ranks()[C] == 1 and outcome.left == [B, A]


def test_the_system_end_crowns_the_best_score(game: Any) -> None:
    state = turn_of(game, start(game), A, "2c")
    applied = act(game, state, {"do": "end"})[1]
    assert applied.state.phase == "over" and applied.state.winners == [A]
    outcome = game.outcome(applied.state)
    assert outcome is not None and outcome.termination == Termination.ENDED_BY_HOST


def test_options_have_defaults_and_bounds(game: Any) -> None:
    assert game.validate_options({}) == {"target": 10, "turn_seconds": 120}
    for wrong in ({"target": 2}, {"target": True}, {"turn_seconds": 5.0}, {"colour": "red"}):
        with pytest.raises(BadAction):
            game.validate_options(wrong)


def test_the_table_offers_what_the_phase_allows(game: Any) -> None:
    state = start(game)
    assert game.table_actions(state, A) == {"draw"} and game.table_actions(state, B) == set()
    drawn = act(game, state, {"do": "draw", "player": A})[1].state
    assert game.table_actions(drawn, None) == {"play", "pass"}
    assert [a["do"] for a in game.legal_actions(drawn, A)] == ["play", "pass", "leave"]
    assert game.legal_actions(drawn, "stranger") is None
