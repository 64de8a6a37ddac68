"""Properties of every Toppo series: random simultaneous play — players acting in a random arrival order,
sharp-eyed ones claiming what their line allows, careless ones claiming anything, timers firing — played
through `step` as live play plays it, checked at every state."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine.errors import GameError
from bot.engine.game import step
from bot.games import make_game
from bot.games.toppo import State
from bot.games.toppo.cards import full_sets

PLAYERS = [f"p{i}" for i in range(8)]
STEPS = 500
SHARP = 0.7  # how often a player claims what their line really allows, when it allows something
RARE = frozenset({"toppo", "propose_replace"})


def everywhere(state: State) -> Counter[str]:
    """Every card on the table: decks, lines, the display, the cards under it and the stack."""
    cards: Counter[str] = Counter()
    for deck in state.decks.values():
        cards.update(deck)
    for line in state.lines.values():
        cards.update(line)
    cards.update(state.display)
    cards.update(state.topped)
    cards.update(state.stack)
    return cards


def random_series(seed: int, count: int, options: dict[str, Any]) -> list[State]:
    """Every state of a series in which, at each step, a random player's action arrives (a sharp claim, or
    any legal action), sometimes with the freshness of an older state (a press made before the last change),
    and sometimes a due timer fires."""
    game = make_game("toppo", None)
    choices = random.Random(seed)
    state: State = game.new_game(options, PLAYERS[:count], {}, random.Random(seed))
    states, older = [state], [game.freshness(state)]
    for version in range(STEPS):
        if game.outcome(state) is not None:
            break
        player = choices.choice([p for p in state.players if p not in state.left])
        sharp = game.sample_action(state, player, random.Random(seed + version))
        if state.phase != "choosing" and game.view_for(state, None)["cards"][player] < 10:
            sharp = {"do": "toppo", "player": player}  # a right toppo, when the player notices
        legal = [a for a in game.legal_actions(state, player) or [] if a["do"] != "leave"]
        if choices.random() < 0.9:  # wild calls and proposals are the exception, not every other action
            legal = [a for a in legal if a["do"] not in RARE] or legal
        timers = game.timers(state)
        if timers and (not legal or choices.random() < 0.1):
            action = dict(choices.choice(timers).action)
        elif sharp is not None and choices.random() < SHARP:
            action = sharp
        elif legal:
            action = dict(choices.choice(legal))
        else:
            continue
        if choices.random() < 0.2:  # pressed on a console drawn a few changes ago
            action = {**action, **choices.choice(older[-4:])}
        try:
            state = step(game, state, seed, version, action)[1].state
        except GameError:
            continue
        states.append(state)
        older.append(game.freshness(state))
    return states


SERIES = settings(max_examples=20, deadline=None)
OPTIONS = st.sampled_from(
    [{}, {"deck": 12, "games": 3}, {"display": 4, "deck": 15}, {"deck": 10, "games": 2}, {"deck": 5}]
)


@SERIES
@given(seed=st.integers(0, 2**32), count=st.integers(2, 8), options=OPTIONS)
def test_cards_are_conserved_150_or_300_through_random_simultaneous_play(
    seed: int, count: int, options: dict[str, Any]
) -> None:
    total = 300 if count >= 5 else 150
    expected = Counter(full_sets(total // 150))
    for state in random_series(seed, count, options):
        assert everywhere(state) == expected
        assert len(state.display) == state.display_size


@SERIES
@given(seed=st.integers(0, 2**32), count=st.integers(2, 8), options=OPTIONS)
def test_lines_never_outgrow_the_display_and_play_waits_only_for_a_seated_player(
    seed: int, count: int, options: dict[str, Any]
) -> None:
    for state in random_series(seed, count, options):
        assert all(len(line) <= state.display_size for line in state.lines.values())
        if state.phase == "waiting":
            assert state.awaited in state.players and state.awaited not in state.left
            assert not any(state.lines.values())  # an interruption cleared every line
        else:
            assert state.awaited is None


@SERIES
@given(seed=st.integers(0, 2**32), count=st.integers(2, 5), options=OPTIONS)
def test_totals_are_the_sum_of_each_games_points_and_the_caller_scores_none(
    seed: int, count: int, options: dict[str, Any]
) -> None:
    final = random_series(seed, count, options)[-1]
    totals = dict.fromkeys(final.players, 0)
    for result in final.results:
        assert result["points"][result["caller"]] == 0
        for player, points in result["points"].items():
            totals[player] += points
        assert result["totals"] == totals
    assert totals == final.totals


@SERIES
@given(seed=st.integers(0, 2**32), count=st.integers(2, 5), options=OPTIONS)
def test_penalty_cards_are_what_the_history_says_was_taken(
    seed: int, count: int, options: dict[str, Any]
) -> None:
    for state in random_series(seed, count, options):
        taken = dict.fromkeys(state.players, 0)
        for record in state.history:
            if record["game"] == state.game_no and "player" in record:
                taken[record["player"]] += record.get("penalty", 0)
        assert taken == state.penalty_cards or state.phase == "choosing"
