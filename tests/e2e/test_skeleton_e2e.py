"""Skeleton against the loopback Discord: the template game on the whole platform. A lobby, a join, the
start; each player's live console of buttons (their hand, Draw, Pass) pressed in place and edited when
another acts; news of the card the bot drew for an idle player; the turn message that mentions only the
player on turn; the table's pace; the host's end — and the rule the game exists to show: a hand only ever
reaches its owner, privately, never the channel.

Skeleton is not offered to servers; this bot loads it as any test or developer would, with EXTRA_GAMES.
"""

from __future__ import annotations

import asyncio
import copy
import re
from typing import Any

import pytest

from .conftest import requires_product
from .driver import Message, Player, Table

pytestmark = requires_product

HAND = re.compile(r"Your hand: \*\*(\d[♠♥♦♣])\*\*")
TURN_NOTICE = "your turn in Skeleton"


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


async def open_console(player: Player, board: Message) -> Message:
    opened = await player.click(board, "My hand")
    assert opened.message is not None and opened.message.ephemeral
    return opened.message


async def press(table: Table, player: Player, console: Message, label: str) -> None:
    """A press on a console once it offers `label` (it is edited live), waiting only until the console is
    redrawn, not for the table (whose redraw may wait for the pace)."""
    await table.fake.wait_until(
        lambda: label in console.button_labels, within=5, what=f"{label} on {player.name}'s console"
    )
    data = {"custom_id": console.button(label)["custom_id"], "component_type": 2}
    record = await table.fake.send_interaction(
        player.user, 3, data, channel_id=table.channel_id, message=copy.deepcopy(console.raw)
    )
    await table.fake.wait_until(lambda: record.completed, within=5, what=f"the console redrawn after {label}")


def never_in_the_channel(table: Table, cards: list[str]) -> None:
    for message in table.channel_messages():
        for card in cards:
            assert card not in message.text, (card, message.text)


def turn_notices(table: Table) -> list[Message]:
    return [m for m in table.channel_messages() if TURN_NOTICE in m.text and not m.deleted]


async def test_the_console_plays_in_place_refuses_inside_and_follows_the_others_moves(
    product_bot: Any, table: Table
) -> None:
    alice, bob, board, _ = await start_game(product_bot, table)
    assert board.button_labels == ["My hand"] and "Alice draws a card." in board.text

    mine = await open_console(alice, board)
    assert "Your hand is empty." in mine.text and "Your turn: draw a card." in mine.text
    assert mine.button_labels == ["Draw"]
    his = await open_console(bob, board)
    assert "It is **Alice**'s turn." in his.text and his.button_labels == []

    # Alice draws from her console: the same message is redrawn with the card as a button, and Pass.
    privately = len(alice.ephemerals)
    drew = await alice.click(mine, "Draw")
    assert drew.message is not None and drew.message.id == mine.id
    [card] = HAND.findall(mine.text)
    rank = int(card[0])
    assert mine.button_labels == [f"{card} (+{rank})", "Pass"] and "play a card or pass" in mine.text
    assert "Alice drew a card." in board.text and "Alice: **0** · 1 in hand" in board.text
    never_in_the_channel(table, [card])

    # Her card, played from the console: on the pile and in her score; her console says it is Bob's turn,
    # and Bob's console — he did nothing — is edited live to offer him the draw.
    await alice.click(mine, f"{card} (+{rank})")
    assert "Your hand is empty." in mine.text and "It is **Bob**'s turn." in mine.text
    assert mine.button_labels == [] and len(alice.ephemerals) == privately
    assert f"Alice played {card} (+{rank})." in board.text and f"Alice: **{rank}**" in board.text
    await table.fake.wait_until(lambda: "Your turn: draw a card." in his.text, within=5, what="Bob's console")
    assert his.button_labels == ["Draw"]

    # Bob draws, then presses the Draw of the console as it was: the refusal is drawn inside that console.
    stale, draw = copy.deepcopy(his.raw), his.button("Draw")["custom_id"]
    await bob.click(his, "Draw")
    [held] = HAND.findall(his.text)
    privately = len(bob.ephemerals)
    data = {"custom_id": draw, "component_type": 2}
    record = await table.fake.send_interaction(bob.user, 3, data, channel_id=table.channel_id, message=stale)
    await table.fake.wait_until(lambda: record.completed, within=5, what="the refusal")
    assert "⚠️ You have drawn this turn already" in his.text and len(bob.ephemerals) == privately
    assert his.button_labels == [f"{held} (+{held[0]})", "Pass"]

    await bob.click(his, "Pass")
    assert "Skeleton — Alice to play" in board.text and "Bob: **0** · 1 in hand" in board.text
    never_in_the_channel(table, [held])
    assert all(m.ephemeral for m in [*alice.ephemerals, *bob.ephemerals])
    assert table.fake.rate_limited == []


async def run_out_the_turn(bot: Any, table: Table, session: int) -> None:
    """The turn's time passes (for the loopback Discord too) and its timer fires, as the bot's timer wheel
    fires it at the deadline."""
    record = await bot.sessions.session(session)
    [(key, timer)] = [(key, timer) for key, timer in record.timers.items() if key.startswith("turn:")]
    table.clock.advance(record.options.get("turn_seconds", 120))
    assert await bot.sessions.fire_timer(session, key, timer["at"]) is not None
    await table.settle()


async def test_the_card_drawn_for_an_idle_player_is_news_to_them_alone(
    product_bot: Any, table: Table
) -> None:
    alice, bob, board, session = await start_game(product_bot, table)
    mine = await open_console(alice, board)

    # Alice lets her turn run out: the bot draws for her, face down. She did nothing, and her open console
    # tells her which card it was.
    await run_out_the_turn(product_bot, table, session)
    assert "Alice ran out of time" in board.text and "Skeleton — Bob to play" in board.text
    await table.fake.wait_until(lambda: "News:" in mine.text, within=5, what="Alice's news")
    [card] = re.findall(r"the bot drew (\d[♠♥♦♣]) for you", mine.text)
    assert HAND.findall(mine.text) == [card] and "It is **Bob**'s turn." in mine.text

    # Bob, whose console is closed, lets his run out too: the news waits for his next private answer.
    await run_out_the_turn(product_bot, table, session)
    assert "Bob ran out of time" in board.text and "Skeleton — Alice to play" in board.text
    his = await open_console(bob, board)
    [held] = re.findall(r"the bot drew (\d[♠♥♦♣]) for you", his.text)
    assert his.text.index("News:") < his.text.index("Your hand:") and HAND.findall(his.text) == [held]
    # Told once: the next opening shows the hand without the news.
    again = await open_console(bob, board)
    assert "News:" not in again.text and HAND.findall(again.text) == [held]

    never_in_the_channel(table, [card, held])
    assert all("News:" not in m.text and "for you" not in m.text for m in table.channel_messages())


async def test_the_turn_message_mentions_only_the_player_on_turn_and_is_replaced_each_turn(
    product_bot: Any, table: Table
) -> None:
    alice, bob, board, _ = await start_game(product_bot, table)
    first = await table.wait_for_message(lambda m: TURN_NOTICE in m.text, what="the turn notice")
    assert first.pinged == [alice.id] and f"<@{alice.id}>" in first.text
    sent = next(r for r in table.fake.requests if r.method == "POST" and TURN_NOTICE in str(r.body))
    allowed = sent.body["allowed_mentions"]  # that one user: never roles, never @everyone
    assert [int(user) for user in allowed["users"]] == [alice.id] and allowed["parse"] == []
    assert not allowed.get("roles")

    mine = await open_console(alice, board)
    await alice.click(mine, "Draw")
    assert not first.deleted  # still Alice's turn: the same message stands
    await alice.click(mine, "Pass")
    await table.fake.wait_until(lambda: first.deleted, within=5, what="Alice's turn message deleted")
    [second] = turn_notices(table)
    assert second.pinged == [bob.id] and f"<@{alice.id}>" not in second.text

    his = await open_console(bob, board)
    await bob.click(his, "Draw")
    await bob.click(his, "Pass")
    await table.fake.wait_until(lambda: second.deleted, within=5, what="Bob's turn message deleted")
    assert [m.pinged for m in turn_notices(table)] == [[alice.id]]
    assert table.fake.rate_limited == []


@pytest.mark.real_pace
async def test_quick_moves_coalesce_into_fewer_table_edits_and_the_last_state_shows_within_one_interval(
    product_bot: Any, table: Table
) -> None:
    alice, bob, board, _ = await start_game(product_bot, table)
    interval = product_bot.get_cog("Skeleton").redraw_interval
    assert interval > 0
    mine, his = await open_console(alice, board), await open_console(bob, board)
    await table.settle()

    def table_edits() -> int:
        return sum(
            1 for r in table.fake.requests if r.method == "PATCH" and f"/messages/{board.id}" in r.path
        )

    before = table_edits()
    loop = asyncio.get_running_loop()
    started = loop.time()
    moves = [(alice, mine, "Draw"), (alice, mine, "Pass"), (bob, his, "Draw"), (bob, his, "Pass")] * 2
    for player, console, label in moves:  # each press waits only for its own console, not for the table
        await press(table, player, console, label)
    last_press = loop.time()
    await table.fake.wait_until(
        lambda: "Skeleton — Alice to play" in board.text and "Bob: **0** · 2 in hand" in board.text,
        within=interval + 5,
        what="the table's last state",
    )
    shown_after = loop.time() - last_press
    await table.fake.settle(quiet=interval + 0.2, within=30)
    edits = table_edits() - before
    assert edits < len(moves) and edits <= (last_press - started) / interval + 2, edits
    assert shown_after <= interval + 0.5, shown_after
    assert table.fake.rate_limited == []


async def test_the_host_ends_the_game_and_the_best_score_wins(product_bot: Any, table: Table) -> None:
    alice, _, board, _ = await start_game(product_bot, table)
    mine = await open_console(alice, board)
    await alice.click(mine, "Draw")
    [card] = HAND.findall(mine.text)
    await alice.click(mine, f"{card} (+{card[0]})")
    ended = await alice.slash("skeleton end")
    assert ended.ephemeral
    over = await table.wait_for_message(lambda m: "Skeleton — game over" in m.text, what="the end")
    assert "Winner: **Alice**" in over.text and over.buttons == []
    await table.fake.wait_until(lambda: "The game is over." in mine.text, within=5, what="the console")
    assert mine.button_labels == [] and turn_notices(table) == []
