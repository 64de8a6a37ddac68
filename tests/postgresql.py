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


class Databases:
    """Fresh databases on one server: each a copy of the migrated template."""

    def __init__(self, admin_url: str) -> None:
        self.admin_url = admin_url
        self._numbers = itertools.count(1)
        self._prefix = f"bot_test_{os.getpid()}_"
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
        self.template = template

    def fresh(self) -> str:
        """The URL of a new, migrated, empty database."""
        name = f"{self._prefix}{next(self._numbers)}"
        in_a_thread(self._admin(f"CREATE DATABASE {name} TEMPLATE {self.template} STRATEGY FILE_COPY"))
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
        name = urlsplit(url).path.lstrip("/")
        in_a_thread(self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))

    def close(self) -> None:
        in_a_thread(self._admin(f"DROP DATABASE IF EXISTS {self.template} WITH (FORCE)"))


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
