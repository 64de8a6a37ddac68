"""Settings from the environment: defaults, validation, the no-token exit, an unusable database."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import Settings, SettingsError
from tests.test_startup import MEASURED

ENV_KEYS = (
    "DISCORD_TOKEN",
    "DATABASE_PATH",
    "DATABASE_URL",
    "DEV_GUILD_ID",
    "DEFAULT_LANGUAGE",
    "LOBBY_MINUTES",
    "SYNCHRONOUS",
    "LOG_LEVEL",
    "TOPPLE_TURN_SECONDS",
    "TOPWORDS_TURN_MINUTES",
    "BOT_PACE",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for key in (*ENV_KEYS, "DISCORD_APPLICATION_ID"):
        monkeypatch.delenv(key, raising=False)


def test_defaults():
    settings = Settings.from_env(env_file=None)
    assert settings.token is None
    assert str(settings.database_path) == "data/bot.db" and settings.database == settings.database_path
    assert settings.default_language == "en" and settings.lobby_minutes == 15
    assert settings.synchronous == "FULL"  # an acknowledged action is on the disk
    # Each game's environment defaults: TopWords' ten-minute turns; Topple unset keeps the rules' default.
    assert settings.game_defaults == {"topwords": {"turn_seconds": 600}}


def test_a_postgresql_url_selects_postgresql_and_anything_else_is_refused(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgresql://bot:secret@db.internal/bot")
    settings = Settings.from_env(env_file=None)
    assert settings.database == "postgresql://bot:secret@db.internal/bot"
    monkeypatch.setenv("DATABASE_URL", "sqlite:///data/bot.db")
    with pytest.raises(SettingsError, match="DATABASE_URL"):
        Settings.from_env(env_file=None)


def test_topple_turn_seconds_is_read_within_the_rules_bounds(monkeypatch):
    monkeypatch.setenv("TOPPLE_TURN_SECONDS", "45")
    assert Settings.from_env(env_file=None).game_defaults["topple"] == {"turn_seconds": 45}
    for value in ("10", "3600"):
        monkeypatch.setenv("TOPPLE_TURN_SECONDS", value)
        assert Settings.from_env(env_file=None).game_defaults["topple"] == {"turn_seconds": int(value)}


def test_topwords_turn_minutes_are_seconds_of_the_option_and_zero_turns_the_timer_off(monkeypatch):
    monkeypatch.setenv("TOPWORDS_TURN_MINUTES", "2.5")
    assert Settings.from_env(env_file=None).game_defaults["topwords"] == {"turn_seconds": 150}
    monkeypatch.setenv("TOPWORDS_TURN_MINUTES", "0")
    assert "topwords" not in Settings.from_env(env_file=None).game_defaults


def test_a_games_environment_settings_are_declared_with_the_game_and_read_for_every_game():
    from bot.games.registry import every_game

    declared = {d.env: info.name for info in every_game() for d in info.bot_defaults}
    assert declared == {"TOPPLE_TURN_SECONDS": "topple", "TOPWORDS_TURN_MINUTES": "topwords"}
    example = (Path(__file__).parents[1] / ".env.example").read_text()
    assert all(name in example for name in declared)  # each one documented for operators


def test_bot_players_play_at_a_human_pace_unless_the_operator_changes_it(monkeypatch):
    assert Settings.from_env(env_file=None).bot_pace == 1.0
    monkeypatch.setenv("BOT_PACE", "0.25")
    assert Settings.from_env(env_file=None).bot_pace == 0.25


def test_synchronous_may_be_relaxed_by_the_operator(monkeypatch):
    monkeypatch.setenv("SYNCHRONOUS", "normal")
    assert Settings.from_env(env_file=None).synchronous == "NORMAL"


def test_env_file_is_read_but_the_environment_wins(tmp_path, monkeypatch):
    env = tmp_path / ".env"
    env.write_text("DISCORD_TOKEN=from-file\nDEV_GUILD_ID=123\nDEFAULT_LANGUAGE=de\n")
    monkeypatch.setenv("DEFAULT_LANGUAGE", "fr")
    settings = Settings.from_env(env)
    assert (
        settings.token == "from-file" and settings.dev_guild_id == 123 and settings.default_language == "fr"
    )


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("DEV_GUILD_ID", "abc"),
        ("DEFAULT_LANGUAGE", "es"),
        ("LOBBY_MINUTES", "-1"),
        ("SYNCHRONOUS", "OFF"),
        ("TOPPLE_TURN_SECONDS", "9"),
        ("TOPPLE_TURN_SECONDS", "3601"),
        ("TOPPLE_TURN_SECONDS", "1.5"),
        ("TOPWORDS_TURN_MINUTES", "-1"),
        ("TOPWORDS_TURN_MINUTES", "soon"),
        ("TOPWORDS_TURN_MINUTES", "nan"),
        ("BOT_PACE", "0"),
        ("BOT_PACE", "fast"),
    ],
)
def test_bad_values_are_refused_with_the_setting_named(monkeypatch, key, value):
    monkeypatch.setenv(key, value)
    with pytest.raises(SettingsError, match=key):
        Settings.from_env(env_file=None)


@pytest.mark.bot_process  # starts `python -m bot`
def test_without_a_token_the_bot_exits_2_with_one_clear_line(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(__import__("pathlib").Path(__file__).parent.parent)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "DISCORD_TOKEN" in lines[0] and "developers/applications" in lines[0]


def run_bot(tmp_path, **env):
    root = str(__import__("pathlib").Path(__file__).parent.parent)
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env={
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": root,
            **{key: os.environ[key] for key in MEASURED if key in os.environ},
            **env,
        },
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.bot_process  # starts `python -m bot`
def test_a_bad_setting_exits_2_with_one_line_naming_it(tmp_path):
    result = run_bot(tmp_path, DISCORD_TOKEN="x", LOG_LEVEL="verbose")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "LOG_LEVEL" in lines[0]


@pytest.mark.bot_process  # starts `python -m bot`
def test_a_postgresql_server_that_cannot_be_reached_stops_the_bot_with_one_line(tmp_path, unused_tcp_port):
    url = f"postgresql://bot:secret@127.0.0.1:{unused_tcp_port}/bot"
    result = run_bot(tmp_path, DISCORD_TOKEN="x", DATABASE_URL=url)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot open the database" in lines[0], result.stderr
    assert "secret" not in result.stderr


@pytest.mark.bot_process  # starts `python -m bot`
def test_a_database_from_a_newer_bot_stops_it_before_logging_in(tmp_path):
    import sqlite3

    path = tmp_path / "newer.db"
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA user_version = 999")
    # A token is set: without the check the bot would try to log in (and fail on the network instead).
    result = run_bot(tmp_path, DISCORD_TOKEN="x", DATABASE_PATH=str(path))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "schema version 999" in lines[0], result.stderr


def _database_with_games(path) -> None:
    """A real database with a few hundred stored sessions, written by the bot's own store."""
    import asyncio

    from bot.engine.sessions import SessionManager
    from bot.store import Store
    from tests.engine.race_game import RaceGame

    async def fill() -> None:
        store = await Store.open(path)
        manager = SessionManager(store, {"race": RaceGame()})
        for channel in range(300):
            lobby = await manager.open_lobby(1, channel, "race", "ann", {})
            await manager.join(lobby.id, "bob")
            await manager.start_game(lobby.id, "ann")
        await manager.close()
        await store.close()

    asyncio.run(fill())
    for suffix in ("-wal", "-shm"):
        assert not path.with_name(path.name + suffix).exists()  # checkpointed into the file on close


def _truncate(data: bytes) -> bytes:
    return data[: len(data) // 2 + 123]


def _flip_magic(data: bytes) -> bytes:
    return bytes([data[0] ^ 0xFF]) + data[1:]


def _flip_page_headers(data: bytes) -> bytes:
    page = int.from_bytes(data[16:18], "big")
    damaged = bytearray(data)
    for start in range(page, len(data), page):  # every b-tree page's type byte
        damaged[start] ^= 0x5A
    return bytes(damaged)


@pytest.mark.parametrize("damage", [_truncate, _flip_magic, _flip_page_headers])
@pytest.mark.bot_process  # starts `python -m bot`
def test_a_damaged_database_stops_the_bot_with_one_line_before_logging_in(tmp_path, damage):
    # No network here: a bot that went on to log in would end otherwise (or hang until run_bot's timeout).
    path = tmp_path / "bot.db"
    _database_with_games(path)
    path.write_bytes(damage(path.read_bytes()))
    result = run_bot(tmp_path, DISCORD_TOKEN="x", DATABASE_PATH=str(path))
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "database" in lines[0] and "Traceback" not in result.stderr, result.stderr


def _flips_inside_pages(data: bytes, count: int = 24) -> list[tuple[int, bytes]]:
    """`count` copies of the file, each with one byte inverted inside a b-tree page, on pages spread over
    the whole file, at places spread over a page: its header, the cell pointers, cells, the page's end."""
    page = int.from_bytes(data[16:18], "big")
    pages = len(data) // page
    within = (1, 3, 4, 5, 7, 9, 10, 13, 16, 21, page // 3, page // 2, page - 40, page - 7)
    copies = []
    for case in range(count):
        offset = (1 + (pages - 2) * case // (count - 1)) * page + within[case % len(within)]
        damaged = bytearray(data)
        damaged[offset] ^= 0xFF
        copies.append((offset, bytes(damaged)))
    return copies


async def _opened_or_refused(path: Path) -> str | None:
    """What the bot's start-up would print for this database (`error: <the refusal>`), or None: it opens."""
    from bot.store import Store, UnusableDatabase

    try:
        store = await Store.open(path)
    except UnusableDatabase as refusal:
        return f"error: {refusal}"
    await store.close()
    return None


@pytest.mark.bot_process  # starts `python -m bot`
async def test_a_byte_flipped_inside_a_page_is_told_in_one_line_every_time(tmp_path):
    """Each flip SQLite notices refuses the database in one line (quick_check's first finding and what to
    do), the line the bot prints alone before logging in; a flip it cannot notice (inside a value) opens, and
    the bot goes on to log in (here: to a port that refuses). Every flip is opened by the store as the bot
    opens it; one of each kind goes through `python -m bot` as well (a bot process each: seconds)."""
    import asyncio

    from tests.test_startup import a_refused_port, run_bot

    original = tmp_path / "original.db"
    await asyncio.to_thread(_database_with_games, original)  # it runs an event loop of its own
    flips = _flips_inside_pages(original.read_bytes())
    first_of_each: dict[bool, Path] = {}  # noticed or not: a copy of the first such file for the bot
    noticed = 0
    for offset, data in flips:
        path, spare = tmp_path / f"flipped-{offset}.db", tmp_path / f"spare-{offset}.db"
        path.write_bytes(data)
        spare.write_bytes(data)
        line = await _opened_or_refused(path)
        if line is not None:
            assert "\n" not in line and "is damaged (" in line and "backup" in line, (offset, line)
            noticed += 1
        first_of_each.setdefault(line is not None, spare)
    assert noticed >= len(flips) // 3, f"only {noticed} of {len(flips)} flips were noticed"
    assert set(first_of_each) == {True, False}, first_of_each  # and some it cannot notice
    refused_port = a_refused_port()
    for was_noticed, path in first_of_each.items():
        result = await run_bot(
            tmp_path, f"http://127.0.0.1:{refused_port}/api/v10", "ws://127.0.0.1:1/", database=path
        )
        lines = [text for text in result.stderr.splitlines() if text.strip()]
        assert result.returncode == 2 and len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
        if was_noticed:
            assert lines[0].startswith("error: the database") and "is damaged (" in lines[0], lines[0]
        else:
            assert lines[0].startswith("error: cannot reach Discord at 127.0.0.1"), lines[0]


@pytest.mark.bot_process  # starts `python -m bot`
def test_an_empty_file_is_not_silently_a_new_database(tmp_path):
    path = tmp_path / "bot.db"
    path.write_bytes(b"")
    result = run_bot(tmp_path, DISCORD_TOKEN="x", DATABASE_PATH=str(path))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "empty file" in lines[0], result.stderr
    assert path.stat().st_size == 0  # left as it was


async def test_a_fresh_path_becomes_a_new_database(tmp_path):
    from bot.store import Store

    store = await Store.open(tmp_path / "new" / "bot.db")
    await store.close()
    assert (tmp_path / "new" / "bot.db").stat().st_size > 0
