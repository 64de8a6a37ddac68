"""A TopWords game in English, French and German, played to its end through the loopback Discord — and the
hidden-information rule: no channel message ever shows a rack.

Labels and texts are looked up in the catalogue in the table's language, so these tests fail when a table
text is left untranslated.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.i18n import t

from .conftest import requires_product
from .driver import Message, Table

pytestmark = requires_product

LANGUAGES = ["en", "fr", "de"]
# Bob's rack holds seven tiles that no move here places; none may ever show in the channel.
SECRET = "XYZQJÄÖ"


@pytest.mark.both_databases  # a whole game of TopWords on PostgreSQL too
@pytest.mark.parametrize("lang", LANGUAGES)
async def test_a_topwords_game_in_each_language_never_shows_a_rack(
    product_bot: Any, table: Table, lang: str
) -> None:
    dev, alice, bob = table.user("dev"), table.user("alice"), table.user("bob")
    await dev.slash("settings language", language=lang)  # TopWords' table speaks the server's language
    lobby = (await alice.slash("topwords new")).linked
    assert lobby is not None
    await bob.click(lobby, t("ui.lobby.join", lang))
    opened = await product_bot.sessions.open_in_channel(table.channel_id)
    record = await product_bot.sessions.session(opened.id)
    record.setup = {
        "first_player": str(alice.id),
        "racks": {str(alice.id): "SIEBRTS", str(bob.id): SECRET},
        "bag": "AUMLNAGFERNE",
    }
    await alice.click(lobby, t("ui.lobby.start", lang))
    first = await table.wait_for_message(_is_board, what="the first table")
    assert t("topwords.title_play", lang, name="Alice") in first.text
    await alice.slash("topwords play", word="SIEB", square="C5", direction="across")
    for player in (bob, alice, bob):  # every player passes in a row: the game ends
        await player.slash("topwords pass")
        _no_rack_shown(table)
    over = await table.wait_for_message(lambda m: t("topwords.title_over", lang) in m.text, what="the end")
    assert t("topwords.end_passes", lang) in over.text
    _no_rack_shown(table)


def _is_board(message: Message) -> bool:
    return any(a["filename"] == "board.png" for a in message.attachments)


def _no_rack_shown(table: Table) -> None:
    spaced = " ".join(SECRET)
    for message in table.channel_messages():
        assert SECRET not in message.text and spaced not in message.text, message.text
