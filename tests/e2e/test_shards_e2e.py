"""A sharded bot against the loopback Discord, whose two guilds are on different shards.

One process may serve both shards (SHARD_COUNT=2, SHARD_IDS=0,1: discord.py's AutoShardedBot, a gateway
session per shard) and play in both guilds; a process of shard 1 alone restores only the games of the guild
of shard 1, plays on there, and leaves the commands to the process of shard 0; a second process on the same
SQLite file is refused in one line.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import START_TIMEOUT, requires_product, shared_words, stop_in_process
from .driver import Message, Table
from .fake_discord import FakeDiscord
from .process import SpawnBot, wait_for_new_session

pytestmark = requires_product

SECOND_GUILD_CHANNEL = "general-2"
StartBot = Callable[..., Awaitable[Any]]


@pytest.fixture(autouse=True)
def skeleton_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXTRA_GAMES", "skeleton")


@pytest.fixture
async def start_bot(
    point_discord: FakeDiscord, bot_errors: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> AsyncIterator[StartBot]:
    """Starts the product bot in this process with shard settings, on one database for the whole test;
    returns once every shard it serves has a ready gateway session and the bot has had their guilds."""
    import bot.words
    from bot.app import make_bot
    from bot.config import Settings

    monkeypatch.setattr(bot.words, "WordService", shared_words)
    monkeypatch.setenv("DISCORD_TOKEN", point_discord.token)
    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "bot.db"))
    monkeypatch.delenv("DEV_GUILD_ID", raising=False)  # global commands: both guilds see them
    running: list[tuple[Any, asyncio.Task[None]]] = []

    async def start(*, count: int, ids: str) -> Any:
        monkeypatch.setenv("SHARD_COUNT", str(count))
        monkeypatch.setenv("SHARD_IDS", ids)
        bot = make_bot(Settings.from_env(env_file=None))
        task = asyncio.create_task(bot.start(point_discord.token), name="sharded-bot")
        running.append((bot, task))
        wanted = {(int(shard), count) for shard in ids.split(",")}
        # A second shard identifies 5 s after the first, as discord.py paces identifies for Discord.
        await point_discord.wait_until(
            lambda: task.done() or (wanted <= set(point_discord.gateway.live_shards()) and bot.is_ready()),
            within=START_TIMEOUT + 10,
            what=f"shards {sorted(wanted)} to connect",
        )
        if task.done():
            task.result()
            raise AssertionError("the bot stopped during start-up")
        return bot

    try:
        yield start
    finally:
        for bot, task in running:
            with contextlib.suppress(Exception):
                await stop_in_process(bot, task)


async def open_skeleton(table: Table) -> Message:
    """Alice opens a Skeleton lobby at the table: its message."""
    lobby = (await table.user("alice").slash("skeleton new", target=8)).linked
    assert lobby is not None and "Skeleton — lobby" in lobby.text
    return lobby


async def play_until_the_table(table: Table) -> Message:
    """Alice's lobby, Bob's join, Alice's start: the first table in the channel."""
    lobby = await open_skeleton(table)
    await table.user("bob").click(lobby, "Join")
    await table.user("alice").click(lobby, "Start")
    return await table.wait_for_message(
        lambda m: "to play" in m.text and "Skeleton" in m.text, what="the table"
    )


async def test_one_process_of_both_shards_plays_in_both_guilds(
    start_bot: StartBot, fake_discord: FakeDiscord
) -> None:
    bot = await start_bot(count=2, ids="0,1")
    shards = sorted(tuple(p["d"]["shard"]) for p in fake_discord.gateway.received if p.get("op") == 2)
    assert shards == [(0, 2), (1, 2)]  # one IDENTIFY per shard, each with its shard
    assert {g.id for g in bot.guilds} == {fake_discord.guild_id, fake_discord.second_guild_id}

    first, second = Table(fake_discord), Table(fake_discord, channel=SECOND_GUILD_CHANNEL)
    assert first.guild_id != second.guild_id
    tables = [await play_until_the_table(first), await play_until_the_table(second)]
    assert [t.channel_id for t in tables] == [first.channel_id, second.channel_id]
    guilds = {
        record.guild_id for record in [await bot.sessions.open_in_channel(t.channel_id) for t in tables]
    }
    assert guilds == {first.guild_id, second.guild_id}
    assert fake_discord.command_syncs == 1


async def test_a_process_of_shard_1_restores_only_the_games_of_its_guild_and_plays_on_there(
    start_bot: StartBot, fake_discord: FakeDiscord
) -> None:
    first, second = Table(fake_discord), Table(fake_discord, channel=SECOND_GUILD_CHANNEL)
    both = await start_bot(count=2, ids="0,1")
    lobbies = [await open_skeleton(first), await open_skeleton(second)]
    sessions = [(await both.sessions.open_in_channel(lobby.channel_id)).id for lobby in lobbies]
    assert all(both.sessions.timers.armed(session) for session in sessions)  # each lobby's expiry
    await both.close()
    syncs = fake_discord.command_syncs

    shard_1 = await start_bot(count=2, ids="1")
    assert [g.id for g in shard_1.guilds] == [fake_discord.second_guild_id]
    # Only the lobby of the guild of shard 1 came back: its expiry is armed, the other's is not.
    assert shard_1.sessions.timers.armed(sessions[1]) and not shard_1.sessions.timers.armed(sessions[0])
    assert not fake_discord.gateway.connected_for(first.guild_id)
    assert fake_discord.command_syncs == syncs  # the commands are shard 0's process's to sync

    bob = second.user("bob")
    assert bob.mention not in lobbies[1].text
    await bob.click(lobbies[1], "Join")  # a button from before the restart
    assert bob.mention in lobbies[1].text
    assert shard_1.sessions.loaded_sessions == 1  # the other guild's lobby was never loaded here


async def test_a_second_process_on_the_same_sqlite_database_is_refused_in_one_line(
    spawn_bot: SpawnBot, fake_discord: FakeDiscord
) -> None:
    first = await spawn_bot()
    await wait_for_new_session(fake_discord, first)
    second = await spawn_bot()
    assert second.process is not None
    assert await asyncio.wait_for(second.process.wait(), START_TIMEOUT) == 2
    refusals = [line for line in second.log_text().splitlines() if line.startswith("error:")]
    assert len(refusals) == 1 and "another bot process" in refusals[0], second.tail()
    assert "Traceback" not in second.log_text()
    assert fake_discord.gateway.identifies == 1 and first.running  # it never reached Discord
