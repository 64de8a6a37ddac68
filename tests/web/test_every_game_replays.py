"""Every game with a table replays on the web pages, step by step, as its own cog draws it: a scenario of the
game played by its rules (the host ends it if it has not ended), stored with its whole action log, then every
step's page (and picture, where the game draws one) asked for in each language."""

from __future__ import annotations

import asyncio
import glob
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.app import TopBot
from bot.config import Settings
from bot.engine.errors import GameError
from bot.engine.game import step
from bot.engine.sessions import SessionManager, _encode_state
from bot.games import GameInfo, games_with_a_table
from bot.replay import load_scenario, words_service
from bot.store import ActionRecord, SessionRecord, Store
from bot.web.reads import WebReads
from bot.web.server import WebPages
from bot.web.tables import BotTables

from .conftest import GUILD, TOKEN, open_pages

END = {"do": "end", "by": "host"}


def played(info: GameInfo) -> tuple[dict[str, Any], list[dict[str, Any]], Any]:
    """The game's first scenario that ends (by the host if need be) after two actions or more: the scenario,
    the complete actions the rules applied, and the rules."""
    rules = info.make(words_service())
    for path in sorted(glob.glob(f"tests/scenarios/{info.name}/*.json")):
        spec = load_scenario(path)
        seed = int(spec.get("seed", 0))
        state = rules.new_game(
            spec.get("options", {}), spec["players"], spec.get("setup", {}), random.Random(seed)
        )
        applied_actions: list[dict[str, Any]] = []
        for action in [*spec.get("actions", []), END]:
            if rules.outcome(state) is not None:
                break
            try:
                complete, applied = step(rules, state, seed, len(applied_actions), action)
            except GameError:
                continue
            state = applied.state
            applied_actions.append(complete)
        if rules.outcome(state) is not None and len(applied_actions) >= 2:
            return spec, applied_actions, rules
    raise AssertionError(f"no scenario of {info.name} ends")


async def store_game(store: Store, info: GameInfo, channel: int) -> tuple[int, int]:
    """The played scenario stored as the engine stores a finished game: its header and its action log."""
    spec, actions, rules = played(info)
    players = spec["players"]
    record = SessionRecord(
        id=0, guild_id=GUILD, channel_id=channel, game=info.name, status="finished", host_id=players[0],
        players=players, options=spec.get("options", {}), seed=int(spec.get("seed", 0)),
        setup=spec.get("setup", {}), names={p: p.title() for p in players}, version=len(actions),
        created_at=1_700_000_000.0, updated_at=1_700_000_000.0,
        snapshot=json.loads(_encode_state(rules, rules.new_game(
            spec.get("options", {}), players, spec.get("setup", {}), random.Random(int(spec.get("seed", 0)))
        ))),
    )  # fmt: skip
    async with store.transaction() as tx:
        record.id = await store.sessions.create(tx, record)
        await store.sessions.save(tx, record)
        for version, action in enumerate(actions):
            await store.actions.append(
                tx, ActionRecord(record.id, version, None, action.get("player"), action, [], 1_700_000_000.0)
            )
    return record.id, len(actions)


@pytest.fixture
async def every_table(tmp_path: Any) -> AsyncIterator[tuple[TopBot, dict[str, tuple[int, int]]]]:
    store = await Store.open(tmp_path / "bot.db")
    settings = Settings(
        token=None, database_path=tmp_path / "bot.db", dev_guild_id=None, default_language="en",
        log_level="INFO", lobby_minutes=15, application_id=None,
        extra_games=tuple(info.name for info in games_with_a_table() if not info.listed),
    )  # fmt: skip
    bot = TopBot(settings, store=store)
    infos = games_with_a_table()
    bot.sessions = SessionManager(store, {info.name: info.make(words_service()) for info in infos})
    bot.wait_until_ready = asyncio.Event().wait  # type: ignore[method-assign]  # never online: see conftest
    for info in infos:
        await bot.load_extension(info.extension)
    games = {info.name: await store_game(store, info, channel) for channel, info in enumerate(infos, 10)}
    await open_pages(store, TOKEN)
    try:
        yield bot, games
    finally:
        for info in infos:
            await bot.unload_extension(info.extension)
        for cog_tasks in [getattr(cog, "_tasks", set()) for cog in bot.cogs.values()]:
            for task in cog_tasks:
                task.cancel()
        bot.pictures.close()
        await store.close()


async def test_every_game_replays_step_by_step_in_every_language(every_table: Any, tmp_path: Any) -> None:
    bot, games = every_table
    reads = await WebReads.open(tmp_path / "bot.db")
    async with TestClient(TestServer(WebPages(reads, BotTables(bot), rate_limit=100_000).app())) as client:
        listed = await (await client.get(f"/s/{TOKEN}/games")).text()
        for game, (session_id, steps) in games.items():
            assert f"/s/{TOKEN}/games/{session_id}" in listed, game
            for lang in ("en", "fr", "de"):
                for index in range(steps + 1):
                    answer = await client.get(f"/s/{TOKEN}/games/{session_id}?step={index}&lang={lang}")
                    html = await answer.text()
                    assert answer.status == 200, (game, lang, index)
                    assert '<span class="step">' in html, (game, lang, index)
                    if 'class="picture"' in html:
                        picture = await client.get(f"/s/{TOKEN}/games/{session_id}/{index}.png?lang={lang}")
                        assert picture.status == 200 and picture.content_type == "image/png", (game, index)
    await reads.close()
