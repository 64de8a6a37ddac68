"""TopWords, the German 3-D word game: pure rules (no discord, no I/O). See docs/rules/topwords.md."""

from __future__ import annotations

from typing import Any

from bot.engine.game import Game
from bot.games.topwords.commands import parse_square, tiles_for_word
from bot.games.topwords.game import TopWords, Words
from bot.games.topwords.messages import RuleBroken
from bot.games.topwords.rules import square_name
from bot.games.topwords.state import Options, State

__all__ = [
    "Options",
    "RuleBroken",
    "State",
    "TopWords",
    "Words",
    "make",
    "parse_square",
    "square_name",
    "tiles_for_word",
]


def make(words: Any) -> Game:
    """The rules object; `words` is the bot.words service (None only for games with check_words false)."""
    game: Game = TopWords(words)
    return game
