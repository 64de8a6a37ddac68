"""Moving an SQLite database to PostgreSQL (`python -m bot.store.move`): every table, ids and versions kept;
the games under way play on there, finished results and ratings stay as they were."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from bot.engine.sessions import SessionManager
from bot.store import Store
from bot.store.move import main, move
from tests.engine.race_game import RaceGame
from tests.store.helpers import TickingClock
from tests.store.tally_game import TallyGame


def games() -> dict:
    return {"race": RaceGame(), "tally": TallyGame()}


@pytest.fixture
def empty_postgresql(postgresql_databases):
    url = postgresql_databases.empty()
    yield url
    postgresql_databases.drop(url)


async def fill(path: Path) -> dict:
    """An SQLite database with a finished game (results, ratings), a game under way and an open lobby."""
    store = await Store.open(path)
    clock = TickingClock()
    manager = SessionManager(store, games(), clock=clock)
    await manager.start()
    try:
        tally = await manager.open_lobby(1, 10, "tally", "ann", {})
        await manager.join(tally.id, "bob")
        await manager.start_game(tally.id, "ann")
        await manager.act(tally.id, "ann", {"do": "finish", "scores": {"ann": 9, "bob": 4}})
        race = await manager.open_lobby(1, 11, "race", "ann", {"target": 100})
        await manager.join(race.id, "bob")
        await manager.start_game(race.id, "ann")
        await manager.act(race.id, "ann", {"do": "advance", "by": 2}, interaction_id="111")
        await manager.act(race.id, "bob", {"do": "note", "text": "kept"})
        lobby = await manager.open_lobby(1, 12, "race", "cat", {})
        return {
            "race": race.id,
            "lobby": lobby.id,
            "clock": clock,
            "version": (await store.sessions.get(race.id)).version,
            "view": await manager.view(race.id, "bob"),
            "timers": (await manager.session(race.id)).timers,
            "board": await store.leaderboards.board(1, "tally"),
            "ratings": await store.ratings.all(),
            "actions": await store.actions.for_session(race.id),
        }
    finally:
        await manager.close()
        await store.close()


async def test_a_moved_database_keeps_every_row_and_its_games_play_on(tmp_path, empty_postgresql):
    path = tmp_path / "bot.db"
    before = await fill(path)
    with sqlite3.connect(path) as source:
        counts = {
            table: source.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            for (table,) in source.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    source.close()

    copied = await move(path, empty_postgresql)

    assert copied == counts and copied["sessions"] == 3 and copied["actions"] >= 3 and copied["ratings"] == 2
    store = await Store.open(empty_postgresql)
    manager = SessionManager(store, games(), clock=before["clock"])
    try:
        assert await manager.start() == 2  # the game under way and the lobby
        race = before["race"]
        assert (await store.sessions.get(race)).version == before["version"]
        assert await store.actions.for_session(race) == before["actions"]
        assert await manager.view(race, "bob") == before["view"]
        assert (await manager.session(race)).timers == before["timers"]
        assert await store.leaderboards.board(1, "tally") == before["board"]
        assert await store.ratings.all() == before["ratings"]
        # An old button pressed again is known; the game goes on from where it stood.
        again = await manager.act(race, "ann", {"do": "advance", "by": 2}, interaction_id="111")
        assert again.duplicate
        await manager.act(race, "bob", {"do": "advance", "by": 3})
        assert (await store.sessions.get(race)).version == before["version"] + 1
        # The lobby fills and starts; new sessions are numbered after the moved ones.
        await manager.join(before["lobby"], "dan")
        await manager.start_game(before["lobby"], "cat")
        newer = await manager.open_lobby(1, 13, "race", "eve", {})
        assert newer.id > before["lobby"]
    finally:
        await manager.close()
        await store.close()


async def test_a_database_with_rows_already_is_refused_and_left_as_it_was(tmp_path, empty_postgresql, capsys):
    path = tmp_path / "bot.db"
    await fill(path)
    store = await Store.open(empty_postgresql)
    async with store.transaction() as tx:
        await store.meta.set(tx, "someone", "else")
    await store.close()

    assert await asyncio.to_thread(main, [str(path), empty_postgresql]) == 1
    assert "already has rows in meta" in capsys.readouterr().err
    store = await Store.open(empty_postgresql)
    try:
        assert await store.sessions.count_open() == 0
        assert await store.meta.get("someone") == "else"
    finally:
        await store.close()


def test_the_command_moves_a_file_and_names_what_it_moved(tmp_path, empty_postgresql, capsys):
    path = tmp_path / "bot.db"
    asyncio.run(fill(path))
    assert main([str(path), empty_postgresql]) == 0
    out = capsys.readouterr().out
    assert "sessions: 3 rows" in out and "set DATABASE_URL" in out
    assert "password" not in out


def test_the_command_refuses_a_missing_file_and_a_url_that_is_not_postgresql(tmp_path, capsys):
    assert main([str(tmp_path / "none.db"), "postgresql://127.0.0.1:1/none"]) == 1
    assert "no database at" in capsys.readouterr().err
    assert not (tmp_path / "none.db").exists()
    assert main([str(tmp_path / "none.db"), "sqlite:///x.db"]) == 2
