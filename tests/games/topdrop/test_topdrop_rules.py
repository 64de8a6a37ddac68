"""Top Drop's rules (docs/rules/topdrop.md), one test per rule, through `step` as live play applies actions."""

from __future__ import annotations

import random
from collections import Counter
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
from bot.games.topdrop import COLOUR_OF, COLOUR_TABLE, HINTS, State, can_play

A, B, C, D = "ann", "bob", "cat", "dan"
SEED = 7


@pytest.fixture
def game() -> Any:
    return make_game("topdrop", None)


def start(game: Any, players: list[str], setup: dict[str, Any] | None = None, **options: Any) -> State:
    """A game under way: the first seat starts unless setup says otherwise."""
    state: State = game.new_game(
        options, players, {"first_player": players[0], **(setup or {})}, random.Random(0)
    )
    return state


def act(game: Any, state: State, action: dict[str, Any], version: int = 0) -> Applied:
    return step(game, state, SEED, version, action)[1]


def play(game: Any, state: State, cards: list[int], **extra: Any) -> State:
    """The player on turn places `cards` (after an action card, if `extra` names one)."""
    return act(game, state, {"do": "turn", "player": state.current, "cards": cards, **extra}).state


def rest(*used: int) -> list[int]:
    """Every card but `used`, in order: a draw pile for a setup."""
    return [card for card in range(1, 61) if card not in used]


def table(hands: dict[str, list[int]], pile: list[int] | None = None, **setup: Any) -> dict[str, Any]:
    """A setup with these hands and pile; the other cards make the draw pile, drawn from the lowest up."""
    pile = pile or []
    held = [card for cards in hands.values() for card in cards]
    deck = setup.pop("deck", rest(*held, *pile))
    return {"hands": hands, "pile": pile, "deck": deck, **setup}


# -- the cards -------------------------------------------------------------------------------------------


def test_sixty_number_cards_twelve_of_each_of_five_colours() -> None:
    assert sorted(COLOUR_OF) == list(range(1, 61))
    assert Counter(COLOUR_OF.values()) == dict.fromkeys(["red", "yellow", "green", "blue", "purple"], 12)


def test_the_colour_table_keeps_the_rulebooks_examples() -> None:
    # "her red 12 Number Card"; "his purple 15 Number Card … matching the color of card 54"
    assert (COLOUR_OF[12], COLOUR_OF[15], COLOUR_OF[54]) == ("red", "purple", "purple")


def test_the_colour_table_is_no_pattern_of_the_number() -> None:
    for colour, cards in COLOUR_TABLE.items():
        assert len({card % 5 for card in cards}) > 1, colour
        assert all(sum(1 for card in cards if ten * 10 < card <= ten * 10 + 10) == 2 for ten in range(6))


def test_each_player_is_dealt_four_cards_and_the_rest_is_the_draw_pile(game: Any) -> None:
    state = game.new_game({}, [A, B, C], {}, random.Random(3))
    assert [len(state.hands[p]) for p in (A, B, C)] == [4, 4, 4]
    assert len(state.deck) == 48 and state.pile == []
    assert sorted(state.deck + [c for h in state.hands.values() for c in h]) == list(range(1, 61))


@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_one_skip_flip_and_color_card_per_player(game: Any, count: int) -> None:
    state = game.new_game({}, [A, B, C, D][:count], {}, random.Random(0))
    assert state.action_cards == {"skip": count, "flip": count, "color": count}


@pytest.mark.parametrize(("difficulty", "wilds"), [("easy", 4), ("medium", 3), ("hard", 2), ("extreme", 1)])
def test_wild_cards_by_difficulty(game: Any, difficulty: str, wilds: int) -> None:
    assert game.new_game({"difficulty": difficulty}, [A, B], {}, random.Random(0)).wild_cards == wilds


def test_the_easiest_level_is_the_default(game: Any) -> None:
    assert game.validate_options({})["difficulty"] == "easy"


# -- options ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "key"),
    [
        ({"colour": 1}, "topdrop.option.unknown"),
        ({"difficulty": "nightmare"}, "topdrop.option.difficulty"),
        ({"difficulty": 2}, "topdrop.option.difficulty"),
        ({"turn_seconds": 5}, "topdrop.option.range"),
        ({"remind_seconds": True}, "topdrop.option.range"),
        ({"vote_seconds": 30.5}, "topdrop.option.range"),
    ],
)
def test_wrong_options_are_refused_with_a_clear_text(game: Any, options: dict[str, Any], key: str) -> None:
    with pytest.raises(BadAction) as refused:
        game.validate_options(options)
    assert refused.value.key == key
    assert refused.value.text("fr") != refused.value.text("en") != refused.value.text("de")


def test_one_to_four_players(game: Any) -> None:
    game.new_game({}, [A], {}, random.Random(0))
    with pytest.raises(BadAction):
        game.new_game({}, [A, B, C, D, "eve"], {}, random.Random(0))


# -- who starts ------------------------------------------------------------------------------------------


def test_the_team_chooses_who_starts_and_the_direction(game: Any) -> None:
    state = game.new_game({}, [A, B, C], {}, random.Random(0))
    assert state.phase == "opening" and state.current is None
    with pytest.raises(WrongPhase):
        act(game, state, {"do": "turn", "player": A, "cards": [state.hands[A][0]]})
    state = act(game, state, {"do": "start", "player": C, "first": B, "direction": "down"}).state
    assert (state.phase, state.current, state.direction, state.turn) == ("play", B, "down", 1)


def test_the_host_starts_by_default(game: Any) -> None:
    state = game.new_game({}, [A, B, C], {}, random.Random(0))
    state = act(game, state, {"do": "start", "player": B}).state
    assert (state.current, state.direction) == (A, "up")
    with pytest.raises(WrongPhase):
        act(game, state, {"do": "start", "player": B})


# -- a turn ---------------------------------------------------------------------------------------------


def test_any_card_opens_an_empty_pile(game: Any) -> None:
    state = start(game, [A, B], table({A: [30, 31, 32, 33], B: [1, 2, 3, 4]}))
    assert play(game, state, [31]).pile == [31]


def test_up_each_card_is_higher_than_the_top(game: Any) -> None:
    state = start(game, [A, B], table({A: [10, 25, 40, 55], B: [1, 2, 3, 4]}, [20]))
    with pytest.raises(IllegalMove) as refused:
        play(game, state, [10])
    assert refused.value.key == "topdrop.refusal.must_go_up"
    assert play(game, state, [25]).pile == [20, 25]


def test_down_each_card_is_lower_than_the_top(game: Any) -> None:
    state = start(game, [A, B], table({A: [10, 25, 40, 55], B: [1, 2, 3, 4]}, [20], direction="down"))
    with pytest.raises(IllegalMove) as refused:
        play(game, state, [25])
    assert refused.value.key == "topdrop.refusal.must_go_down"
    assert play(game, state, [10]).pile == [20, 10]


def test_two_cards_each_follow_the_card_below(game: Any) -> None:
    state = start(game, [A, B], table({A: [10, 25, 40, 55], B: [1, 2, 3, 4]}, [20]))
    with pytest.raises(IllegalMove):
        play(game, state, [40, 25])  # 25 is lower than 40
    assert play(game, state, [25, 40]).pile == [20, 25, 40]


@pytest.mark.parametrize("cards", [[], [25, 40, 55]])
def test_one_or_two_number_cards(game: Any, cards: list[int]) -> None:
    state = start(game, [A, B], table({A: [10, 25, 40, 55], B: [1, 2, 3, 4]}, [20]))
    with pytest.raises(IllegalMove) as refused:
        play(game, state, cards)
    assert refused.value.key == "topdrop.refusal.one_or_two_cards"


def test_only_cards_of_ones_own_hand(game: Any) -> None:
    state = start(game, [A, B], table({A: [10, 25, 40, 55], B: [1, 2, 3, 30]}, [20]))
    for cards in ([30], [25, 25]):
        with pytest.raises(IllegalMove):
            play(game, state, cards)


def test_only_the_player_on_turn_plays(game: Any) -> None:
    state = start(game, [A, B], table({A: [10, 25, 40, 55], B: [21, 22, 23, 24]}, [20]))
    with pytest.raises(NotYourTurn):
        act(game, state, {"do": "turn", "player": B, "cards": [21]})
    with pytest.raises(NotAPlayer):
        act(game, state, {"do": "turn", "player": "eve", "cards": [21]})


def test_skip_places_nothing_and_passes_the_turn(game: Any) -> None:
    state = start(game, [A, B], table({A: [10, 11, 13, 14], B: [21, 22, 23, 24]}, [20]))
    with pytest.raises(IllegalMove) as refused:
        play(game, state, [10], action="skip")
    assert refused.value.key == "topdrop.refusal.skip_places_nothing"
    state = play(game, state, [], action="skip")
    assert (state.current, state.pile, state.hands[A], state.action_cards["skip"]) == (
        B,
        [20],
        [10, 11, 13, 14],
        1,
    )


def test_flip_turns_the_direction_then_the_cards_follow_it(game: Any) -> None:
    state = start(game, [A, B], table({A: [10, 11, 13, 14], B: [21, 22, 23, 24]}, [20]))
    state = play(game, state, [14, 10], action="flip")
    assert (state.direction, state.pile, state.action_cards["flip"]) == ("down", [20, 14, 10], 1)


def test_flip_needs_a_card_after_it(game: Any) -> None:
    state = start(game, [A, B], table({A: [10, 11, 13, 14], B: [21, 22, 23, 24]}, [20]))
    with pytest.raises(IllegalMove):
        play(game, state, [], action="flip")
    with pytest.raises(IllegalMove):  # after the flip the pile goes down: 10 then 14 goes up
        play(game, state, [10, 14], action="flip")


def test_color_places_a_card_of_the_top_colour_against_the_direction(game: Any) -> None:
    # Harry's example: purple 15 on purple 54, while the pile goes UP.
    state = start(game, [A, B], table({A: [15, 8, 9, 10], B: [21, 22, 23, 24]}, [54]))
    state = play(game, state, [15], action="color")
    assert (state.pile[-1], state.direction, state.action_cards["color"]) == (15, "up", 1)


def test_color_a_second_card_follows_the_direction(game: Any) -> None:
    state = start(game, [A, B], table({A: [15, 8, 40, 10], B: [21, 22, 23, 24]}, [54]))
    with pytest.raises(IllegalMove):
        play(game, state, [15, 10], action="color")  # 10 is lower than 15 while the pile goes UP
    assert play(game, state, [15, 40], action="color").pile == [54, 15, 40]


def test_color_refuses_another_colour(game: Any) -> None:
    state = start(game, [A, B], table({A: [12, 8, 9, 10], B: [21, 22, 23, 24]}, [54]))
    with pytest.raises(IllegalMove) as refused:
        play(game, state, [12], action="color")  # red on purple
    assert refused.value.key == "topdrop.refusal.color_must_match"


@pytest.mark.parametrize(("action", "cards"), [("skip", []), ("flip", [12]), ("color", [12])])
@pytest.mark.parametrize("wild", [False, True])
def test_the_games_first_turn_places_a_card_without_an_action_card(
    game: Any, action: str, cards: list[int], wild: bool
) -> None:
    # RULES-NOTES: "The game's first turn places a card on the empty pile (any card goes); no action card or
    # wild may be used on it".
    state = start(game, [A, B], table({A: [12, 8, 9, 10], B: [21, 22, 23, 24]}))
    with pytest.raises(IllegalMove) as refused:
        play(game, state, cards, action=action, wild=wild)
    assert refused.value.key == "topdrop.refusal.first_turn_places_a_card"
    assert state.pile == [] and state.current == A


def test_the_games_first_turn_offers_no_action_card(game: Any) -> None:
    state = start(game, [A, B], table({A: [12, 8, 9, 10], B: [21, 22, 23, 24]}))
    assert all("action" not in move for move in game.legal_actions(state, A) if move["do"] == "turn")
    choices = game.view_for(state, A)["choices"]
    assert (choices["skip"], choices["flip"], choices["color"]) == (False, [], [])
    assert [entry["card"] for entry in choices["cards"]] == [8, 9, 10, 12]
    state = play(game, state, [12])  # once a card lies on the pile, the action cards are usable again
    assert game.view_for(state, B)["choices"]["skip"] is True
    assert play(game, state, [], action="skip").current == A


def test_a_used_action_card_is_gone_for_the_whole_team(game: Any) -> None:
    state = start(game, [A, B], table({A: [10, 11, 13, 14], B: [21, 22, 23, 24]}, [20]), difficulty="extreme")
    state = play(game, state, [], action="skip")
    state = play(game, state, [], action="skip")
    assert state.action_cards["skip"] == 0
    with pytest.raises(IllegalMove) as refused:
        play(game, state, [], action="skip")
    assert refused.value.key == "topdrop.refusal.no_action_card_left"


@pytest.mark.parametrize(
    ("action", "cards", "pile"),
    [("skip", [], [20]), ("flip", [14], [20, 14]), ("color", [12], [20, 12])],
)
def test_a_wild_card_stands_for_any_action(game: Any, action: str, cards: list[int], pile: list[int]) -> None:
    setup = table({A: [12, 11, 13, 14], B: [21, 22, 23, 24]}, [20], action_cards={action: 0})
    state = start(game, [A, B], setup, difficulty="medium")
    state = play(game, state, cards, action=action, wild=True)
    assert (state.pile, state.wild_cards, state.action_cards[action]) == (pile, 2, 0)


def test_a_wild_card_names_its_action_and_runs_out(game: Any) -> None:
    state = start(game, [A, B], table({A: [12, 11, 13, 14], B: [21, 22, 23, 24]}, [20], wild_cards=0))
    with pytest.raises(BadAction):
        play(game, state, [], wild=True)
    with pytest.raises(IllegalMove) as refused:
        play(game, state, [], action="skip", wild=True)
    assert refused.value.key == "topdrop.refusal.no_wild_left"


def test_the_1_sets_up_and_a_second_card_follows_the_new_direction(game: Any) -> None:
    state = start(game, [A, B], table({A: [1, 5, 40, 55], B: [21, 22, 23, 24]}, [20], direction="down"))
    state = play(game, state, [1, 5])
    assert (state.direction, state.pile) == ("up", [20, 1, 5])


def test_the_60_sets_down_and_a_second_card_follows_the_new_direction(game: Any) -> None:
    state = start(game, [A, B], table({A: [60, 5, 40, 55], B: [21, 22, 23, 24]}, [20]))
    with pytest.raises(IllegalMove):
        play(game, state, [60, 55, 40])
    state = play(game, state, [60, 40])
    assert (state.direction, state.pile) == ("down", [20, 60, 40])


# -- refilling, the draw pile, empty hands ---------------------------------------------------------------


def test_the_hand_is_refilled_to_four_and_only_its_owner_hears_which_cards(game: Any) -> None:
    state = start(game, [A, B], {"hands": {A: [10, 25, 40, 55], B: [1, 2, 3, 4]}, "pile": [20]})
    applied = act(game, state, {"do": "turn", "player": A, "cards": [25, 40]})
    hand, drawn = applied.state.hands[A], applied.private[A][0]["cards"]
    assert len(hand) == 4 and set(drawn) <= set(hand) and len(drawn) == 2
    assert set(drawn) <= set(state.deck) and not set(drawn) & set(applied.state.deck)
    assert list(applied.private) == [A]
    public = [value for event in applied.events for value in _values(event)]
    assert not set(drawn) & set(public)  # the table hears how many, never which
    assert [e for e in applied.events if e["type"] == "played"][0]["drew"] == 2


def _values(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [v for item in value.values() for v in _values(item)]
    if isinstance(value, list):
        return [v for item in value for v in _values(item)]
    return [value]


def test_the_refill_is_chance_the_engine_draws_never_the_players(game: Any) -> None:
    state = start(game, [A, B], {"hands": {A: [10, 25, 40, 55], B: [1, 2, 3, 4]}, "pile": [20]})
    sent = live_action(game, {"do": "turn", "player": A, "cards": [25], "drawn": [5]}, 1.0)
    assert "drawn" not in sent
    complete, _ = step(game, state, SEED, 0, sent)
    assert len(complete["drawn"]) == 1 and complete["drawn"][0] in state.deck


def test_a_stacked_draw_pile_is_drawn_from_the_top(game: Any) -> None:
    setup = table(
        {A: [10, 25, 40, 55], B: [1, 2, 3, 4]}, [20], deck=[7, 8, *rest(10, 25, 40, 55, 1, 2, 3, 4, 20, 7, 8)]
    )
    state = play(game, start(game, [A, B], setup), [25, 40])
    assert state.hands[A] == [7, 8, 10, 55]


def test_an_empty_draw_pile_is_played_without_drawing(game: Any) -> None:
    pile = rest(10, 25, 40, 55, 1, 2, 3, 4)
    state = start(game, [A, B], table({A: [10, 25, 40, 55], B: [1, 2, 3, 4]}, [], deck=[]) | {"pile": pile})
    state = play(game, state, [], action="skip")
    state = play(game, state, [1, 2], action="flip")
    assert (state.hands[B], state.deck) == ([3, 4], [])


def test_a_player_with_an_empty_hand_is_skipped(game: Any) -> None:
    pile = [*rest(30, 31, 35, 36, 40, 29), 29]
    setup = {"hands": {A: [30, 31], B: [35, 36], C: [40]}, "pile": pile, "deck": []}
    state = start(game, [A, B, C], setup)
    state = play(game, state, [30])
    state = play(game, state, [35])
    state = play(game, state, [40])  # cat's hand is now empty
    assert state.hands[C] == []
    state = play(game, state, [], action="skip")  # ann
    applied = act(game, state, {"do": "turn", "player": B, "cards": [], "action": "skip"})
    assert applied.state.current == A  # cat is skipped
    assert [e["skipped"] for e in applied.events if e["type"] == "turn"] == [[C]]


# -- the end ----------------------------------------------------------------------------------------------


def test_victory_when_every_card_is_on_the_pile(game: Any) -> None:
    setup = {"hands": {A: [59, 60], B: []}, "pile": list(range(1, 59)), "deck": []}
    state = play(game, start(game, [A, B], setup), [59, 60])
    outcome = game.outcome(state)
    assert (state.result, state.end_reason) == ("victory", Termination.TEAM_WON.value)
    assert outcome.team_result == "won" and outcome.team_rating == 3 and outcome.winners == [A, B]
    assert outcome.scores == {A: 0, B: 0} and outcome.lower_is_better and not outcome.draw


def test_defeat_the_moment_a_player_cannot_play(game: Any) -> None:
    setup = table(
        {A: [50, 51, 52, 53], B: [10, 11, 12, 13]},
        [40],
        action_cards={"skip": 0, "flip": 0, "color": 0},
        wild_cards=0,
    )
    applied = act(game, start(game, [A, B], setup), {"do": "turn", "player": A, "cards": [50]})
    state = applied.state
    assert (state.phase, state.result, state.stuck, state.end_reason) == ("over", "defeat", B, "team_stuck")
    assert {"type": "stuck", "player": B, "turn": 2} in applied.events
    outcome = game.outcome(state)
    assert outcome.team_result == "lost" and outcome.winners == [] and outcome.scores == {A: 58, B: 58}
    with pytest.raises(GameOver):
        act(game, state, {"do": "turn", "player": B, "cards": [10]})


@pytest.mark.parametrize(
    ("hand", "action_cards", "wilds", "playable"),
    [
        ([10, 11, 13, 14], {"skip": 1, "flip": 0, "color": 0}, 0, True),  # a Skip is always usable
        ([10, 11, 13, 14], {"skip": 0, "flip": 0, "color": 0}, 1, True),  # so is a wild card
        ([10, 11, 13, 14], {"skip": 0, "flip": 1, "color": 0}, 0, True),  # a Flip, when a card then follows
        ([10, 11, 13, 14], {"skip": 0, "flip": 0, "color": 1}, 0, False),  # a Color with no blue card
        ([10, 11, 13, 12], {"skip": 0, "flip": 0, "color": 1}, 0, True),  # red 12 on red 20
        ([10, 11, 13, 14], {"skip": 0, "flip": 0, "color": 0}, 0, False),
        ([21, 2, 3, 4], {"skip": 0, "flip": 0, "color": 0}, 0, True),  # a card follows the direction
    ],
)
def test_what_keeps_a_player_able_to_play(
    game: Any, hand: list[int], action_cards: dict[str, int], wilds: int, playable: bool
) -> None:
    setup = table({A: hand, B: [30, 31, 32, 33]}, [20], action_cards=action_cards, wild_cards=wilds)
    state: State = game.new_game({}, [A, B], setup, random.Random(0))
    assert can_play(state, A) is playable


@pytest.mark.parametrize(
    ("cards_left", "deck_count", "verdict", "stars"),
    [(0, 0, "top_tier", 3), (5, 0, "so_close", 2), (40, 32, "keep_trying", 1)],
)
def test_the_rating_by_the_cards_left(cards_left: int, deck_count: int, verdict: str, stars: int) -> None:
    from bot.games.topdrop.cards import RATINGS, rating

    assert rating(cards_left, deck_count) == verdict and RATINGS[verdict] == stars


def test_a_game_ended_by_the_host_is_lost_and_rated(game: Any) -> None:
    state = start(game, [A], table({A: [50, 51, 52, 53]}, list(range(1, 21))))
    outcome = game.outcome(act(game, state, {"do": "end", "by": "host"}).state)
    assert outcome.team_result == "lost" and outcome.team_rating == 1 and outcome.scores == {A: 40}
    assert outcome.termination is Termination.ENDED_BY_HOST


def test_so_close_when_only_cards_in_hands_are_left(game: Any) -> None:
    setup = {
        "hands": {A: [58, 59], B: [1, 3]},
        "pile": [*rest(58, 59, 1, 3, 2), 2],
        "deck": [],
        "action_cards": {"skip": 0, "flip": 0, "color": 0},
        "wild_cards": 0,
    }
    state = play(game, start(game, [A, B], setup), [58, 59])  # bob's 1 and 3 cannot follow 59 going up
    outcome = game.outcome(state)
    assert (state.result, state.stuck) == ("defeat", B)
    assert outcome.team_rating == 2 and outcome.scores == {A: 2, B: 2}
    assert game.view_for(state, None)["rating"] == "so_close"


def test_every_player_gets_the_teams_result(game: Any) -> None:
    setup = table(
        {A: [50, 51, 52, 53], B: [10, 11, 12, 13]},
        [40],
        action_cards={"skip": 0, "flip": 0, "color": 0},
        wild_cards=0,
    )
    state = play(game, start(game, [A, B], setup), [50])
    outcome = game.outcome(state)
    assert outcome.result_of(A) == outcome.result_of(B) == "lost"


# -- hints --------------------------------------------------------------------------------------------------


def test_a_hint_is_an_allowed_phrase_shown_to_the_table(game: Any) -> None:
    state = start(game, [A, B], table({A: [10, 25, 40, 55], B: [1, 2, 3, 4]}, [20]))
    applied = act(game, state, {"do": "hint", "player": B, "phrase": "only_low_cards"})
    assert applied.events == [{"type": "hint", "turn": 1, "player": B, "phrase": "only_low_cards"}]
    assert game.view_for(applied.state, None)["hints"] == [
        {"turn": 1, "player": B, "phrase": "only_low_cards"}
    ]
    with pytest.raises(BadAction):
        act(game, state, {"do": "hint", "player": B, "phrase": "I have the 3"})
    assert "no_big_jumps" in HINTS and "wish_up" in HINTS


def test_at_most_one_hint_per_player_per_turn(game: Any) -> None:
    state = start(game, [A, B], table({A: [10, 25, 40, 55], B: [1, 2, 3, 4]}, [20]))
    state = act(game, state, {"do": "hint", "player": B, "phrase": "only_low_cards"}).state
    with pytest.raises(IllegalMove):
        act(game, state, {"do": "hint", "player": B, "phrase": "wish_down"})
    state = act(game, state, {"do": "hint", "player": A, "phrase": "no_big_jumps"}).state
    state = play(game, state, [25])
    assert act(game, state, {"do": "hint", "player": B, "phrase": "wish_down"}).state.hints[-1]["turn"] == 2


# -- an idle player ---------------------------------------------------------------------------------------


def idle_table(game: Any, players: list[str]) -> State:
    hands = {p: [10 + 4 * i + k for k in range(4)] for i, p in enumerate(players)}
    return start(game, players, table(hands, [5]))


def fire(game: Any, state: State) -> Applied:
    """The one timer armed now fires."""
    [timer] = game.timers(state)
    return act(game, state, dict(timer.action))


def test_an_idle_player_is_reminded_then_the_others_are_asked_whether_to_wait(game: Any) -> None:
    state = idle_table(game, [A, B, C])
    [timer] = game.timers(state)
    assert (timer.key, timer.seconds) == ("turn:1:0", 120)
    applied = fire(game, state)
    assert applied.events == [{"type": "reminded", "player": A, "turn": 1}]
    [timer] = game.timers(applied.state)
    assert timer.key == "ask:1:0"
    applied = fire(game, applied.state)
    assert applied.events == [{"type": "wait_vote", "vote": 1, "of": A, "voters": [B, C]}]
    assert [t.key for t in game.timers(applied.state)] == ["vote:1"]
    assert applied.state.hands[A] == [10, 11, 12, 13] and applied.state.pile == [5]  # nothing played for ann


def test_the_table_says_no_the_game_is_lost_by_abandonment(game: Any) -> None:
    state = fire(game, fire(game, idle_table(game, [A, B, C])).state).state
    state = act(game, state, {"do": "vote", "player": B, "vote": 1, "wait": False}).state
    with pytest.raises(NotAPlayer):
        act(game, state, {"do": "vote", "player": A, "vote": 1, "wait": True})  # not about oneself
    state = act(game, state, {"do": "vote", "player": C, "vote": 1, "wait": False}).state
    outcome = game.outcome(state)
    assert (state.abandoned_by, state.result) == (A, "defeat")
    assert outcome.team_result == "lost" and outcome.termination is Termination.ENDED_BY_VOTE


def test_the_table_says_wait_the_reminder_starts_over(game: Any) -> None:
    state = fire(game, fire(game, idle_table(game, [A, B, C])).state).state
    state = act(game, state, {"do": "vote", "player": B, "vote": 1, "wait": True}).state
    applied = fire(game, state)  # the vote closes with one ballot: wait
    assert applied.events[0]["result"] == "wait" and applied.state.phase == "play"
    assert [t.key for t in game.timers(applied.state)] == ["turn:1:1"]


def test_a_tie_waits(game: Any) -> None:
    state = fire(game, fire(game, idle_table(game, [A, B, C])).state).state
    state = act(game, state, {"do": "vote", "player": B, "vote": 1, "wait": True}).state
    state = act(game, state, {"do": "vote", "player": C, "vote": 1, "wait": False}).state
    assert state.phase == "play" and state.vote_log[-1]["result"] == "wait"


def test_the_idle_player_playing_cancels_the_vote(game: Any) -> None:
    state = fire(game, fire(game, idle_table(game, [A, B])).state).state
    applied = act(game, state, {"do": "turn", "player": A, "cards": [10]})
    assert applied.state.vote is None and applied.state.vote_log[-1]["result"] == "cancelled"
    assert [t.key for t in game.timers(applied.state)] == ["turn:2:0"]
    with pytest.raises(StaleAction):
        act(game, applied.state, {"do": "vote", "player": B, "vote": 0, "wait": False})


def test_a_solo_player_is_only_reminded(game: Any) -> None:
    state = fire(game, idle_table(game, [A])).state
    assert state.idle_stage == "reminded" and game.timers(state) == []


def test_a_timer_of_an_earlier_turn_is_stale(game: Any) -> None:
    state = idle_table(game, [A, B])
    [timer] = game.timers(state)
    state = play(game, state, [10])
    with pytest.raises(StaleAction):
        act(game, state, dict(timer.action))


def test_a_player_cannot_send_the_systems_actions(game: Any) -> None:
    state = idle_table(game, [A, B])
    with pytest.raises(NotAPlayer):
        act(game, state, {"do": "remind", "player": B, "turn": 1})


# -- secrets and freshness --------------------------------------------------------------------------------


def test_each_player_sees_only_their_own_hand(game: Any) -> None:
    state = start(game, [A, B], table({A: [10, 25, 40, 55], B: [1, 2, 3, 4]}, [20]))
    mine, theirs, spectator = game.view_for(state, A), game.view_for(state, B), game.view_for(state, None)
    assert [c["card"] for c in mine["hand"]] == [10, 25, 40, 55]
    assert [c["card"] for c in theirs["hand"]] == [1, 2, 3, 4]
    assert "hand" not in spectator and "deck" not in spectator and spectator["deck_count"] == 51
    assert spectator["hand_counts"] == {A: 4, B: 4}
    public = {
        k: v for k, v in mine.items() if k not in ("you", "hand", "offered_to_you", "hinted", "choices")
    }
    assert public == spectator
    assert "55" not in str(spectator) and "25" not in str(spectator)


def test_the_console_sees_what_each_card_allows(game: Any) -> None:
    state = start(game, [A, B], table({A: [1, 12, 25, 19], B: [2, 3, 4, 5]}, [20]))
    choices = game.view_for(state, A)["choices"]
    assert choices["cards"] == [{"card": 25, "then": []}]
    assert choices["flip"] == [
        {"card": 1, "then": [12, 19, 25]},
        {"card": 12, "then": [1]},
        {"card": 19, "then": [1, 12]},
    ]
    assert choices["color"] == [{"card": 12, "then": [19, 25]}]  # red 12 on red 20, then going up
    assert choices["skip"] is True
    assert game.view_for(state, B)["choices"] is None


def test_a_click_on_an_earlier_turn_is_stale(game: Any) -> None:
    state = start(game, [A, B], table({A: [10, 25, 40, 55], B: [21, 22, 23, 24]}, [20]))
    state = play(game, state, [25])
    with pytest.raises(StaleAction):
        act(game, state, {"do": "turn", "player": B, "turn": 1, "cards": [40]})


# -- leaving ----------------------------------------------------------------------------------------------


def test_leaving_with_cards_in_hand_loses_the_game(game: Any) -> None:
    state = start(game, [A, B, C], table({A: [10, 25, 40, 55], B: [21, 22, 23, 24], C: [1, 2, 3, 4]}, [20]))
    state = act(game, state, {"do": "leave", "player": C}).state
    outcome = game.outcome(state)
    assert outcome.team_result == "lost" and outcome.left == [C] and state.stuck == C


def test_leaving_in_the_opening_returns_the_hand_to_the_draw_pile(game: Any) -> None:
    state = game.new_game({}, [A, B, C], {}, random.Random(0))
    state = act(game, state, {"do": "leave", "player": A}).state
    assert state.hands[A] == [] and len(state.deck) == 52 and state.phase == "opening"
    state = act(game, state, {"do": "start", "player": B}).state
    assert state.current == B  # the host is now the first seat still playing
