"""Pure rules, one package per game: no discord, no I/O, no asyncio, no clock."""

from __future__ import annotations

import importlib
from typing import Any

from bot.engine.game import Game

# Each package exposes `make(words) -> Game`; `words` is the bot.words service (None where a game needs none).
GAME_PACKAGES = {
    "topstop": "bot.games.topstop",
    "topwords": "bot.games.topwords",
}

GAME_TITLES = {
    "topstop": "Top Stop",
    "topwords": "TopWords",
}


def make_game(name: str, words: Any) -> Game:
    """The rules object of the game called `name`; KeyError for an unknown game."""
    module = importlib.import_module(GAME_PACKAGES[name])
    game: Game = module.make(words)
    return game
