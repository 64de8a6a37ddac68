"""Chance comes only from the engine: every chance outcome a game declares (`chance_keys`) is dropped from
what a player (or a cog) sends to `SessionManager.act`, and drawn from the session's seeded RNG instead.
Scenarios and replays, which call `step` directly, may still force them."""

from __future__ import annotations

import contextlib
import random
from typing import Any

import pytest

from bot.engine.errors import GameError
from bot.engine.game import Game, chance_rng, step
from bot.engine.sessions import SessionManager
from bot.games import GAME_PACKAGES, make_game
from bot.replay import run_scenario
from bot.store import Store
from tests.engine.race_game import RaceGame

# Options that need no words service: chance does not depend on the dictionary.
OPTIONS: dict[str, dict[str, Any]] = {
    "topstop": {"check_words": False},
    "topwords": {"check_words": False},
    "skeleton": {},
    "topple": {},
    "topdrop": {},
    "toppo": {},
    "race": {"target": 50},
}
SUBJECTS = [*GAME_PACKAGES, "race"]


def rules(name: str) -> Game:
    if name == "race":
        game: Game = RaceGame()  # type: ignore[assignment]
        return game
    return make_game(name, None)


@pytest.fixture
async def store(database):
    store = await Store.open(database)
    yield store
    await store.close()


async def started(
    manager: SessionManager, name: str, channel: int, setup: dict[str, Any] | None = None
) -> int:
    lobby = await manager.open_lobby(1, channel, name, "ann", OPTIONS[name])
    for player in ("bob", "cat"):
        await manager.join(lobby.id, player)
    await manager.start_game(lobby.id, "ann", setup or {"first_player": "ann"})
    return lobby.id


@pytest.mark.parametrize("name", SUBJECTS)
async def test_every_declared_chance_key_sent_through_act_is_dropped_before_the_rules_see_it(store, name):
    game = rules(name)
    assert game.chance_keys, f"{name} declares no chance outcome"
    seen: list[dict[str, Any]] = []
    real = game.resolve_chance

    def spy(state: Any, action: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        seen.append(dict(action))
        resolved: dict[str, Any] = real(state, action, rng)
        return resolved

    game.resolve_chance = spy  # type: ignore[method-assign]
    manager = SessionManager(store, {name: game})
    try:
        for channel, (do, keys) in enumerate(sorted(game.chance_keys.items())):
            sid = await started(manager, name, channel)  # a fresh table for each action
            seen.clear()
            chosen = {key: "Q" for key in keys}
            for player in ("ann", None):  # a player's action, and a cog's system action
                with contextlib.suppress(GameError):  # refused or not: what reached the rules matters
                    await manager.act(sid, player, {"do": do, **chosen})
            assert len(seen) == 2, f"{do}: the rules were not asked to resolve chance"
            assert all(keys.isdisjoint(action) for action in seen), (do, seen)
    finally:
        await manager.close()


async def test_a_players_letter_does_not_spin_top_stop_the_seeded_rng_does(store):
    game = make_game("topstop", None)
    manager = SessionManager(store, {"topstop": game})
    try:
        letters = []
        for channel in range(6):
            sid = await started(manager, "topstop", channel)
            record, state = await manager.session(sid), await manager.state(sid)
            drawn = game.resolve_chance(state, {"do": "spin", "player": "ann"}, chance_rng(record.seed, 0))
            await manager.act(sid, "ann", {"do": "spin", "letter": "Q"})
            [logged] = await store.actions.for_session(sid)
            assert logged.action["letter"] == drawn["letter"]
            assert (await manager.view(sid, None))["round"]["letter"] == drawn["letter"]
            letters.append(drawn["letter"])
        assert set(letters) != {"Q"}  # 26 letters: six spins on Q would mean the player chose
    finally:
        await manager.close()


async def test_a_players_place_in_the_bag_is_ignored_the_seeded_rng_chooses_it(store):
    game = make_game("topwords", None)
    manager = SessionManager(store, {"topwords": game})
    try:
        places = []
        for channel in range(6):
            sid = await started(manager, "topwords", channel)
            record, state = await manager.session(sid), await manager.state(sid)
            swap = state.racks["ann"][0]
            wanted = {"do": "pass", "player": "ann", "swap": swap}
            drawn = game.resolve_chance(state, wanted, chance_rng(record.seed, 0))
            await manager.act(sid, "ann", {"do": "pass", "swap": swap, "at": 0})
            [logged] = await store.actions.for_session(sid)
            assert logged.action["at"] == drawn["at"]
            places.append(drawn["at"])
        assert set(places) != {0}  # a bag of ~80 tiles: the front six times would mean the player chose
    finally:
        await manager.close()


async def test_a_players_roll_is_ignored(store):
    manager = SessionManager(store, {"race": RaceGame()})
    try:
        rolls = []
        for channel in range(8):
            sid = await started(manager, "race", channel)
            record = await manager.session(sid)
            expected = random.Random(f"{record.seed}:0").randint(1, 6)
            result = await manager.act(sid, "ann", {"do": "roll", "roll": 6})
            assert result.events[0]["roll"] == expected
            rolls.append(expected)
        assert set(rolls) != {6}
    finally:
        await manager.close()


def test_a_scenario_may_still_force_a_chance_outcome():
    scenario = {
        "game": "topstop",
        "players": ["ann", "bob"],
        "options": {"check_words": False},
        "setup": {"first_player": "ann"},
        "actions": [{"do": "spin", "player": "ann", "letter": "Q"}],
    }
    assert run_scenario(scenario)["letter"] == "Q"


PLAYOUTS: list[tuple[str, dict[str, Any]]] = [
    ("topstop", {"check_words": False}),
    ("topstop", {"check_words": False, "mode": "advanced"}),
    ("topwords", {"check_words": False}),
    ("topple", {}),
    ("topple", {"variant": "young"}),
    ("topdrop", {}),
    ("topdrop", {"difficulty": "extreme"}),
    ("toppo", {"deck": 5}),
    ("race", {"target": 30}),
]


@pytest.mark.parametrize(("name", "options"), PLAYOUTS)
def test_every_argument_resolve_chance_fills_is_a_declared_chance_key(name, options):
    """The declaration is complete: in seeded playouts (player moves and timers), whatever resolve_chance
    adds to an action is among the chance keys the game declares for it."""
    game = rules(name)
    filled: set[tuple[str, str]] = set()
    for seed in range(12):
        rng = random.Random(seed)
        players = ["ann", "bob", "cat"][: max(game.min_players, 2 + seed % 2)]
        state = game.new_game(options, players, {}, random.Random(seed))
        for version in range(150):
            if game.outcome(state) is not None:
                break
            choices = [a | {"player": p} for p in players for a in game.legal_actions(state, p) or []]
            choices = [a for a in choices if a["do"] != "leave"] or choices
            timers = [dict(timer.action) for timer in game.timers(state)]
            if timers and (not choices or rng.random() < 0.3):
                action = rng.choice(timers)
            elif choices:
                action = dict(rng.choice(choices))
            else:
                break
            try:
                complete, applied = step(game, state, seed, version, action)
            except GameError:
                continue
            added = set(complete) - set(action)
            declared = game.chance_keys.get(action["do"], frozenset())
            assert added <= declared, f"{name}: {action['do']} filled {sorted(added - declared)} undeclared"
            filled |= {(action["do"], key) for key in added}
            state = applied.state
    assert filled, f"{name}: no playout drew any chance outcome"
