"""The PostgreSQL store (`DATABASE_URL=postgresql://…`): the same interface as the SQLite `Database`, over asyncpg.

The repositories write one SQL text for both databases, with `?` placeholders; `to_postgresql` turns them into
PostgreSQL's `$1, $2, …` here, and nowhere else.

Group commit keeps SQLite's guarantee: the units `run` receives are committed in batches, one transaction per
batch, and a unit's future is settled only after its COMMIT. Each writer (`Committer`) is a process of its own
holding one connection, started and fed as SQLite's writer is (`writer.WriterProcess`, running `serve` below):
the units cross the pipe pickled, and units written as functions of a connection (`Sessions.*_work`, the
ratings) run there as they run in SQLite's writer: synchronously, through `SyncConnection`, which offers the
few sqlite3 calls they make. A process rather than a thread: the driver's work for each statement is Python,
which on a thread took the interpreter lock from the event loop serving players. There are two writers, so
that the next batch is under way while one waits for its commit (see `PostgresDatabase._send` for what may
run beside what). Reads and `transaction()` use a pool.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import re
import sys
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import asyncpg

from bot.store.database import (
    EARLY_BATCH,
    ConstraintViolation,
    SchemaTooNew,
    StaleWrite,
    Unit,
    UnusableDatabase,
    commit_batch,
    fail_units_that_do_not_pickle,
)
from bot.store.migrations import MIGRATIONS, postgresql_migration
from bot.store.writer import (
    DEFAULT_SYNCHRONOUS,
    SYNCHRONOUS_MODES,
    Reply,
    WriterProcess,
    WriterStopped,
    serve_batches,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

URL_SCHEMES = ("postgresql://", "postgres://")
# Reads run on a pool of this many connections (the writers have theirs).
POOL_SIZE = 8
# Batches in flight at most, each on a writer connection of its own: while one batch waits for its commit
# (the log flushed to disk) and its round trips, the next is sent.
WRITERS = 2
SECOND_BATCH = 8  # units waiting, at least, before a second batch is sent beside one in flight (`_send`)
# A unit that failed because the server broke a deadlock (or another rollback it asks to retry) runs again in
# a batch of its own, up to this many times: only batches in flight at once can cross, and that one has ended.
RETRIES = 3
# Any number, the same in every process: the advisory lock that lets one process at a time migrate.
MIGRATION_LOCK = 0x7470_6D69_6772  # "tpmigr"
# The advisory lock every `transaction()` takes first, held until its COMMIT or ROLLBACK: one such transaction
# at a time in the whole database, whichever process runs it (SQLite's BEGIN IMMEDIATE, across processes).
TRANSACTION_LOCK = 0x7470_7478_6E00  # "tptxn"


def is_postgresql_url(target: object) -> bool:
    return isinstance(target, str) and target.startswith(URL_SCHEMES)


@functools.lru_cache(maxsize=4096)
def to_postgresql(sql: str) -> str:
    """`?` placeholders as `$1, $2, …` (a `?` inside a quoted literal stays)."""
    parts: list[str] = []
    number = 0
    quoted = False
    for char in sql:
        if char == "'":
            quoted = not quoted
        if char == "?" and not quoted:
            number += 1
            parts.append(f"${number}")
        else:
            parts.append(char)
    return "".join(parts)


@functools.lru_cache(maxsize=256)
def exactly_one_row(sql: str) -> str:
    """A statement that must change exactly one row, as one that fails otherwise: asyncpg's executemany gives
    no row counts, so the check runs in the server (a division by zero when the count is not one)."""
    return (
        f"WITH changed AS ({sql} RETURNING 1) SELECT 1 / CAST((SELECT COUNT(*) FROM changed) = 1 AS INTEGER)"
    )


# A merged statement of a batch with this many sets of parameters or more runs once over arrays of them
# (`over_arrays`) rather than once per set: the server starts it once for the whole batch.
ARRAY_ROWS = 2
_INSERT_VALUES = re.compile(r"(INSERT INTO \w+ \([^()?]*\)) VALUES \(([^()]*)\)((?: ON CONFLICT [^?]*)?)")
_CONSTANT = re.compile(r"'[^',?]*'|-?\d+")
_UPDATE_BY_ID = re.compile(r"(UPDATE \w+ SET [^()']*) WHERE (id = \?(?: AND [^()']*)?)")
_PLACEHOLDER = re.compile(r"\?")


@functools.lru_cache(maxsize=256)
def over_arrays(sql: str, types: tuple[str, ...]) -> str | None:
    """`sql`, written for one set of parameters (`?`, of these PostgreSQL `types`), as one statement over an
    array per parameter, `unnest`ed into rows numbered from 1 (`batch_row`); None for a statement of any
    other shape. Two shapes only, whose outcome is that of the sets one after another:

    - `INSERT INTO t (…) VALUES (…)` of parameters and constants, optionally `ON CONFLICT …` without
      parameters: the rows are inserted in their order (new ids numbered in it);
    - `UPDATE t SET … WHERE id = ? AND …` with no subquery, each set naming its row by its key: it RETURNs
      the number of each set that changed a row, for the caller to check that each changed exactly one (a
      row named twice is changed once, so that check sends such a batch back to run unit by unit)."""
    if "RETURNING" in sql.upper():
        return None
    columns = [f"p{number}" for number in range(1, len(types) + 1)]
    arrays = ", ".join(f"${number}::{kind}[]" for number, kind in enumerate(types, 1))
    rows = f"unnest({arrays}) WITH ORDINALITY AS batch_rows ({', '.join(columns)}, batch_row)"
    named = iter(f"batch_rows.{column}" for column in columns)
    if insert := _INSERT_VALUES.fullmatch(sql):
        head, values, conflict = insert.groups()
        items = [item.strip() for item in values.split(",")]
        if items.count("?") != len(types) or not all(
            item == "?" or _CONSTANT.fullmatch(item) for item in items
        ):
            return None
        chosen = ", ".join(next(named) if item == "?" else item for item in items)
        return f"{head} SELECT {chosen} FROM {rows} ORDER BY batch_rows.batch_row{conflict}"
    if update := _UPDATE_BY_ID.fullmatch(sql):
        head, where = update.groups()
        if sql.count("?") != len(types) or any(word in sql.upper() for word in ("SELECT", " OR ")):
            return None
        head, where = (_PLACEHOLDER.sub(lambda _: next(named), part) for part in (head, where))
        return f"{head} FROM {rows} WHERE {where} RETURNING batch_rows.batch_row"
    return None


def _as_arrays(rows: list[tuple[Any, ...]]) -> list[list[Any]]:
    return [list(column) for column in zip(*rows, strict=True)]


def _returns_rows(sql: str) -> bool:
    text = sql.lstrip().upper()
    return text.startswith(("SELECT", "WITH", "VALUES")) or " RETURNING " in text


def _decode_numeric(text: str) -> int | float:
    """SUM and AVG of integers are `numeric` in PostgreSQL: an int when whole (SUM), else a float (AVG), as
    SQLite gives them."""
    return float(text) if any(mark in text for mark in ".eEN") else int(text)


# SYNCHRONOUS (bot/store/writer.py) in PostgreSQL's words: FULL waits for the commit's log record on the disk;
# NORMAL acknowledges before (a crash of the server can lose the last moments of actions, never corrupt).
SYNCHRONOUS_COMMIT = {"FULL": "on", "NORMAL": "off"}


def _server_settings(synchronous: str) -> dict[str, str]:
    """Set when the connection starts, so that the pool's reset of a connection keeps them."""
    return {"synchronous_commit": SYNCHRONOUS_COMMIT[synchronous]}


async def _prepare(connection: asyncpg.Connection) -> None:
    await connection.set_type_codec(
        "numeric", encoder=str, decoder=_decode_numeric, schema="pg_catalog", format="text"
    )


async def _connect(url: str, synchronous: str) -> asyncpg.Connection:
    connection = await asyncpg.connect(url, server_settings=_server_settings(synchronous))
    await _prepare(connection)
    return connection


def _constraint(exc: asyncpg.IntegrityConstraintViolationError) -> ConstraintViolation:
    return ConstraintViolation(f"{type(exc).__name__}: {exc}")


class SyncCursor:
    """What a statement gave: its rows and how many rows it changed (PostgreSQL has no row ids: an insert
    that needs its id says RETURNING id, and reads it as a row)."""

    lastrowid = None

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self._rows = rows
        self.rowcount = rowcount

    def fetchone(self) -> Any:
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list[Any]:
        return list(self._rows)


class SyncConnection:
    """The writer's connection as a unit of work sees it: `execute` and `executemany` that return when done,
    like sqlite3's. Only ever used on the writer's thread, whose event loop runs each call to its end.

    `parameter_types`: what the server said each statement's parameters are, kept for the connection's life
    (the arrays of `over_arrays` are declared with them)."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        connection: asyncpg.Connection,
        parameter_types: dict[str, tuple[str, ...] | None] | None = None,
    ) -> None:
        self._loop = loop
        self._connection = connection
        self._parameter_types = {} if parameter_types is None else parameter_types

    def _wait(self, call: Coroutine[Any, Any, T]) -> T:
        try:
            return self._loop.run_until_complete(call)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise _constraint(exc) from exc

    def execute(self, sql: str, params: Iterable[Any] = ()) -> SyncCursor:
        args = tuple(params)
        if _returns_rows(sql):
            rows = self._wait(self._connection.fetch(to_postgresql(sql), *args))
            return SyncCursor(rows, len(rows))
        status = self._wait(self._connection.execute(to_postgresql(sql), *args))
        count = status.rsplit(" ", 1)[-1]
        return SyncCursor([], int(count) if count.isdigit() else -1)

    def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> SyncCursor:
        listed = [tuple(row) for row in rows]
        arrayed = self.over_arrays(sql) if len(listed) >= ARRAY_ROWS else None
        if arrayed is not None:
            self._wait(self._connection.execute(arrayed, *_as_arrays(listed)))
        elif listed:
            self._wait(self._connection.executemany(to_postgresql(sql), listed))
        return SyncCursor([], -1)

    def over_arrays(self, sql: str) -> str | None:
        """`sql` over arrays of its parameters (`over_arrays`), when its shape allows."""
        if sql not in self._parameter_types:
            prepared = self._wait(self._connection.prepare(to_postgresql(sql)))
            types = prepared.get_parameters()
            scalars = all(kind.kind == "scalar" for kind in types)
            self._parameter_types[sql] = (
                tuple(f'"{kind.schema}"."{kind.name}"' for kind in types) if types and scalars else None
            )
        types = self._parameter_types[sql]
        return None if types is None else over_arrays(sql, types)

    def fetch_column(self, sql: str, args: list[Any]) -> list[Any]:
        """The first value of each row a statement in PostgreSQL's words returns."""
        return [row[0] for row in self._wait(self._connection.fetch(sql, *args))]

    @property
    def in_transaction(self) -> bool:
        return bool(self._connection.is_in_transaction())


def _changing_one_row_each(conn: SyncConnection, sql: str, rows: list[tuple[Any, ...]]) -> None:
    """A versioned write, each set of parameters changing exactly one row, or StaleWrite (commit_batch then
    runs the batch unit by unit). One statement over arrays when its shape allows (`over_arrays`: the numbers
    of the sets that changed a row must be each set's once); else asyncpg's executemany, which tells no row
    counts: the server checks each (`exactly_one_row`)."""
    if len(rows) == 1:
        if conn.execute(sql, rows[0]).rowcount != 1:
            raise StaleWrite("a row changed under a batch: run unit by unit")
        return
    arrayed = conn.over_arrays(sql)
    if arrayed is None:
        conn.executemany(exactly_one_row(sql), rows)
    elif sorted(conn.fetch_column(arrayed, _as_arrays(rows))) != list(range(1, len(rows) + 1)):
        raise StaleWrite("a row changed under a batch: run unit by unit")


class WriterConnection:
    """A writer's connection, in the writer process: commits one batch at a time, synchronously, on an event
    loop of its own."""

    def __init__(self, url: str, synchronous: str) -> None:
        self._url = url
        self._synchronous = synchronous
        self._loop = asyncio.new_event_loop()
        self._connection: asyncpg.Connection | None = None
        self._parameter_types: dict[str, tuple[str, ...] | None] = {}

    def connected(self) -> SyncConnection:
        """The connection, opened again if the last one was lost (a server restart fails one batch only)."""
        if self._connection is None or self._connection.is_closed():
            self._connection = self._loop.run_until_complete(_connect(self._url, self._synchronous))
            self._parameter_types = {}
        return SyncConnection(self._loop, self._connection, self._parameter_types)

    def commit(self, units: list[Unit]) -> list[tuple[bool, Any]]:
        """Each unit's outcome; a unit the server failed as a deadlock's loser runs again (`RETRIES`)."""
        outcomes = self._batch(units)
        for _ in range(RETRIES):
            again = [index for index, (ok, error) in enumerate(outcomes) if not ok and _to_retry(error)]
            if not again:
                break
            for index, outcome in zip(again, self._batch([units[index] for index in again]), strict=True):
                outcomes[index] = outcome
        return outcomes

    def _batch(self, units: list[Unit]) -> list[tuple[bool, Any]]:
        return commit_batch(
            self.connected(), units, begin="BEGIN", changing_one_row_each=_changing_one_row_each
        )

    def close(self) -> None:
        if self._connection is not None and not self._connection.is_closed():
            self._loop.run_until_complete(self._connection.close())
        self._loop.close()


def serve(url: str, requests: int, replies: int, synchronous: str = DEFAULT_SYNCHRONOUS) -> int:
    """The writer process: commit batches to the server at `url` until the parent closes our input; the exit
    code."""
    if synchronous not in SYNCHRONOUS_MODES:
        return 2
    writer = WriterConnection(url, synchronous)
    try:
        try:
            writer.connected()
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            print(f"the database writer cannot connect to {safe_url(url)}: {exc}", file=sys.stderr)
            return 2
        return serve_batches(requests, replies, writer.commit)
    finally:
        writer.close()


class Committer:
    """A writer, as the bot sees it: its process, committing one batch at a time. Its reply goes straight to
    `on_reply` (as SQLite's to `Database._finished`): read early by `poll`, it settles the batch's units at
    once, with no turn of the event loop in between."""

    def __init__(self, url: str, synchronous: str, on_reply: Callable[[Committer, Reply], None]) -> None:
        self._url = url
        self._synchronous = synchronous
        self._on_reply = on_reply
        self._process: WriterProcess | None = None
        self.committing = False

    def start(self) -> None:
        """Start the process, which connects while the caller goes on; `ready` waits for it."""
        self._process = WriterProcess.start(self._url, self._replied, self._synchronous, entry=__name__)

    async def ready(self) -> None:
        """Wait until the process is connected; WriterStopped when it cannot connect."""
        if self._process is not None:
            await self._process.ready()

    def commit(self, units: list[Unit]) -> None:
        """Send a batch, answered through `on_reply`. Raises at once, sending nothing, when a unit does not
        pickle."""
        assert self._process is not None and not self.committing
        self._process.send(units)
        self.committing = True

    def poll(self) -> None:
        """Read the reply now if it is there (else it comes on the event loop)."""
        if self._process is not None and self.committing:
            self._process.poll()

    def _replied(self, reply: Reply) -> None:
        if not self.committing:
            return  # the process ended between two batches: nothing was lost, the next batch starts another
        self.committing = False
        self._on_reply(self, reply)

    async def close(self) -> None:
        if self._process is not None:
            await self._process.close()


def _to_retry(error: object) -> bool:
    """A failure the server asks to try again (a deadlock it broke, SQLSTATE class 40): nothing of the unit
    was written."""
    return isinstance(error, asyncpg.TransactionRollbackError)


Batch = list[tuple[Unit, "asyncio.Future[Any]"]]


class PostgresDatabase:
    """A pool for reads and transactions, and the writers (`Committer`) for the group-commit units of `run`."""

    dialect = "postgresql"

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool
        self._committers: list[Committer] = []
        self._free: list[Committer] = []  # the writers with no batch
        # As in SQLite's Database: a transaction runs when no batch is in flight, and holds the next one back.
        self._write_lock = asyncio.Lock()
        self._pending: Batch = []
        self._in_flight: dict[Committer, Batch] = {}  # in the order they were sent
        self._alone = False  # the batch in flight holds a function of the connection: nothing runs beside it
        self._drained = asyncio.Event()  # set while no batch is in flight
        self._drained.set()
        self.longest_commit = 0.0

    @classmethod
    async def open(cls, url: str, *, synchronous: str = DEFAULT_SYNCHRONOUS) -> PostgresDatabase:
        """Connect and migrate; UnusableDatabase when the server cannot be reached or refuses us."""
        if synchronous not in SYNCHRONOUS_MODES:
            raise ValueError(
                f"synchronous must be one of {', '.join(SYNCHRONOUS_MODES)}, not {synchronous!r}"
            )
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=1,
                max_size=POOL_SIZE,
                init=_prepare,
                server_settings=_server_settings(synchronous),
            )
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise UnusableDatabase(f"cannot open the database {safe_url(url)}: {exc}") from exc
        database = cls(pool)
        committers = [Committer(url, synchronous, database._committed) for _ in range(WRITERS)]
        database._committers, database._free = committers, list(committers)
        try:
            for committer in committers:  # they start while the database is migrated
                committer.start()
            await database.migrate()
            for committer in committers:
                await committer.ready()
        except BaseException as exc:
            for committer in committers:
                await committer.close()
            await pool.close()
            if isinstance(exc, (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, WriterStopped)):
                raise UnusableDatabase(f"cannot use the database {safe_url(url)}: {exc}") from exc
            raise
        return database

    @classmethod
    async def open_read_only(cls, url: str) -> PostgresDatabase:
        """Reads only (the web pages): every transaction on its connections is read-only, so the server
        refuses any write through them; no writer, no migration."""
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=1,
                max_size=2,
                init=_prepare,
                server_settings={"default_transaction_read_only": "on"},
            )
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise UnusableDatabase(f"cannot open the database {safe_url(url)}: {exc}") from exc
        return cls(pool)

    async def close(self) -> None:
        while self._pending or self._in_flight:
            if self._in_flight:
                await self._drained.wait()
            else:
                async with self._write_lock:
                    pass
                self._send()
        for committer in self._committers:
            await committer.close()
        await self._pool.close()

    def run(self, work: Unit) -> asyncio.Future[Any]:
        """As `Database.run`: done once committed, in a batch with the units that arrived meanwhile."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append((work, future))
        if len(self._pending) >= EARLY_BATCH and self._in_flight:
            # As in SQLite's Database: a writer may be done already; its reply is read now rather than after
            # this loop turn, so that it commits the next batch while the loop still serves players.
            for committer in self._committers:
                committer.poll()
        self._send()
        return future

    def _send(self) -> None:
        """Send what is pending to a free writer, unless a transaction is open or what is in flight forbids.

        Batches of statement lists run beside one another: each session has one unit in flight at most (its
        lock is held until the unit is committed), and their versioned writes touch their own sessions' rows.
        A unit that is a function of the connection reads, then writes what it read decides (the ratings of
        a finished game): a batch holding one runs alone, after the batches in flight, and holds the next
        back, as a transaction does.

        A second batch goes out beside the first only once as many units wait as the first holds (and at least
        SECOND_BATCH): until then one writer keeps up, and smaller batches would cost more per unit (each has
        its round trips and its commit), which a process short of CPU pays for."""
        if not self._pending or self._write_lock.locked() or self._alone or not self._free:
            if self._pending and not self._committers:
                raise UnusableDatabase("this connection to the database reads only")
            return
        if self._in_flight and (
            len(self._pending) < max(SECOND_BATCH, len(next(iter(self._in_flight.values()))))
            or any(callable(unit) for unit, _ in self._pending)
        ):
            return  # sent when a batch in flight is done, or once enough wait
        alone = any(callable(unit) for unit, _ in self._pending)
        batch, self._pending = self._pending, []
        committer = self._free[-1]
        try:
            committer.commit([unit for unit, _ in batch])
        except Exception as exc:  # a unit that cannot cross to the writer fails alone
            self._pending = fail_units_that_do_not_pickle(batch, exc)
            self._send()
            return
        self._free.pop()
        self._alone = alone
        self._in_flight[committer] = batch
        self._drained.clear()

    def _committed(self, committer: Committer, reply: Reply) -> None:
        """A writer's reply: settle its batch's units, then send what waits."""
        batch = self._in_flight.pop(committer)
        self._free.append(committer)
        self._alone = False  # a batch that ran alone was the only one in flight
        kind, value = reply[0], reply[1]
        if len(reply) > 2:
            self.longest_commit = max(self.longest_commit, reply[2])
        for index, (_, future) in enumerate(batch):
            if future.done():
                continue
            if kind != "ok":
                future.set_exception(value)
            elif value[index][0]:
                future.set_result(value[index][1])
            else:
                future.set_exception(value[index][1])
        if not self._in_flight:
            self._drained.set()
        self._send()

    async def schema_version(self) -> int:
        async with self._pool.acquire() as connection:
            return await _schema_version(connection)

    async def migrate(self) -> None:
        """Each migration in a transaction of its own, under an advisory lock: processes starting together
        migrate once. The version is in the `schema_version` table (SQLite's is its user_version)."""
        async with self._pool.acquire() as connection:
            while True:
                async with connection.transaction():
                    await connection.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
                    await connection.execute(
                        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
                    )
                    current = await _schema_version(connection)
                    if current > len(MIGRATIONS):
                        raise SchemaTooNew(
                            f"the database is at schema version {current}, this bot knows up to"
                            f" {len(MIGRATIONS)}: run a newer version of the bot"
                        )
                    if current == len(MIGRATIONS):
                        return
                    number = current + 1
                    await connection.execute(postgresql_migration(number))
                    await connection.execute("DELETE FROM schema_version")
                    await connection.execute("INSERT INTO schema_version (version) VALUES ($1)", number)
                log.info("database migrated to schema version %d", number)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PostgresTransaction]:
        """BEGIN … COMMIT on a connection of the pool, or ROLLBACK when the block raises; after the batch in
        flight, if any.

        Callers read, then write what they read decides (one lobby per host, a vote closed once, a server's
        settings changed by two admins, a profile deleted): under READ COMMITTED two processes could both read
        before either writes. So the block first takes TRANSACTION_LOCK, a transaction-level advisory lock:
        the transactions of every process run one after the other, as SQLite's do, and each statement sees
        what the one before committed. The group-commit batches (`run`) never take it (their writes are
        versioned, `WHERE version = ?`): a batch never waits for a transaction's turn, so no circle of waits."""
        try:
            async with self._write_lock:
                await self._drained.wait()
                async with self._pool.acquire() as connection, connection.transaction():
                    await connection.execute("SELECT pg_advisory_xact_lock($1)", TRANSACTION_LOCK)
                    yield PostgresTransaction(connection)
        finally:
            self._send()

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> Any:
        return await self._pool.fetchrow(to_postgresql(sql), *params)

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Any]:
        return list(await self._pool.fetch(to_postgresql(sql), *params))

    async def table_names(self) -> list[str]:
        rows = await self.fetch_all(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename"
        )
        return [row[0] for row in rows]


async def _schema_version(connection: asyncpg.Connection) -> int:
    if await connection.fetchval("SELECT to_regclass('schema_version')") is None:
        return 0
    version = await connection.fetchval("SELECT MAX(version) FROM schema_version")
    return int(version or 0)


class PostgresTransaction:
    """Statements inside one open transaction (the `Transaction` of bot/store/database.py)."""

    def __init__(self, connection: asyncpg.Connection) -> None:
        self._connection = connection

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """Run one statement; returns how many rows it changed."""
        try:
            status = await self._connection.execute(to_postgresql(sql), *params)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise _constraint(exc) from exc
        count = str(status).rsplit(" ", 1)[-1]
        return int(count) if count.isdigit() else 0

    async def insert(self, sql: str, params: Iterable[Any] = ()) -> int:
        """Insert one row into a table with an `id`; returns the new row's id."""
        try:
            return int(await self._connection.fetchval(to_postgresql(sql) + " RETURNING id", *params))
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise _constraint(exc) from exc

    async def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> None:
        listed = [tuple(row) for row in rows]
        if not listed:
            return
        try:
            await self._connection.executemany(to_postgresql(sql), listed)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise _constraint(exc) from exc

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> Any:
        return await self._connection.fetchrow(to_postgresql(sql), *params)

    async def executescript_in_transaction(self, script: str) -> None:
        await self._connection.execute(script)


def json_value(text: str | None) -> Any:
    """A jsonb value read from PostgreSQL as SQLite's json_extract gives it: a number or a string as itself,
    true and false as 1 and 0, an array or an object as its JSON text."""
    if text is None:
        return None
    value = json.loads(text)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return value


def safe_url(url: str) -> str:
    """The URL without its password, for messages and logs."""
    scheme, _, rest = url.partition("://")
    credentials, at, place = rest.rpartition("@")
    if not at:
        return url
    return f"{scheme}://{credentials.split(':', 1)[0]}@{place}"


__all__ = [
    "PostgresDatabase",
    "PostgresTransaction",
    "SyncConnection",
    "is_postgresql_url",
    "json_value",
    "to_postgresql",
]
