"""Nothing is lost at a restart, at the table layer too: news told to a player who did not act, and the turn
message, outlive bot processes killed outright (SIGKILL) and started again on the same database.

Skeleton's turn timer draws a card face down for an idle player: that card is news to them alone. Here the
turn runs out while the bot is down (its deadline moved into the past in the stored timers), so the next
process fires it as it starts; that process is killed in turn, and a third one must still show the player
the card, once, and neither ping the turn again nor leave an old turn message behind.

And the consoles open when the bot was killed follow the table again once it is back (#42): in Toppo, the
console of a player waiting for the other to begin goes on to show play, without his pressing anything.
"""

from __future__ import annotations

import re
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from bot.i18n import t
from bot.store import Store

from .conftest import requires_product
from .driver import Message, Table
from .fake_discord import FakeDiscord
from .process import SpawnBot, wait_for_new_session

pytestmark = requires_product


PRODUCT = "bot.__main__:main"
TURN_NOTICE = "your turn in Skeleton"
DRAWN_FOR_YOU = re.compile(r"the bot drew (\d[♠♥♦♣]) for you")
HAND = re.compile(r"Your hand: \*\*(\d[♠♥♦♣])\*\*")


@pytest.fixture(autouse=True)
def skeleton_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXTRA_GAMES", "skeleton")  # the spawned processes inherit it


def live_notices(table: Table) -> list[Message]:
    """The turn messages the channel shows now."""
    return [m for m in table.channel_messages() if TURN_NOTICE in m.text and not m.deleted]


def notices_posted(table: Table) -> int:
    """Turn messages posted so far, by every process (each one pings)."""
    return sum(1 for r in table.fake.requests if r.method == "POST" and TURN_NOTICE in str(r.body))


def ids(messages: list[Message]) -> list[int]:
    return [m.id for m in messages]


async def run_out_the_turn_while_down(database: Path | str) -> None:
    """The bot is down and the turn's deadline passes: the stored timer is due when the next one starts."""
    store = await Store.open(database)
    try:
        async with store.transaction() as tx:
            turns = await tx.fetch_one("SELECT COUNT(*) FROM timers WHERE key LIKE 'turn:%'")
            await tx.execute("UPDATE timers SET at = ? WHERE key LIKE 'turn:%'", (time.time() - 1,))
    finally:
        await store.close()
    assert turns[0] == 1


async def restart(spawn_bot: SpawnBot, fake: FakeDiscord, running: Any, database: Path | str) -> Any:
    session = fake.gateway.current
    await running.kill()  # SIGKILL: no clean-up
    started = await spawn_bot(PRODUCT, database=database)  # same database
    await wait_for_new_session(fake, started, previous=session)
    return started


@pytest.mark.both_databases
async def test_news_and_the_turn_message_survive_bot_processes_killed_and_started_again(
    spawn_bot: SpawnBot, fake_discord: FakeDiscord, table: Table, database: Path | str
) -> None:
    first = await spawn_bot(PRODUCT, database=database)
    await wait_for_new_session(fake_discord, first)
    alice, bob = table.user("alice"), table.user("bob")
    lobby = (await alice.slash("skeleton new", target=8)).linked
    assert lobby is not None
    await bob.click(lobby, "Join")
    await alice.click(lobby, "Start")
    board = await table.wait_for_message(lambda m: re.search("Skeleton — \\w+ to play", m.text), what="table")
    idle, other = (alice, bob) if "Alice to play" in board.text else (bob, alice)
    name, other_name = idle.name.capitalize(), other.name.capitalize()
    first_notice = await table.wait_for_message(lambda m: TURN_NOTICE in m.text, what="the turn message")
    assert first_notice.pinged == [idle.id] and ids(live_notices(table)) == [first_notice.id]
    assert notices_posted(table) == 1

    # Down while it is the idle player's turn; the turn runs out meanwhile. The next process fires the timer
    # as it starts: the bot draws for the idle player (stored as their news), the turn passes, and the
    # turn message that the killed process posted is replaced.
    await run_out_the_turn_while_down(database)
    second = await restart(spawn_bot, fake_discord, first, database)
    await table.fake.wait_until(
        lambda: f"Skeleton — {other_name} to play" in board.text, within=15, what="the timer fired at start"
    )
    assert f"{name} ran out of time" in board.text
    await table.fake.wait_until(
        lambda: first_notice.deleted, within=10, what="the first turn message deleted"
    )
    [turn] = await table.fake.wait_until(
        lambda: live_notices(table) or None, within=10, what="the other player's turn message"
    )
    assert turn.pinged == [other.id]

    # Killed again before the idle player came back: their news are in the store, not in a process.
    third = await restart(spawn_bot, fake_discord, second, database)
    opened = await idle.click(board, "My hand")
    assert opened.message is not None and opened.message.ephemeral
    console = opened.message
    [card] = DRAWN_FOR_YOU.findall(console.text)
    assert console.text.index("News:") < console.text.index("Your hand:") and HAND.findall(console.text) == [
        card
    ]
    again = await idle.click(board, "My hand")  # shown once: deleted when shown
    assert again.message is not None and "News:" not in again.message.text
    assert all(card not in m.text for m in table.channel_messages())  # never in the channel

    # The turn the second process announced is not announced again by the third, whose first redraw comes
    # with a move that leaves it the same player's turn; the next turn replaces that message.
    his = (await other.click(board, "My hand")).message
    assert his is not None
    await other.click(his, "Draw")
    await table.fake.wait_until(
        lambda: f"{other_name} drew a card." in board.text, within=10, what="the table after the draw"
    )
    assert ids(live_notices(table)) == [turn.id] and notices_posted(table) == 2
    await other.click(his, "Pass")
    await table.fake.wait_until(lambda: turn.deleted, within=10, what="the second turn message deleted")
    [last] = await table.fake.wait_until(lambda: live_notices(table) or None, within=10, what="the next turn")
    assert last.pinged == [idle.id] and notices_posted(table) == 3
    assert await third.stop(signal.SIGTERM) == 0


async def test_open_consoles_follow_the_table_again_after_the_bot_is_killed_and_started_again(
    spawn_bot: SpawnBot, fake_discord: FakeDiscord, table: Table, database: Path | str
) -> None:
    first = await spawn_bot(PRODUCT, database=database)
    await wait_for_new_session(fake_discord, first)
    alice, bob = table.user("alice"), table.user("bob", locale="de")
    lobby = (await alice.slash("toppo new", games=1)).linked
    assert lobby is not None
    await bob.click(lobby, "Join")
    await alice.click(lobby, "Start")
    board = await table.wait_for_message(lambda m: "Toppo — game 1 of" in m.text, what="the table")
    awaited, other = (alice, bob) if "Play waits for **Alice** to begin." in board.text else (bob, alice)
    lang = {alice.id: "en", bob.id: "de"}
    consoles = {}
    for player in (awaited, other):
        opened = (await player.click(board, "My console")).message
        assert opened is not None and opened.ephemeral
        consoles[player.id] = opened
    waiting = consoles[other.id]
    waits = t("toppo.console.wait_for", lang[other.id], name=awaited.name.capitalize())
    assert waits in waiting.text

    # Killed with both consoles open, started again: the awaited player begins from the console he opened
    # before; the other's console (his last press was before the restart) follows play.
    second = await restart(spawn_bot, fake_discord, first, database)
    begun = await awaited.click(consoles[awaited.id], t("toppo.button.begin", lang[awaited.id]))
    assert begun.kind == "deferred update" and not begun.followups
    playing = t("toppo.console.playing", lang[other.id])
    await table.fake.wait_until(lambda: playing in waiting.text, within=10, what="the waiting console")
    assert waits not in waiting.text and waiting.ephemeral
    assert all(playing not in m.text for m in table.channel_messages())
    assert await second.stop(signal.SIGTERM) == 0
