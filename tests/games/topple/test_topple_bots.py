"""Topple's bot players (bot/games/topple/bots.py): every move they choose is accepted, and the levels differ.

Topple has no secret (its conformance hooks declare no `perturb_secret`), so there is no peeking to test: the
view is the whole table.
"""

from __future__ import annotations

import random
from collections import defaultdict

from bench.bench_bots_cards import play
from bot.engine.bots import Level, Move
from bot.games import make_game
from bot.games.topple.board import RISK_SCALE
from bot.games.topple.bots import MEDIUM_RISK_LIMIT, PLACE_PACE
from tests.games.bot_states import check_every_move_is_accepted, policies, seen_for

PLAYERS = ["ann", "bob", "cat", "dan"]


def test_every_move_of_every_level_is_accepted_in_thousands_of_states():
    checked = sum(
        check_every_move_is_accepted("topple", options, PLAYERS[:count], range(seeds), 160)
        for options, count, seeds in (
            ({"target": 40}, 2, 6),
            ({"target": 40}, 3, 3),
            ({"target": 40}, 4, 2),
            ({"variant": "young"}, 3, 2),
        )
    )
    assert checked >= 1500


def test_a_bot_rolls_when_it_must_and_waits_otherwise():
    game = make_game("topple", None)
    state = game.new_game({}, ["ann", "bob"], {"first_player": "ann"}, random.Random(1))
    for level, bot in policies("topple").items():
        move = bot.choose(seen_for(game, state, "ann"), random.Random(0))
        assert isinstance(move, Move) and move.action["do"] == "roll", level
        assert bot.choose(seen_for(game, state, "bob"), random.Random(0)) is None


def test_each_level_places_at_its_own_pace():
    game = make_game("topple", None)
    state = game.new_game({}, ["ann", "bob"], {"first_player": "ann"}, random.Random(1))
    state = game.apply(state, {"do": "roll", "player": "ann", "roll": 6}).state
    for level, bot in policies("topple").items():
        low, high = PLACE_PACE[level]
        for seed in range(20):
            move = bot.choose(seen_for(game, state, "ann"), random.Random(seed))
            assert move is not None and move.action["do"] == "place"
            assert low <= move.delay <= high


def test_medium_never_takes_a_risk_above_its_limit_when_a_square_under_it_exists():
    """On a board leaning far, with a six, medium keeps under its risk limit (a tall corner stack scores more)."""
    game = make_game("topple", None)
    board = [[[] for _ in range(5)] for _ in range(5)]
    board[0][4] = ["green", "blue"] * 12  # every piece of bob's on one corner: the board leans far
    state = game.new_game({}, ["ann", "bob"], {"first_player": "ann", "board": board}, random.Random(1))
    state = game.apply(state, {"do": "roll", "player": "ann", "roll": 6}).state
    view = game.view_for(state, "ann")
    assert any(choice["risk"] > MEDIUM_RISK_LIMIT for choice in view["choices"])  # the test means something
    for seed in range(30):
        move = policies("topple")[Level.MEDIUM].choose(seen_for(game, state, "ann"), random.Random(seed))
        assert move is not None
        square = move.action["square"]
        chosen = next(c for c in view["choices"] if c["square"] == square)
        assert chosen["risk"] <= MEDIUM_RISK_LIMIT < RISK_SCALE


def test_hard_beats_easy_and_medium_beats_easy_in_seeded_two_player_games():
    game = make_game("topple", None)
    timings: dict = defaultdict(list)
    for low, high in ((Level.EASY, Level.HARD), (Level.EASY, Level.MEDIUM)):
        wins = 0
        for seed in range(10):
            levels = [low, high] if seed % 2 == 0 else [high, low]
            outcome = game.outcome(play(game, {"target": 30}, levels, seed, timings))
            assert outcome is not None
            wins += outcome.winners == [f"bot{levels.index(high)}"]
        assert wins >= 8, (low, high, wins)
