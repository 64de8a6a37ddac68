"""Skeleton: draw a hidden card, play one onto the pile or pass; first to the target wins.

The template for a new game (docs/adding-a-game.md): the smallest game with every part of the contract. It
is not offered to servers (`listed=False`): a bot loads it only where EXTRA_GAMES names it, as the tests do.
"""

from __future__ import annotations

from typing import Any

from bot.engine.game import Game
from bot.games.registry import GameInfo
from bot.games.skeleton.bots import policy
from bot.games.skeleton.game import Skeleton
from bot.games.skeleton.state import DECK, State, value
from bot.i18n import N_

__all__ = ["DECK", "GAME", "Skeleton", "State", "make", "value"]


def make(words: Any) -> Game:
    """The rules object; Skeleton checks no words, so it ignores the words service."""
    game: Game = Skeleton()
    return game


# Everything the bot and its tests need to know of the game besides its rules, said once.
GAME = GameInfo(
    name="skeleton",
    title="Skeleton",
    colour=0x95A5A6,
    make=make,
    rules_summary=N_("skeleton.rules.summary"),
    play_options=({}, {"target": 25}),  # the default target, and one that lets the deck run out
    listed=False,
    bots=policy,  # bot/games/skeleton/bots.py: the example policy (docs/bots.md)
)
