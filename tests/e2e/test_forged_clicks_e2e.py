"""Forged and stale clicks change nothing, and a table survives Discord's failures (#28, items 6 and 9).

Each class of forged click has its test; a fuzzer then presses mutations of every button id seen in a played
game, as a player and as a spectator. Failures are injected into the loopback Discord (`failing`): a 503
that discord.py does not retry itself, so the table layer's own retries are what is tested. The in-process
bot may log no error meanwhile (the `bot_errors` fixture).
"""

from __future__ import annotations

import asyncio
import copy
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from aiohttp import web

from bot.ui import troubles

from .conftest import requires_product
from .driver import Message, Reply, Table
from .fake_discord import FakeDiscord, json_response
from .test_table_layer import _forged_click
from .test_topstop_e2e import Game, click_as_drawn, hand_out, snapshot
from .test_topwords_e2e import start_game

pytestmark = requires_product

DAMAGED = "damaged or not one of this bot's"
STALE = "The table has moved on since that message"


@contextmanager
def failing(fake: FakeDiscord, method: str, path: re.Pattern[str], times: int) -> Iterator[list[str]]:
    """The next `times` requests `method` on a path matching `path` get a 503 from the loopback Discord."""
    real = fake._checked
    failed: list[str] = []

    async def checked(request: web.Request, handler: Any) -> web.StreamResponse:
        if len(failed) < times and request.method == method and path.search(request.path):
            failed.append(request.path)
            return json_response({"message": "503: Service Unavailable", "code": 0}, 503)
        return await real(request, handler)

    fake._checked = checked  # type: ignore[method-assign]
    try:
        yield failed
    finally:
        fake._checked = real  # type: ignore[method-assign]


@pytest.fixture
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The layer's backoff in milliseconds, so that a test sees every retry and the redraw later."""
    monkeypatch.setattr(troubles, "POST_RETRY_SECONDS", 0.01)
    monkeypatch.setattr(troubles, "POST_RETRY_MAX_SECONDS", 0.05)


async def unchanged(game: Game, press: Callable[[], Any], said: str | None = None) -> Reply:
    """The press gets a private answer (saying `said`), and the game and every public message stay as
    they were."""
    version, before = (await game.bot.sessions.session(game.sid)).version, snapshot(game.table)
    reply: Reply = await press()
    private = reply.private
    assert private is not None and private.ephemeral, reply
    if said is not None:
        assert said.lower() in private.text.lower(), private.text
    assert (await game.bot.sessions.session(game.sid)).version == version
    assert snapshot(game.table) == before
    return reply


async def test_another_games_lobby_id_pressed_on_a_top_stop_table_seats_nobody(
    product_bot: Any, table: Table
) -> None:
    game = await Game.open(table, ["alice", "bob"], product_bot, language="en")
    board = await game.first_spin()
    carol, dave = table.user("carol"), table.user("dave")
    lobby = (await carol.slash("topwords new", channel="games")).linked
    assert lobby is not None
    words_sid = int(lobby.buttons[0]["custom_id"].split(":")[1])
    for custom_id in (f"topwords:{words_sid}:join", f"topwords:{words_sid}:cancel"):
        await unchanged(game, lambda cid=custom_id: _forged_click(table, dave, board, cid), "another channel")
    # A Top Stop id carrying the TopWords session: another game's session, whatever the message.
    for custom_id in (f"topstop:{words_sid}:join", f"topstop:{words_sid}:stop:0.0"):  # act() checks it too
        await unchanged(game, lambda cid=custom_id: _forged_click(table, dave, board, cid), "another game")
    assert (await product_bot.sessions.session(words_sid)).players == [str(carol.id)]
    assert "Top Stop" not in lobby.text and lobby.button_labels[0] == "Join"
    joined = await dave.click(lobby, "Join")  # on its own message, the same id seats him
    assert joined.kind == "deferred update" and dave.mention in lobby.text


async def test_numbers_in_other_scripts_or_with_leading_zeros_are_refused(
    product_bot: Any, table: Table
) -> None:
    game = await Game.open(table, ["alice", "bob"], product_bot, language="en")
    board = await game.first_spin()
    dave = game.players[0]
    sid = str(game.sid)
    spellings = [
        sid.translate(str.maketrans("0123456789", "０１２３４５６７８９")),
        sid.translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")),
        sid.translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")),
        "0" + sid,
    ]
    for spelled in spellings:
        for custom_id in (f"topstop:{spelled}:spin:1", f"topstop:{sid}:spin:01", f"vote:0{sid}:yes"):
            forged = custom_id.replace(f":{sid}:", f":{spelled}:", 1)
            await unchanged(game, lambda cid=forged: _forged_click(table, dave, board, cid), DAMAGED)


async def test_the_hosts_old_lobby_cancel_replayed_on_a_running_game_cancels_nothing(
    product_bot: Any, table: Table
) -> None:
    alice, bob = table.user("alice"), table.user("bob")
    lobby = (await alice.slash("topstop new", language="en")).linked
    assert lobby is not None
    await bob.click(lobby, "Join")
    drawn = copy.deepcopy(lobby.raw)  # the lobby as a client that missed its closing edit still shows it
    await alice.click(lobby, "Start")
    game = Game(table, [alice, bob], product_bot)
    game.sid = int(drawn["components"][0]["components"][0]["custom_id"].split(":")[1])
    await unchanged(game, lambda: click_as_drawn(alice, drawn, "Cancel"), STALE)
    await unchanged(game, lambda: click_as_drawn(bob, drawn, "Leave"), STALE)
    assert (await product_bot.sessions.session(game.sid)).status == "active"


async def test_join_on_a_lobby_whose_game_started_says_so_and_where_to_watch_it(
    product_bot: Any, table: Table
) -> None:
    """A client that missed the lobby's closing edit still shows Join: the press says the game has started
    and links its table (where anyone may watch), in the presser's language, and seats nobody."""
    alice, bob = table.user("alice"), table.user("bob")
    lobby = (await alice.slash("topstop new", language="en")).linked
    assert lobby is not None
    await bob.click(lobby, "Join")
    drawn = copy.deepcopy(lobby.raw)
    await alice.click(lobby, "Start")
    game = Game(table, [alice, bob], product_bot)
    game.sid = int(drawn["components"][0]["components"][0]["custom_id"].split(":")[1])
    first = await table.wait_for_message(lambda m: "who spins first?" in m.text, what="the table")
    record = await product_bot.sessions.session(game.sid)
    assert record.status == "active" and record.message_id == first.id
    link = f"https://discord.com/channels/{record.guild_id}/{record.channel_id}/{record.message_id}"
    said = {
        "en": "This game of Top Stop has already started. You can watch it at its table:",
        "fr": "Cette partie de Top Stop a déjà commencé. Vous pouvez la regarder à sa table\u00a0:",
        "de": "Diese Partie Top Stop hat schon begonnen. Am Tisch kannst du zuschauen:",
    }
    for (name, locale), lang in zip((("carol", "en-US"), ("dave", "fr"), ("erin", "de")), said, strict=True):
        late = table.user(name, locale=locale)
        reply = await unchanged(game, lambda p=late: click_as_drawn(p, drawn, "Join"))
        assert reply.private is not None and reply.private.text == f"⚠️ {said[lang]} {link}"
        assert STALE not in reply.private.text
    seated = await unchanged(game, lambda: click_as_drawn(bob, drawn, "Join"))  # a player: the same answer
    assert seated.private is not None and said["en"] in seated.private.text
    assert (await product_bot.sessions.session(game.sid)).players == [str(alice.id), str(bob.id)]


async def test_an_end_votes_button_after_the_game_ended_does_nothing(product_bot: Any, table: Table) -> None:
    game = await Game.open(table, ["alice", "bob", "carol"], product_bot, language="en")
    _, bob, carol = game.players
    await game.first_spin()
    await bob.slash("topstop end")
    vote = await table.wait_for_message(lambda m: m.button_labels == ["Yes", "No"], what="the end vote")
    await table.user("dev").slash("topstop end")  # Manage Server ends the game meanwhile
    await table.wait_for_message(lambda m: "game over" in m.text, what="the final table")
    before = snapshot(table)
    pressed = await carol.click(vote, "Yes")
    assert pressed.ephemeral and "closed" in pressed.text.lower()
    assert snapshot(table) == before


async def test_an_action_without_its_freshness_value_is_refused_as_stale(
    product_bot: Any, table: Table
) -> None:
    game = await Game.open(table, ["alice", "bob"], product_bot, language="en")
    board = await game.first_spin()
    alice = game.players[0]
    for custom_id in (f"topstop:{game.sid}:pick", f"topstop:{game.sid}:spin", f"topstop:{game.sid}:stop"):
        await unchanged(game, lambda cid=custom_id: _forged_click(table, alice, board, cid), STALE)


def mutations(custom_id: str, sid: int, other_sid: int) -> list[str]:
    """What a modified client might send instead of a button's id."""
    head, _, rest = custom_id.partition(":")
    session, _, tail = rest.partition(":")
    found: list[str] = []
    for digits in ("０１２３４５６７８９", "٠١٢٣٤٥٦٧٨٩", "⁰¹²³⁴⁵⁶⁷⁸⁹"):
        found.append(custom_id.translate(str.maketrans("0123456789", digits)))
    found += [
        f"{head}:0{session}:{tail}",  # a leading zero
        f"{head}:{other_sid}:{tail}",  # another session (of another game)
        f"{head}:{int(session) + 1000}:{tail}" if session.isdecimal() else custom_id + "x",  # none
        f"{'topwords' if head == 'topstop' else 'topstop'}:{session}:{tail}",  # another game
        f"{head}:{session}:{tail.split(':')[0]}",  # the arguments dropped
    ]
    return [m for m in dict.fromkeys(found) if m != custom_id]


def button_ids(messages: list[Message]) -> set[str]:
    ids = set()
    for message in messages:
        for row in message.raw.get("components") or []:
            for component in row.get("components") or []:
                if "custom_id" in component:
                    ids.add(component["custom_id"])
    return ids


async def test_fuzzed_ids_by_a_player_or_a_spectator_change_nothing(product_bot: Any, table: Table) -> None:
    """Every button id seen in a played round, mutated, pressed on the current table by a player and by a
    spectator; and the original ids of retired messages (stale). No error logged, nothing public changed."""
    game = await Game.open(table, ["alice", "bob"], product_bot, language="en")
    alice, bob = game.players
    dave = table.user("dave")
    other = (await table.user("carol").slash("topwords new", channel="games")).linked
    assert other is not None
    other_sid = int(other.buttons[0]["custom_id"].split(":")[1])
    seen: set[str] = set()
    seen |= button_ids(table.channel_messages())
    board = await game.first_spin()
    seen |= button_ids(table.channel_messages())
    letter = await game.spin(board)
    seen |= button_ids([board])
    mine, his, _ = hand_out(letter)
    await game.write(alice, board, mine)
    await game.write(bob, board, his)
    seen |= button_ids([board, *alice.ephemerals, *bob.ephemerals])
    await game.timer("writing")
    reveal = table.last_message
    asked = await alice.click(reveal, "Dispute a word")
    assert asked.answer is not None
    seen |= button_ids([reveal, *alice.ephemerals])
    stale = button_ids([m for m in table.channel_messages() if m.id != reveal.id]) | button_ids([board])
    assert len(seen) >= 8, seen
    presses = 0
    for custom_id in sorted(seen):
        for forged in mutations(custom_id, game.sid, other_sid):
            for who in (alice, dave):
                await unchanged(game, lambda f=forged, w=who: _forged_click(table, w, reveal, f))
                presses += 1
    for custom_id in sorted(stale):  # the buttons as drawn on the messages the table has left
        await unchanged(game, lambda cid=custom_id: _forged_click(table, dave, reveal, cid))
        presses += 1
    assert presses >= 100


# -- message life ------------------------------------------------------------------------------------------


async def test_a_table_post_that_keeps_failing_never_cancels_the_game_and_is_shown_later(
    product_bot: Any, table: Table, quick_retries: None
) -> None:
    game = await Game.open(table, ["alice", "bob"], product_bot, language="en")
    posts = re.compile(rf"/channels/{table.channel_id}/messages$")
    with failing(table.fake, "POST", posts, times=troubles.DISCORD_ATTEMPTS) as failed:
        board = await game.first_spin()  # round one's table: refused five times, then posted later
    assert len(failed) == troubles.DISCORD_ATTEMPTS
    assert (await product_bot.sessions.session(game.sid)).status == "active"
    assert not any("could not be posted" in m.text for m in table.channel_messages())
    assert board.button_labels == ["Spin"] and (await product_bot.sessions.session(game.sid)).message_id == (
        board.id
    )


async def test_an_edit_that_keeps_failing_is_retried_and_the_player_is_told(
    product_bot: Any, table: Table, quick_retries: None
) -> None:
    game = await Game.open(table, ["alice", "bob"], product_bot, language="en")
    board = await game.first_spin()
    edits = re.compile(rf"/channels/{table.channel_id}/messages/{board.id}$")
    spinner = next(p for p in game.players if f"**{p.name.capitalize()}** spins" in board.text)
    # Every attempt counts in discord.py's rate-limit bucket of the channel's edits (five per window):
    # start from a full one, or discord.py itself waits out the window between two attempts.
    await asyncio.sleep(table.fake.message_rate[1])
    with failing(table.fake, "PATCH", edits, times=troubles.DISCORD_ATTEMPTS) as failed:
        spun = await spinner.click(board, "Spin")
        await game.until(lambda: len(failed) == troubles.DISCORD_ATTEMPTS, "every retry")
    told = [m.text for m in spun.followups if m.ephemeral]
    assert any("Discord would not show the table message" in text for text in told), told
    await game.until(lambda: "Write my words" in board.button_labels, "the table drawn again later")
    assert (await product_bot.sessions.session(game.sid)).status == "active"


@pytest.mark.both_databases
async def test_a_table_whose_id_was_lost_is_posted_again_at_restore(
    product_bot: Any, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot stopped between posting round one's table and storing its id: at start the stored message
    is not the table, so a new one is posted; the orphan's buttons act on nothing."""
    remember = product_bot.sessions.set_message
    game = await Game.open(table, ["alice", "bob"], product_bot, language="en")

    async def lost(session_id: int, message_id: int) -> None:
        return None

    monkeypatch.setattr(product_bot.sessions, "set_message", lost)
    orphan = await game.first_spin()
    monkeypatch.setattr(product_bot.sessions, "set_message", remember)
    assert (await product_bot.sessions.session(game.sid)).message_id != orphan.id
    cog = product_bot.get_cog("Top Stop")
    await cog.repair_tables()
    await table.settle()
    board = table.last_message
    assert board.id != orphan.id and board.button_labels == ["Spin"]
    assert (await product_bot.sessions.session(game.sid)).message_id == board.id
    spinner = next(p for p in game.players if f"**{p.name.capitalize()}** spins" in board.text)
    await unchanged(game, lambda: spinner.click(orphan, "Spin"), STALE)


async def test_a_player_proposes_to_end_once_per_move(product_bot: Any, table: Table) -> None:
    alice, bob, _ = await start_game(product_bot, table, "strict")
    proposed = await alice.slash("topwords propose_end")
    assert proposed.ephemeral
    vote = await table.wait_for_message(lambda m: "Play on" in m.button_labels, what="the end vote")
    await bob.click(vote, "Play on")
    await table.wait_for_message(lambda m: "to move" in m.text and m.id != vote.id, what="play again")
    again = await alice.slash("topwords propose_end")
    assert again.ephemeral and "already proposed" in again.text
    by_bob = await bob.slash("topwords propose_end")  # another player may
    assert by_bob.ephemeral and "already proposed" not in by_bob.text
