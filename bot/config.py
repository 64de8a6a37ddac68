"""Settings from the environment and an optional `.env` file (documented in .env.example)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from dotenv import load_dotenv

from bot.store.writer import DEFAULT_SYNCHRONOUS, SYNCHRONOUS_MODES

LANGUAGES = ("en", "fr", "de")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")


class SettingsError(ValueError):
    """A setting is present but unusable."""


@dataclass(frozen=True)
class Settings:
    token: str | None
    database_path: Path
    dev_guild_id: int | None
    default_language: str
    log_level: str
    lobby_minutes: float
    application_id: int | None
    max_games_per_server: int = 25
    # Each game's options set by the environment (its `GameInfo.bot_defaults`): game → option → value.
    game_defaults: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    stall_log_ms: float = 100.0
    # Games not offered to servers (a template game, see docs/adding-a-game.md) that this bot loads anyway.
    extra_games: tuple[str, ...] = ()
    # How commits reach the disk: FULL (an acknowledged action is on disk) or NORMAL (see .env.example).
    synchronous: str = DEFAULT_SYNCHRONOUS
    # Discord's shards: every process of the bot splits the guilds into `shard_count` shards (the same count
    # everywhere) and serves `shard_ids` of them; by default one process serves every shard.
    shard_count: int = 1
    shard_ids: tuple[int, ...] = (0,)
    # The web pages (bot/web): off unless WEB_ENABLED; where they listen, the link root shown to admins, and
    # the requests a minute one address may make.
    web_enabled: bool = False
    web_host: str = "127.0.0.1"
    web_port: int = 8080
    web_base_url: str = "http://127.0.0.1:8080"
    web_rate_limit: int = 60
    # A PostgreSQL database (postgresql://…) instead of the SQLite file at database_path.
    database_url: str | None = None
    # Bot players wait their move's delay times this (docs/bots.md): 1.0 plays at a human pace; tests use a
    # tiny pace, a demonstration may slow them down.
    bot_pace: float = 1.0

    @property
    def database(self) -> str | Path:
        """What the store opens: the PostgreSQL URL when one is set, else the SQLite file."""
        return self.database_url or self.database_path

    @classmethod
    def from_env(cls, env_file: str | Path | None = ".env") -> Settings:
        """Read the environment; values already set win over those in the .env file."""
        if env_file is not None and Path(env_file).is_file():
            load_dotenv(env_file, override=False)
        language = os.environ.get("DEFAULT_LANGUAGE", "en").strip().lower() or "en"
        if language not in LANGUAGES:
            raise SettingsError(f"DEFAULT_LANGUAGE must be one of {', '.join(LANGUAGES)}, not {language!r}")
        synchronous = (
            os.environ.get("SYNCHRONOUS", DEFAULT_SYNCHRONOUS).strip().upper() or DEFAULT_SYNCHRONOUS
        )
        if synchronous not in SYNCHRONOUS_MODES:
            raise SettingsError(
                f"SYNCHRONOUS must be one of {', '.join(SYNCHRONOUS_MODES)}, not {synchronous!r}"
            )
        log_level = os.environ.get("LOG_LEVEL", "INFO").strip().upper() or "INFO"
        if log_level not in LOG_LEVELS:
            raise SettingsError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {log_level!r}")
        shard_count = _positive_int("SHARD_COUNT", 1)
        return cls(
            token=os.environ.get("DISCORD_TOKEN", "").strip() or None,
            database_path=Path(os.environ.get("DATABASE_PATH", "data/bot.db")),
            dev_guild_id=_optional_int("DEV_GUILD_ID"),
            default_language=language,
            log_level=log_level,
            lobby_minutes=_positive_float("LOBBY_MINUTES", 15.0),
            application_id=_optional_int("DISCORD_APPLICATION_ID"),
            max_games_per_server=_positive_int("MAX_GAMES_PER_SERVER", 25),
            game_defaults=_game_defaults(),
            stall_log_ms=_positive_float("STALL_LOG_MS", 100.0),
            extra_games=tuple(
                name.strip() for name in os.environ.get("EXTRA_GAMES", "").split(",") if name.strip()
            ),
            synchronous=synchronous,
            shard_count=shard_count,
            shard_ids=_shard_ids(shard_count),
            **_web_settings(),
            database_url=_database_url(),
            bot_pace=_positive_float("BOT_PACE", 1.0),
        )


def _web_settings() -> dict[str, Any]:
    """WEB_ENABLED (on/off), WEB_HOST, WEB_PORT, WEB_BASE_URL (an http(s) link root; by default the address
    itself) and WEB_RATE_LIMIT (requests a minute per address)."""
    raw = os.environ.get("WEB_ENABLED", "").strip().lower()
    if raw not in ("", *TRUE_WORDS, *FALSE_WORDS):
        raise SettingsError(f"WEB_ENABLED must be on or off (1/0, true/false, yes/no), not {raw!r}")
    host = os.environ.get("WEB_HOST", "").strip() or "127.0.0.1"
    if any(character.isspace() or character in "/?#@" for character in host):
        raise SettingsError(f"WEB_HOST must be a host name or an address, not {host!r}")
    port = _whole_number_between("WEB_PORT", 8080, 1, 65535)
    shown_host = f"[{host}]" if ":" in host else host
    base_url = os.environ.get("WEB_BASE_URL", "").strip().rstrip("/") or f"http://{shown_host}:{port}"
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise SettingsError(f"WEB_BASE_URL must be an http:// or https:// link root, not {base_url!r}")
    return {
        "web_enabled": raw in TRUE_WORDS,
        "web_host": host,
        "web_port": port,
        "web_base_url": base_url,
        "web_rate_limit": _positive_int("WEB_RATE_LIMIT", 60),
    }


def _database_url() -> str | None:
    raw = os.environ.get("DATABASE_URL", "").strip()
    if not raw:
        return None
    if not raw.startswith(("postgresql://", "postgres://")):
        raise SettingsError(
            "DATABASE_URL must be a PostgreSQL URL (postgresql://user:password@host/database)"
        )
    return raw


def _optional_int(name: str) -> int | None:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    if not raw.isdigit():
        raise SettingsError(f"{name} must be a number (a Discord id), not {raw!r}")
    return int(raw)


def _positive_float(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a number, not {raw!r}") from None
    if value <= 0:
        raise SettingsError(f"{name} must be positive, not {raw!r}")
    return value


def _positive_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) == 0:
        raise SettingsError(f"{name} must be a whole number above 0, not {raw!r}")
    return int(raw)


def _whole_number_between(name: str, default: int, low: int, high: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise SettingsError(f"{name} must be a whole number from {low} to {high}, not {raw!r}")
    return int(raw)


def _game_defaults() -> dict[str, dict[str, Any]]:
    """Every game's environment settings (`GameInfo.bot_defaults`), each checked by the game's own reader."""
    from bot.games.registry import every_game

    found: dict[str, dict[str, Any]] = {}
    for info in every_game():
        for declared in info.bot_defaults:
            raw = os.environ.get(declared.env, "").strip() or declared.default
            if not raw:
                continue
            try:
                value = declared.read(raw)
            except ValueError as exc:
                raise SettingsError(f"{declared.env} must be {exc}, not {raw!r}") from None
            if value is not None:
                found.setdefault(info.name, {})[declared.option] = value
    return found


def _shard_ids(count: int) -> tuple[int, ...]:
    """SHARD_IDS: the shards this process serves, comma-separated, each below SHARD_COUNT; default all."""
    raw = os.environ.get("SHARD_IDS", "").strip()
    if not raw:
        return tuple(range(count))
    parts = [part.strip() for part in raw.split(",")]
    if not all(part.isdigit() for part in parts):
        raise SettingsError(f"SHARD_IDS must be shard numbers separated by commas (e.g. 0,1), not {raw!r}")
    ids = tuple(sorted({int(part) for part in parts}))
    outside = [shard for shard in ids if shard >= count]
    if outside:
        raise SettingsError(
            f"SHARD_IDS must be below SHARD_COUNT ({count}): shards are numbered 0 to {count - 1}, not {raw!r}"
        )
    return ids
