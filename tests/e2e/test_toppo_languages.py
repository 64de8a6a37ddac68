"""A Toppo series in English, French and German, played to its end through the loopback Discord: Alice
begins, sets the order of her line card by card and tops the display, calls toppo and wins the first game;
Bob, with the highest total, chooses the second game's display, proposes replacing it and Alice agrees;
the host ends the series.

Labels and texts are looked up in the catalogue in the table's language, and in French and German no English
text of the game or the table layer may show in any message the players see.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.i18n import t

from .conftest import requires_product
from .driver import Message, Table
from .english import assert_no_english
from .test_toppo_e2e import ALICE, BOB, DISPLAY, custom_id, open_console

pytestmark = requires_product

LANGUAGES = ["en", "fr", "de"]


def no_english(messages: list[Message], lang: str) -> None:
    assert_no_english(messages, lang, ("toppo.", "ui."))


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_a_series_in_each_language_with_a_top_a_toppo_a_choice_and_a_replaced_display(
    product_bot: Any, table: Table, lang: str
) -> None:
    dev = table.user("dev")
    alice, bob = table.user("alice", locale=lang), table.user("bob", locale=lang)
    await dev.slash("settings language", language=lang)
    lobby = (await alice.slash("toppo new", games=2)).linked
    assert lobby is not None
    assert t("toppo.lobby.options", lang, display=3, games=2, deck=33) in lobby.text
    await bob.click(lobby, t("ui.lobby.join", lang))
    opened = await product_bot.sessions.open_in_channel(table.channel_id)
    record = await product_bot.sessions.session(opened.id)
    record.setup = {
        "first_player": str(alice.id),
        "decks": {str(alice.id): ALICE, str(bob.id): BOB},
        "display": DISPLAY,
    }
    await alice.click(lobby, t("ui.lobby.start", lang))
    board = await table.wait_for_message(
        lambda m: t("toppo.table.title", lang, game=1, games=2) in m.text, what="the table"
    )
    assert board.button_labels == [t("toppo.button.console", lang)]
    assert t("toppo.table.waiting", lang, name="Alice") in board.text

    mine = await open_console(alice, board, lang)
    his = await open_console(bob, board, lang)
    await alice.click(mine, t("toppo.button.begin", lang))
    for _ in range(2):
        await alice.click(mine, t("toppo.button.reveal", lang))
    await alice.click(mine, custom_id(mine, "pick", arg="1"))
    await alice.click(mine, custom_id(mine, "pick", arg="2"))
    await alice.click(mine, t("toppo.button.top", lang))
    await table.fake.wait_until(
        lambda: t("toppo.event.interrupted", lang, name="Alice") in board.text, within=5, what="the top"
    )

    # Alice holds 9 cards: her toppo wins the first game; Bob, with the highest total, chooses the next.
    await alice.click(mine, t("toppo.button.toppo", lang))
    await table.fake.wait_until(
        lambda: t("toppo.button.choose", lang, n=3) in his.button_labels, within=5, what="Bob's choice"
    )
    assert t("toppo.console.you_choose", lang) in his.text
    await table.fake.wait_until(
        lambda: t("toppo.table.series", lang) in board.text, within=5, what="the series table"
    )
    assert board.attachments == []  # no display between two games: its last picture goes too
    await bob.click(his, t("toppo.button.choose", lang, n=3))
    await table.fake.wait_until(
        lambda: t("toppo.table.title", lang, game=2, games=2) in board.text, within=5, what="game 2"
    )
    assert list(board.files) == ["toppo.png"]  # the new display's picture

    # Bob proposes replacing the display, Alice agrees: new cards cover it.
    await bob.click(his, t("toppo.button.replace", lang))
    await table.fake.wait_until(
        lambda: t("toppo.button.yes", lang) in mine.button_labels, within=5, what="Alice's ballot"
    )
    await alice.click(mine, t("toppo.button.yes", lang))
    await table.fake.wait_until(
        lambda: t("toppo.event.vote_passed", lang, yes=2, no=0) in board.text, within=5, what="the vote"
    )

    await alice.slash("toppo end")
    over = await table.wait_for_message(
        lambda m: t("toppo.table.title_over", lang) in m.text, what="the final table"
    )
    assert t("toppo.table.end.ended_by_host", lang) in over.text
    assert t("toppo.table.winners", lang, names="**Alice**") in over.text
    no_english([*table.channel_messages(), *alice.ephemerals, *bob.ephemerals], lang)
    ranks = {row.user_id: row.rank for row in await product_bot.store.results.for_session(opened.id)}
    assert ranks == {str(alice.id): 1, str(bob.id): 2}
