"""Settings from the environment and an optional `.env` file (documented in .env.example)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from dotenv import load_dotenv

from bot.games.topple.state import NUMBERS as TOPPLE_NUMBERS
from bot.store.writer import DEFAULT_SYNCHRONOUS, SYNCHRONOUS_MODES

LANGUAGES = ("en", "fr", "de")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


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
    topwords_turn_minutes: float = 0.0
    # Topple: the default of `/topple new`'s turn_seconds, within the bounds the rules set for it.
    topple_turn_seconds: int = TOPPLE_NUMBERS["turn_seconds"][0]
    stall_log_ms: float = 100.0
    # Games not offered to servers (a template game, see docs/adding-a-game.md) that this bot loads anyway.
    extra_games: tuple[str, ...] = ()
    # How commits reach the disk: FULL (an acknowledged action is on disk) or NORMAL (see .env.example).
    synchronous: str = DEFAULT_SYNCHRONOUS
    # A PostgreSQL database (postgresql://…) instead of the SQLite file at database_path.
    database_url: str | None = None

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
        return cls(
            token=os.environ.get("DISCORD_TOKEN", "").strip() or None,
            database_path=Path(os.environ.get("DATABASE_PATH", "data/bot.db")),
            dev_guild_id=_optional_int("DEV_GUILD_ID"),
            default_language=language,
            log_level=log_level,
            lobby_minutes=_positive_float("LOBBY_MINUTES", 15.0),
            application_id=_optional_int("DISCORD_APPLICATION_ID"),
            max_games_per_server=_positive_int("MAX_GAMES_PER_SERVER", 25),
            topwords_turn_minutes=_minutes_or_off("TOPWORDS_TURN_MINUTES", 10.0),
            topple_turn_seconds=_whole_number_between("TOPPLE_TURN_SECONDS", *TOPPLE_NUMBERS["turn_seconds"]),
            stall_log_ms=_positive_float("STALL_LOG_MS", 100.0),
            extra_games=tuple(
                name.strip() for name in os.environ.get("EXTRA_GAMES", "").split(",") if name.strip()
            ),
            synchronous=synchronous,
            database_url=_database_url(),
        )


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


def _minutes_or_off(name: str, default: float) -> float:
    """Minutes, or 0 for off."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a number of minutes (0: off), not {raw!r}") from None
    if value < 0:
        raise SettingsError(f"{name} must be 0 (off) or more, not {raw!r}")
    return value
