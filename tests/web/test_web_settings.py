"""The web pages' settings (off by default, bound to localhost unless configured; a bad value refused in one
line), the link token `/settings web` keeps in the server's settings, and the per-address rate limit."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from bot.config import Settings, SettingsError
from bot.store import ServerSettings
from bot.web.ratelimit import RateLimit
from cogs.settings import web_link, web_token_after

WEB_KEYS = ("WEB_ENABLED", "WEB_HOST", "WEB_PORT", "WEB_BASE_URL", "WEB_RATE_LIMIT")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in WEB_KEYS:
        monkeypatch.delenv(key, raising=False)


def test_the_pages_are_off_and_bound_to_localhost_by_default() -> None:
    settings = Settings.from_env(env_file=None)
    assert settings.web_enabled is False
    assert settings.web_host == "127.0.0.1" and settings.web_port == 8080
    assert settings.web_base_url == "http://127.0.0.1:8080"
    assert settings.web_rate_limit == 60


def test_the_pages_settings_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEB_ENABLED", "on")
    monkeypatch.setenv("WEB_HOST", "0.0.0.0")
    monkeypatch.setenv("WEB_PORT", "9000")
    monkeypatch.setenv("WEB_BASE_URL", "https://games.example.org/")
    monkeypatch.setenv("WEB_RATE_LIMIT", "30")
    settings = Settings.from_env(env_file=None)
    assert settings.web_enabled and settings.web_host == "0.0.0.0" and settings.web_port == 9000
    assert settings.web_base_url == "https://games.example.org"  # the link root, without its last slash
    assert settings.web_rate_limit == 30


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("WEB_ENABLED", "maybe", "WEB_ENABLED must be on or off"),
        ("WEB_PORT", "0", "WEB_PORT must be a whole number from 1 to 65535"),
        ("WEB_PORT", "70000", "WEB_PORT must be a whole number from 1 to 65535"),
        ("WEB_HOST", "http://host", "WEB_HOST must be a host name or an address"),
        ("WEB_BASE_URL", "games.example.org", "WEB_BASE_URL must be an http:// or https:// link root"),
        ("WEB_BASE_URL", "ftp://example.org", "WEB_BASE_URL must be an http:// or https:// link root"),
        ("WEB_RATE_LIMIT", "0", "WEB_RATE_LIMIT must be a whole number above 0"),
    ],
)
def test_an_unusable_web_setting_is_refused(
    monkeypatch: pytest.MonkeyPatch, key: str, value: str, said: str
) -> None:
    monkeypatch.setenv(key, value)
    with pytest.raises(SettingsError, match=said):
        Settings.from_env(env_file=None)


def test_the_bot_refuses_an_unusable_web_setting_in_one_line(tmp_path: Path) -> None:
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": root, "DISCORD_TOKEN": "x", "WEB_PORT": "none"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "WEB_PORT must be a whole number from 1 to 65535" in lines[0]


def test_on_makes_a_token_and_keeps_it_new_link_replaces_it_off_removes_it() -> None:
    first = web_token_after("on", None, "a" * 32)
    assert first == "a" * 32
    assert web_token_after("on", first, "b" * 32) == first  # on again: the link people have still works
    assert web_token_after("new_link", first, "c" * 32) == "c" * 32
    assert web_token_after("off", first, "d" * 32) is None


def test_the_token_is_kept_in_the_servers_settings_json() -> None:
    settings = ServerSettings(max_games=3, web_token="t" * 32)
    again = ServerSettings.from_json(settings.to_json())
    assert again.web_token == "t" * 32 and again.max_games == 3
    assert ServerSettings.from_json('{"web_token": 12}').web_token is None  # the wrong shape: no pages
    assert "web_token" not in ServerSettings().to_json()


def test_the_link_is_the_base_url_with_the_token() -> None:
    assert web_link("https://games.example.org/", "t" * 32) == f"https://games.example.org/s/{'t' * 32}/"


def test_a_bucket_allows_a_burst_then_one_request_per_refill() -> None:
    now = [0.0]
    limit = RateLimit(60, clock=lambda: now[0])  # one a second, bursts of 60
    assert [limit.take("1.2.3.4") for _ in range(60)] == [0.0] * 60
    wait = limit.take("1.2.3.4")
    assert wait == pytest.approx(1.0) and RateLimit.retry_after(wait) == "1"
    assert limit.take("5.6.7.8") == 0.0  # another address has a bucket of its own
    now[0] += 1.0
    assert limit.take("1.2.3.4") == 0.0
    assert limit.take("1.2.3.4") > 0


def test_the_buckets_remembered_are_bounded() -> None:
    limit = RateLimit(1, clock=lambda: 0.0, most=3)
    for address in ("a", "b", "c", "d"):
        limit.take(address)
    assert limit.take("a") == 0.0  # the least recent was forgotten: a fresh bucket
    assert limit.take("d") > 0


async def test_the_bot_serves_its_pages_and_runs_on_without_them_when_the_port_is_taken(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from bot.app import TopBot
    from bot.store import Store

    store = await Store.open(tmp_path / "bot.db")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = int(taken.getsockname()[1])
        settings = Settings(
            token=None, database_path=tmp_path / "bot.db", dev_guild_id=None, default_language="en",
            log_level="INFO", lobby_minutes=15, application_id=None, web_enabled=True, web_port=port,
        )  # fmt: skip
        bot = TopBot(settings, store=store)
        await bot._serve_web_pages()
        assert bot.web is None
        assert f"web pages not served: cannot listen on 127.0.0.1:{port}" in caplog.text
    await bot._serve_web_pages()  # the port is free again
    assert bot.web is not None and bot.web.port_bound == port
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}/site.css") as answer:
        assert answer.status == 200 and answer.headers["X-Content-Type-Options"] == "nosniff"
    await bot.web.close()
    await store.close()
