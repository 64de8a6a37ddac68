"""One aiosqlite connection with the PRAGMAs we rely on, explicit transactions and migrations."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, NamedTuple, TypeVar, overload

import aiosqlite

from bot.store.migrations import MIGRATIONS

log = logging.getLogger(__name__)


T = TypeVar("T")

# A unit of work for group commit: plain sqlite3 calls run on the database's own thread, or (the hot path)
# a list of statements, which a batch runs with one executemany per statement.
Work = Callable[[sqlite3.Connection], T]


class Statement(NamedTuple):
    """One statement of a unit; `one_row`: it must change exactly one row, or the unit fails (StaleWrite).
    (A tuple: a few are made for every action, and a frozen dataclass costs three times as much to make.)"""

    sql: str
    params: tuple[Any, ...]
    one_row: bool = False


Unit = Work[Any] | list[Statement]


class StaleWrite(RuntimeError):
    """A write was made against an older version of a row than the store holds: refused."""


class SchemaTooNew(RuntimeError):
    """The database was written by a newer version of the bot; refusing to touch it."""


class UnusableDatabase(RuntimeError):
    """The file is not a database the bot can use (empty, truncated, corrupt, unreadable)."""


class Database:
    """A single connection shared by the whole bot; writes go through `transaction()`."""

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._connection = connection
        # One writer at a time: aiosqlite serialises statements, not transactions.
        self._write_lock = asyncio.Lock()
        self._pending: list[tuple[Unit, asyncio.Future[Any]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._checkpointer: Checkpointer | None = None

    @classmethod
    async def open(cls, path: str | Path) -> Database:
        """Open (creating a fresh path), check and migrate; UnusableDatabase for a file that is not one."""
        if str(path) != ":memory:":
            file = Path(path)
            if _is_empty_file(file):
                # An empty file is what a failed copy or a full disk leaves: never silently a new database.
                raise UnusableDatabase(f"{file} is an empty file, not a database: remove it to start afresh")
            file.parent.mkdir(parents=True, exist_ok=True)
        try:
            connection = await aiosqlite.connect(str(path), isolation_level=None)
        except sqlite3.Error as exc:
            raise UnusableDatabase(f"cannot open the database {path}: {exc}") from exc
        connection.row_factory = aiosqlite.Row
        database = cls(connection)
        try:
            for pragma in (
                "PRAGMA journal_mode=WAL",
                "PRAGMA foreign_keys=ON",
                "PRAGMA busy_timeout=5000",
                "PRAGMA synchronous=NORMAL",
            ):
                await connection.execute(pragma)
            # A truncated or damaged file fails here, at start-up, rather than in the middle of a game.
            row = await database.fetch_one("PRAGMA quick_check")
            if row is None or row[0] != "ok":
                raise UnusableDatabase(f"the database {path} is damaged: {row[0] if row else 'no answer'}")
            await database.migrate()
            if str(path) != ":memory:":
                # Checkpoints copy the log into the file and sync it: done beside the writer, not in its
                # commits, so that a commit costs its own pages only.
                await connection.execute("PRAGMA wal_autocheckpoint=0")
                database._checkpointer = Checkpointer(str(path))
        except sqlite3.DatabaseError as exc:
            await connection.close()
            raise UnusableDatabase(f"the database {path} is not usable: {exc}") from exc
        except BaseException:
            await connection.close()
            raise
        return database

    async def close(self) -> None:
        if self._flusher is not None:
            await asyncio.gather(self._flusher, return_exceptions=True)
        if self._checkpointer is not None:
            await self._checkpointer.close()
        async with self._write_lock:
            # The last connection to close checkpoints the whole log into the file.
            await self._connection.close()

    @overload
    def run(self, work: Work[T]) -> asyncio.Future[T]: ...

    @overload
    def run(self, work: list[Statement]) -> asyncio.Future[None]: ...

    def run(self, work: Unit) -> asyncio.Future[Any]:
        """Run `work` atomically: the future is done once it is committed (durable), or raises what it raised.

        Group commit: units that arrive while a commit is under way are committed together in the next
        one; one unit's failure undoes only that unit. Nothing is acknowledged before its COMMIT returns.
        (A plain function that returns the future: a coroutine would be one more frame to resume for every
        action.)
        """
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append((work, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        return future

    async def _flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                async with self._write_lock:
                    # aiosqlite runs this on its connection thread: the whole batch is one hop.
                    outcomes = await self._connection._execute(_commit_batch, self._connection, batch)  # type: ignore[no-untyped-call]
            except BaseException as exc:
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))
                if not isinstance(exc, Exception):
                    raise
                continue
            if self._checkpointer is not None:
                self._checkpointer.wrote()
            for (_, future), (ok, value) in zip(batch, outcomes, strict=True):
                if future.done():
                    continue
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(value)

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


class Checkpointer:
    """Copies the write-ahead log into the database file on a thread and connection of its own.

    At most one checkpoint runs at a time, at most one a second, and only after writes. PASSIVE never
    blocks the writer or readers; what it cannot copy yet, the next one does.
    """

    INTERVAL = 1.0

    def __init__(self, path: str) -> None:
        self._path = path
        self._running: asyncio.Task[None] | None = None
        self._last = 0.0

    def wrote(self) -> None:
        loop = asyncio.get_running_loop()
        if (self._running is None or self._running.done()) and loop.time() - self._last >= self.INTERVAL:
            self._last = loop.time()
            self._running = loop.create_task(asyncio.to_thread(self._checkpoint))

    def _checkpoint(self) -> None:
        try:
            with contextlib.closing(sqlite3.connect(self._path, timeout=5)) as connection:
                connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as exc:
            log.warning("checkpoint failed (the next one retries): %s", exc)

    async def close(self) -> None:
        if self._running is not None:
            await asyncio.gather(self._running, return_exceptions=True)


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


def _is_empty_file(file: Path) -> bool:
    return file.is_file() and file.stat().st_size == 0


def _commit_batch(
    connection: aiosqlite.Connection, batch: list[tuple[Unit, asyncio.Future[Any]]]
) -> list[tuple[bool, Any]]:
    """On the database thread: the whole batch in one transaction. Units almost never fail, so they run
    together first (statement lists merged into one executemany per statement); if anything fails, the
    batch is rolled back and run again with a savepoint per unit, so that only the failing unit is undone."""
    conn = connection._conn
    units = [unit for unit, _ in batch]
    conn.execute("BEGIN IMMEDIATE")
    try:
        try:
            outcomes = _run_together(conn, units)
        except Exception:
            conn.execute("ROLLBACK")
            conn.execute("BEGIN IMMEDIATE")
            outcomes = [_in_savepoint(conn, unit) for unit in units]
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return outcomes


def _run_together(conn: sqlite3.Connection, units: list[Unit]) -> list[tuple[bool, Any]]:
    """Statement lists merged by statement, in order of first appearance (a batch holds one unit per
    session: the session's lock is held until its unit is committed); callables run as they are."""
    merged: dict[tuple[str, bool], list[tuple[Any, ...]]] = {}
    outcomes: list[tuple[bool, Any]] = []
    for unit in units:
        if callable(unit):
            outcomes.append((True, unit(conn)))
            continue
        for statement in unit:
            merged.setdefault((statement.sql, statement.one_row), []).append(statement.params)
        outcomes.append((True, None))
    for (sql, one_row), rows in merged.items():
        cursor = conn.executemany(sql, rows)
        if one_row and cursor.rowcount != len(rows):
            raise StaleWrite("a row changed under a batch: run unit by unit")
    return outcomes


def _run_unit(conn: sqlite3.Connection, unit: Unit) -> Any:
    if callable(unit):
        return unit(conn)
    for statement in unit:
        cursor = conn.execute(statement.sql, statement.params)
        if statement.one_row and cursor.rowcount != 1:
            raise StaleWrite(f"no longer as this write expected it: {statement.sql.split(' WHERE ')[0]}")
    return None


def _in_savepoint(conn: sqlite3.Connection, unit: Unit) -> tuple[bool, Any]:
    conn.execute("SAVEPOINT unit")
    try:
        result: tuple[bool, Any] = (True, _run_unit(conn, unit))
    except Exception as exc:
        conn.execute("ROLLBACK TO unit")
        result = (False, exc)
    conn.execute("RELEASE unit")
    return result


def _split_statements(script: str) -> list[str]:
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    return [statement.strip() for statement in "\n".join(lines).split(";") if statement.strip()]
