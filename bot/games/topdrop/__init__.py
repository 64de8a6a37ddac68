"""Top Drop: the cooperative game of placing all 60 number cards on one pile, up or down as the Direction Card
says, with hidden hands (seeds/top-drop-rules.txt; RULES-NOTES.md, Top Drop; docs/rules/topdrop.md).

Its table is cogs/topdrop (the pile's picture: bot/render/topdrop_cards.py); offered to every server.
"""

from __future__ import annotations

from typing import Any

from bot.engine.game import Game
from bot.games.registry import GameInfo, ServerDefault
from bot.games.topdrop.bots import make_bot
from bot.games.topdrop.cards import COLOUR_OF, COLOUR_TABLE, DIFFICULTY_NAMES, HINTS
from bot.games.topdrop.game import TopDrop, can_play
from bot.games.topdrop.state import State
from bot.i18n import N_

__all__ = ["COLOUR_OF", "COLOUR_TABLE", "GAME", "HINTS", "State", "TopDrop", "can_play", "make"]


def make(words: Any) -> Game:
    """The rules object; Top Drop checks no words, so it ignores the words service."""
    game: Game = TopDrop()
    return game


GAME = GameInfo(
    name="topdrop",
    title="Top Drop",
    colour=0x9B59B6,
    make=make,
    rules_summary=N_("topdrop.rules.summary"),
    # The extreme level (one wild card) ends playouts sooner; easy lets them run longer.
    play_options=({"difficulty": "extreme"}, {}),
    pictures=("bot.render.topdrop_cards",),
    server_defaults=(
        ServerDefault("difficulty", N_("topdrop.settings.difficulty"), tuple(DIFFICULTY_NAMES.items())),
        ServerDefault("turn_seconds", N_("topdrop.settings.turn_seconds")),
    ),
    bots=make_bot,  # bot/games/topdrop/bots.py
)
