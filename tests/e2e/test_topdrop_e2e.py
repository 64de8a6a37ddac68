"""Top Drop against the loopback Discord: `/topdrop new`, the lobby, the team's choice of who starts, turns
played from each player's live console (a card, a Flip, a confirm step for one or two cards), a hint shown on
the table, the victory with its rating and results stored; an idle player reminded, the others asked whether
to wait and "no" ending the game, lost by abandonment; `/rules topdrop` with the colour table.

And the rule the game exists to show: no public message and no other player's console or private answer ever
contains a card of a hand. Chance is forced the way a scenario forces it (the session's `setup`: hands, the
draw pile in order, the pile), never through a player's action.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from bot.games.topdrop.cards import COLOUR_OF, NUMBERS
from bot.i18n import t
from cogs.topdrop.table import card_text

from .conftest import requires_product
from .driver import Message, Player, Table

pytestmark = requires_product

TURN_NOTICE = "your turn in Top Drop"
REMINDER = "it is still your turn in Top Drop"


def rigged(hands: dict[str, list[int]], deck: list[int], top: int = 20) -> dict[str, Any]:
    """A game near its end: every card not in a hand or the draw pile is on the pile, `top` on top."""
    held = {card for cards in hands.values() for card in cards} | set(deck)
    pile = [card for card in NUMBERS if card not in held and card != top] + [top]
    return {"hands": hands, "deck": deck, "pile": pile}


async def open_game(
    bot: Any, table: Table, players: list[Player], setup: dict[str, Any], lang: str = "en"
) -> tuple[Message, Message, int]:
    """The first player opens a lobby, the others join, the deal is forced, the first player starts: the
    lobby, the first table and the session."""
    host = players[0]
    lobby = (await host.slash("topdrop new")).linked
    assert lobby is not None and t("ui.lobby.title", lang, game="Top Drop") in lobby.text
    for player in players[1:]:
        await player.click(lobby, t("ui.lobby.join", lang))
    opened = await bot.sessions.open_in_channel(table.channel_id)
    record = await bot.sessions.session(opened.id)  # the engine's own copy, which the game is dealt from
    record.setup = setup
    await host.click(lobby, t("ui.lobby.start", lang))
    board = await table.wait_for_message(
        lambda m: "Top Drop — " in m.text and m.id != lobby.id, what="the table"
    )
    return lobby, board, opened.id


async def open_console(player: Player, board: Message) -> Message:
    opened = await player.click(board, "My hand")
    assert opened.message is not None and opened.message.ephemeral
    return opened.message


async def hands_now(bot: Any, session: int, players: list[Player]) -> dict[int, list[int]]:
    hands = {}
    for player in players:
        view = await bot.sessions.view(session, str(player.id))
        hands[player.id] = [card["card"] for card in view["hand"]]
    return hands


async def no_hand_shown(bot: Any, table: Table, session: int, players: list[Player]) -> None:
    """No channel message and no private message of another player shows a card of a hand."""
    hands = await hands_now(bot, session, players)

    def shown(message: Message, cards: list[int]) -> list[int]:
        return [
            card for card in cards if card_text({"card": card, "colour": COLOUR_OF[card]}) in message.text
        ]

    for message in table.channel_messages():
        for cards in hands.values():
            assert shown(message, cards) == [], message.text
            labels = " ".join(message.button_labels)
            assert [card for card in cards if str(card) in labels.split()] == [], labels
    for player in players:
        others = [card for owner, cards in hands.items() if owner != player.id for card in cards]
        for message in player.ephemerals:
            assert shown(message, others) == [], message.text
            assert not set(message.button_labels) & {str(card) for card in others}, message.button_labels


def enabled_cards(console: Message) -> list[str]:
    return [b["label"] for b in console.buttons if b["label"].isdigit() and not b.get("disabled")]


def turn_notices(table: Table) -> list[Message]:
    return [m for m in table.channel_messages() if "in Top Drop" in m.text and not m.deleted and not m.embeds]


@pytest.mark.both_databases
async def test_a_short_game_from_the_consoles_to_victory_shows_no_hand_in_public(
    product_bot: Any, table: Table
) -> None:
    alice, bob = table.user("alice"), table.user("bob")
    players = [alice, bob]
    setup = rigged({str(alice.id): [30, 41, 52, 57], str(bob.id): [33, 44, 56, 59]}, deck=[35, 47])
    _, board, session = await open_game(product_bot, table, players, setup)
    assert "Top Drop — who starts?" in board.text and board.button_labels == ["My hand", "Start"]
    assert board.files["topdrop.png"].startswith(b"\x89PNG")
    assert "Top card: **🟥20** (red)" in board.text and "**Alice**: 4 in hand" in board.text
    assert "Hands · draw pile: 2" in board.text

    # Bob's console, open before the game starts; then the team's choice from the menu: Alice, UP.
    his = await open_console(bob, board)
    assert "The team decides who starts" in his.text and enabled_cards(his) == []
    await bob.select(board, f"{alice.id}-up")
    assert "**Alice** starts." in board.text and "Top Drop — turn 1: Alice" in board.text
    [notice] = turn_notices(table)
    assert notice.pinged == [alice.id]
    await no_hand_shown(product_bot, table, session, players)

    # Alice's turn: 30 then 41, confirmed; she refills from the draw pile.
    mine = await open_console(alice, board)
    assert enabled_cards(mine) == ["30", "41", "52", "57"]
    assert [label for label in mine.button_labels if label in ("Skip", "Flip", "Color")] == ["Skip", "Color"]
    await alice.click(mine, "30")
    assert enabled_cards(mine) == ["41", "52", "57"] and "Play 30" in mine.button_labels
    await alice.click(mine, "41")
    assert enabled_cards(mine) == []
    stale, play = copy.deepcopy(mine.raw), mine.button("Play 30, then 41")["custom_id"]
    await alice.click(mine, "Play 30, then 41")
    assert "**Alice** placed **🟥30** **🟨41**." in board.text and "Top card: **🟨41** (yellow)" in board.text
    assert (
        "Your cards: **🟩35** **🟪47** **🟩52** **🟨57**" in mine.text
        and "It is **Bob**'s turn." in mine.text
    )
    # Which cards are new in her sorted hand: said to her alone, in her console.
    assert "You drew **🟩35** **🟪47**." in mine.text
    assert all("You drew" not in message.text for message in [*table.channel_messages(), *bob.ephemerals])
    # Bob did nothing: his open console is edited live, his turn now.
    await table.fake.wait_until(
        lambda: enabled_cards(his) == ["44", "56", "59"], within=5, what="Bob's console"
    )
    # The same Play pressed again on the console as it was: refused inside the console, no new message.
    privately = len(alice.ephemerals)
    data = {"custom_id": play, "component_type": 2}
    record = await table.fake.send_interaction(
        alice.user, 3, data, channel_id=table.channel_id, message=stale
    )
    await table.fake.wait_until(lambda: record.completed, within=5, what="the refusal")
    assert "⚠️" in mine.text and len(alice.ephemerals) == privately and enabled_cards(mine) == []
    await no_hand_shown(product_bot, table, session, players)

    # Bob hints to the table, once this turn; then plays 44 and 56.
    await bob.click(his, "I only have high cards.")
    assert "💬 **Bob**: “I only have high cards.”" in board.text
    assert all(b.get("disabled") for b in his.buttons if b["label"] == "I only have low cards.")
    await bob.click(his, "44")
    await bob.click(his, "56")
    await bob.click(his, "Play 44, then 56")
    assert "Top Drop — turn 3: Alice" in board.text

    # Alice flips the Direction Card and goes down: 52 then 47.
    await table.fake.wait_until(lambda: "Flip" in mine.button_labels, within=5, what="Alice's console")
    assert enabled_cards(mine) == ["57"]  # UP from 56
    await alice.click(mine, "Flip")
    assert enabled_cards(mine) == ["35", "47", "52"]
    await alice.click(mine, "52")
    await alice.click(mine, "47")
    await alice.click(mine, "Play 52, then 47")
    assert "**Alice** used Flip and placed **🟩52** **🟪47**." in board.text and "⬇️ **DOWN**" in board.text
    await no_hand_shown(product_bot, table, session, players)

    await table.fake.wait_until(lambda: enabled_cards(his) == ["33"], within=5, what="Bob's console")
    await bob.click(his, "33")
    await bob.click(his, "Play 33")
    await table.fake.wait_until(lambda: "Flip" in mine.button_labels, within=5, what="Alice's console")
    await alice.click(mine, "Flip")
    await alice.click(mine, "35")
    await alice.click(mine, "57")
    await alice.click(mine, "Play 35, then 57")
    assert "Your hand is empty" in mine.text
    await table.fake.wait_until(lambda: enabled_cards(his) == ["59"], within=5, what="Bob's console")
    await bob.click(his, "59")
    await bob.click(his, "Play 59")

    over = await table.wait_for_message(lambda m: "Top Drop — victory!" in m.text, what="the final table")
    assert "🏆 Every card is on the pile: the team wins!" in over.text and "You are top-tier!" in over.text
    assert over.buttons == []
    await table.settle()
    assert turn_notices(table) == []
    results = await product_bot.store.results.for_session(session)
    assert {str(row.user_id) for row in results} == {str(alice.id), str(bob.id)}
    assert all(m.ephemeral for m in [*alice.ephemerals, *bob.ephemerals])
    assert table.fake.rate_limited == []


async def fire(bot: Any, table: Table, session: int, meaning: str, seconds: float = 120) -> None:
    """The timer of that meaning comes due (for the loopback Discord too) and fires, as the timer wheel would."""
    record = await bot.sessions.session(session)
    [(key, timer)] = [(key, timer) for key, timer in record.timers.items() if key.startswith(f"{meaning}:")]
    table.clock.advance(seconds)
    assert await bot.sessions.fire_timer(session, key, timer["at"]) is not None
    await table.settle()


async def test_an_idle_player_is_reminded_then_the_others_vote_and_no_ends_the_game_lost(
    product_bot: Any, table: Table
) -> None:
    alice, bob, carol = table.user("alice"), table.user("bob"), table.user("carol")
    players = [alice, bob, carol]
    hands = {str(alice.id): [30, 41, 52, 57], str(bob.id): [33, 44, 56, 59], str(carol.id): [2, 5, 9, 11]}
    _, board, session = await open_game(product_bot, table, players, {**rigged(hands, deck=[35, 47])})
    await alice.click(board, "Start")  # the host starts, the Direction Card as it lies
    assert "Top Drop — turn 1: Alice" in board.text and "Reminder <t:" in board.text
    [notice] = turn_notices(table)

    # Alice does nothing: reminded, mentioned again in a new message (the first one goes).
    await fire(product_bot, table, session, "turn")
    assert "⏰ **Alice**, the team is waiting for you." in board.text
    [reminder] = turn_notices(table)
    assert notice.deleted and REMINDER in reminder.text and reminder.pinged == [alice.id]

    # Still nothing: Bob and Carol are asked whether to wait, with the ballots on the table.
    await fire(product_bot, table, session, "ask")
    assert "Wait for **Alice**? The others vote" in board.text
    assert board.button_labels == ["My hand", "Wait", "Don't wait"]
    [asked] = turn_notices(table)
    assert sorted(asked.pinged) == sorted([alice.id, bob.id, carol.id])
    refused = await alice.click(board, "Wait")  # the idle player has no ballot
    assert refused.ephemeral and "⚠️" in refused.text
    await bob.click(board, "Don't wait")
    assert "Wait: 0 · Don't wait: 1 · voters: 2" in board.text
    await carol.click(board, "Don't wait")

    over = await table.wait_for_message(lambda m: "Top Drop — game over" in m.text, what="the final table")
    assert "The team did not wait for **Alice**: the game is lost by abandonment." in over.text
    assert "Cards not placed: 14." in over.text and over.buttons == []
    results = await product_bot.store.results.for_session(session)
    assert {str(row.user_id) for row in results} == {str(p.id) for p in players}
    await no_hand_shown(product_bot, table, session, players)


async def test_rules_topdrop_attaches_the_page_with_the_colour_table(table: Table, product_bot: Any) -> None:
    rules = next(c for c in table.fake.all_commands() if c["name"] == "rules")
    assert "topdrop" in [choice["value"] for choice in rules["options"][0]["choices"]]
    reply = await table.user("alice").slash("rules", game="topdrop")
    assert reply.answer is not None and reply.ephemeral
    page = reply.answer.files["topdrop-rules.md"].decode()
    assert "| red | 3, 7, 12, 20, 29, 30, 32, 36, 43, 46, 51, 53 |" in page
