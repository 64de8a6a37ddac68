"""The table layer through the loopback Discord: forged ids, a table that cannot be posted, abuse limits.

Every forged or damaged custom_id gets a private refusal within Discord's 3 seconds and changes nothing; the
in-process bot may log no error meanwhile (the `bot_errors` fixture fails the test on any).
"""

from __future__ import annotations

import asyncio
from typing import Any

from .conftest import requires_product
from .driver import Reply, Table
from .objects import ATTACH_FILES, SEND_MESSAGES
from .test_topstop_e2e import Game, snapshot

pytestmark = requires_product

DAMAGED = "damaged or not one of this bot's"


async def _forged_click(
    table: Table, player: Any, message: Any, custom_id: str, kind: int = 3, trigger: Any = None
) -> Reply:
    """What a modified client could send: any custom_id on a component click (3) or a modal submission (5,
    answering the modal a `trigger` interaction opened)."""
    if kind == 3:
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": 2}
    else:
        data = {"custom_id": custom_id, "components": [{"type": 1, "components": []}]}
    record = await table.fake.send_interaction(
        player.user, kind, data, channel_id=table.channel_id, message=message.raw, trigger=trigger
    )
    reply = Reply(table.fake, record)
    await table.fake.wait_until(lambda: reply.private, within=3.0, what=f"the answer to {custom_id[:40]!r}")
    return reply


async def test_forged_and_damaged_ids_get_a_private_refusal_within_3_seconds_and_change_nothing(
    product_bot: Any, table: Table
) -> None:
    game = await Game.open(table, ["alice", "bob"], product_bot, language="en")
    alice = game.players[0]
    board = await game.first_spin()
    sid = game.sid
    before = (await product_bot.sessions.session(sid)).version, snapshot(table)
    cases = {
        f"topstop:{2**70}:spin": DAMAGED,  # a session number too large for SQLite
        "topstop:abc:spin": DAMAGED,  # not a number
        "x" * 100: DAMAGED,  # garbage
        f"topstop:{sid}:spin:" + "1" * 60: DAMAGED,  # an argument over 50 characters
        f"topstop:{sid}:stop:abc": DAMAGED,  # `stop:abc` is no round: never a real STOP
        f"topstop:{sid}:launch": DAMAGED,  # no such action
        f"topwords:{sid}:rack": "belongs to another game",  # a TopWords button on a Top Stop game
        f"topstop:{sid + 1000}:spin:1": "no",  # a session that does not exist
    }
    for custom_id, refusal in cases.items():
        started = asyncio.get_running_loop().time()
        reply = await _forged_click(table, alice, board, custom_id)
        private = reply.private
        assert private is not None and private.ephemeral, custom_id
        assert refusal.lower() in private.text.lower(), (custom_id, private.text)
        assert asyncio.get_running_loop().time() - started < 3.0
    trigger = reply.record
    reply = await _forged_click(table, alice, board, "garbage:modal:" + "z" * 60, kind=5, trigger=trigger)
    assert reply.private is not None and DAMAGED in reply.private.text
    assert ((await product_bot.sessions.session(sid)).version, snapshot(table)) == before


async def test_a_table_that_cannot_be_posted_closes_the_game_and_says_why(
    product_bot: Any, table: Table
) -> None:
    """The bot lacks Attach Files: TopWords' table (a board picture) cannot be posted. The game closes with a
    note in the channel instead of staying open with no table, and a new game can be opened."""
    table.fake.bot_user.permissions &= ~ATTACH_FILES
    alice, bob = table.user("alice"), table.user("bob")
    lobby = (await alice.slash("topwords new")).linked
    assert lobby is not None
    await bob.click(lobby, "Join")
    await alice.click(lobby, "Start")
    note = await table.wait_for_message(lambda m: "could not be posted" in m.text, what="the note", within=8)
    assert "Missing Permissions" in note.text and "attach files" in note.text
    assert await product_bot.sessions.open_in_channel(table.channel_id) is None
    table.fake.bot_user.permissions |= ATTACH_FILES
    again = (await alice.slash("topwords new")).linked
    assert again is not None and again.button_labels == ["Join", "Leave", "Start", "Cancel"]


async def test_a_member_hosts_one_lobby_at_a_time(product_bot: Any, table: Table) -> None:
    alice, bob = table.user("alice"), table.user("bob")
    assert (await alice.slash("topstop new")).linked is not None
    refused = await alice.slash("topwords new", channel="games")  # another channel of the same server
    assert refused.ephemeral and "already have an open lobby" in refused.text
    assert (await bob.slash("topwords new", channel="games")).linked is not None


async def test_a_player_asks_to_end_once_per_round_and_few_votes_cannot_end_it(
    product_bot: Any, table: Table
) -> None:
    game = await Game.open(table, ["alice", "bob", "carol", "dave"], product_bot, language="en")
    _, bob, carol, _ = game.players
    await game.first_spin()
    asked = await bob.slash("topstop end")
    assert asked.ephemeral and "asked whether to end" in asked.text
    vote = await table.wait_for_message(lambda m: m.button_labels == ["Yes", "No"], what="the end vote")
    again = await carol.slash("topstop end")
    assert again.ephemeral and "already open" in again.text
    await carol.click(vote, "Yes")  # one of three voted: not enough to end a game for the others
    await product_bot.votes.close(int(vote.buttons[0]["custom_id"].split(":")[1]))
    await table.fake.wait_until(lambda: "Rejected" in vote.text, within=5, what="the vote's result")
    assert (await product_bot.sessions.session(game.sid)).status == "active"
    twice = await bob.slash("topstop end")  # the same round: he asked already
    assert twice.ephemeral and "already asked" in twice.text


async def test_topwords_leave_ends_a_two_player_game_for_the_one_who_stays(
    product_bot: Any, table: Table
) -> None:
    alice, bob = table.user("alice"), table.user("bob")
    lobby = (await alice.slash("topwords new")).linked
    assert lobby is not None
    await bob.click(lobby, "Join")
    await alice.click(lobby, "Start")
    await table.wait_for_message(lambda m: "to move" in m.text, what="the first table")
    left = await bob.slash("topwords leave")
    assert left.ephemeral and "You left the game." in left.text
    over = await table.wait_for_message(lambda m: "game over" in m.text, what="the end")
    assert "**Bob** left the game" in over.text and "Too few players remain." in over.text
    assert await product_bot.sessions.open_in_channel(table.channel_id) is None


async def test_every_click_and_command_is_acknowledged_before_its_work(
    product_bot: Any, table: Table
) -> None:
    """The first answer comes before the store, the rules or a picture (#18): a command's is a private
    "thinking…" that its answer replaces, a click's a silent acknowledgment; refusals follow privately."""
    alice, bob = table.user("alice"), table.user("bob")
    opened = await alice.slash("topstop new", language="en")
    assert opened.kind == "deferred reply" and opened.ephemeral and "Your lobby is open" in opened.text
    lobby = opened.linked
    assert lobby is not None and not lobby.ephemeral and lobby.button_labels[0] == "Join"

    joined = await bob.click(lobby, "Join")
    assert joined.kind == "deferred update" and not joined.followups  # the lobby itself shows the seat
    assert bob.mention in lobby.text
    again = await bob.click(lobby, "Join")  # a refusal: acknowledged first, then told privately
    assert again.kind == "deferred update" and again.ephemeral and "already" in again.text
    early = await bob.click(lobby, "Start")  # only the host starts
    assert early.kind == "deferred update" and early.ephemeral and lobby.button_labels[0] == "Join"

    refused = await bob.slash("topwords rack")  # no TopWords game here: the refusal replaces the thinking
    assert refused.kind == "deferred reply" and refused.ephemeral and "/topwords new" in refused.text
    board = await alice.slash("leaderboard", game="topstop")  # for the channel: a public answer
    assert board.kind == "deferred reply" and not board.ephemeral and "Leaderboard" in board.text


async def test_a_lobby_that_cannot_be_posted_is_closed_and_only_its_host_is_told(
    product_bot: Any, table: Table
) -> None:
    alice = table.user("alice")
    table.fake.bot_user.permissions &= ~SEND_MESSAGES
    refused = await alice.slash("topstop new")
    assert (
        refused.ephemeral and "could not be posted" in refused.text and "Missing Permissions" in refused.text
    )
    assert await product_bot.sessions.open_in_channel(table.channel_id) is None
    assert table.channel_messages() == []
    table.fake.bot_user.permissions |= SEND_MESSAGES
    lobby = (await alice.slash("topstop new")).linked
    assert lobby is not None and lobby.button_labels[0] == "Join"
