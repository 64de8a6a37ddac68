"""A three-player Top Drop game in English, French and German, played to its victory through the loopback
Discord: the host's Start, turns from the consoles (a Color against the direction among them), a hint.

Labels and texts are looked up in the catalogue in the table's language; in French and German no English text
of the game or the table layer shows in any message the players see, and no public message nor another
player's console ever shows a card of a hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.games.topdrop.cards import ACTION_NAMES, HINTS
from bot.i18n import t

from .conftest import requires_product
from .driver import Message, Player, Table
from .english import assert_no_english
from .test_topdrop_e2e import enabled_cards, no_hand_shown, open_game, rigged

pytestmark = requires_product

LANGUAGES = ["en", "fr", "de"]


def no_english(messages: list[Message], lang: str) -> None:
    assert_no_english(messages, lang, ("topdrop.", "ui."))


async def play(
    table: Table, player: Player, console: Message, cards: list[int], lang: str, action: str = ""
) -> None:
    """One turn from the console once it offers it: an action card if any, the cards, then Play."""
    used = t(ACTION_NAMES[action], lang) if action else ""
    await table.fake.wait_until(
        lambda: used in console.button_labels if used else bool(enabled_cards(console)),
        within=5,
        what=f"{player.name}'s turn",
    )
    if used:
        await player.click(console, used)
    for card in cards:
        await player.click(console, str(card))
    if len(cards) == 1:
        label = t("topdrop.button.play_one", lang, card=cards[0])
    else:
        label = t("topdrop.button.play_two", lang, first=cards[0], second=cards[1])
    await player.click(console, label)


@pytest.mark.spec_crosscheck
@pytest.mark.parametrize("lang", LANGUAGES)
async def test_a_three_player_game_in_each_language_ends_in_victory_with_no_hand_in_public(
    product_bot: Any, table: Table, lang: str
) -> None:
    dev = table.user("dev")
    await dev.slash("settings language", language=lang)
    alice, bob, carol = (table.user(name, locale=lang) for name in ("alice", "bob", "carol"))
    players = [alice, bob, carol]
    hands = {str(alice.id): [30, 41, 52], str(bob.id): [12, 44, 56], str(carol.id): [57, 59]}
    _, board, session = await open_game(product_bot, table, players, rigged(hands, deck=[]), lang=lang)
    assert t("topdrop.table.title_opening", lang) in board.text
    await alice.click(board, t("topdrop.button.start", lang))
    assert t("topdrop.table.title_turn", lang, turn=1, name="Alice") in board.text

    consoles = {}
    for player in players:
        opened = await player.click(board, t("topdrop.button.hand", lang))
        assert opened.message is not None and opened.message.ephemeral
        consoles[player.name] = opened.message
    await carol.click(consoles["carol"], t(HINTS["only_high_cards"], lang))
    hint = t("topdrop.table.hint", lang, name="Carol", phrase=t(HINTS["only_high_cards"], lang))
    assert hint in board.text

    # 20 on top, UP; the draw pile is empty, so nobody refills.
    await play(table, alice, consoles["alice"], [30, 41], lang)
    await play(table, bob, consoles["bob"], [44, 56], lang)
    await play(table, carol, consoles["carol"], [57, 59], lang)
    await no_hand_shown(product_bot, table, session, players)
    # 59 on top: Alice's 52 only goes down, after a Flip; then Bob's 12 is the last card.
    await play(table, alice, consoles["alice"], [52], lang, action="flip")
    await play(table, bob, consoles["bob"], [12], lang)

    over = await table.wait_for_message(
        lambda m: t("topdrop.table.title_won", lang) in m.text, what="the end"
    )
    assert t("topdrop.table.won", lang) in over.text and t("topdrop.rating.top_tier", lang) in over.text
    await no_hand_shown(product_bot, table, session, players)
    no_english([*table.channel_messages(), *alice.ephemerals, *bob.ephemerals, *carol.ephemerals], lang)
    results = await product_bot.store.results.for_session(session)
    assert {str(row.user_id) for row in results} == {str(p.id) for p in players}
