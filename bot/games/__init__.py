"""Pure rules, one package per game: no discord, no I/O, no asyncio, no clock.

Each package declares itself once, `GAME = GameInfo(...)` in its `__init__.py` (bot/games/registry.py);
the lists below are derived from those declarations when first read.
"""

from __future__ import annotations

import functools
from typing import Any

from bot.games.registry import (
    GameInfo,
    ServerDefault,
    every_game,
    game_info,
    games_with_a_table,
    listed_games,
    loaded_games,
    make_game,
)

__all__ = [
    "GAME_PACKAGES",
    "GAME_TITLES",
    "GameInfo",
    "ServerDefault",
    "every_game",
    "game_info",
    "games_with_a_table",
    "listed_games",
    "loaded_games",
    "make_game",
]

GAME_PACKAGES: dict[str, str]  # name -> package, every declared game
GAME_TITLES: dict[str, str]  # name -> title, every declared game


@functools.cache
def _derived(name: str) -> dict[str, str]:
    if name == "GAME_PACKAGES":
        return {info.name: f"{__name__}.{info.name}" for info in every_game()}
    return {info.name: info.title for info in every_game()}


def __getattr__(name: str) -> Any:
    # Derived on first use (then the same dict): importing one game's rules does not import every game.
    if name in ("GAME_PACKAGES", "GAME_TITLES"):
        return _derived(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
