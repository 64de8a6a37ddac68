"""Skeleton against the loopback Discord: a lobby, a join, the start, a card drawn and played through the
table's buttons and the private hand, an idle turn the timer ends, and the host's end — and the rule the
game exists to show: a hand only ever reaches its owner, ephemerally, never the channel.

Skeleton is not offered to servers; this bot loads it as any test or developer would, with EXTRA_GAMES.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import requires_product
from .driver import Message, Player, Table

pytestmark = requires_product

CARD = re.compile(r"You drew (\d[♠♥♦♣])")


@pytest.fixture(autouse=True)
def skeleton_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXTRA_GAMES", "skeleton")


async def start_game(bot: Any, table: Table) -> tuple[Player, Player, Message, int]:
    """Alice opens a lobby, Bob joins, Alice starts and plays first: the first table and the session."""
    alice, bob = table.user("alice"), table.user("bob")
    lobby = (await alice.slash("skeleton new", target=8)).linked
    assert lobby is not None and "Skeleton — lobby" in lobby.text and "First to 8 points" in lobby.text
    await bob.click(lobby, "Join")
    opened = await bot.sessions.open_in_channel(table.channel_id)
    record = await bot.sessions.session(opened.id)  # the engine's own copy, which start_game deals from
    record.setup = {"first_player": str(alice.id)}
    await alice.click(lobby, "Start")
    first = await table.wait_for_message(lambda m: "Skeleton — Alice to play" in m.text, what="the table")
    return alice, bob, first, opened.id


def never_in_the_channel(table: Table, cards: list[str]) -> None:
    for message in table.channel_messages():
        for card in cards:
            assert card not in message.text, (card, message.text)


async def test_a_card_drawn_and_played_the_hand_only_ever_ephemeral(product_bot: Any, table: Table) -> None:
    alice, bob, board, _ = await start_game(product_bot, table)
    assert board.button_labels == ["My hand", "Draw"] and "Alice draws a card." in board.text

    early = await bob.click(board, "Draw")
    assert early.ephemeral and "It is not your turn." in early.text

    drew = await alice.click(board, "Draw")
    assert drew.private is not None
    [card] = CARD.findall(drew.private.text)
    assert f"Your hand: **{card}**" in drew.private.text
    assert "Alice drew a card." in board.text and "Alice plays a card or passes." in board.text
    assert board.button_labels == ["My hand", "Play a card", "Pass"]
    never_in_the_channel(table, [card])

    mine = await bob.click(board, "My hand")
    assert mine.ephemeral and "Your hand is empty." in mine.text

    hand = await alice.click(board, "Play a card")
    assert hand.private is not None and "Which card do you play?" in hand.private.text
    rank = int(card[0])
    played = await alice.click(hand.private, f"{card} (+{rank})")
    assert played.message is not None and played.message.ephemeral
    assert f"You played {card} (+{rank})." in played.message.text and played.message.buttons == []
    # Played, the card is public: on the pile, in the score, and the turn is Bob's.
    assert f"Alice played {card} (+{rank})." in board.text and f"**{card}**" in board.text
    assert f"Alice: **{rank}**" in board.text and "Skeleton — Bob to play" in board.text

    his = await bob.click(board, "Draw")
    assert his.private is not None
    [held] = CARD.findall(his.private.text)
    await bob.click(board, "Pass")
    assert "Skeleton — Alice to play" in board.text and "Bob: **0** · 1 in hand" in board.text
    never_in_the_channel(table, [held])
    assert all(m.ephemeral for m in bob.ephemerals)


async def test_an_idle_turn_ends_by_itself_and_its_card_stays_secret(product_bot: Any, table: Table) -> None:
    alice, _, board, session = await start_game(product_bot, table)
    record = await product_bot.sessions.session(session)
    [key] = [key for key in record.timers if key.startswith("turn:")]
    assert await product_bot.sessions.fire_timer(session, key) is not None
    await table.settle()
    assert "Alice ran out of time" in board.text and "Skeleton — Bob to play" in board.text
    assert "Alice: **0** · 1 in hand" in board.text
    mine = await alice.click(board, "My hand")
    [card] = re.findall(r"Your hand: \*\*(\d[♠♥♦♣])\*\*", mine.text)
    never_in_the_channel(table, [card])


async def test_the_host_ends_the_game_and_the_best_score_wins(product_bot: Any, table: Table) -> None:
    alice, _, board, _ = await start_game(product_bot, table)
    drew = await alice.click(board, "Draw")
    assert drew.private is not None
    [card] = CARD.findall(drew.private.text)
    hand = await alice.click(board, "Play a card")
    assert hand.private is not None
    await alice.click(hand.private, f"{card} (+{card[0]})")
    ended = await alice.slash("skeleton end")
    assert ended.ephemeral
    over = await table.wait_for_message(lambda m: "Skeleton — game over" in m.text, what="the end")
    assert "Winner: **Alice**" in over.text and over.buttons == []
