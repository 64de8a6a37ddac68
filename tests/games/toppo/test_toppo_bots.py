"""Toppo's bot players (bot/games/toppo/bots.py): every move they choose is accepted, they never peek at a
face-down deck (not even their own), they carry the freshness of the view they decided on, they react at
their level's pace, and a faster level beats a slower one."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from bench.bench_bots_cards import play
from bot.engine.bots import Level
from bot.engine.errors import StaleAction
from bot.engine.game import step
from bot.games import make_game
from bot.games.toppo.cards import COLOURS, SYMBOLS
from tests.games.bot_states import check_every_move_is_accepted, check_no_peeking, policies, seen_for
from tests.games.toppo.conformance_hooks import perturb_secret

PLAYERS = ["ann", "bob", "cat"]
# The reaction times per decision, in seconds.
REACTIONS = {Level.EASY: (2.0, 4.0), Level.MEDIUM: (1.2, 2.5), Level.HARD: (0.6, 1.4)}


def test_every_move_of_every_level_is_accepted_in_thousands_of_states():
    checked = sum(
        check_every_move_is_accepted("toppo", options, PLAYERS[:count], range(seeds), 300)
        for options, count, seeds in (({"deck": 12, "games": 2}, 2, 4), ({"display": 4, "deck": 15}, 3, 3))
    )
    assert checked >= 2000


def test_no_level_changes_its_move_when_a_face_down_deck_changes_its_own_included():
    compared = check_no_peeking(
        "toppo", perturb_secret, {"deck": 12}, PLAYERS[:2], range(3), 150, own_secret_hidden=True
    )
    assert compared >= 500


def _filler(count, start):
    """`count` cards going round the 25 kinds from `start` (one set holds six of each)."""
    return [[COLOURS[k % 25 // 5], SYMBOLS[k % 5]] for k in range(start, start + count)]


def _full_line(line, display):
    """A game of ann and bob where ann has revealed `line` against `display` (play runs once she began)."""
    game = make_game("toppo", None)
    state = game.new_game(
        {},
        ["ann", "bob"],
        {
            "first_player": "ann",
            "display": display,
            "decks": {"ann": line + _filler(15, 0), "bob": _filler(15, 7)},
        },
        random.Random(0),
    )
    for version in range(len(line)):
        state = step(game, state, 0, version, {"do": "reveal", "player": "ann"})[1].state
    return game, state


def test_a_bot_tops_in_an_order_that_tops_and_carries_the_display_it_saw():
    display = [["red", "waves"], ["blue", "h"], ["white", "plus"]]
    line = [["green", "plus"], ["yellow", "waves"], ["blue", "circle"]]  # tops in the order 1, 2, 0
    game, state = _full_line(line, display)
    for level in (Level.MEDIUM, Level.HARD):
        move = policies("toppo")[level].choose(seen_for(game, state, "ann"), random.Random(0))
        assert move is not None
        assert move.action["do"] == "top" and move.action["order"] == [1, 2, 0]
        assert move.action["seen"] == state.display_no and move.action["play"] == state.play_no


def test_a_move_made_on_a_display_that_has_changed_since_is_refused_as_stale():
    display = [["red", "waves"], ["blue", "h"], ["white", "plus"]]
    line = [["green", "plus"], ["yellow", "waves"], ["blue", "circle"]]
    game, state = _full_line(line, display)
    move = policies("toppo")[Level.HARD].choose(seen_for(game, state, "ann"), random.Random(0))
    assert move is not None
    changed = game.apply(state, {"do": "propose_replace", "player": "bob"}).state
    changed = game.apply(changed, {"do": "vote", "player": "ann", "accept": True}).state  # a new display
    assert changed.display_no != state.display_no
    with pytest.raises(StaleAction):
        step(game, changed, 0, 99, move.action)


def test_a_bot_matches_an_identical_card_at_medium_and_hard_but_not_at_easy():
    display = [["red", "waves"], ["blue", "h"], ["white", "plus"]]
    line = [["yellow", "circle"], ["blue", "h"], ["green", "square"]]  # no top; the blue h is identical
    game, state = _full_line(line, display)
    for level in (Level.MEDIUM, Level.HARD):
        move = policies("toppo")[level].choose(seen_for(game, state, "ann"), random.Random(0))
        assert move is not None and move.action == {
            "do": "match",
            "player": "ann",
            "card": 1,
            "slot": 1,
            "seen": state.display_no,
            "play": state.play_no,
        }
    easy = [
        policies("toppo")[Level.EASY].choose(seen_for(game, state, "ann"), random.Random(s))
        for s in range(200)
    ]
    kinds = {move.action["do"] for move in easy if move is not None}
    assert (
        "match" not in kinds and "top" in kinds
    )  # easy looks for tops only, and sometimes claims a wrong one


def test_each_level_reacts_after_its_own_reaction_time():
    game, state = _full_line([], [["red", "waves"], ["blue", "h"], ["white", "plus"]])
    for level, bot in policies("toppo").items():
        low, high = REACTIONS[level]
        delays = [bot.choose(seen_for(game, state, "ann"), random.Random(seed)) for seed in range(50)]
        assert all(move is not None and low <= move.delay <= high for move in delays)
        assert {move.action["do"] for move in delays if move is not None} == {"restart"}


def test_a_bot_never_starts_early_and_calls_toppo_as_soon_as_it_may():
    game = make_game("toppo", None)
    few = _filler(9, 0)
    state = game.new_game(
        {}, ["ann", "bob"], {"first_player": "ann", "decks": {"bob": few}}, random.Random(0)
    )
    for bot in policies("toppo").values():
        move = bot.choose(seen_for(game, state, "bob"), random.Random(0))
        assert move is not None and move.action["do"] == "toppo"  # nine cards: toppo, even while play waits
    state = game.new_game({}, ["ann", "bob"], {"first_player": "ann"}, random.Random(0))
    for bot in policies("toppo").values():
        assert bot.choose(seen_for(game, state, "bob"), random.Random(0)) is None  # ann must begin


def test_a_faster_level_beats_a_slower_one_in_seeded_games():
    game = make_game("toppo", None)
    timings: dict = defaultdict(list)
    for low, high in ((Level.EASY, Level.HARD), (Level.MEDIUM, Level.HARD)):
        wins = 0
        for seed in range(12):
            levels = [low, high] if seed % 2 == 0 else [high, low]
            outcome = game.outcome(play(game, {"games": 1, "deck": 20}, levels, seed, timings))
            assert outcome is not None
            wins += outcome.winners == [f"bot{levels.index(high)}"]
        assert wins >= 9, (low, high, wins)
