"""SHARD_COUNT and SHARD_IDS: read and checked as settings, then against the store before logging in."""

from __future__ import annotations

import asyncio

import pytest

from bot.config import Settings, SettingsError
from bot.store import Shards, Store
from bot.store.shards import check_shard_count
from tests.test_config import run_bot


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for key in ("SHARD_COUNT", "SHARD_IDS"):
        monkeypatch.delenv(key, raising=False)


def test_by_default_one_process_serves_the_only_shard():
    settings = Settings.from_env(env_file=None)
    assert (settings.shard_count, settings.shard_ids) == (1, (0,))


def test_without_shard_ids_a_process_serves_every_shard_of_the_count(monkeypatch):
    monkeypatch.setenv("SHARD_COUNT", "3")
    assert Settings.from_env(env_file=None).shard_ids == (0, 1, 2)


def test_shard_ids_are_read_in_order_without_repeats(monkeypatch):
    monkeypatch.setenv("SHARD_COUNT", "4")
    monkeypatch.setenv("SHARD_IDS", " 3, 1,3")
    settings = Settings.from_env(env_file=None)
    assert settings.shard_ids == (1, 3)
    assert Shards(settings.shard_count, settings.shard_ids).describe() == "shards 1, 3 of 4"


@pytest.mark.parametrize(
    ("count", "ids", "named"),
    [
        ("0", "", "SHARD_COUNT"),
        ("two", "", "SHARD_COUNT"),
        ("2", "2", "SHARD_IDS"),
        ("2", "0;1", "SHARD_IDS"),
    ],
)
def test_unusable_shard_settings_are_refused_naming_the_setting(monkeypatch, count, ids, named):
    monkeypatch.setenv("SHARD_COUNT", count)
    monkeypatch.setenv("SHARD_IDS", ids)
    with pytest.raises(SettingsError, match=named):
        Settings.from_env(env_file=None)


def test_a_changed_shard_count_stops_the_bot_with_one_line_before_logging_in(tmp_path):
    path = tmp_path / "bot.db"

    async def first_start() -> None:
        store = await Store.open(path)
        await check_shard_count(store, 1)
        await store.close()

    asyncio.run(first_start())
    # A token is set: without the check the bot would try to log in (and fail on the network instead).
    result = run_bot(tmp_path, DISCORD_TOKEN="x", DATABASE_PATH=str(path), SHARD_COUNT="2")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "SHARD_COUNT is 2" in lines[0] and "runs 1 shard" in lines[0], result.stderr
