"""Fixtures shared by the test folders: the database every store and engine test runs on, SQLite and
PostgreSQL in turn (`database`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgresql import Databases, server_url

BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def postgresql_databases() -> Iterator[Databases]:
    """A PostgreSQL server for the whole session (started here unless DATABASE_URL names one)."""
    url, server = server_url()
    try:
        databases = Databases(url)
        yield databases
        databases.close()
    finally:
        if server is not None:
            server.stop()


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str | Path]:
    """Where a test's store lives: an SQLite file in the test's folder, or a fresh PostgreSQL database's URL.
    `Store.open` takes either; opening it again reopens the same database."""
    if request.param == "sqlite":
        yield tmp_path / "bot.db"
        return
    databases: Databases = request.getfixturevalue("postgresql_databases")
    url = databases.fresh()
    yield url
    databases.drop(url)
