"""Properties of every Top Drop game: random games (any seat count and difficulty, hints, reminders and wait
votes included) played through `step` as live play plays them, checked at every state."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine.game import step
from bot.games import make_game
from bot.games.topdrop import State
from bot.games.topdrop.cards import COLOUR_OF, DIFFICULTIES, HAND_SIZE, follows

PLAYERS = ["ann", "bob", "cat", "dan"]
STEPS = 300


def random_game(seed: int, count: int, difficulty: str) -> list[State]:
    """Every state of a game in which seated players pick among their legal actions (never leaving) and the
    idle flow's timers sometimes fire."""
    game = make_game("topdrop", None)
    choices = random.Random(seed)
    state: State = game.new_game({"difficulty": difficulty}, PLAYERS[:count], {}, random.Random(seed))
    states = [state]
    for version in range(STEPS):
        if game.outcome(state) is not None:
            break
        moves = [a for p in state.players for a in game.legal_actions(state, p) or [] if a["do"] != "leave"]
        timers = game.timers(state)
        action = dict(timers[0].action) if timers and choices.random() < 0.15 else choices.choice(moves)
        state = step(game, state, seed, version, action)[1].state
        states.append(state)
    return states


games = given(
    seed=st.integers(0, 2**32),
    count=st.integers(1, 4),
    difficulty=st.sampled_from(DIFFICULTIES),
)


@settings(max_examples=60, deadline=None)
@games
def test_the_sixty_cards_are_conserved(seed: int, count: int, difficulty: str) -> None:
    """Pile, hands and draw pile always hold each of the 60 number cards exactly once."""
    for state in random_game(seed, count, difficulty):
        held = [card for cards in state.hands.values() for card in cards]
        assert sorted(state.pile + held + state.deck) == list(range(1, 61))


@settings(max_examples=40, deadline=None)
@games
def test_hands_hold_four_while_the_draw_pile_lasts(seed: int, count: int, difficulty: str) -> None:
    for state in random_game(seed, count, difficulty):
        if state.deck:
            assert all(len(state.hands[p]) == HAND_SIZE for p in state.players), state.hands
        assert all(len(cards) <= HAND_SIZE for cards in state.hands.values())


@settings(max_examples=40, deadline=None)
@games
def test_every_card_placed_followed_the_rules(seed: int, count: int, difficulty: str) -> None:
    """Each placed card followed the direction from the card below, but a Color's first card, which matched
    its colour; the 1 and the 60 set the direction; action and wild cards never go below 0."""
    states = random_game(seed, count, difficulty)
    final = states[-1]
    pile: list[int] = []
    direction = states[0].direction if states[0].phase != "opening" else None
    for before, after in zip(states, states[1:], strict=False):
        if before.phase == "opening" and after.phase == "play":
            direction = after.direction
        if len(after.history) == len(before.history):
            continue
        record: dict[str, Any] = after.history[-1]
        assert direction is not None
        if record["action"] == "flip":
            direction = "down" if direction == "up" else "up"
        for index, card in enumerate(record["cards"]):
            top = pile[-1] if pile else None
            if index == 0 and record["action"] == "color":
                assert top is not None and COLOUR_OF[card] == COLOUR_OF[top]
            else:
                assert follows(card, top, direction), (record, top, direction)
            pile.append(card)
            direction = {1: "up", 60: "down"}.get(card, direction)
        assert direction == record["direction"] == after.direction
        assert min(after.action_cards.values()) >= 0 and after.wild_cards >= 0
    assert pile == final.pile


@settings(max_examples=40, deadline=None)
@games
def test_a_finished_game_gives_every_player_the_teams_result(seed: int, count: int, difficulty: str) -> None:
    game = make_game("topdrop", None)
    final = random_game(seed, count, difficulty)[-1]
    outcome = game.outcome(final)
    if outcome is None:
        return
    assert {outcome.result_of(p) for p in final.players} == {outcome.team_result}
    assert set(outcome.scores.values()) == {60 - len(final.pile)}
