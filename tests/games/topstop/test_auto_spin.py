"""An idle spinner does not stall the table: after spin_time the bot spins for whoever is awaited."""

from __future__ import annotations

import random

import pytest

from bot.engine.errors import WrongPhase
from bot.engine.game import step
from bot.games.topstop import make


def new(setup=None, players=("ann", "bob", "cat")):
    game = make(None)
    state = game.new_game(
        {"check_words": False, "spin_time": 45}, list(players), setup or {}, random.Random(1)
    )
    return game, state


def test_rule_idle_spinner_spin_timer_is_set_in_spin_phases():
    game, state = new({"first_player": "bob"})
    (timer,) = game.timers(state)
    assert timer.seconds == 45 and timer.action == {"do": "auto_spin"}


def test_rule_idle_spinner_the_bot_spins_for_the_spinner():
    game, state = new({"first_player": "bob"})
    action, applied = step(game, state, 7, 0, {"do": "auto_spin"})
    assert set(action["letters"]) == {"bob"}
    assert applied.state.phase == "writing" and applied.state.round.letter == action["letters"]["bob"]


def test_rule_idle_spinner_first_spin_fills_in_every_missing_player():
    game, state = new()
    _, applied = step(game, state, 1, 0, {"do": "spin", "player": "ann", "letter": "M"})
    forced = {"do": "auto_spin", "letters": {"bob": "C", "cat": "T"}}
    _, applied = step(game, applied.state, 1, 1, forced)
    assert applied.state.phase == "spin" and applied.state.round.spinner == "bob"


def test_rule_idle_spinner_nothing_to_do_outside_spin_phases():
    game, state = new({"first_player": "ann"})
    _, applied = step(game, state, 1, 0, {"do": "spin", "player": "ann", "letter": "P"})
    assert all(t.action["do"] != "auto_spin" for t in game.timers(applied.state))
    with pytest.raises(WrongPhase):
        game.apply(applied.state, {"do": "auto_spin", "letters": {}})
