"""A server with finished games on a real SQLite file, played by the real engine and rules (Top Words, whose
replay draws its board), its web pages opened with `/settings web`'s token, and the bot's tables to draw
each step. The pages read the file through their own read-only connection."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.app import TopBot
from bot.config import Settings
from bot.engine.sessions import SessionManager
from bot.games import game_info
from bot.replay import words_service
from bot.store import ResultRow, SessionRecord, Store
from bot.web.reads import WebReads
from bot.web.server import WebPages
from bot.web.tables import BotTables

GUILD, OTHER_GUILD = 1, 2
TOKEN = "k" * 32  # what secrets.token_urlsafe(24) gives: 32 characters
OTHER_TOKEN = "o" * 32
GAME = "topwords"
HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>"
PLAYERS = {"101": "Ann", "102": "Bob", "103": HOSTILE}
BIG_SCORE = 1234  # written 1,234 · 1 234 · 1.234
FINISHED_AT = 1_700_000_000.0  # 2023-11-14 22:13:20 UTC


@dataclass
class Site:
    database: str | Path  # an SQLite file or a PostgreSQL URL: the pages read it on both
    store: Store
    bot: TopBot
    manager: SessionManager
    played: list[int]  # finished games played by the rules, oldest first
    scored: int  # a finished game known by its results alone, with BIG_SCORE

    def path(self, rest: str = "", token: str = TOKEN) -> str:
        return f"/s/{token}/{rest}"


async def open_pages(store: Store, token: str | None, guild: int = GUILD) -> None:
    """What `/settings web on` writes: the server's settings with a link token."""

    def choose(settings: Any) -> None:
        settings.web_token = token

    async with store.transaction() as tx:
        await store.guild_settings.update(tx, guild, choose, time.time())


async def play_passing_game(manager: SessionManager, channel: int, guild: int = GUILD) -> int:
    """A Top Words game where every player passes in turn until it ends: a real log, results and ratings."""
    host, *others = PLAYERS
    record = await manager.open_lobby(guild, channel, GAME, host, {}, host_name=PLAYERS[host])
    for player in others:
        await manager.join(record.id, player, PLAYERS[player])
    await manager.start_game(record.id, host)
    for _ in range(20):
        view = await manager.view(record.id, None)
        if view.get("finished"):
            break
        await manager.act(record.id, view["turn"], {"do": "pass"})
    assert (await manager.session(record.id)).status == "finished"
    return record.id


async def results_only_game(store: Store, scores: dict[str, int], at: float, guild: int = GUILD) -> int:
    """A finished game known by its results (and its players' names) alone."""
    ranked = sorted(scores, key=lambda player: scores[player], reverse=True)
    record = SessionRecord(
        id=0, guild_id=guild, channel_id=int(at), game=GAME, status="finished", host_id=ranked[0],
        players=ranked, options={}, seed=0, names={p: PLAYERS.get(p, p) for p in ranked},
        created_at=at, updated_at=at,
    )  # fmt: skip
    rows = [ResultRow(player, scores[player], place + 1, place == 0) for place, player in enumerate(ranked)]
    async with store.transaction() as tx:
        record.id = await store.sessions.create(tx, record)
        await store.sessions.save(tx, record)
        await store.results.record(tx, record.id, guild, GAME, rows, at)
    return record.id


@pytest.fixture
async def site(database: str | Path, tmp_path: Any) -> AsyncIterator[Site]:
    async with serving_site(database, tmp_path) as served:
        yield served


@asynccontextmanager
async def serving_site(database: str | Path, tmp_path: Any) -> AsyncIterator[Site]:
    """The site of one test (the `site` fixture; the browser's tests open it in their module's loop)."""
    store = await Store.open(database)
    settings = Settings(
        token=None, database_path=tmp_path / "bot.db", dev_guild_id=None, default_language="en",
        log_level="INFO", lobby_minutes=15, application_id=None,
        database_url=str(database) if str(database).startswith("postgresql") else None,
    )  # fmt: skip
    bot = TopBot(settings, store=store)
    rules = game_info(GAME).make(words_service())
    manager = SessionManager(store, {GAME: rules})
    await manager.start()
    bot.sessions = manager
    # The bot never logs in here: what its cog would do once online (repair tables) waits for ever, and ends
    # with the test.
    bot.wait_until_ready = asyncio.Event().wait  # type: ignore[method-assign]
    await bot.load_extension(game_info(GAME).extension)
    played = [await play_passing_game(manager, channel) for channel in (10, 11)]
    scored = await results_only_game(store, {"101": BIG_SCORE, "102": 7}, FINISHED_AT)
    await open_pages(store, TOKEN)
    await play_passing_game(manager, 20, OTHER_GUILD)
    await open_pages(store, OTHER_TOKEN, OTHER_GUILD)
    try:
        yield Site(database, store, bot, manager, played, scored)
    finally:
        await bot.unload_extension(game_info(GAME).extension)
        for cog_tasks in [getattr(cog, "_tasks", set()) for cog in bot.cogs.values()]:
            for task in cog_tasks:
                task.cancel()
        await manager.close()
        bot.pictures.close()
        await store.close()


@pytest.fixture
async def client(site: Site, tmp_path: Any) -> AsyncIterator[TestClient[Any, Any]]:
    reads = await WebReads.open(site.database)
    pages = WebPages(reads, BotTables(site.bot), rate_limit=600)
    async with TestClient(TestServer(pages.app())) as test_client:
        yield test_client
    await reads.close()
