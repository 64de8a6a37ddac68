"""A Topple game in English, French and German, played to its end through the loopback Discord: the young
players' version with two players (two colours each, the prompt asks which), where the first topple puts its
player out and the other wins.

Labels and texts are looked up in the catalogue in the table's language, and in French and German no English
text of the game or the table layer may show in any message the players see.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.games.topple.state import COLOUR_NAMES
from bot.i18n import t
from bot.render.topple_board import render_board
from cogs.topple.cog import _picture_view

from .conftest import requires_product
from .driver import Message, Table
from .english import assert_no_english
from .test_topple_e2e import Chance, enabled_squares

pytestmark = requires_product

LANGUAGES = ["en", "fr", "de"]


def no_english(messages: list[Message], lang: str) -> None:
    assert_no_english(messages, lang, ("topple.", "ui."))


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_a_young_two_player_game_in_each_language_ends_at_the_first_topple(
    product_bot: Any, table: Table, monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    chance = Chance(product_bot, monkeypatch)
    dev = table.user("dev")
    alice, bob = table.user("alice", locale=lang), table.user("bob", locale=lang)
    await dev.slash("settings language", language=lang)
    lobby = (await alice.slash("topple new", variant="young")).linked
    assert lobby is not None
    assert t("topple.lobby.options_young", lang, seconds=120) in lobby.text
    opened = await product_bot.sessions.open_in_channel(table.channel_id)
    assert opened is not None
    await bob.click(lobby, t("ui.lobby.join", lang))
    await alice.click(lobby, t("ui.lobby.start", lang))
    board = await table.wait_for_message(
        lambda m: t("topple.table.title_opening", lang) in m.text, what="the table"
    )
    chance.rolls += [4, 2, 6]  # the roll-off (Alice first), then her roll: any square
    for player in (alice, bob):
        await player.click(board, t("topple.button.roll", lang))
    assert t("topple.event.first_player", lang, name="Alice", roll=4) in board.text
    await alice.click(board, t("topple.button.roll", lang))
    assert len(enabled_squares(board)) == 25

    # Two colours each: the prompt offers both; Alice places yellow, safely.
    [a1] = [label for label in enabled_squares(board) if label.startswith("A1 · ")]
    prompt = (await alice.click(board, a1)).private
    assert prompt is not None
    yellow = t("topple.confirm.place_colour", lang, colour=t(COLOUR_NAMES["yellow"], lang))
    red = t("topple.confirm.place_colour", lang, colour=t(COLOUR_NAMES["red"], lang))
    assert prompt.button_labels == [red, yellow]
    chance.topples.append(False)
    await alice.click(prompt, yellow)
    # The picture writes the tilt as the table's texts do (a comma in French and German).
    shown = await product_bot.sessions.view(opened.id, None)
    assert board.files["topple.png"] == render_board(_picture_view(shown), lang)

    # Bob topples the board: he is out, and Alice, the last player left, wins.
    chance.rolls.append(6)
    await bob.click(board, t("topple.button.roll", lang))
    [e5] = [label for label in enabled_squares(board) if label.startswith("E5 · ")]
    prompt = (await bob.click(board, e5)).private
    assert prompt is not None
    chance.topples.append(True)
    await bob.click(prompt, t("topple.confirm.place_colour", lang, colour=t(COLOUR_NAMES["green"], lang)))
    over = await table.wait_for_message(
        lambda m: t("topple.table.title_over", lang) in m.text, what="the final table"
    )
    assert t("topple.event.toppled_out", lang, name="Bob", square="E5") in over.text
    assert t("topple.table.end.last_player_standing", lang) in over.text
    assert t("topple.table.winners", lang, names="**Alice**") in over.text
    no_english([*table.channel_messages(), *alice.ephemerals, *bob.ephemerals], lang)
    # Every player still gets a result, ranked by the order of elimination, for the leaderboards.
    ranks = {row.user_id: row.rank for row in await product_bot.store.results.for_session(opened.id)}
    assert ranks == {str(alice.id): 1, str(bob.id): 2}
