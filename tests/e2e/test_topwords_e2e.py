"""TopWords against the fake Discord: three moves with the board picture, a rack only its owner sees,
a challenge in challenge mode, a refused word put to the vote, German for a German client, and the
table's buttons after the bot is killed and restarted.

The deal is fixed: after the lobby opens, the test sets the session's `setup` (what the rules deal from)
to the rulebook's opening — Alice lays SIEB, Bob BAUM down from its B, Alice RAT (docs/rules/topwords.md).
"""

from __future__ import annotations

import copy
import re
import signal
from collections.abc import Callable
from typing import Any

import pytest

from .conftest import requires_product
from .driver import Message, Player, Reply, Table
from .fake_discord import FakeDiscord
from .process import SpawnBot, wait_for_new_session

pytestmark = requires_product

PRODUCT = "bot.__main__:main"
RACKS = {"alice": "SIEBRTS", "bob": "AUMLNAG"}
BAG = "FERNELOEHDK"


def is_table(message: Message) -> bool:
    return any(a["filename"] == "board.png" for a in message.attachments)


async def start_game(bot: Any, table: Table, mode: str) -> tuple[Player, Player, Message]:
    """Alice opens a lobby, Bob joins, the deal is fixed, Alice starts: returns the first table message."""
    alice, bob = table.user("alice"), table.user("bob")
    lobby = (await alice.slash("topwords new", mode=mode)).linked
    assert lobby is not None
    await bob.click(lobby, "Join")
    opened = await bot.sessions.open_in_channel(table.channel_id)
    record = await bot.sessions.session(opened.id)  # the engine's own copy, which start_game deals from
    record.setup = {
        "first_player": str(alice.id),
        "racks": {str(alice.id): RACKS["alice"], str(bob.id): RACKS["bob"]},
        "bag": BAG,
    }
    await alice.click(lobby, "Start")
    first = await table.wait_for_message(is_table, what="the first TopWords table")
    await host_sees_rack(table, alice)
    return alice, bob, first


async def host_sees_rack(table: Table, host: Player) -> None:
    """The host pressed Start: after the table (the picture takes a moment) comes her rack, privately."""
    await table.fake.wait_until(
        lambda: any("Your rack" in m.text for m in host.ephemerals), within=5, what="the host's rack"
    )
    await table.settle()


async def test_three_moves_a_private_rack_and_the_scores(product_bot: Any, table: Table):
    alice, bob, first = await start_game(product_bot, table, "strict")
    assert "TopWords — Alice to move" in first.text and first.button_labels == ["My rack"]
    assert first.files["board.png"].startswith(b"\x89PNG")
    assert "S I E B R T S" in alice.last_ephemeral.text  # the host pressed Start: her rack, privately

    rack = await bob.click(first, "My rack")
    assert rack.ephemeral and "A U M L N A G" in rack.text
    assert rack.message is not None and rack.message.id not in {m.id for m in alice.ephemerals}

    early = await bob.slash("topwords play", word="baum", square="F5", direction="down")
    assert early.ephemeral and "It is not your turn: Alice is to move." in early.text

    played = await alice.slash("topwords play", word="sieb", square="C5", direction="across")
    assert played.ephemeral and "You played **SIEB** (4) → **8** points (doubled)." in played.text
    assert "**R T S F E R N**" in played.text
    second = table.last_message
    assert is_table(second) and second.id != first.id
    assert first.buttons == []  # the old table stays as the record of its move, without buttons
    assert "TopWords — Bob to move" in second.text
    assert "**Alice**: **SIEB** (4) → **8** points (doubled)" in second.text

    await bob.slash("topwords play", word="Baum", square="f5", direction="down")
    played = await alice.slash("topwords play", word="RAT", square="E6", direction="across")
    assert "**RAT** (3) · **ER** (2) → **10** points (doubled)" in played.text
    last = table.last_message
    assert "**18** Alice · rack: 7\n**8** Bob · rack: 7" in last.text and "Tiles in the bag: 77" in last.text

    tables = [m for m in table.channel_messages() if is_table(m)]
    assert len(tables) == 4 and all(m.pinged == [] for m in tables)
    for secret in ("A U M L N A G", "L N A G E L O", "S I E B R T S", "S F E R N E H"):
        assert all(secret not in m.text for m in table.channel_messages())

    status = await bob.slash("topwords status")
    assert status.ephemeral and status.message is not None and "board.png" in status.message.files
    assert "**L N A G E L O**" in status.text  # his own rack, to him only
    watching = await table.user("carol").slash("topwords rack")
    assert watching.ephemeral and "You are not playing in this game" in watching.text

    refused = await bob.slash("topwords end")
    assert refused.ephemeral and "Only the host" in refused.text
    ended = await alice.slash("topwords end")
    assert ended.ephemeral and "no result is recorded" in ended.text
    await table.wait_for_message(lambda m: "TopWords game #1 was ended early" in m.text, what="the end")
    assert last.buttons == []


async def test_a_challenge_takes_a_made_up_word_back(product_bot: Any, table: Table):
    alice, bob, _ = await start_game(product_bot, table, "challenge")
    await alice.slash("topwords play", word="SIEB", square="C5", direction="across")
    played = await bob.slash("topwords play", word="BMUA", square="F5", direction="down")
    assert "The others may challenge it until the next player acts." in played.text
    board = table.last_message
    assert board.button_labels == ["My rack", "Challenge", "Dispute"]

    challenged = await alice.click(board, "Challenge")
    assert challenged.kind == "deferred update"  # the dictionary's check comes after the answer
    after = await table.wait_for_message(lambda m: "taken back" in m.text, what="the move taken back")
    assert "challenged the move of **Bob**: **BMUA** (not in the dictionary) not allowed." in after.text
    assert "The move of **Bob** is taken back (8 points)" in after.text and "Bob to move" in after.text
    assert "A U M L N A G" in (await bob.click(after, "My rack")).text  # the tiles are back on his rack

    await bob.slash("topwords play", word="BAUM", square="F5", direction="down")
    board = table.last_message
    await alice.click(board, "Challenge")
    await until(table, lambda: "every word is allowed, the move stands" in board.text, "the failed challenge")
    assert board.button_labels == ["My rack", "Dispute"]

    refused = await bob.click(board, "Dispute")  # his own move: a private refusal
    assert refused.ephemeral and refused.text == "⚠️ There is nothing to dispute: it is your own move."


async def test_a_refused_word_goes_to_the_vote_in_german(product_bot: Any, table: Table):
    table.user("bob").user.locale = "de"
    alice, bob, _ = await start_game(product_bot, table, "strict")
    await alice.slash("topwords play", word="SIEB", square="C5", direction="across")

    refused = await bob.slash("topwords play", word="BMUA", square="F5", direction="down")
    assert refused.ephemeral and "BMUA ist nicht erlaubt: nicht im Wörterbuch." in refused.text
    assert refused.message is not None
    await bob.click(refused.message, "Den Tisch abstimmen lassen")
    vote = await table.wait_for_message(lambda m: "asks the table to allow" in m.text, what="the vote")
    assert "**Bob** asks the table to allow **BMUA** (not in the dictionary)" in vote.text
    assert vote.button_labels == ["My rack", "Allowed", "Not allowed"]
    assert "Die Abstimmung läuft" in refused.text and refused.message.buttons == []

    bobs_vote = await bob.click(vote, "Allowed")  # he raised it: the others vote
    assert (
        bobs_vote.ephemeral
        and "Du stimmst hier nicht ab: du hast die Abstimmung beantragt." in bobs_vote.text
    )

    await alice.click(vote, "Allowed")
    placed = await table.wait_for_message(lambda m: "The table allowed" in m.text, what="the vote's result")
    assert "The table allowed **BMUA** (1:0)." in placed.text and "**Bob**: **BMUA** (4)" in placed.text
    await until(table, lambda: "Your vote is in." in alice.last_ephemeral.text, "alice's confirmation")
    assert "Dein Stellbrett" in (await bob.click(placed, "My rack")).text


@pytest.mark.both_databases
async def test_the_table_buttons_survive_a_restart(
    spawn_bot: SpawnBot, fake_discord: FakeDiscord, table: Table
):
    alice, bob = table.user("alice"), table.user("bob")
    first = await spawn_bot(PRODUCT)
    await wait_for_new_session(fake_discord, first)
    lobby = (await alice.slash("topwords new", mode="challenge")).linked
    assert lobby is not None
    await bob.click(lobby, "Join")
    await alice.click(lobby, "Start")
    board = await table.wait_for_message(is_table, what="the first TopWords table")
    await host_sees_rack(table, alice)

    session = fake_discord.gateway.current
    await first.kill()
    second = await spawn_bot(PRODUCT)  # same database
    await wait_for_new_session(fake_discord, second, previous=session)

    rack = await bob.click(board, "My rack")
    shown = re.search(r"Your rack: \*\*(\S ){6}\S\*\*", rack.text)
    assert rack.ephemeral and shown, rack
    assert await second.stop(signal.SIGTERM) == 0


async def test_buttons_on_older_messages_never_act_on_a_newer_move(product_bot: Any, table: Table):
    """Each button names the board it was offered on: clicked after another move, it is refused
    (stale_action)."""
    alice, bob, _ = await start_game(product_bot, table, "challenge")
    await alice.slash("topwords play", word="SIEB", square="C5", direction="across")
    first = table.last_message
    assert first.button("Challenge")["custom_id"].endswith(":challenge:1")
    stale = copy.deepcopy(first.raw)  # what a client that did not refresh still shows
    await bob.slash("topwords play", word="BAUM", square="F5", direction="down")
    board = table.last_message
    assert first.buttons == [] and board.button("Challenge")["custom_id"].endswith(":challenge:2")

    late = await click_saved(table, alice, stale, "Challenge")
    note = late.private
    assert (
        note is not None and note.text == "⚠️ The table has moved on since that message: use the latest one."
    )
    assert "challenged" not in board.text and board.button_labels == ["My rack", "Challenge", "Dispute"]

    # Two players: Bob made the move and does not vote on it, so the dictionary decides at once.
    disputed = await alice.click(board, "Dispute")
    await until(table, lambda: disputed.followups, "the dispute's private note")
    assert "the dictionary decided" in disputed.followups[0].text
    result = await table.wait_for_message(lambda m: "Tie on" in m.text, what="the dictionary's decision")
    assert "Tie on **BAUM** (0:0): the dictionary decides — allowed." in result.text
    assert result.button_labels == ["My rack"]  # the move is final


async def test_ask_the_table_from_an_older_reply_is_refused_in_german(product_bot: Any, table: Table):
    table.user("bob").user.locale = "de"
    alice, bob, _ = await start_game(product_bot, table, "strict")
    await alice.slash("topwords play", word="SIEB", square="C5", direction="across")
    refused = await bob.slash("topwords play", word="BMUA", square="F5", direction="down")
    assert refused.message is not None
    await bob.slash("topwords play", word="BAUM", square="F5", direction="down")
    await alice.slash("topwords play", word="RAT", square="E6", direction="across")
    tables = len([m for m in table.channel_messages() if is_table(m)])

    late = await bob.click(refused.message, "Den Tisch abstimmen lassen")  # the reply of move 2
    await until(table, lambda: late.followups or "weitergegangen" in late.text, "the refusal")
    shown = late.followups[0].text if late.followups else late.text
    assert shown == "⚠️ Das Spiel ist seit dieser Nachricht weitergegangen: Nimm die neueste."
    assert len([m for m in table.channel_messages() if is_table(m)]) == tables  # no vote was opened
    assert "Bob to move" in table.last_message.text


async def click_saved(table: Table, player: Player, raw: dict[str, Any], label: str) -> Reply:
    """A click on a button as an older copy of its message showed it, and the bot's private answer."""
    found, stack = [], list(raw.get("components") or [])
    while stack:
        component = stack.pop(0)
        stack.extend(component.get("components") or [])
        if component.get("type") == 2 and component.get("label") == label:
            found.append(component)
    [button] = found
    data = {"custom_id": button["custom_id"], "component_type": 2, "id": button.get("id")}
    record = await table.fake.send_interaction(player.user, 3, data, channel_id=table.channel_id, message=raw)
    reply = Reply(table.fake, record)
    await until(table, lambda: reply.private, f"the answer to the stale {label!r}")
    return reply


async def until(table: Table, predicate: Callable[[], Any], what: str) -> None:
    """After a deferred click the bot works on: wait for what it does next."""
    await table.fake.wait_until(predicate, within=table.timeout, what=what)
