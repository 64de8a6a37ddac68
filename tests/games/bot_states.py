"""What the bot players' tests share (tests/games/<game>/test_<game>_bots.py): random states from seeded
playouts, a seat's `Seen` as the table layer builds it, and the checks every game's bots pass.

The playouts mix the bots' own moves (every level) with random legal actions and the game's timers, so the
states are the ones bots meet and the odd ones people make.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from bot.engine.bots import LEVELS, Level, Move, Policy, Seen
from bot.engine.game import Game, step
from bot.games import game_info, make_game


def seen_for(game: Game, state: Any, seat: str) -> Seen:
    """What the table layer gives a bot's policy: the seat's view, legal actions and offered buttons."""
    return Seen(
        seat,
        game.view_for(state, seat),
        tuple(game.legal_actions(state, seat) or ()),
        game.table_actions(state, seat),
    )


def policies(name: str) -> dict[Level, Policy]:
    make = game_info(name).bots
    assert make is not None, f"{name} declares no bots"
    return {level: make(level, None) for level in LEVELS}


def random_states(
    name: str, options: Mapping[str, Any], players: Sequence[str], seed: int, steps: int
) -> Iterator[tuple[Any, int]]:
    """(state, version) of one seeded playout: bots of random levels, random legal actions, timers."""
    game = make_game(name, None)
    bots = policies(name)
    rng = random.Random(seed)
    state = game.new_game(dict(options), list(players), {}, random.Random(seed))
    for version in range(steps):
        if game.outcome(state) is not None:
            return
        yield state, version
        roll = rng.random()
        timers = game.timers(state)
        action = None
        if roll < 0.05 and timers:
            action = dict(timers[0].action)
        elif roll < 0.25:
            moves = [a for p in players for a in game.legal_actions(state, p) or [] if a["do"] != "leave"]
            action = rng.choice(moves) if moves else None
        if action is None:
            seats = list(players)
            rng.shuffle(seats)
            for seat in seats:
                move = bots[rng.choice(LEVELS)].choose(seen_for(game, state, seat), rng)
                if move is not None:
                    action = move.action
                    break
        if action is None:
            if not timers:
                return
            action = dict(timers[0].action)
        state = step(game, state, seed, version, action)[1].state


def check_every_move_is_accepted(
    name: str, options: Mapping[str, Any], players: Sequence[str], seeds: range, steps: int
) -> int:
    """Every move every level chooses, for every seat of every state, is one the rules accept through
    `step`; returns how many states were checked (the caller checks there were enough)."""
    game = make_game(name, None)
    bots = policies(name)
    checked = 0
    for seed in seeds:
        for state, version in random_states(name, options, players, seed, steps):
            checked += 1
            for seat in players:
                seen = seen_for(game, state, seat)
                for level, bot in bots.items():
                    move = bot.choose(seen, random.Random(f"{seed}:{version}:{level}"))
                    if move is None:
                        continue
                    assert_move(move)
                    try:
                        step(game, state, seed, version, move.action)
                    except Exception as error:  # the report names the state and the move
                        raise AssertionError(
                            f"{name} {level} bot {seat}: {move.action} refused ({error!r}) at seed {seed}, "
                            f"version {version}"
                        ) from error
    return checked


def assert_move(move: Move) -> None:
    assert isinstance(move.action, dict) and isinstance(move.action.get("do"), str)
    assert 0 < move.delay < 10  # a human pace, never an instant nor a stall


def check_no_peeking(
    name: str,
    perturb: Any,
    options: Mapping[str, Any],
    players: Sequence[str],
    seeds: range,
    steps: int,
    *,
    own_secret_hidden: bool,
) -> int:
    """A state that differs only in another player's secret (the conformance hooks' `perturb_secret`) makes
    every level choose the same move with the same random source. `own_secret_hidden`: the seat's own secret
    is hidden from it too (Toppo's face-down decks), so perturbing it must change nothing either.
    Returns how many perturbed states were compared."""
    game = make_game(name, None)
    bots = policies(name)
    compared = 0
    for seed in seeds:
        rng = random.Random(seed)
        for state, version in random_states(name, options, players, seed, steps):
            for owner in players:
                changed = perturb(game, state, owner, rng)
                if changed is None:
                    continue
                other, _, what = changed
                for seat in players:
                    if seat == owner and not own_secret_hidden:
                        continue
                    compared += 1
                    before, after = seen_for(game, state, seat), seen_for(game, other, seat)
                    for level, bot in bots.items():
                        key = f"{seed}:{version}:{seat}:{level}"
                        one = bot.choose(before, random.Random(key))
                        two = bot.choose(after, random.Random(key))
                        assert one == two, (
                            f"{name} {level} bot {seat} changed its move when {what}: {one} → {two}"
                        )
    return compared
