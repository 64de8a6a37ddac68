"""The lobby's words in the table's language: the seated players (none yet) and each game's options."""

from __future__ import annotations

from typing import Any

import pytest

from bot.i18n import LANGUAGES
from bot.ui.embeds import player_list
from bot.ui.table import TableCog
from cogs.topstop.cog import TopStopCog
from cogs.topwords.cog import TopWordsCog

# Each game's lobby options as `/<game> new` stores them, fullest first.
OPTIONS: dict[type[TableCog], list[dict[str, Any]]] = {
    TopStopCog: [
        {
            "language": "fr",
            "mode": "advanced",
            "target": 80,
            "writing_time": 120,
            "grace": 15,
            "today": "02-29",
        },
        {"language": "de"},
    ],
    TopWordsCog: [{"mode": "challenge", "turn_seconds": 600}, {"mode": "strict"}],
}


def test_an_empty_lobby_says_nobody_in_the_tables_language():
    shown = {lang: player_list([], lang) for lang in LANGUAGES}
    assert shown == {"en": "nobody yet", "fr": "personne pour l'instant", "de": "noch niemand"}
    assert player_list(["1", "2"], "fr") == "1. <@1>\n2. <@2>"


def test_a_game_has_to_word_its_own_options():
    """The layer has no default wording: raw `key: value` pairs name options no player knows."""
    for cog in OPTIONS:
        assert cog.describe_options is not TableCog.describe_options, cog
    with pytest.raises(NotImplementedError):
        TableCog.describe_options(None, {"mode": "strict"}, "en")  # type: ignore[arg-type]


@pytest.mark.parametrize("cog", list(OPTIONS), ids=lambda cog: cog.game_name)
def test_every_game_describes_its_options_in_words_of_each_language(cog):
    for options in OPTIONS[cog]:
        shown = {lang: cog.describe_options(None, options, lang) for lang in LANGUAGES}  # type: ignore[arg-type]
        for lang, text in shown.items():
            assert text.strip(), (lang, options)
            for name, value in options.items():
                assert f"{name}:" not in text and f"{name}=" not in text and "_" not in text, (lang, text)
                assert f": {value}" not in text, (lang, text)
        assert len(set(shown.values())) == len(LANGUAGES), shown  # said in each language, not one for all
