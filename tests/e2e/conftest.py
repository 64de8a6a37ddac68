"""Fixtures for the end-to-end tests: the fake Discord, a table of people, and the bot.

Every test that uses `fake_discord` fails at teardown if the fake recorded a violation (a body
that breaks Discord's spec or limits, a late or double answer, an unknown route …), unless it is
marked `expect_violations` and checks `fake_discord.take_violations()` itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.util
import logging
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import discord.gateway
import discord.http
import pytest

from .driver import Table
from .fake_discord import QUICK_CHANNEL_MESSAGE_RATE, QUICK_WEBHOOK_RATE, FakeDiscord
from .launcher import GUILD_READY_TIMEOUT
from .minimal_bot import MinimalBot
from .process import BotProcess, SpawnBot
from .spec import DEFAULT_SPEC_PATH, SPEC_ENV, OpenApiSpec, find_spec_path

log = logging.getLogger("e2e")
HERE = Path(__file__).resolve().parent
TEST_TIMEOUT = 60  # seconds, per test, when pytest-timeout is installed
START_TIMEOUT = 20.0


def _product_missing() -> bool:
    try:
        return importlib.util.find_spec("bot.app") is None
    except ModuleNotFoundError:
        return True


PRODUCT_MISSING = _product_missing()
requires_product = pytest.mark.skipif(
    PRODUCT_MISSING, reason="bot.app is not importable yet: the product entry points are still being written"
)


class SpecMissingWarning(UserWarning):
    """Discord's OpenAPI spec was not found, so only LIMITS.md rules are checked."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "expect_violations: the test provokes fake-Discord violations and checks them"
    )
    config.addinivalue_line("markers", "allow_bot_errors: the in-process bot may log errors in this test")
    config.addinivalue_line(
        "markers", "real_pace: the in-process bot keeps each game's pace between table edits (see no_pace)"
    )
    config.addinivalue_line(
        "markers", "fake_discord(**options): options for FakeDiscord, e.g. heartbeat_interval"
    )
    config.addinivalue_line(
        "markers", "spec_crosscheck: every body is judged by both spec validators, which must agree"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # No e2e test may hang: a per-test ceiling on top of the timeouts inside the harness.
    if not config.pluginmanager.hasplugin("timeout"):
        return
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(TEST_TIMEOUT))


def _say(config: pytest.Config, line: str) -> None:
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(line)


@pytest.fixture(scope="session")
def discord_spec(pytestconfig: pytest.Config) -> OpenApiSpec | None:
    """Discord's OpenAPI spec, or None (with a loud warning) when the file is missing."""
    path = find_spec_path()
    if path is None:
        reason = (
            f"Discord OpenAPI spec not found (set {SPEC_ENV} or provide {DEFAULT_SPEC_PATH}): "
            "request bodies are checked against LIMITS.md only, spec checks are SKIPPED"
        )
        warnings.warn(reason, SpecMissingWarning, stacklevel=1)
        log.warning(reason)
        _say(pytestconfig, f"e2e: WARNING {reason}")
        return None
    spec = OpenApiSpec(path)
    _say(pytestconfig, f"e2e: validating requests against Discord's OpenAPI spec {path}")
    return spec


@pytest.fixture
async def fake_discord(
    discord_spec: OpenApiSpec | None, request: pytest.FixtureRequest
) -> AsyncIterator[FakeDiscord]:
    """A running fake Discord; fails the test at teardown if it recorded any violation."""
    marker = request.node.get_closest_marker("fake_discord")
    options = dict(marker.kwargs if marker else {})
    if request.node.get_closest_marker("real_pace") is None:
        # Discord's rate windows, compressed as the bot's pace is (no_pace below).
        options.setdefault("message_rate", QUICK_CHANNEL_MESSAGE_RATE)
        options.setdefault("webhook_rate", QUICK_WEBHOOK_RATE)
    fake = FakeDiscord(discord_spec, **options)
    crosscheck = discord_spec is not None and request.node.get_closest_marker("spec_crosscheck") is not None
    if crosscheck:
        discord_spec.disagreements = []
    await fake.start()
    try:
        yield fake
    finally:
        await fake.close()
        if crosscheck:
            disagreements, discord_spec.disagreements = discord_spec.disagreements, None
            assert not disagreements, f"the spec's two validators disagree on: {disagreements[:3]}"
    if request.node.get_closest_marker("expect_violations") is None and fake.violations:
        listing = "\n".join(f"  {v}" for v in fake.violations)
        pytest.fail(
            f"the fake Discord recorded {len(fake.violations)} violation(s):\n{listing}", pytrace=False
        )


@pytest.fixture
def table(fake_discord: FakeDiscord) -> Table:
    return Table(fake_discord)


@pytest.fixture
def point_discord(fake_discord: FakeDiscord, monkeypatch: pytest.MonkeyPatch) -> FakeDiscord:
    """Points discord.py in this process at the fake (what launcher.py does for a bot process)."""
    monkeypatch.setattr(discord.http.Route, "BASE", fake_discord.api_base)
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", fake_discord.gateway_url)
    return fake_discord


class _ErrorLog(logging.Handler):
    """Collects errors the in-process bot logs (discord.py logs handler exceptions at ERROR)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def describe(self) -> str:
        if not self.records:
            return ""
        lines = []
        for record in self.records[-5:]:
            lines.append(f"  {record.name}: {record.getMessage()}")
            if record.exc_info and record.exc_info[1] is not None:
                lines.append(f"    {type(record.exc_info[1]).__name__}: {record.exc_info[1]}")
        return "errors the bot logged:\n" + "\n".join(lines)


@pytest.fixture
def bot_errors(fake_discord: FakeDiscord, request: pytest.FixtureRequest) -> Any:
    """Fails the test if the in-process bot logs an error (an exception in a command or a view)."""
    handler = _ErrorLog()
    root = logging.getLogger()
    root.addHandler(handler)
    fake_discord.diagnostics.append(handler.describe)
    yield handler
    root.removeHandler(handler)
    if handler.records and request.node.get_closest_marker("allow_bot_errors") is None:
        pytest.fail("the bot logged errors:\n" + handler.describe(), pytrace=False)


async def run_in_process(fake: FakeDiscord, bot: discord.Client) -> asyncio.Task[None]:
    """Starts the bot on this event loop; returns once it is connected (READY and GUILD_CREATE sent)."""
    task = asyncio.create_task(bot.start(fake.token), name="bot-under-test")
    try:
        await fake.wait_until(
            lambda: fake.gateway.connected or task.done(), within=START_TIMEOUT, what="the bot to connect"
        )
    except BaseException:
        await stop_in_process(bot, task)
        raise
    if task.done():
        task.result()  # raises what stopped the bot
        raise AssertionError("the bot stopped during start-up")
    return task


async def stop_in_process(bot: discord.Client, task: asyncio.Task[None]) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(bot.close(), 10)
    if not task.done():
        task.cancel()
    with contextlib.suppress(BaseException):
        await asyncio.wait_for(task, 10)


@pytest.fixture
async def minimal_bot(point_discord: FakeDiscord, bot_errors: Any) -> AsyncIterator[MinimalBot]:
    """The harness's own minimal bot, in this process."""
    bot = MinimalBot(point_discord.guild_id)
    task = await run_in_process(point_discord, bot)
    try:
        yield bot
    finally:
        bot.slow_gate.set()
        await stop_in_process(bot, task)


@functools.cache
def shared_words() -> Any:
    """One words service for every in-process bot of the run: the dictionaries load once, not per test."""
    from bot.words.service import WordService

    return WordService()


@pytest.fixture(autouse=True)
def no_pace(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process bots draw every table change at once: a test's steps follow each other faster than the
    pace a channel needs (one edit a second), which would only make every test wait; the fake's rate windows
    are a tenth of Discord's for the same reason (`fake_discord`). The pace and Discord's own windows are
    tested under `@pytest.mark.real_pace`; bots in their own process keep their pace."""
    if request.node.get_closest_marker("real_pace") is None and not PRODUCT_MISSING:
        from bot.ui.table import TableCog

        monkeypatch.setattr(TableCog, "redraw_interval", 0.0)


@pytest.fixture
def bot_database(database: Path | str) -> Path | str:
    """The bot's database: an SQLite file in the test's folder, and for a test marked `both_databases` a
    fresh PostgreSQL database too (the `database` fixture of tests/conftest.py). A module about something only
    one database has overrides it, in a line that says why."""
    return database


@pytest.fixture
async def product_bot(
    point_discord: FakeDiscord, bot_errors: Any, monkeypatch: pytest.MonkeyPatch, bot_database: Path | str
) -> AsyncIterator[discord.Client]:
    """The product bot (bot.app.TopBot) in this process, configured as in production from the environment."""
    if PRODUCT_MISSING:
        pytest.skip("bot.app is not importable yet")
    import bot.words
    from bot.app import TopBot
    from bot.config import Settings
    from bot.ui import components

    # The bot warms all three languages at start-up (seconds of CPU); in-process bots share one service.
    monkeypatch.setattr(bot.words, "WordService", shared_words)

    monkeypatch.setenv("DISCORD_TOKEN", point_discord.token)
    if isinstance(bot_database, Path):
        monkeypatch.setenv("DATABASE_PATH", str(bot_database))
        monkeypatch.delenv("DATABASE_URL", raising=False)
    else:
        monkeypatch.setenv("DATABASE_URL", bot_database)
    monkeypatch.setenv("DEV_GUILD_ID", str(point_discord.guild_id))
    bot = TopBot(Settings.from_env(env_file=None))  # never the developer's .env
    bot._connection.guild_ready_timeout = GUILD_READY_TIMEOUT  # as a bot process started by launcher.py
    task = await run_in_process(point_discord, bot)
    point_discord.busy_checks.append(lambda: any(getattr(cog, "busy", False) for cog in bot.cogs.values()))
    point_discord.busy_checks.append(components.handling)
    try:
        yield bot
    finally:
        point_discord.busy_checks.clear()
        await stop_in_process(bot, task)


@pytest.fixture
async def spawn_bot(
    fake_discord: FakeDiscord, tmp_path: Path, bot_database: Path | str
) -> AsyncIterator[SpawnBot]:
    """Starts bot processes through launcher.py; every one is SIGKILLed at teardown if still alive."""
    started: list[BotProcess] = []

    async def spawn(
        entry: str = "bot.__main__:main",
        *,
        database: Path | str | None = None,
        env: dict[str, str] | None = None,
    ) -> BotProcess:
        process = BotProcess(
            fake_discord,
            workdir=tmp_path,
            entry=entry,
            database=database or bot_database,
            name=f"bot-{len(started) + 1}",
            env=env,
        )
        started.append(process)
        fake_discord.diagnostics.append(process.tail)
        fake_discord.busy_checks.append(lambda: process.busy)
        await process.start()
        return process

    try:
        yield spawn
    finally:
        for process in started:
            await process.kill()
