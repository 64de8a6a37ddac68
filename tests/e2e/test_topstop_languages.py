"""A Top Stop game in English, French and German, played to its end through the loopback Discord — and the
hidden-information rule: no channel message ever shows a player's unrevealed words.

Labels and texts are looked up in the catalogue in the table's language, so these tests fail when a table
text is left untranslated or a button keeps its English label.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.i18n import t

from .conftest import requires_product
from .driver import Table
from .test_topstop_e2e import Game, leaked, rig_next_spin

pytestmark = requires_product

LANGUAGES = ["en", "fr", "de"]
# Five valid words on P in each language (the dictionaries are real), and one for the other player.
WORDS_ON_P = {
    "en": (["pear", "plum", "piano", "pepper", "pencil"], ["parrot"]),
    "fr": (["pomme", "poire", "piano", "poivre", "papier"], ["pain"]),
    "de": (["Pferd", "Pilz", "Pinsel", "Papier", "Puppe"], ["Platz"]),
}


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_a_top_stop_game_in_each_language_keeps_every_unrevealed_word_private(
    product_bot: Any, table: Table, monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    game = await _open_top_stop(table, product_bot, lang)
    alice, bob = game.players
    board = await game.first_spin()
    rig_next_spin(product_bot, monkeypatch, "P")
    assert await game.spin(board) == "P"
    language = t(f"general.language.{lang}", lang)
    assert t("topstop.table.write", lang, count=5, letter="P", language=language) in board.text
    hers, his = WORDS_ON_P[lang]
    await game.write(alice, board, hers)
    await game.write(bob, board, his)
    # While writing is open, the lists are their writers' alone.
    assert leaked(table.channel_messages(), {w.lower() for w in hers + his}) == []
    assert leaked(bob.ephemerals, {w.lower() for w in hers}) == []
    await game.timer("writing")
    reveal = table.last_message
    assert all(word.lower() in reveal.text for word in hers + his)  # revealed together, at once
    await game.timer("review")
    over = table.last_message
    assert t("topstop.table.over_title", lang) in over.text
    assert t("topstop.table.winner", lang, names="**Alice**") in over.text
    assert t("topstop.table.final_scores", lang) in over.text and over.buttons == []


async def _open_top_stop(table: Table, bot: Any, lang: str) -> Game:
    game = Game(table, [table.user("alice"), table.user("bob")], bot, lang=lang)
    alice, bob = game.players
    lobby = (await alice.slash("topstop new", language=lang, target=5)).linked
    assert lobby is not None
    await bob.click(lobby, t("ui.lobby.join", lang))
    await alice.click(lobby, t("ui.lobby.start", lang))
    title = t("topstop.table.first_spin_title", lang)
    first = await table.wait_for_message(lambda m: title in m.text, what="the first spin")
    game.sid = int(re.findall(r"(\d+)$", first.embeds[0]["footer"]["text"])[0])
    return game
