"""One aiosqlite connection with the PRAGMAs we rely on, explicit transactions and migrations."""

from __future__ import annotations

import asyncio
import logging
import pickle
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypeVar, overload

import aiosqlite

from bot.store.migrations import MIGRATIONS
from bot.store.writer import DEFAULT_SYNCHRONOUS, SYNCHRONOUS_MODES, Reply, WriterProcess, WriterStopped

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

# Units waiting before the loop checks, within one of its turns, whether the writer process is free. A
# commit has a fixed cost (a pipe write that wakes the writer, its reply, BEGIN/COMMIT): spread over about
# sixteen units it is a small share of each, and the writer never waits a whole loop turn for work.
EARLY_BATCH = 16


class StaleWrite(RuntimeError):
    """A write was made against an older version of a row than the store holds: refused."""


class SchemaTooNew(RuntimeError):
    """The database was written by a newer version of the bot; refusing to touch it."""


class UnusableDatabase(RuntimeError):
    """The file is not a database the bot can use (empty, truncated, corrupt, unreadable)."""


class ConstraintViolation(sqlite3.IntegrityError):
    """A constraint of PostgreSQL refused a write: a kind of sqlite3.IntegrityError, so that the callers
    catch the one class on either database."""


class Transaction(Protocol):
    """Statements inside one open transaction, on either database."""

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int: ...

    async def insert(self, sql: str, params: Iterable[Any] = ()) -> int: ...

    async def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> None: ...

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> Any: ...

    async def executescript_in_transaction(self, script: str) -> None: ...


class Backend(Protocol):
    """What the repositories and the engine use of a database: SQLite's `Database` or PostgreSQL's
    (bot/store/postgres.py). `dialect` names it, for the few statements written twice."""

    dialect: str
    longest_commit: float

    @overload
    def run(self, work: Work[T]) -> asyncio.Future[T]: ...

    @overload
    def run(self, work: list[Statement]) -> asyncio.Future[None]: ...

    def transaction(self) -> AbstractAsyncContextManager[Transaction]: ...

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> Any: ...

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Any]: ...

    async def schema_version(self) -> int: ...

    async def migrate(self) -> None: ...

    async def table_names(self) -> list[str]: ...

    async def close(self) -> None: ...


class Database:
    """A single connection shared by the whole bot for reads and transactions, and one committer for the
    group-commit units of `run`: a writer process for a database file, the connection's thread in memory."""

    dialect = "sqlite"

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._connection = connection
        # One writer at a time: a transaction holds it, and never while a batch is in flight.
        self._write_lock = asyncio.Lock()
        self._pending: list[tuple[Unit, asyncio.Future[Any]]] = []
        self._in_flight: list[tuple[Unit, asyncio.Future[Any]]] = []
        self._drained = asyncio.Event()  # set while no batch is in flight
        self._drained.set()
        self._writer: WriterProcess | None = None
        # The longest a batch kept the writer process (its commit and any log catch-up before it), and the
        # longest log catch-up alone (the checkpoint holding the commits), seconds.
        self.longest_commit = 0.0
        self.longest_catch_up = 0.0

    @classmethod
    async def open(cls, path: str | Path, *, synchronous: str = DEFAULT_SYNCHRONOUS) -> Database:
        """Open (creating a fresh path), check and migrate; UnusableDatabase for a file that is not one.

        `synchronous` (FULL or NORMAL, writer.SYNCHRONOUS_MODES) is how both connections commit: with FULL,
        nothing is acknowledged to a player before it is on the disk."""
        if synchronous not in SYNCHRONOUS_MODES:
            raise ValueError(
                f"synchronous must be one of {', '.join(SYNCHRONOUS_MODES)}, not {synchronous!r}"
            )
        if str(path) != ":memory:":
            file = Path(path)
            if _is_empty_file(file):
                # An empty file is what a failed copy or a full disk leaves: never silently a new database.
                raise UnusableDatabase(f"{file} is an empty file, not a database: remove it to start afresh")
            file.parent.mkdir(parents=True, exist_ok=True)
        try:
            connection = await aiosqlite.connect(str(path), isolation_level=None)
        except sqlite3.Error as exc:
            raise UnusableDatabase(f"cannot open the database {path}: {_first_line(str(exc))}") from exc
        connection.row_factory = aiosqlite.Row
        database = cls(connection)
        try:
            for pragma in (
                "PRAGMA journal_mode=WAL",
                "PRAGMA foreign_keys=ON",
                "PRAGMA busy_timeout=5000",
                f"PRAGMA synchronous={synchronous}",
            ):
                await connection.execute(pragma)
            if str(path) != ":memory:":
                # Started now, it boots while the file is checked and migrated.
                database._writer = WriterProcess.start(str(path), database._finished, synchronous)
            # A truncated or damaged file fails here, at start-up, rather than in the middle of a game. Read as
            # bytes: a finding names what the file holds, which damage may have made other than UTF-8.
            row = await database.fetch_one("SELECT CAST(quick_check AS BLOB) FROM pragma_quick_check")
            report = bytes(row[0]).decode("utf-8", "replace") if row else "quick_check gave no answer"
            if report != "ok":
                raise UnusableDatabase(_damaged(path, report))
            await database.migrate()
            if database._writer is not None:
                # The writer process checkpoints the log (writer.Checkpoints); this connection never does.
                await connection.execute("PRAGMA wal_autocheckpoint=0")
                await database._writer.ready()
        except BaseException as exc:
            if database._writer is not None:
                await database._writer.close()
            await connection.close()
            if isinstance(exc, sqlite3.DatabaseError):
                raise UnusableDatabase(_damaged(path, str(exc))) from exc
            if isinstance(exc, UnicodeDecodeError):
                # SQLite's own message quotes the damaged bytes (a name, the schema's SQL): Python fails to
                # decode it and raises this in place of the DatabaseError; the bytes it failed on are the message.
                raise UnusableDatabase(_damaged(path, exc.object.decode("utf-8", "replace"))) from exc
            if isinstance(exc, (OSError, WriterStopped)):
                raise UnusableDatabase(
                    f"the database {path} cannot be written: {_first_line(str(exc))}"
                ) from exc
            raise
        return database

    async def close(self) -> None:
        while self._pending or self._in_flight:
            if self._in_flight:
                await self._drained.wait()
            else:  # units waiting for an open transaction: its end sends them
                async with self._write_lock:
                    pass
                self._send()
        if self._writer is not None:
            await self._writer.close()
        async with self._write_lock:
            # The last connection to close checkpoints the whole log into the file.
            await self._connection.close()

    @overload
    def run(self, work: Work[T]) -> asyncio.Future[T]: ...

    @overload
    def run(self, work: list[Statement]) -> asyncio.Future[None]: ...

    def run(self, work: Unit) -> asyncio.Future[Any]:
        """Run `work` atomically: the future is done once it is committed (durable), or raises what it raised.

        Group commit: units that arrive while a batch is being committed go together in the next one; one
        unit's failure undoes only that unit. Nothing is acknowledged before its COMMIT returns. A unit for
        a database file crosses to the writer process: a statement list, or a partial of a module-level
        function. (A plain function that returns the future: a coroutine would be one more frame to resume
        for every action.)
        """
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append((work, future))
        if self._writer is not None and len(self._pending) >= EARLY_BATCH and self._in_flight:
            # The batch in flight may be committed already: its reply is read now rather than after this
            # loop turn (which can serve dozens of actions), so that the writer commits the next batch
            # while the loop still serves players, instead of the two taking turns.
            self._writer.poll()
        self._send()
        return future

    def _send(self) -> None:
        """Start committing what is pending, unless a batch is in flight or a transaction is open."""
        if self._in_flight or not self._pending or self._write_lock.locked():
            return
        batch, self._pending = self._pending, []
        units = [unit for unit, _ in batch]
        if self._writer is not None:
            try:
                self._writer.send(units)
            except Exception as exc:  # a unit that cannot cross to the writer fails alone
                self._pending = fail_units_that_do_not_pickle(batch, exc)
                self._send()
                return
            self._in_flight = batch
        else:
            self._in_flight = batch
            # aiosqlite runs this on its connection thread: the whole batch is one hop.
            on_thread = self._connection._execute(commit_batch, self._connection._conn, units)  # type: ignore[no-untyped-call]
            asyncio.ensure_future(on_thread).add_done_callback(self._thread_done)
        self._drained.clear()

    def _thread_done(self, task: asyncio.Future[list[tuple[bool, Any]]]) -> None:
        if task.cancelled():
            self._finished(("failed", RuntimeError("the commit was cancelled")))
        elif (error := task.exception()) is not None:
            self._finished(("failed", error))
        else:
            self._finished(("ok", task.result()))

    def _finished(self, reply: Reply) -> None:
        """A batch's reply: settle every unit's future, then send what arrived meanwhile."""
        batch, self._in_flight = self._in_flight, []
        kind, value = reply[0], reply[1]
        if len(reply) > 3:
            self.longest_commit = max(self.longest_commit, reply[2])
            self.longest_catch_up = max(self.longest_catch_up, reply[3])
        for index, (_, future) in enumerate(batch):
            if future.done():
                continue
            if kind != "ok":
                future.set_exception(value)
            elif value[index][0]:
                future.set_result(value[index][1])
            else:
                future.set_exception(value[index][1])
        self._drained.set()
        self._send()

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
    async def transaction(self) -> AsyncIterator[SqliteTransaction]:
        """BEGIN IMMEDIATE … COMMIT, or ROLLBACK when the block raises; after the batch in flight, if any."""
        try:
            async with self._write_lock:
                await self._drained.wait()
                await self._connection.execute("BEGIN IMMEDIATE")
                try:
                    yield SqliteTransaction(self._connection)
                except BaseException:
                    await self._connection.execute("ROLLBACK")
                    raise
                await self._connection.execute("COMMIT")
        finally:
            self._send()  # units that arrived during the transaction

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> aiosqlite.Row | None:
        async with self._connection.execute(sql, tuple(params)) as cursor:
            row: aiosqlite.Row | None = await cursor.fetchone()
            return row

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[aiosqlite.Row]:
        async with self._connection.execute(sql, tuple(params)) as cursor:
            return list(await cursor.fetchall())

    async def table_names(self) -> list[str]:
        rows = await self.fetch_all(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
        return [row[0] for row in rows]


class SqliteTransaction:
    """Statements inside one open transaction."""

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._connection = connection

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """Run one statement; returns the last inserted row id."""
        async with self._connection.execute(sql, tuple(params)) as cursor:
            return cursor.lastrowid or 0

    async def insert(self, sql: str, params: Iterable[Any] = ()) -> int:
        """Insert one row into a table with an `id`; returns the new row's id."""
        return await self.execute(sql, params)

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


def _damaged(path: str | Path, report: str) -> str:
    """One line for a damaged file: what SQLite found first, and what the operator can do about it."""
    return (
        f"the database {path} is damaged ({_first_line(report)}): restore it from a backup, or move it "
        "away to start with an empty one"
    )


def _first_line(report: str) -> str:
    """The first finding of an SQLite report. quick_check's text is several lines, headed by the name
    of the database (`*** in database main ***`), and can list a hundred problems."""
    lines = [line.strip() for line in report.splitlines() if line.strip()]
    findings = [line for line in lines if not line.startswith("*** in database")]
    first = (findings or lines or ["no detail"])[0]
    # A damaged name may hold control bytes: the operator's terminal shows them as one mark, never runs them.
    return "".join(char if char.isprintable() else "\ufffd" for char in first)


def _is_empty_file(file: Path) -> bool:
    return file.is_file() and file.stat().st_size == 0


def commit_batch(
    conn: Any,
    units: list[Unit],
    *,
    begin: str = "BEGIN IMMEDIATE",
    changing_one_row_each: Callable[[Any, str, list[tuple[Any, ...]]], None] | None = None,
) -> list[tuple[bool, Any]]:
    """The whole batch in one transaction (on the database thread, or in the writer process; PostgreSQL's
    writer passes its own `begin` and check). Units almost never fail, so they run together first (statement
    lists merged into one executemany per statement); if anything fails, the batch is rolled back and run
    again with a savepoint per unit, so that only the failing unit is undone."""
    conn.execute(begin)
    try:
        try:
            outcomes = _run_together(conn, units, changing_one_row_each or _changing_one_row_each)
        except Exception:
            conn.execute("ROLLBACK")
            conn.execute(begin)
            outcomes = [_in_savepoint(conn, unit) for unit in units]
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return outcomes


def fail_units_that_do_not_pickle(
    batch: list[tuple[Unit, asyncio.Future[Any]]], error: Exception
) -> list[tuple[Unit, asyncio.Future[Any]]]:
    """A batch could not be sent to a writer process (`error`): the units that do not pickle fail, and the
    others are returned, to be sent again. When every unit pickles, nothing explains `error`: all fail."""
    kept = []
    for unit, future in batch:
        try:
            pickle.dumps(unit)
        except Exception as exc:
            future.set_exception(TypeError(f"a unit for the writer process must pickle: {exc}"))
        else:
            kept.append((unit, future))
    if len(kept) == len(batch):
        for _, future in batch:
            future.set_exception(error)
        return []
    return kept


def _changing_one_row_each(conn: sqlite3.Connection, sql: str, rows: list[tuple[Any, ...]]) -> None:
    """A versioned write, one row per set of parameters: any other count is a stale write."""
    cursor = conn.executemany(sql, rows)
    if cursor.rowcount != len(rows):
        raise StaleWrite("a row changed under a batch: run unit by unit")


def _run_together(
    conn: Any, units: list[Unit], changing_one_row_each: Callable[[Any, str, list[tuple[Any, ...]]], None]
) -> list[tuple[bool, Any]]:
    """Statement lists merged by statement, in order of first appearance (a batch holds one unit per
    session: the session's lock is held until its unit is committed); callables run as they are."""
    merged: dict[tuple[str, bool], list[tuple[Any, ...]]] = {}
    outcomes: list[tuple[bool, Any]] = []
    for unit in units:
        if callable(unit):
            outcomes.append((True, unit(conn)))
            continue
        for sql, params, one_row in unit:  # a Statement, or the plain tuple the writer process receives
            merged.setdefault((sql, one_row), []).append(params)
        outcomes.append((True, None))
    for (sql, one_row), rows in merged.items():
        if one_row:
            changing_one_row_each(conn, sql, rows)
        else:
            conn.executemany(sql, rows)
    return outcomes


def _run_unit(conn: Any, unit: Unit) -> Any:
    if callable(unit):
        return unit(conn)
    for sql, params, one_row in unit:
        cursor = conn.execute(sql, params)
        if one_row and cursor.rowcount != 1:
            raise StaleWrite(f"no longer as this write expected it: {sql.split(' WHERE ')[0]}")
    return None


def _in_savepoint(conn: Any, unit: Unit) -> tuple[bool, Any]:
    conn.execute("SAVEPOINT unit")
    try:
        result: tuple[bool, Any] = (True, _run_unit(conn, unit))
    except Exception as exc:
        conn.execute("ROLLBACK TO SAVEPOINT unit")
        result = (False, exc)
    conn.execute("RELEASE SAVEPOINT unit")
    return result


def _split_statements(script: str) -> list[str]:
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    return [statement.strip() for statement in "\n".join(lines).split(";") if statement.strip()]
