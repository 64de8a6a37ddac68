"""Private consoles, news, turn notices and the table's pace, played through the loopback Discord.

The fake enforces what these features run into: an interaction token edits its message for 15 minutes and
no longer; each token's webhook and each channel's messages have rate limits (announced in X-RateLimit-*
headers, answered 429 when exceeded, and any 429 is a violation that fails the test).
"""

from __future__ import annotations

import asyncio
import copy
import json
import time
from typing import Any

import pytest

from .conftest import requires_product
from .driver import Message, Player, Table
from .test_topstop_e2e import Game
from .test_topwords_e2e import start_game

pytestmark = requires_product


def turn_messages(table: Table) -> list[Message]:
    return [m for m in table.channel_messages() if "your turn in TopWords" in m.text]


async def press(table: Table, player: Player, message: Message, custom_id: str) -> None:
    """A press of `custom_id` on `message` (a console), answered within Discord's 3 seconds."""
    data = {"custom_id": custom_id, "component_type": 2}
    record = await table.fake.send_interaction(
        player.user, 3, data, channel_id=table.channel_id, message=copy.deepcopy(message.raw)
    )
    await table.fake.wait_until(lambda: record.acknowledged, within=3.0, what="the press's answer")


async def test_a_topwords_console_follows_the_game_tells_news_and_the_turn_mentions_one_user(
    product_bot: Any, table: Table
) -> None:
    alice, bob, first = await start_game(product_bot, table, "challenge")
    opened = await bob.click(first, "My rack")
    console = opened.message
    assert console is not None and console.ephemeral and "A U M L N A G" in console.text
    assert "It is **Alice**'s turn." in console.text and console.button_labels == []

    notice = await table.wait_for_message(lambda m: "your turn in TopWords" in m.text, what="the turn notice")
    assert notice.pinged == [alice.id] and f"<@{alice.id}>" in notice.text
    sent = next(r for r in table.fake.requests if r.method == "POST" and "your turn" in str(r.body))
    allowed = sent.body["allowed_mentions"]  # that one user; never roles, never @everyone
    assert [int(user) for user in allowed["users"]] == [alice.id] and allowed["parse"] == []
    assert not allowed.get("roles")

    # Alice moves: Bob's console, open since his click, is edited to say it is his turn (he did nothing).
    await alice.slash("topwords play", word="SIEB", square="C5", direction="across")
    await table.fake.wait_until(
        lambda: "It is your turn." in console.text, within=5, what="Bob's live console"
    )
    assert console.button_labels == ["Pass"]
    await table.fake.wait_until(lambda: notice.deleted, within=5, what="the old turn notice deleted")
    assert [m.pinged for m in turn_messages(table)] == [[bob.id]]

    # Bob lays a made-up word; Alice challenges: his move is taken back. His new rack is news told to him,
    # who did not act: it reaches his live console, and never a channel message.
    await bob.slash("topwords play", word="BMUA", square="F5", direction="down")
    board = table.last_message
    await alice.click(board, "Challenge")
    await table.fake.wait_until(lambda: "Your tiles now" in console.text, within=8, what="Bob's news")
    assert "A U M L N A G" in console.text.split("Your tiles now", 1)[1]
    assert all("Your tiles now" not in m.text for m in table.channel_messages())

    # A press on a console that the rules refuse is drawn inside the console pressed: no new message.
    mine = (await alice.click(table.last_message, "My rack")).message
    assert mine is not None and "It is **Bob**'s turn." in mine.text
    private_before = len(alice.ephemerals)
    pass_id = console.button("Pass")["custom_id"]
    await press(table, alice, mine, pass_id)
    await table.fake.wait_until(
        lambda: "⚠️ It is Bob's turn." in mine.text, within=5, what="the refusal inside"
    )
    assert len(alice.ephemerals) == private_before

    # Bob passes from his console: it is redrawn in place; Alice's turn is mentioned anew.
    edits = sum(1 for r in table.fake.requests if r.method == "PATCH" and "/webhooks/" in r.path)
    await press(table, bob, console, pass_id)
    await table.fake.wait_until(lambda: "It is **Alice**'s turn." in console.text, within=5, what="passed")
    assert sum(1 for r in table.fake.requests if r.method == "PATCH" and "/webhooks/" in r.path) > edits
    await table.fake.wait_until(
        lambda: [m.pinged for m in turn_messages(table)] == [[alice.id]], within=5, what="Alice's turn notice"
    )
    await table.settle()
    assert table.fake.rate_limited == []


async def test_a_console_past_its_token_is_not_edited_and_turned_off_notices_mention_nobody(
    product_bot: Any, table: Table
) -> None:
    alice, bob, first = await start_game(product_bot, table, "strict")
    off = await bob.slash("profile turn_notices", wanted=False)
    assert off.ephemeral and "no longer mention you" in off.text
    console = (await bob.click(first, "My rack")).message
    assert console is not None
    cog = product_bot.get_cog("TopWords")
    # Fifteen minutes pass, for the loopback Discord and for the bot: the console's token is dead.
    table.fake.clock.advance(15 * 60)
    cog.consoles.clock = lambda: time.monotonic() + 15 * 60
    shown = console.text
    await alice.slash("topwords play", word="SIEB", square="C5", direction="across")
    await table.settle()
    assert console.text == shown  # not edited (the fake would have refused it: a violation)
    assert all(m.pinged != [bob.id] for m in table.channel_messages())  # Bob turned his notices off
    assert turn_messages(table) == []


@pytest.mark.real_pace
async def test_a_burst_of_eight_players_pressing_ten_times_a_second_gets_a_paced_table_and_no_429(
    product_bot: Any, table: Table
) -> None:
    names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]
    game = await Game.open(table, names, product_bot, language="en")
    board = await game.first_spin()
    letter = await game.spin(board)
    cog = product_bot.get_cog("Top Stop")
    interval = cog.redraw_interval
    forms = []
    for player in game.players:
        opened = await player.click(board, "Write my words")
        assert opened.kind == "modal"
        forms.append((player, table.fake.modals.pop(player.id)))
    await table.settle()

    def submission(form: Any, count: int) -> dict[str, Any]:
        inputs = [
            {"type": 4, "custom_id": f"word{i}", "value": f"{letter}ood{chr(97 + i)}" if i <= count else ""}
            for i in range(1, 6)
        ]
        return {
            "custom_id": form.modal["custom_id"],
            "components": [{"type": 1, "components": [c]} for c in inputs],
        }

    edits_before = [
        r for r in table.fake.requests if r.method == "PATCH" and f"/messages/{board.id}" in r.path
    ]
    loop = asyncio.get_running_loop()
    started = loop.time()
    sent = []
    for tick in range(10):  # one second: each player presses ten times
        for index, (player, form) in enumerate(forms):
            count = (tick + index) % 5 + 1
            sent.append(
                await table.fake.send_interaction(
                    player.user, 5, submission(form, count), channel_id=table.channel_id,
                    message=copy.deepcopy(board.raw), trigger=form,
                )
            )  # fmt: skip
        await asyncio.sleep(max(0.0, started + (tick + 1) * 0.1 - loop.time()))
    last_press = loop.time()
    requests_at_last_press = len(table.fake.requests)
    final = {player.name.capitalize(): (9 + index) % 5 + 1 for index, (player, _) in enumerate(forms)}
    expected = [f"{name} ({count})" for name, count in final.items()]
    await table.fake.wait_until(
        lambda: all(name in board.text for name in expected), within=interval + 5, what="the last state"
    )
    await table.fake.settle(quiet=interval + 0.2, within=30)
    assert all(record.acknowledged for record in sent)
    edits = [r for r in table.fake.requests if r.method == "PATCH" and f"/messages/{board.id}" in r.path]
    paced = len(edits) - len(edits_before)
    assert paced <= (last_press - started) / interval + 2, paced
    # The last state is never held back beyond the next paced redraw: one redraw may have been under way
    # with an older state when the last press came, the next one shows it.
    later_edits = [
        json.dumps(r.body, ensure_ascii=False)
        for r in table.fake.requests[requests_at_last_press:]
        if r.method == "PATCH" and f"/messages/{board.id}" in r.path
    ]
    first_final = next(i for i, body in enumerate(later_edits) if all(name in body for name in expected))
    assert first_final <= 1, later_edits
    assert table.fake.rate_limited == []
