"""Every numeric option of every game is bounded in validate_options: a huge or impossible value is refused
with a clear BadAction when the lobby opens, never an OverflowError when the game starts (a deadline of
now + 10**400 seconds cannot be a float)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from bot.engine.errors import BadAction
from bot.engine.sessions import SessionManager
from bot.games import GAME_PACKAGES, make_game
from bot.store import Store

BASE: dict[str, dict[str, Any]] = {
    "topstop": {"check_words": False},
    "topwords": {"check_words": False},
    "skeleton": {},
    "topple": {},
    "topdrop": {},
    "toppo": {},
}
# Each numeric option: (lowest accepted, highest accepted, whether fractions are accepted).
BOUNDS: dict[str, dict[str, tuple[float, float, bool]]] = {
    "topstop": {
        "words": (1, 10, False),
        "target": (1, 10_000, False),
        "grace": (0.001, 3600, True),
        "writing_time": (0.001, 3600, True),
        "review_time": (0.001, 3600, True),
        "spin_time": (0.001, 3600, True),
        "vote_time": (0.001, 3600, True),
    },
    "topwords": {
        "challenge_seconds": (1, 3600, False),
        "vote_seconds": (1, 3600, False),
        "turn_seconds": (0, 24 * 3600, False),
    },
    "skeleton": {"target": (3, 60, False), "turn_seconds": (10, 3600, False)},
    "topple": {"target": (1, 1000, False), "turn_seconds": (10, 3600, False)},
    "topdrop": {
        "turn_seconds": (10, 3600, False),
        "remind_seconds": (10, 3600, False),
        "vote_seconds": (10, 3600, False),
    },
    "toppo": {
        "display": (3, 5, False),
        "games": (1, 20, False),
        "deck": (5, 33, False),
        "restart_seconds": (5, 600, False),
        "choose_seconds": (10, 600, False),
        "vote_seconds": (10, 600, False),
    },
}


def numeric_options(name: str) -> set[str]:
    """The options a game fills in with a number (target follows the player count in Top Stop)."""
    checked = make_game(name, None).validate_options(
        {**BASE[name], "target": 50} if name == "topstop" else BASE[name]
    )
    return {
        key
        for key, value in checked.items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    }


@pytest.mark.parametrize("name", GAME_PACKAGES)
def test_the_bounds_cover_every_numeric_option(name):
    assert numeric_options(name) == set(BOUNDS[name])


CASES = [(name, key, *bounds) for name, options in BOUNDS.items() for key, bounds in options.items()]


@pytest.mark.parametrize(("name", "key", "low", "high", "fractions"), CASES)
def test_each_numeric_option_is_accepted_within_its_bounds_and_refused_beyond(
    name, key, low, high, fractions
):
    game = make_game(name, None)
    for inside in (low, high):
        game.validate_options({**BASE[name], key: inside if fractions else int(inside)})
    below = 0 if fractions and low < 1 else low - 1
    outside = [below, high + 1, 10**400, -(10**400), math.inf, math.nan, True]
    if not fractions:
        outside.append(low + 0.5)
    for value in outside:
        with pytest.raises(BadAction) as refused:
            game.validate_options({**BASE[name], key: value})
        assert key in refused.value.message, (key, value, refused.value.message)


async def test_a_huge_timer_option_is_refused_when_the_lobby_opens_not_when_the_game_starts(database):
    store = await Store.open(database)
    manager = SessionManager(store, {name: make_game(name, None) for name in GAME_PACKAGES})
    try:
        for channel, (name, key) in enumerate(
            [("topwords", "turn_seconds"), ("topwords", "vote_seconds"), ("topstop", "writing_time")]
        ):
            with pytest.raises(BadAction):
                await manager.open_lobby(1, channel, name, "ann", {**BASE[name], key: 10**400})
    finally:
        await manager.close()
        await store.close()
