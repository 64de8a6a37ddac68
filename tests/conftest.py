"""Fixtures shared by the test folders: the database every store and engine test runs on, SQLite and
PostgreSQL in turn (`database`).

Which tests run on both (docs/testing.md): every test of the store, the engine and the web pages' reads, and
every e2e test marked `both_databases` (durability, restarts, kills, start-up and migrations, votes written
under contention, one whole game of each game). The product bot's other e2e tests (play and UI through its
`bot_database`) run on SQLite only: what they prove does not depend on the database under the store."""

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


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "both_databases: an e2e test of the product bot that runs on PostgreSQL too (see above)"
    )
    config.addinivalue_line("markers", "discord: a bot against the loopback Discord (given by its fixtures)")
    config.addinivalue_line("markers", "browser: drives headless Chromium (given by its fixtures)")
    config.addinivalue_line("markers", "bot_process: starts the bot as a process, `python -m bot`")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # `make check` runs what needs neither (`-m "not discord and not browser and not bot_process"`).
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if "fake_discord" in fixtures:
            item.add_marker(pytest.mark.discord)
        if "browser" in fixtures:
            item.add_marker(pytest.mark.browser)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "database" not in metafunc.fixturenames:
        return
    product_bot_only = (
        "bot_database" in metafunc.fixturenames
        and metafunc.definition.get_closest_marker("both_databases") is None
    )
    metafunc.parametrize("database", ("sqlite",) if product_bot_only else BACKENDS, indirect=True)


@pytest.fixture
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
