"""Helpers the store's tests share."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.store.database import _split_statements
from bot.store.migrations import MIGRATIONS


class TickingClock:
    """A clock a second later at every reading: each finished game gets its own moment, in order."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def sqlite_at_version(path: Path, version: int) -> sqlite3.Connection:
    """An SQLite database made by the first `version` migrations only, as an older bot left it."""
    connection = sqlite3.connect(path)
    for migration in MIGRATIONS[:version]:
        for statement in _split_statements(migration):
            connection.execute(statement)
    return connection
