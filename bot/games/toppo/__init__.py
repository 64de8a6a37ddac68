"""Toppo: everyone at once reveals lines from their own deck to top or match the display, and calls toppo
with fewer than ten cards left (seeds/toppo-rules.txt; RULES-NOTES.md, Toppo; docs/rules/toppo.md).
Its table is cogs/toppo, its display's picture bot/render/toppo_cards.py.
"""

from __future__ import annotations

from typing import Any

from bot.engine.game import Game
from bot.games.registry import GameInfo, ServerDefault
from bot.games.toppo.bots import make_bot
from bot.games.toppo.game import Toppo
from bot.games.toppo.state import DISPLAY_SIZES, State
from bot.i18n import N_

__all__ = ["GAME", "State", "Toppo", "make"]


def make(words: Any) -> Game:
    """The rules object; Toppo checks no words, so it ignores the words service."""
    game: Game = Toppo()
    return game


GAME = GameInfo(
    name="toppo",
    title="Toppo",
    colour=0xE67E22,
    make=make,
    rules_summary=N_("toppo.rules.summary"),
    # The rulebook's game, short decks whose toppo comes soon (a series of two), and a display of four.
    play_options=({}, {"deck": 5, "games": 3}, {"display": 4, "deck": 10, "games": 2}),
    pictures=("bot.render.toppo_cards",),
    listed=True,
    server_defaults=(
        ServerDefault("display", N_("toppo.settings.display"), tuple((size, None) for size in DISPLAY_SIZES)),
    ),
    bots=make_bot,  # bot/games/toppo/bots.py
)
