"""Topple: roll the die, place a piece on a square of the level it allows, score rows of five and tall stacks,
and keep the board from toppling (seeds/topple-rules.txt; RULES-NOTES.md, Topple; docs/rules/topple.md).

Its table is cogs/topple (the board picture: bot/render/topple_board.py); offered to every server.
"""

from __future__ import annotations

from typing import Any

from bot.engine.game import Game
from bot.games.defaults import whole_number_between
from bot.games.registry import BotDefault, GameInfo, ServerDefault
from bot.games.topple.bots import make_bot
from bot.games.topple.game import Topple
from bot.games.topple.state import NUMBERS, VARIANT_NAMES, State
from bot.i18n import N_

__all__ = ["GAME", "State", "Topple", "make"]


def make(words: Any) -> Game:
    """The rules object; Topple checks no words, so it ignores the words service."""
    game: Game = Topple()
    return game


GAME = GameInfo(
    name="topple",
    title="Topple",
    colour=0x1ABC9C,
    make=make,
    rules_summary=N_("topple.rules.summary"),
    # A low target ends a game at the end of its first round; the young version ends at its first topples.
    play_options=({"target": 5}, {"variant": "young"}),
    pictures=("bot.render.topple_board",),
    server_defaults=(
        ServerDefault("variant", N_("topple.settings.variant"), tuple(VARIANT_NAMES.items())),
        ServerDefault("turn_seconds", N_("topple.settings.turn_seconds")),
    ),
    # The idle turn's length for every new table, within the rules' bounds (unset: the rules' default).
    bot_defaults=(
        BotDefault("TOPPLE_TURN_SECONDS", "turn_seconds", whole_number_between(*NUMBERS["turn_seconds"][1:])),
    ),
    bots=make_bot,  # bot/games/topple/bots.py
)
