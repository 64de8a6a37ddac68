"""A real PostgreSQL for the tests: the server named by `DATABASE_URL` when it is set, else one of Debian's
packages started for the test session (initdb and pg_ctl, through `runuser -u postgres` when we are root: they
refuse to run as root) in a temporary folder, on a free loopback port. Every test gets a fresh database, made
from a migrated template (CREATE DATABASE … TEMPLATE: a file copy, no migration per test)."""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from bot.store import Store
from bot.store.postgres import is_postgresql_url

T = TypeVar("T")

TEMPLATE = "bot_template"
PG_ROOTS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name), reverse=True)


class Unavailable(RuntimeError):
    """No PostgreSQL to test against (not installed, and no DATABASE_URL)."""


def in_a_thread(call: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to its end from sync code, whatever event loop the calling thread may be running."""
    result: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            result.append(asyncio.run(call))
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return result[0]


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LocalServer:
    """A throwaway cluster in a temporary folder; `stop` removes it."""

    def __init__(self) -> None:
        if not PG_ROOTS:
            raise Unavailable(
                "PostgreSQL is not installed (make setup installs it) and DATABASE_URL is not set"
            )
        self.bin = PG_ROOTS[0]
        self.folder = Path(tempfile.mkdtemp(prefix="bot-postgresql-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self.as_owner: list[str] = []
        if os.geteuid() == 0:
            # initdb and pg_ctl refuse root: the cluster belongs to the postgres account.
            shutil.chown(self.folder, "postgres")
            self.as_owner = ["runuser", "-u", "postgres", "--"]

    def _run(self, *command: str) -> None:
        done = subprocess.run([*self.as_owner, *command], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise Unavailable(f"{command[0]} failed: {done.stderr.strip() or done.stdout.strip()}")

    def start(self, *, durable: bool = False) -> str:
        """C collation: text sorts by code point, as SQLite's BINARY does. Unless `durable` (a benchmark
        against SQLite's synced commits), fsync is off: a test never survives a power cut, and commits stay
        cheap; everything else is the server as shipped."""
        self._run(
            str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust",
            "-E", "UTF8", "--no-locale", "--no-sync",
        )  # fmt: skip
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1"
        if not durable:
            options += " -c fsync=off"
        log = self.folder / "server.log"
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(log), "-w", "start"
        )
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        subprocess.run(
            [*self.as_owner, str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(self.folder, ignore_errors=True)


# What a database's schema is made of, in every schema of its own: tables and their columns, constraints,
# indexes, sequences, views, functions and triggers. A database whose schema still reads the same as the
# template's holds nothing of its test once its tables are emptied.
SCHEMA = """
SELECT 'relation', n.nspname || '.' || c.relname, c.relkind::text
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_to%'
UNION ALL
SELECT 'column', c.relname || '.' || a.attname,
       format_type(a.atttypid, a.atttypmod) || a.attnotnull::text || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
 WHERE n.nspname = 'public' AND a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT 'constraint', conrelid::regclass::text || '.' || conname, pg_get_constraintdef(oid)
  FROM pg_constraint WHERE connamespace = 'public'::regnamespace
UNION ALL
SELECT 'index', indexrelid::regclass::text, pg_get_indexdef(indexrelid)
  FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relnamespace = 'public'::regnamespace
UNION ALL
SELECT 'function', p.oid::regprocedure::text, md5(p.prosrc)
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
UNION ALL
SELECT 'trigger', tgrelid::regclass::text || '.' || tgname, pg_get_triggerdef(oid)
  FROM pg_trigger WHERE NOT tgisinternal
ORDER BY 1, 2, 3
"""


def _children_first(tables: list[str], references: list[tuple[str, str]]) -> list[str]:
    """The tables in an order that deletes every referencing row before the row it references."""
    bare = {table: table.removeprefix("public.") for table in tables}
    ordered: list[str] = []
    remaining = list(tables)
    while remaining:
        placed = [
            table
            for table in remaining
            if not any(
                parent == bare[table] and child != parent and child in {bare[t] for t in remaining}
                for child, parent in references
            )
        ]
        if not placed:
            raise RuntimeError(f"the tables reference each other in a cycle: {remaining}")
        ordered += placed
        remaining = [table for table in remaining if table not in placed]
    return ordered


def _literal(value: Any) -> str:
    """A template row's value as SQL (the template holds a few integers and texts)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool | int | float):
        return str(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    raise TypeError(f"a template row holds a {type(value).__name__}: add it to _literal")


class Databases:
    """Fresh databases on one server: each a copy of the migrated template. A database a test is done with
    is emptied back to the template's rows and handed to the next test, unless the test changed its schema or
    left a connection open (then it is dropped): a CREATE DATABASE costs 0.4–0.8 s on this machine (a
    checkpoint each), emptying the tables a few milliseconds."""

    def __init__(self, admin_url: str) -> None:
        self.admin_url = admin_url
        self._numbers = itertools.count(1)
        self._prefix = f"bot_test_{os.getpid()}_"
        self._copies: set[str] = set()  # databases made from the template (the ones that may be reused)
        self._spare: list[str] = []  # emptied, ready for the next test
        in_a_thread(self._make_template())

    async def _admin(self, *statements: str) -> None:
        connection = await asyncpg.connect(self.admin_url)
        try:
            for statement in statements:
                await connection.execute(statement)
        finally:
            await connection.close()

    async def _make_template(self) -> None:
        template = f"{TEMPLATE}_{os.getpid()}"
        await self._admin(
            f"DROP DATABASE IF EXISTS {template} WITH (FORCE)",
            f"CREATE DATABASE {template} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'",
        )
        store = await Store.open(with_database(self.admin_url, template))
        await store.close()
        connection = await asyncpg.connect(with_database(self.admin_url, template))
        try:
            self._schema = [tuple(row) for row in await connection.fetch(SCHEMA)]
            tables = [
                row["name"]
                for row in await connection.fetch(
                    "SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables"
                    " WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1"
                )
            ]
            references = await connection.fetch(
                "SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent"
                " FROM pg_constraint WHERE contype = 'f'"
            )
            self._tables = _children_first(tables, [(r["child"], r["parent"]) for r in references])
            self._rows = {table: await connection.fetch(f"SELECT * FROM {table}") for table in self._tables}
            self._sequences = await connection.fetch(
                "SELECT format('%I.%I', schemaname, sequencename) AS name, start_value FROM pg_sequences"
            )
        finally:
            await connection.close()
        self.template = template
        # One script: the rows deleted (the tables are small: DELETE is ten times quicker than TRUNCATE's new
        # files), the template's rows put back, the sequences started again.
        self._emptying = ";\n".join(
            [
                "BEGIN",
                "SET CONSTRAINTS ALL DEFERRED",
                *(f"DELETE FROM {table}" for table in self._tables),
                *(
                    f"INSERT INTO {table} VALUES ({', '.join(_literal(value) for value in row.values())})"
                    for table, rows in self._rows.items()
                    for row in rows
                ),
                *(f"SELECT setval('{s['name']}', {s['start_value']}, false)" for s in self._sequences),
                "COMMIT",
            ]
        )

    def fresh(self) -> str:
        """The URL of a new, migrated, empty database."""
        if self._spare:
            return with_database(self.admin_url, self._spare.pop())
        name = f"{self._prefix}{next(self._numbers)}"
        in_a_thread(self._admin(f"CREATE DATABASE {name} TEMPLATE {self.template} STRATEGY FILE_COPY"))
        self._copies.add(name)
        return with_database(self.admin_url, name)

    def empty(self) -> str:
        """The URL of a new database with no tables at all (what a first start, or a move, finds)."""
        name = f"{self._prefix}{next(self._numbers)}"
        in_a_thread(
            self._admin(
                f"CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"
            )
        )
        return with_database(self.admin_url, name)

    def drop(self, url: str) -> None:
        """Done with: emptied for the next test if it can be, else dropped."""
        name = urlsplit(url).path.lstrip("/")
        if name in self._copies and in_a_thread(self._emptied(name)):
            self._spare.append(name)
            return
        self._copies.discard(name)
        in_a_thread(self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))

    async def _emptied(self, name: str) -> bool:
        """The database back to the template's rows and sequences; False if the test left a connection (say,
        a writer still ending) or a schema of its own."""
        connection = await asyncpg.connect(with_database(self.admin_url, name))
        try:
            for _ in range(20):  # a closed client's server process may take a moment to end
                others = await connection.fetchval(
                    "SELECT count(*) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
                if not others:
                    break
                await asyncio.sleep(0.01)
            else:
                return False
            if [tuple(row) for row in await connection.fetch(SCHEMA)] != self._schema:
                return False
            await connection.execute(self._emptying)
            return True
        except asyncpg.PostgresError:
            return False
        finally:
            await connection.close()

    def close(self) -> None:
        names = [*self._spare, self.template]
        in_a_thread(self._admin(*(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)" for name in names)))


def server_url() -> tuple[str, LocalServer | None]:
    """The server to test against: DATABASE_URL's, or a local one started now (returned, to stop)."""
    configured = os.environ.get("DATABASE_URL", "")
    if is_postgresql_url(configured):
        return configured, None
    server = LocalServer()
    try:
        return server.start(), server
    except BaseException:
        server.stop()
        raise
