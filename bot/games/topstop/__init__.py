"""Top Stop: write five words on the spun letter before anyone calls STOP (base game)."""

from __future__ import annotations

from typing import Any

from bot.engine.game import Game
from bot.games.registry import GameInfo, ServerDefault
from bot.games.topstop.bots import make_bot
from bot.games.topstop.game import MODES, NAME_COUNTRIES, TopStop
from bot.i18n import N_

__all__ = ["GAME", "TopStop", "make"]


def make(words: Any) -> Game:
    """The rules object, judging words with the bot.words service `words`."""
    return TopStop(words)


MODE_NAMES = {
    "base": N_("topstop.cmd.mode.base"),
    "levels": N_("topstop.cmd.mode.levels"),
    "advanced": N_("topstop.cmd.mode.advanced"),
}
COUNTRY_NAMES = {
    "en": N_("topstop.settings.country.en"),
    "fr": N_("topstop.settings.country.fr"),
    "de": N_("topstop.settings.country.de"),
    "lb": N_("topstop.settings.country.lb"),
}


def _new_options(lang: str) -> dict[str, Any]:
    """The table speaks its own `language` option; a low target and a short grace after STOP keep a test game
    short (a bot calls STOP as soon as its list is full), and the shortest round time limit `/topstop new`
    takes ends soon a round on a letter nobody can fill a list on (X, Y)."""
    return {"language": lang, "target": 5, "grace": 1, "writing_time": 20}


GAME = GameInfo(
    name="topstop",
    title="Top Stop",
    colour=0xE67E22,
    make=make,
    rules_summary=N_("general.rules.summary.topstop"),
    # check_words stays on (the default): the real dictionaries judge every list.
    play_options=(
        {"language": "en", "target": 8},
        {"language": "de", "target": 8, "words": 3},
        # The advanced game: a higher target, so that playouts get through several Draws.
        {"language": "en", "target": 15, "words": 3, "mode": "advanced"},
    ),
    new_options=_new_options,
    bots=make_bot,
    server_defaults=(
        ServerDefault("mode", N_("topstop.settings.mode"), tuple((mode, MODE_NAMES[mode]) for mode in MODES)),
        # The bounds of `/topstop new`'s own options.
        ServerDefault("writing_time", N_("topstop.settings.writing_time"), bounds=(20, 900)),
        ServerDefault("grace", N_("topstop.settings.grace"), bounds=(1, 120)),
        # Level VII's first names: a country's list; without a default, the table's language decides.
        ServerDefault(
            "country",
            N_("topstop.settings.country"),
            tuple((country, COUNTRY_NAMES[country]) for country in NAME_COUNTRIES),
        ),
    ),
)
