"""Every declared game opens, starts and shows its table in English, French and German through the loopback
Discord: the lobby, the table's buttons and a player's /status speak the table's or the reader's language.

Generic: each game comes from the registry (bot/games/registry.py) with the `/<game> new` options that make
its table speak a language (`GameInfo.new_options`), so a new game is checked here without a line of its
own. Each game's own language tests play it to its end (tests/e2e/test_<game>_languages.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.games import GameInfo, games_with_a_table
from bot.i18n import keys, t

from .conftest import requires_product
from .driver import Message, Table

pytestmark = requires_product

LANGUAGES = ["en", "fr", "de"]
GAMES = games_with_a_table()  # a game whose cog is still to come has no table to open


@pytest.fixture(autouse=True)
def every_game_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot under test loads the games not offered to servers too (before the product_bot fixture)."""
    monkeypatch.setenv("EXTRA_GAMES", ",".join(info.name for info in GAMES if not info.listed))


def catalogue_texts(lang: str) -> set[str]:
    return {t(key, lang) for key in keys()}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("info", GAMES, ids=lambda info: info.name)
async def test_each_game_opens_and_shows_its_table_in_each_language(
    product_bot: Any, table: Table, info: GameInfo, lang: str
) -> None:
    dev = table.user("dev")
    await dev.slash("settings language", language=lang)
    players = [table.user(name, locale=lang) for name in ("alice", "bob", "carol", "dave")]
    seated = players[: product_bot.sessions.games[info.name].min_players]
    host = seated[0]
    lobby = (await host.slash(f"{info.name} new", **info.new_options(lang))).linked
    assert lobby is not None and t("ui.lobby.title", lang, game=info.title) in lobby.text
    assert lobby.button_labels == [
        t(f"ui.lobby.{action}", lang) for action in ("join", "leave", "start", "cancel")
    ]
    for player in seated[1:]:
        await player.click(lobby, t("ui.lobby.join", lang))
    await host.click(lobby, t("ui.lobby.start", lang))

    def is_table(message: Message) -> bool:
        return message.id != lobby.id and bool(message.embeds) and not message.ephemeral

    first = await table.wait_for_message(is_table, what=f"the first {info.title} table")
    await table.settle()
    texts = catalogue_texts(lang)
    assert first.button_labels and set(first.button_labels) <= texts, first.button_labels
    status = await seated[-1].slash(f"{info.name} status")
    assert status.ephemeral and t("ui.only_you", lang) in status.text
