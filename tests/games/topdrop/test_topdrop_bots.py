"""Top Drop's bot players (bot/games/topdrop/bots.py): every move they choose is accepted, they never peek at
another hand, they vote to wait, they start only as the host, and hard leaves fewer cards than easy."""

from __future__ import annotations

import random
from collections import defaultdict

from bench.bench_bots_cards import play
from bot.engine.bots import Level
from bot.games import make_game
from tests.games.bot_states import check_every_move_is_accepted, check_no_peeking, policies, seen_for
from tests.games.topdrop.conformance_hooks import perturb_secret

PLAYERS = ["ann", "bob", "cat", "dan"]


def test_every_move_of_every_level_is_accepted_in_thousands_of_states():
    checked = sum(
        check_every_move_is_accepted(
            "topdrop", {"difficulty": difficulty}, PLAYERS[:count], range(seeds), 150
        )
        for difficulty, count, seeds in (
            ("easy", 1, 15),
            ("extreme", 2, 15),
            ("medium", 3, 15),
            ("hard", 4, 15),
        )
    )
    assert checked >= 2000


def test_no_level_changes_its_move_when_another_hand_changes():
    compared = sum(
        check_no_peeking(
            "topdrop",
            perturb_secret,
            {"difficulty": "easy"},
            PLAYERS[:count],
            range(3),
            80,
            own_secret_hidden=False,
        )
        for count in (2, 3, 4)
    )
    assert compared >= 700


def _state(hands, pile, direction="up", **setup):
    game = make_game("topdrop", None)
    players = sorted(hands)
    state = game.new_game(
        {},
        players,
        {"hands": hands, "pile": pile, "direction": direction, "first_player": players[0], **setup},
        random.Random(0),
    )
    return game, state


def test_hard_keeps_the_jump_small_and_saves_the_action_cards():
    game, state = _state({"ann": [21, 22, 40, 55], "bob": [2, 3, 4, 5]}, [20])
    move = policies("topdrop")[Level.HARD].choose(seen_for(game, state, "ann"), random.Random(0))
    assert move is not None
    assert move.action["cards"] == [21, 22] and "action" not in move.action  # two close cards, no action card


def test_hard_turns_the_pile_with_the_sixty_rather_than_an_action_card():
    game, state = _state({"ann": [5, 8, 60], "bob": [50, 52, 53, 54]}, [45])
    move = policies("topdrop")[Level.HARD].choose(seen_for(game, state, "ann"), random.Random(0))
    assert move is not None
    assert move.action["cards"][0] == 60 and "action" not in move.action


def test_easy_plays_the_first_legal_turn():
    game, state = _state({"ann": [21, 30, 40, 55], "bob": [2, 3, 4, 5]}, [20])
    move = policies("topdrop")[Level.EASY].choose(seen_for(game, state, "ann"), random.Random(0))
    assert move is not None
    first = game.legal_actions(state, "ann")[0]
    assert move.action == first


def test_a_bot_that_is_not_on_turn_waits():
    game, state = _state({"ann": [21, 30, 40, 55], "bob": [2, 3, 4, 5]}, [20])
    for bot in policies("topdrop").values():
        move = bot.choose(seen_for(game, state, "bob"), random.Random(0))
        assert move is None or move.action["do"] == "hint"


def test_hard_says_it_needs_an_action_card_once_while_the_player_before_it_plays():
    game, state = _state({"ann": [21, 30, 40, 55], "bob": [2, 3, 4, 5]}, [20])
    hard = policies("topdrop")[Level.HARD]
    move = hard.choose(seen_for(game, state, "bob"), random.Random(0))
    assert move is not None and move.action["do"] == "hint" and move.action["phrase"] == "need_an_action_card"
    state = game.apply(state, move.action).state
    assert hard.choose(seen_for(game, state, "bob"), random.Random(0)) is None  # once a turn


def test_every_level_votes_to_wait_for_an_idle_teammate_once():
    game, state = _state({"ann": [21, 30], "bob": [2, 3], "cat": [7, 9]}, [20])
    state = game.apply(state, {"do": "remind", "turn": state.turn}).state
    state = game.apply(state, {"do": "ask_wait", "turn": state.turn}).state
    for bot in policies("topdrop").values():
        move = bot.choose(seen_for(game, state, "bob"), random.Random(0))
        assert move is not None and move.action["do"] == "vote" and move.action["wait"] is True
    voted = game.apply(state, {"do": "vote", "player": "bob", "wait": True, "vote": state.votes}).state
    for bot in policies("topdrop").values():
        again = bot.choose(seen_for(game, voted, "bob"), random.Random(0))
        assert again is None or again.action["do"] != "vote"


def test_only_a_bot_host_starts_the_game():
    game = make_game("topdrop", None)
    state = game.new_game({}, ["ann", "bob"], {}, random.Random(3))
    for bot in policies("topdrop").values():
        assert bot.choose(seen_for(game, state, "bob"), random.Random(0)) is None  # bob is not the host
        move = bot.choose(seen_for(game, state, "ann"), random.Random(0))
        assert move is not None and move.action["do"] == "start"


def test_hard_teams_leave_fewer_cards_than_easy_teams():
    game = make_game("topdrop", None)
    timings: dict = defaultdict(list)
    left = {}
    for level in (Level.EASY, Level.HARD):
        outcomes = [game.outcome(play(game, {}, [level] * 3, seed, timings)) for seed in range(12)]
        left[level] = sum(next(iter(o.scores.values())) for o in outcomes if o is not None) / len(outcomes)
    assert left[Level.HARD] + 10 <= left[Level.EASY], left
