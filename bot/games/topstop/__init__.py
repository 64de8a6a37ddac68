"""Top Stop: write five words on the spun letter before anyone calls STOP (base game)."""

from __future__ import annotations

from typing import Any

from bot.engine.game import Game
from bot.games.topstop.game import TopStop

__all__ = ["TopStop", "make"]


def make(words: Any) -> Game:
    """The rules object, judging words with the bot.words service `words`."""
    return TopStop(words)
