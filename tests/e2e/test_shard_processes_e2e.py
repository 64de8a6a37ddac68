"""Two bot processes, one per shard, over one PostgreSQL database: games in both guilds; the process of
shard 1 killed mid-game (SIGKILL) and started again; a third process asking for a shard that is held is
refused. Nothing lost, nothing doubled, the old buttons work.

It runs on the tests' PostgreSQL database only (`postgresql_url`): several processes cannot share an SQLite
file (test_shards_e2e.py checks that refusal).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator

import pytest

from bot.store import Store
from tests.postgresql import Databases

from .conftest import START_TIMEOUT, requires_product
from .driver import Message, Player, Table
from .fake_discord import FakeDiscord
from .process import BotProcess, SpawnBot

pytestmark = [requires_product, pytest.mark.timeout(120)]

SECOND_GUILD_CHANNEL = "general-2"
ON_TURN = re.compile(r"Skeleton — (\w+) to play")


@pytest.fixture
def bot_database(postgresql_databases: Databases) -> Iterator[str]:
    """One fresh PostgreSQL database that every bot process of the test shares."""
    url = postgresql_databases.fresh()
    yield url
    postgresql_databases.drop(url)


def shard_env(shard: int) -> dict[str, str]:
    """A process of one shard of two, syncing global commands (both guilds)."""
    return {
        "SHARD_COUNT": "2",
        "SHARD_IDS": str(shard),
        "DEV_GUILD_ID": "",
        "EXTRA_GAMES": "skeleton",
    }


async def until_shards_live(fake: FakeDiscord, processes: list[BotProcess], *shards: int) -> None:
    wanted = {(shard, 2) for shard in shards}

    def ready() -> bool:
        return any(not p.running for p in processes) or wanted <= set(fake.gateway.live_shards())

    await fake.wait_until(ready, within=START_TIMEOUT, what=f"shards {sorted(shards)} to connect")
    for process in processes:
        if not process.running:
            raise AssertionError(f"a bot process exited with {process.process.returncode}" + process.tail())


async def started_game(table: Table) -> Message:
    """Alice's lobby, Bob's join, the start: the first table."""
    alice, bob = table.user("alice"), table.user("bob")
    lobby = (await alice.slash("skeleton new", target=8)).linked
    assert lobby is not None
    await bob.click(lobby, "Join")
    await alice.click(lobby, "Start")
    return await table.wait_for_message(lambda m: ON_TURN.search(m.text) is not None, what="the table")


def on_turn(table: Table, board: Message) -> Player:
    found = ON_TURN.search(board.text)
    assert found is not None, board.text
    return table.user(found.group(1).lower())


async def draw(table: Table, board: Message) -> str:
    """The player on turn opens their console from the table and draws: the table's text afterwards."""
    player = on_turn(table, board)
    console = (await player.click(board, "My hand")).message
    assert console is not None and console.ephemeral and console.button_labels == ["Draw"]
    await player.click(console, "Draw")
    await table.fake.wait_until(
        lambda: f"{player.name.capitalize()} drew a card." in board.text,
        within=5,
        what="the draw on the table",
    )
    return board.text


async def test_a_killed_shard_process_starts_again_and_plays_on_while_the_other_shard_never_stopped(
    spawn_bot: SpawnBot, fake_discord: FakeDiscord, bot_database: str
) -> None:
    first, second = Table(fake_discord), Table(fake_discord, channel=SECOND_GUILD_CHANNEL)
    shard_0 = await spawn_bot(env=shard_env(0))
    shard_1 = await spawn_bot(env=shard_env(1))
    await until_shards_live(fake_discord, [shard_0, shard_1], 0, 1)

    boards = [await started_game(first), await started_game(second)]
    texts = [await draw(first, boards[0]), await draw(second, boards[1])]

    # A third process for a shard already served is refused in one line, and never reaches Discord.
    intruder = await spawn_bot(env=shard_env(1))
    assert intruder.process is not None
    assert await asyncio.wait_for(intruder.process.wait(), START_TIMEOUT) == 2
    assert "shard 1 of 2 is served by another bot process" in intruder.log_text(), intruder.tail()

    await shard_1.kill()  # mid-game, as when its machine dies
    # The other shard plays on meanwhile.
    on_turn_first = on_turn(first, boards[0])
    console = (await on_turn_first.click(boards[0], "My hand")).message
    assert console is not None and console.ephemeral

    again = await spawn_bot(env=shard_env(1))  # the killed process's lock went with its connection
    await until_shards_live(fake_discord, [shard_0, again], 0, 1)
    # The old table's button works, and the game is where it was: nothing lost, nothing doubled.
    player = on_turn(second, boards[1])
    console = (await player.click(boards[1], "My hand")).message
    assert console is not None and console.ephemeral and "Pass" in console.button_labels
    assert boards[1].text == texts[1]
    assert sum(1 for m in second.channel_messages() if ON_TURN.search(m.text) and m.buttons) == 1
    # Both games play on, each in its own process: the turn passes at both tables.
    for table, board in ((second, boards[1]), (first, boards[0])):
        await pass_turn(table, board)
    await each_game_logged_its_actions_once(bot_database)
    for process in (shard_0, again):
        assert "Traceback" not in process.log_text(), process.tail()


async def pass_turn(table: Table, board: Message) -> None:
    player = on_turn(table, board)
    console = (await player.click(board, "My hand")).message
    assert console is not None and "Pass" in console.button_labels
    await player.click(console, "Pass")
    await table.fake.wait_until(
        lambda: on_turn(table, board) is not player, within=5, what="the turn to pass at the table"
    )


async def each_game_logged_its_actions_once(database: str) -> None:
    """Each game's log: the draw and the pass of its players, each once, at consecutive versions."""
    store = await Store.open(database)
    try:
        sessions = await store.sessions.open_ids("skeleton")
        assert len(sessions) == 2
        for session in sessions:
            log = await store.actions.for_session(session)
            played = [record.action["do"] for record in log if record.player is not None]
            assert played.count("draw") == 1 and played.count("pass") == 1, played
            versions = [record.version for record in log]
            assert versions == list(range(versions[0], versions[0] + len(versions))), versions
    finally:
        await store.close()
