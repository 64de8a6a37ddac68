"""Toppo's rules (docs/rules/toppo.md), one test per rule, through `step` as live play applies actions."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from bot.engine.errors import BadAction, GameError, IllegalMove, NotYourTurn, StaleAction, WrongPhase
from bot.engine.game import Applied, Termination, live_action, step
from bot.games import make_game
from bot.games.toppo import State
from bot.games.toppo.cards import COLOURS, SYMBOLS, full_sets
from bot.games.toppo.game import CARRIES

A, B, C = "ann", "bob", "cat"
SEED = 7
COLOUR = {"r": "red", "y": "yellow", "w": "white", "g": "green", "b": "blue"}
SYMBOL = {"~": "waves", "o": "circle", "#": "square", "h": "h", "+": "plus"}


def k(short: str) -> list[str]:
    """A card by its short name: colour letter and symbol sign, "r~" = [red, waves]."""
    return [COLOUR[short[0]], SYMBOL[short[1]]]


def ks(shorts: str) -> list[list[str]]:
    return [k(short) for short in shorts.split()]


@pytest.fixture
def game() -> Any:
    return make_game("toppo", None)


def start(
    game: Any, players: list[str] | None = None, setup: dict[str, Any] | None = None, **options: Any
) -> State:
    players = players or [A, B]
    state: State = game.new_game(
        options, players, {"first_player": players[0], **(setup or {})}, random.Random(0)
    )
    return state


def act(game: Any, state: State, action: dict[str, Any], version: int = 0) -> Applied:
    return step(game, state, SEED, version, action)[1]


def play(game: Any, state: State, *actions: dict[str, Any]) -> State:
    for version, action in enumerate(actions):
        state = act(game, state, action, version).state
    return state


def reveal(player: str, times: int = 1) -> list[dict[str, Any]]:
    return [{"do": "reveal", "player": player}] * times


def total_cards(state: State) -> int:
    return (
        sum(map(len, state.decks.values()))
        + sum(map(len, state.lines.values()))
        + len(state.display)
        + len(state.topped)
        + len(state.stack)
    )


DISPLAY = "r~ yo g#"  # red waves, yellow circle, green square
# ann's first three cards top the display in the order revealed (red plus on red waves, white circle on yellow
# circle, blue square on green square); bob's deck has nothing to do with it.
ANN_TOPS = "r+ wo b# bh bh bh b+ b+ b+ w~ w~ w~"
BOB = "w+ wh w+ wh w+ wh y+ yh y+ yh y+ yh"


BOB_IDS = ["/".join(k(short)) for short in BOB.split()]


def forced(game: Any, ann: str = ANN_TOPS, bob: str = BOB, display: str = DISPLAY, **options: Any) -> State:
    return start(game, setup={"decks": {A: ks(ann), B: ks(bob)}, "display": ks(display)}, **options)


# -- cards and the deal ------------------------------------------------------------------------------------


def test_a_set_has_150_cards_of_five_colours_and_five_symbols_six_times() -> None:
    cards = Counter(full_sets(1))
    assert len(full_sets(1)) == 150
    assert set(cards) == {f"{c}/{s}" for c in COLOURS for s in SYMBOLS} and set(cards.values()) == {6}
    assert COLOURS == ("red", "yellow", "white", "green", "blue")
    assert SYMBOLS == ("waves", "circle", "square", "h", "plus")


def test_two_to_four_players_play_one_set_five_to_eight_two(game: Any) -> None:
    for count, sets in [(2, 1), (4, 1), (5, 2), (8, 2)]:
        state = start(game, [f"p{i}" for i in range(count)])
        assert state.sets == sets and total_cards(state) == 150 * sets
    with pytest.raises(BadAction):
        start(game, [f"p{i}" for i in range(9)])


def test_each_deck_has_33_cards_the_display_3_and_the_rest_is_the_stack(game: Any) -> None:
    state = start(game, [A, B, C])
    assert [len(state.decks[p]) for p in (A, B, C)] == [33, 33, 33]
    assert len(state.display) == 3 and len(state.stack) == 150 - 99 - 3 and state.topped == []
    assert state.phase == "waiting" and state.awaited == A


def test_a_display_of_four_or_five_makes_lines_that_long(game: Any) -> None:
    for size in (4, 5):
        state = start(game, [A, B, C], display=size)
        assert len(state.display) == size
        state = play(game, state, *reveal(A, size))
        assert len(state.lines[A]) == size
        with pytest.raises(WrongPhase):
            act(game, state, {"do": "reveal", "player": A})


def test_two_players_use_a_display_of_three_or_four_never_five(game: Any) -> None:
    assert len(start(game, [A, B], display=4).display) == 4
    with pytest.raises(BadAction) as refused:
        start(game, [A, B], display=5)
    assert refused.value.key == "toppo.setup.display"
    with pytest.raises(BadAction):
        start(game, [A, B], setup={"display": ks("r~ yo g# b+ wh")})


def test_options_are_refused_clearly(game: Any) -> None:
    assert game.validate_options({}) == {
        "display": 3,
        "games": 3,
        "deck": 33,
        "restart_seconds": 20,
        "choose_seconds": 60,
        "vote_seconds": 30,
    }
    for bad, key in [
        ({"display": 6}, "toppo.option.display"),
        ({"display": True}, "toppo.option.display"),
        ({"deck": 34}, "toppo.option.range"),
        ({"games": 0}, "toppo.option.range"),
        ({"colour": 1}, "toppo.option.unknown"),
    ]:
        with pytest.raises(BadAction) as refused:
            game.validate_options(bad)
        assert refused.value.key == key


# -- beginning, revealing, early starts ----------------------------------------------------------------------


def test_the_start_player_begins_with_the_first_reveal(game: Any) -> None:
    state = forced(game)
    applied = act(game, state, {"do": "reveal", "player": A})
    assert applied.state.phase == "playing" and applied.state.awaited is None
    assert applied.state.lines[A] == ["red/plus"]
    assert applied.events[0]["type"] == "restarted"


def test_cards_are_revealed_one_at_a_time_from_the_top_of_the_deck(game: Any) -> None:
    state = play(game, forced(game), *reveal(A, 2), *reveal(B))
    assert state.lines == {A: ["red/plus", "white/circle"], B: ["white/plus"]}
    assert len(state.decks[A]) == 10 and len(state.decks[B]) == 11


def test_a_reveal_before_the_start_player_begins_costs_one_card_and_the_start_player_still_begins(
    game: Any,
) -> None:
    state = forced(game)
    stack_before = list(state.stack)
    applied = act(game, state, {"do": "reveal", "player": B})
    new = applied.state
    # the revealed card and one penalty card from the stack go under bob's deck
    assert new.decks[B] == [*BOB_IDS[1:], "white/plus", stack_before[0]]
    assert new.penalty_cards[B] == 1 and new.lines[B] == []
    assert new.phase == "waiting" and new.awaited == A
    assert new.history[-1] == {"game": 1, "player": B, "claim": "early_start", "awaited": A, "penalty": 1}
    assert [event["type"] for event in applied.events] == ["penalised"]


# RULES-NOTES, Toppo: "An early start is a false start": the right to begin stays with the start player, the
# topper or the penalised player, whose first reveal is never charged as an early start.
AWAITED_AFTER = {
    "the start player": [],
    "the topper": [*reveal(A, 3), {"do": "top", "player": A, "order": [0, 1, 2]}],
    "the penalised player": [*reveal(A, 3), {"do": "top", "player": A, "order": [2, 1, 0]}],
}


@pytest.mark.parametrize("before", AWAITED_AFTER, ids=list(AWAITED_AFTER))
@pytest.mark.parametrize("begin", ["restart", "reveal"])
def test_an_early_start_is_a_false_start_and_never_passes_the_start(
    game: Any, before: str, begin: str
) -> None:
    state = play(game, forced(game), *AWAITED_AFTER[before])
    assert state.phase == "waiting" and state.awaited == A
    charged = state.penalty_cards[A]
    state = play(game, state, *reveal(B, 2))  # two false starts: each costs a card, neither takes the start
    assert state.awaited == A and state.penalty_cards[B] == 2
    assert game.legal_actions(state, B)[0] == {"do": "reveal", "player": B, "play": state.play_no}
    with pytest.raises(NotYourTurn):
        act(game, state, {"do": "restart", "player": B})
    new = act(game, state, {"do": begin, "player": A}).state
    assert new.phase == "playing" and new.awaited is None
    assert new.penalty_cards[A] == charged and len(new.lines[A]) == 1
    assert new.history[-1]["claim"] == "early_start"  # ann's first reveal is no early start


def test_a_false_start_leaves_the_stretch_of_play_and_the_restart_timer_as_they_were(game: Any) -> None:
    state = play(game, forced(game), *reveal(A, 3), {"do": "top", "player": A, "order": [0, 1, 2]})
    fresh, timers = game.freshness(state), game.timers(state)
    new = act(game, state, {"do": "reveal", "player": B, "play": fresh["play"]}).state
    assert game.freshness(new) == fresh and game.timers(new) == timers
    # ann's Begin, made before bob's false start, is still fresh
    assert act(game, new, {"do": "restart", "player": A, "play": fresh["play"]}).state.phase == "playing"


def test_only_the_awaited_player_may_restart(game: Any) -> None:
    state = forced(game)
    with pytest.raises(NotYourTurn):
        act(game, state, {"do": "restart", "player": B})
    state = act(game, state, {"do": "restart", "player": A}).state
    assert state.phase == "playing" and state.lines[A] == ["red/plus"]
    with pytest.raises(WrongPhase):
        act(game, state, {"do": "restart", "player": A})


def test_an_empty_deck_reveals_nothing(game: Any) -> None:
    state = play(game, forced(game, bob="w+"), *reveal(A), *reveal(B))
    with pytest.raises(IllegalMove):
        act(game, state, {"do": "reveal", "player": B})


# -- top -------------------------------------------------------------------------------------------------------


def test_a_right_top_covers_the_display_and_interrupts_every_other_line(game: Any) -> None:
    state = play(game, forced(game), *reveal(A, 3), *reveal(B, 2))
    applied = act(game, state, {"do": "top", "player": A, "order": [0, 1, 2]})
    new = applied.state
    assert new.display == ["red/plus", "white/circle", "blue/square"]
    assert sorted(new.topped) == sorted(["red/waves", "yellow/circle", "green/square"])
    assert new.lines == {A: [], B: []} and new.decks[B][-2:] == ["white/plus", "white/h"]
    assert new.phase == "waiting" and new.awaited == A and new.last_top == A
    assert new.display_no == 1 and new.play_no == 1
    assert [e["type"] for e in applied.events] == ["topped", "interrupted"]


def test_a_top_is_judged_position_by_position_in_the_order_chosen(game: Any) -> None:
    state = play(game, forced(game), *reveal(A, 3))
    # the same three cards: in the order revealed each tops its position; moved round, blue square lands on
    # red waves (neither colour nor symbol)
    wrong = act(game, state, {"do": "top", "player": A, "order": [2, 0, 1]}).state
    assert wrong.history[-1]["right"] is False and wrong.penalty_cards[A] == 5
    right = act(game, state, {"do": "top", "player": A, "order": [0, 1, 2]}).state
    assert right.history[-1]["right"] is True and right.penalty_cards[A] == 0


def test_a_wrong_top_costs_the_line_and_five_penalty_cards_and_the_topper_begins(game: Any) -> None:
    state = play(game, forced(game), *reveal(A, 3), *reveal(B))
    stack = list(state.stack)
    new = act(game, state, {"do": "top", "player": A, "order": [2, 1, 0]}).state
    assert new.decks[A][-8:] == ["red/plus", "white/circle", "blue/square", *stack[:5]]
    assert new.stack == stack[5:] and new.display == state.display
    assert new.lines[B] == [] and new.awaited == A and new.phase == "waiting"


def test_a_claim_on_a_line_not_full_is_refused_without_penalty(game: Any) -> None:
    state = play(game, forced(game), *reveal(A, 2))
    for claim in ({"do": "top", "order": [0, 1, 2]}, {"do": "match", "card": 0, "slot": 0}, {"do": "renew"}):
        with pytest.raises(WrongPhase):
            act(game, state, {**claim, "player": A})


# -- match and renew ------------------------------------------------------------------------------------------


def test_a_right_match_covers_the_identical_card_and_the_rest_goes_under_the_deck(game: Any) -> None:
    state = play(game, forced(game, ann="wh yo b+ r+"), *reveal(A, 3))
    new = act(game, state, {"do": "match", "player": A, "card": 1, "slot": 1}).state
    assert new.display == ["red/waves", "yellow/circle", "green/square"]
    assert new.topped == ["yellow/circle"] and new.display_no == 1
    assert new.lines[A] == [] and new.decks[A] == ["red/plus", "white/h", "blue/plus"]
    assert new.phase == "playing"  # a match interrupts nobody
    assert act(game, new, {"do": "reveal", "player": A}).state.lines[A] == ["red/plus"]


def test_a_colour_alone_is_no_match(game: Any) -> None:
    state = play(game, forced(game, ann="r+ wh bh"), *reveal(A, 3))
    new = act(game, state, {"do": "match", "player": A, "card": 0, "slot": 0}).state
    assert new.history[-1]["right"] is False and new.penalty_cards[A] == 5


def test_a_wrong_match_takes_the_card_back_costs_five_and_interrupts(game: Any) -> None:
    state = play(game, forced(game, ann="r+ wh bh"), *reveal(A, 3), *reveal(B))
    new = act(game, state, {"do": "match", "player": A, "card": 1, "slot": 2}).state
    assert new.display == state.display and new.display_no == 0
    assert new.decks[A][:3] == ["red/plus", "white/h", "blue/h"] and len(new.decks[A]) == 8
    assert new.lines[B] == [] and new.awaited == A


def test_more_identical_cards_are_matched_one_by_one(game: Any) -> None:
    state = play(game, forced(game, ann="r~ wh g# bh"), *reveal(A, 3))
    state = act(game, state, {"do": "match", "player": A, "card": 0, "slot": 0}).state
    assert state.lines[A] == ["white/h", "green/square"] and state.matched == [A]
    with pytest.raises(WrongPhase):
        act(game, state, {"do": "renew", "player": A})
    state = act(game, state, {"do": "match", "player": A, "card": 1, "slot": 2}).state
    assert state.lines[A] == [] and state.decks[A] == ["blue/h", "white/h"] and state.matched == []


def test_a_new_line_after_a_match_puts_what_is_left_under_the_deck(game: Any) -> None:
    state = play(game, forced(game, ann="r~ wh g# bh"), *reveal(A, 3))
    state = act(game, state, {"do": "match", "player": A, "card": 0, "slot": 0}).state
    state = act(game, state, {"do": "reveal", "player": A}).state
    assert state.lines[A] == ["blue/h"] and state.decks[A] == ["white/h", "green/square"]


def test_renew_puts_a_full_line_under_the_deck_and_reveals_nothing(game: Any) -> None:
    state = play(game, forced(game), *reveal(B, 0), *reveal(A, 3))
    new = act(game, state, {"do": "renew", "player": A}).state
    assert new.lines[A] == [] and new.decks[A][-3:] == ["red/plus", "white/circle", "blue/square"]
    assert new.phase == "playing" and new.penalty_cards[A] == 0


# -- toppo and the series -------------------------------------------------------------------------------------


def test_toppo_under_ten_cards_ends_the_game_and_the_others_score_a_point_per_card(game: Any) -> None:
    state = play(game, forced(game, ann="r+ wo b# bh bh bh bh bh bh", games=2), *reveal(A), *reveal(B, 2))
    applied = act(game, state, {"do": "toppo", "player": A})
    new = applied.state
    assert new.results == [
        {
            "game": 1,
            "display": 3,
            "start_player": A,
            "caller": A,
            "points": {A: 0, B: 12},
            "totals": {A: 0, B: 12},
        }
    ]
    assert new.phase == "choosing" and new.chooser == B


def test_a_wrong_toppo_with_ten_cards_costs_five_and_interrupts(game: Any) -> None:
    state = play(game, forced(game, ann="r+ wo b# bh bh bh b+ b+ b+ b+"), *reveal(A))
    new = act(game, state, {"do": "toppo", "player": A}).state
    assert new.history[-1]["claim"] == "toppo" and new.history[-1]["cards"] == 10
    assert len(new.decks[A]) == 15 and new.awaited == A and new.phase == "waiting"


def test_the_highest_total_chooses_three_four_or_five_and_every_card_is_dealt_again(game: Any) -> None:
    state = start(game, [A, B, C], setup={"decks": {B: ks("bh bh bh bh b+ b+ b+ b+")}}, games=2)
    state = play(game, state, {"do": "toppo", "player": B})
    assert state.chooser in (A, C) and state.totals[B] == 0
    chooser = state.chooser
    with pytest.raises(NotYourTurn):
        act(game, state, {"do": "choose", "player": B, "display": 5})
    complete, applied = step(game, state, SEED, 1, {"do": "choose", "player": chooser, "display": 5})
    new = applied.state
    assert set(complete["deal"]) == {"decks", "display", "stack", "topped"}
    assert new.game_no == 2 and new.display_size == 5 and len(new.display) == 5
    assert all(len(new.decks[p]) == 33 for p in (A, B, C)) and total_cards(new) == 150
    assert new.awaited == chooser == new.start_player and new.totals == state.totals


def test_a_players_deal_is_dropped_and_drawn_by_the_engine(game: Any) -> None:
    state = play(game, start(game, [A, B], setup={"decks": {B: ks("bh")}}), {"do": "toppo", "player": B})
    sent = live_action(
        game, {"do": "choose", "player": A, "display": 3, "deal": {"display": ks("r~ r~ r~")}}, 1.0
    )
    assert "deal" not in sent
    complete, _ = step(game, state, SEED, 1, sent)
    assert sum(map(len, complete["deal"]["decks"].values())) == 66


def test_the_series_ends_after_its_games_and_the_lowest_total_wins(game: Any) -> None:
    state = start(game, [A, B], setup={"decks": {B: ks("bh bh")}}, games=1)
    new = act(game, state, {"do": "toppo", "player": B}).state
    outcome = game.outcome(new)
    assert outcome.lower_is_better and outcome.winners == [B] and outcome.scores == {A: 33, B: 0}
    assert outcome.termination == Termination.WENT_OUT and new.phase == "over"


def test_two_players_choose_only_three_or_four(game: Any) -> None:
    state = play(game, start(game, [A, B], setup={"decks": {B: ks("bh")}}), {"do": "toppo", "player": B})
    assert {a["display"] for a in game.legal_actions(state, A) if a["do"] == "choose"} == {3, 4}
    with pytest.raises(BadAction):
        act(game, state, {"do": "choose", "player": A, "display": 5})


# -- real time: arrival order and stale actions ------------------------------------------------------------------


def test_a_claim_made_against_an_older_display_is_stale_without_penalty(game: Any) -> None:
    state = play(game, forced(game, bob="r~ w+ wh"), *reveal(A, 3), *reveal(B, 3))
    seen = state.display_no
    state = act(game, state, {"do": "match", "player": B, "card": 0, "slot": 0, "seen": seen}).state
    with pytest.raises(StaleAction):
        act(game, state, {"do": "top", "player": A, "order": [0, 1, 2], "seen": seen})
    assert state.penalty_cards == {A: 0, B: 0}


def test_the_first_claim_to_arrive_wins(game: Any) -> None:
    state = play(game, forced(game, bob="b~ ro y#"), *reveal(A, 3), *reveal(B, 3))
    state = act(game, state, {"do": "top", "player": B, "order": [0, 1, 2]}).state
    assert state.last_top == B
    with pytest.raises(WrongPhase):  # ann's line went under her deck with the interruption
        act(game, state, {"do": "top", "player": A, "order": [0, 1, 2]})


def test_a_reveal_made_before_an_interruption_is_stale_not_an_early_start(game: Any) -> None:
    state = play(game, forced(game), *reveal(A, 3))
    play_no = state.play_no
    state = act(game, state, {"do": "top", "player": A, "order": [0, 1, 2]}).state
    with pytest.raises(StaleAction):
        act(game, state, {"do": "reveal", "player": B, "play": play_no})
    early = act(game, state, {"do": "reveal", "player": B, "play": state.play_no}).state
    assert early.penalty_cards[B] == 1


def test_freshness_counts_up_across_the_series(game: Any) -> None:
    state = forced(game, ann="r+ wo b# bh bh bh bh bh bh", games=2)
    assert game.freshness(state) == {"seen": 0, "play": 0}
    state = play(game, state, *reveal(A, 3), {"do": "top", "player": A, "order": [0, 1, 2]})
    assert game.freshness(state) == {"seen": 1, "play": 1}
    state = play(game, state, {"do": "toppo", "player": A}, {"do": "choose", "player": B, "display": 3})
    assert game.freshness(state) == {"seen": 2, "play": 3}


# -- a stuck display, the stack -----------------------------------------------------------------------------------


def test_the_players_may_agree_to_replace_a_stuck_display(game: Any) -> None:
    state = play(game, start(game, [A, B, C]), *reveal(A))
    stack = list(state.stack)
    state = act(game, state, {"do": "propose_replace", "player": B}).state
    assert state.vote is not None and game.freshness(state)["vote"] == 1
    applied = act(game, state, {"do": "vote", "player": C, "accept": True})
    new = applied.state
    assert new.vote is None and new.display == stack[:3] and new.display_no == 1
    assert sorted(new.topped) == sorted(state.display)
    assert new.lines[A] != [] and new.phase == "playing"  # play goes on


def test_a_refused_replacement_keeps_the_display(game: Any) -> None:
    state = play(game, start(game, [A, B, C]), {"do": "propose_replace", "player": B})
    state = act(game, state, {"do": "vote", "player": A, "accept": False}).state
    assert state.vote is not None  # one yes, one no, one missing: undecided
    closed = act(game, state, {"do": "close_vote", "vote": 1}).state
    assert closed.vote is None and closed.display_no == 0


def test_a_vote_is_void_once_the_display_changes(game: Any) -> None:
    state = play(game, forced(game, ann="wh yo b+"), *reveal(A, 3), {"do": "propose_replace", "player": B})
    state = act(game, state, {"do": "match", "player": A, "card": 1, "slot": 1}).state
    assert state.vote is None and "vote" not in game.freshness(state)


def test_an_empty_stack_is_refilled_with_the_topped_cards_shuffled(game: Any) -> None:
    state = start(
        game,
        setup={
            "decks": {A: ks("r+ wo b# bh bh bh b+ b+ b+ b+"), B: ks("w+")},
            "display": ks(DISPLAY),
            "stack": ks("bo bo"),
        },
    )
    assert len(state.topped) == 150 - 11 - 3 - 2
    topped = list(state.topped)
    complete, applied = step(game, state, SEED, 0, {"do": "reveal", "player": B})  # early start: 1 card
    assert "refill" not in complete
    state = applied.state
    complete, applied = step(
        game, state, SEED, 1, {"do": "toppo", "player": A}
    )  # wrong: 5 cards, 1 in the stack
    assert "refill" in complete
    new = applied.state
    assert new.topped == [] and len(new.stack) == len(topped) - 4
    assert total_cards(new) == 150 and new.penalty_cards[A] == 5


def test_a_timer_begins_for_an_awaited_player_who_does_not(game: Any) -> None:
    state = forced(game)
    [timer] = game.timers(state)
    assert timer.key == "restart:0" and timer.seconds == 20
    new = act(game, state, dict(timer.action)).state
    assert new.phase == "playing" and new.lines[A] == ["red/plus"]


def test_a_timer_keeps_the_display_size_when_the_start_player_does_not_choose(game: Any) -> None:
    state = play(
        game, start(game, [A, B], setup={"decks": {B: ks("bh")}}, display=4), {"do": "toppo", "player": B}
    )
    [timer] = game.timers(state)
    assert timer.key == "choose:1"
    new = act(game, state, dict(timer.action)).state
    assert new.game_no == 2 and new.display_size == 4 and new.awaited == A


# -- secrets, leaving -----------------------------------------------------------------------------------------------


def test_decks_and_the_stack_are_face_down_for_everyone(game: Any) -> None:
    state = play(game, forced(game), *reveal(A, 2))
    for viewer in (A, B, None):
        view = game.view_for(state, viewer)
        assert view["decks"] == {A: 10, B: 12} and "stack" not in view
        assert view["lines"][A] == ks("r+ wo")
        assert ks("bh")[0] not in [card for line in view["lines"].values() for card in line]


def test_leaving_below_two_players_ends_the_series(game: Any) -> None:
    state = forced(game)
    new = act(game, state, {"do": "leave", "player": B}).state
    outcome = game.outcome(new)
    assert outcome.termination == Termination.LAST_PLAYER_STANDING and outcome.winners == [A]
    assert total_cards(new) == 150


def test_when_the_awaited_player_leaves_everyone_plays(game: Any) -> None:
    state = start(game, [A, B, C])
    new = act(game, state, {"do": "leave", "player": A}).state
    assert new.phase == "playing" and new.awaited is None
    assert act(game, new, {"do": "reveal", "player": B}).state.penalty_cards[B] == 0


def test_legal_actions_carry_the_freshness_their_buttons_carry(game: Any) -> None:
    """What a console's button sends, the rules offer: a bot sends a legal action as it is (never adding keys).
    Along a seeded random game, every player's action but leaving carries its button's freshness values."""
    rng = random.Random(3)
    state = game.new_game(game.validate_options({}), [A, B, C], {}, rng)
    kinds: set[str] = set()
    for version in range(200):
        fresh = game.freshness(state)
        offered = [a for p in (A, B, C) for a in game.legal_actions(state, p) or [] if a["do"] != "leave"]
        if not offered:
            break
        for action in offered:
            wanted = {key: fresh[key] for key in CARRIES[action["do"]] if key in fresh}
            assert {key: action.get(key) for key in wanted} == wanted, action
        kinds |= {a["do"] for a in offered}
        try:
            _, applied = step(game, state, 7, version, dict(rng.choice(offered)))
        except GameError:
            continue  # a wrong claim the rules refuse (offered, as a person may press it)
        state = applied.state
    assert {"reveal", "top", "match", "renew"} <= kinds
