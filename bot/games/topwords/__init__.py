"""TopWords, the German 3-D word game: pure rules (no discord, no I/O). See docs/rules/topwords.md."""

from __future__ import annotations

from typing import Any

from bot.engine.game import Game
from bot.games.defaults import minutes_as_seconds_or_off
from bot.games.registry import BotDefault, GameInfo, ServerDefault
from bot.games.topwords.bots import policy, warm
from bot.games.topwords.commands import parse_square, tiles_for_word
from bot.games.topwords.game import TopWords, Words
from bot.games.topwords.messages import RuleBroken
from bot.games.topwords.rules import square_name
from bot.games.topwords.state import Options, State
from bot.i18n import N_

__all__ = [
    "GAME",
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


GAME = GameInfo(
    name="topwords",
    title="TopWords",
    colour=0x11806A,
    make=make,
    rules_summary=N_("general.rules.summary.topwords"),
    pictures=("bot.render.topwords_board",),
    play_options=({"mode": "strict"}, {"mode": "challenge"}),
    server_defaults=(
        ServerDefault(
            "mode",
            N_("topwords.settings.mode"),
            (("strict", N_("topwords.cmd.mode.strict")), ("challenge", N_("topwords.cmd.mode.challenge"))),
        ),
        ServerDefault("turn_seconds", N_("topwords.settings.turn_seconds")),
    ),
    # The turn timer of every new table, in minutes (0: none); ten unless the operator says otherwise.
    bot_defaults=(BotDefault("TOPWORDS_TURN_MINUTES", "turn_seconds", minutes_as_seconds_or_off, "10"),),
    bots=policy,
    warm=warm,
)
