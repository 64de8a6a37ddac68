"""A server's defaults for `/<game> new` (bot/games/defaults.py): what each game declares, how a typed value
is read, and which value a new table takes."""

from __future__ import annotations

import pytest

from bot.engine.errors import BadAction
from bot.games import every_game, game_info
from bot.games.defaults import check_default, choice_name, lobby_options, parse_default, server_defaults
from bot.i18n import t

DECLARED = [
    (info, default) for info in every_game() if not info.rules_only for default in info.server_defaults
]


class Words:
    """Enough of the words service for the rules to accept their options (no word is judged here)."""

    def __getattr__(self, name: str) -> object:
        raise AttributeError(name)


@pytest.mark.parametrize(
    ("info", "default"), DECLARED, ids=lambda v: getattr(v, "name", getattr(v, "option", ""))
)
def test_every_declared_choice_is_an_option_value_the_game_accepts(info, default):
    rules = info.make(Words())
    for value, key in default.choices:
        check_default(rules, default.option, value)
        assert key is None or t(key, "fr") != key  # a name in the catalogue
    assert t(default.label, "de") != default.label


@pytest.mark.parametrize(
    ("info", "default"), DECLARED, ids=lambda v: getattr(v, "name", getattr(v, "option", ""))
)
def test_every_declared_number_is_judged_by_the_game_itself(info, default):
    if default.choices:
        return
    rules = info.make(Words())
    with pytest.raises(BadAction):
        check_default(rules, default.option, 10**9)  # beyond every game's bounds


def test_the_games_a_server_tunes_offer_their_timers_and_modes():
    offered = {info.name: {d.option for d in info.server_defaults} for info in every_game()}
    assert offered["topstop"] == {"mode", "writing_time", "grace", "country"}
    assert offered["topwords"] == {"mode", "turn_seconds"}
    assert offered["topple"] == {"variant", "turn_seconds"}
    assert offered["topdrop"] == {"difficulty", "turn_seconds"}
    assert offered["toppo"] == {"display"}


def test_a_choice_is_read_by_its_value_or_its_name_in_any_language():
    topstop = game_info("topstop")
    assert parse_default(topstop, "mode", "levels") == "levels"
    assert parse_default(topstop, "mode", f"  {t('topstop.cmd.mode.advanced', 'de').upper()} ") == "advanced"
    assert parse_default(game_info("toppo"), "display", "4") == 4  # a number's choices stay numbers
    with pytest.raises(BadAction, match="takes one of: base, levels, advanced"):
        parse_default(topstop, "mode", "chaos")


def test_a_number_is_a_whole_number_within_the_declared_bounds():
    topstop = game_info("topstop")
    assert parse_default(topstop, "writing_time", " 240 ") == 240
    with pytest.raises(BadAction, match="takes a whole number"):
        parse_default(topstop, "writing_time", "4 minutes")
    with pytest.raises(BadAction, match="from 20 to 900"):
        parse_default(topstop, "writing_time", "5")


def test_an_option_the_game_does_not_offer_is_refused_naming_those_it_does():
    with pytest.raises(BadAction, match="no server default called target; there are: variant, turn_seconds"):
        parse_default(game_info("topple"), "target", "50")


def test_a_stored_default_the_game_no_longer_declares_is_left_out():
    assert server_defaults(game_info("topple"), {"variant": "young", "colour": "red"}) == {"variant": "young"}


def test_the_host_wins_over_the_server_which_wins_over_the_bot():
    bot = {"turn_seconds": 120}
    server = {"turn_seconds": 300, "variant": "young"}
    assert lobby_options(bot, server, {}) == {"turn_seconds": 300, "variant": "young"}
    assert lobby_options(bot, server, {"turn_seconds": 60}) == {"turn_seconds": 60, "variant": "young"}
    assert lobby_options(bot, {}, {}) == {"turn_seconds": 120}


def test_a_value_is_shown_by_its_name_in_the_readers_language():
    difficulty = game_info("topdrop").server_default("difficulty")
    assert difficulty is not None
    assert choice_name(difficulty, "hard", "fr") == t("topdrop.difficulty.hard", "fr")
    assert choice_name(game_info("toppo").server_defaults[0], 5, "de") == "5"
