"""One aiosqlite connection with the PRAGMAs we rely on, explicit transactions and migrations."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from bot.store.migrations import MIGRATIONS

log = logging.getLogger(__name__)


class SchemaTooNew(RuntimeError):
    """The database was written by a newer version of the bot; refusing to touch it."""


class Database:
    """A single connection shared by the whole bot; writes go through `transaction()`."""

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._connection = connection
        # One writer at a time: aiosqlite serialises statements, not transactions.
        self._write_lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str | Path) -> Database:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        connection = await aiosqlite.connect(str(path), isolation_level=None)
        connection.row_factory = aiosqlite.Row
        for pragma in (
            "PRAGMA journal_mode=WAL",
            "PRAGMA foreign_keys=ON",
            "PRAGMA busy_timeout=5000",
            "PRAGMA synchronous=NORMAL",
        ):
            await connection.execute(pragma)
        database = cls(connection)
        try:
            await database.migrate()
        except BaseException:
            await connection.close()
            raise
        return database

    async def close(self) -> None:
        async with self._write_lock:
            await self._connection.close()

    async def schema_version(self) -> int:
        row = await self.fetch_one("PRAGMA user_version")
        return int(row[0]) if row else 0

    async def migrate(self) -> None:
        current = await self.schema_version()
        if current > len(MIGRATIONS):
            raise SchemaTooNew(
                f"the database is at schema version {current}, this bot knows up to {len(MIGRATIONS)}: "
                "run a newer version of the bot"
            )
        for number in range(current + 1, len(MIGRATIONS) + 1):
            async with self.transaction() as tx:
                await tx.executescript_in_transaction(MIGRATIONS[number - 1])
                # PRAGMA cannot take a bound parameter; `number` is our own integer.
                await tx.execute(f"PRAGMA user_version={number:d}")
            log.info("database migrated to schema version %d", number)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        """BEGIN IMMEDIATE … COMMIT, or ROLLBACK when the block raises."""
        async with self._write_lock:
            await self._connection.execute("BEGIN IMMEDIATE")
            try:
                yield Transaction(self._connection)
            except BaseException:
                await self._connection.execute("ROLLBACK")
                raise
            await self._connection.execute("COMMIT")

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> aiosqlite.Row | None:
        async with self._connection.execute(sql, tuple(params)) as cursor:
            row: aiosqlite.Row | None = await cursor.fetchone()
            return row

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[aiosqlite.Row]:
        async with self._connection.execute(sql, tuple(params)) as cursor:
            return list(await cursor.fetchall())


class Transaction:
    """Statements inside one open transaction."""

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._connection = connection

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """Run one statement; returns the last inserted row id."""
        async with self._connection.execute(sql, tuple(params)) as cursor:
            return cursor.lastrowid or 0

    async def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> None:
        await self._connection.executemany(sql, [tuple(row) for row in rows])

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> aiosqlite.Row | None:
        async with self._connection.execute(sql, tuple(params)) as cursor:
            row: aiosqlite.Row | None = await cursor.fetchone()
            return row

    async def executescript_in_transaction(self, script: str) -> None:
        """Run a migration script statement by statement (executescript would COMMIT on its own)."""
        for statement in _split_statements(script):
            await self._connection.execute(statement)


def _split_statements(script: str) -> list[str]:
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    return [statement.strip() for statement in "\n".join(lines).split(";") if statement.strip()]
