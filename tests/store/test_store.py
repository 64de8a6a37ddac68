"""The store on SQLite and PostgreSQL: migrations, transactions, the one-open-game-per-channel rule; SQLite's PRAGMAs."""

from __future__ import annotations

import sqlite3

import pytest

from bot.store import ChannelTaken, SchemaTooNew, SessionRecord, Store, UsedWordRecord
from bot.store.database import Statement
from bot.store.migrations import MIGRATIONS
from tests.store.helpers import sqlite_at_version


def lobby(channel_id: int = 10, game: str = "race") -> SessionRecord:
    return SessionRecord(
        id=0, guild_id=1, channel_id=channel_id, game=game, status="lobby", host_id="ann",
        players=["ann"], options={}, seed=7, created_at=1.0, updated_at=1.0,
    )  # fmt: skip


@pytest.fixture
async def store(database):
    store = await Store.open(database)
    yield store
    await store.close()


@pytest.fixture
async def sqlite_store(tmp_path):
    store = await Store.open(tmp_path / "bot.db")
    yield store
    await store.close()


async def test_pragmas_are_set(sqlite_store):
    store = sqlite_store
    assert (await store.db.fetch_one("PRAGMA journal_mode"))[0] == "wal"
    assert (await store.db.fetch_one("PRAGMA foreign_keys"))[0] == 1
    assert (await store.db.fetch_one("PRAGMA busy_timeout"))[0] == 5000
    assert (await store.db.fetch_one("PRAGMA synchronous"))[0] == 2  # FULL: acknowledged means on disk


def writers_synchronous(connection):
    return connection.execute("PRAGMA synchronous").fetchone()[0]


async def test_both_connections_commit_as_the_operator_chose(tmp_path):
    store = await Store.open(tmp_path / "bot.db", synchronous="NORMAL")
    try:
        assert (await store.db.fetch_one("PRAGMA synchronous"))[0] == 1
        assert await store.db.run(writers_synchronous) == 1  # the writer's own connection
    finally:
        await store.close()
    with pytest.raises(ValueError, match="synchronous"):
        await Store.open(tmp_path / "other.db", synchronous="OFF")


async def test_migrations_bring_a_new_file_to_the_latest_version(store):
    assert await store.db.schema_version() == len(MIGRATIONS)
    tables = set(await store.db.table_names())
    assert {"sessions", "actions", "used_words", "votes", "ballots", "results", "profiles"} <= tables
    assert {"guild_settings", "meta"} <= tables


async def test_reopening_does_not_migrate_again(database):
    first = await Store.open(database)
    async with first.transaction() as tx:
        await first.meta.set(tx, "kept", "yes")
    await first.close()
    second = await Store.open(database)
    assert await second.meta.get("kept") == "yes"
    await second.close()


async def test_a_database_newer_than_the_code_is_refused(tmp_path):
    path = tmp_path / "bot.db"
    connection = sqlite3.connect(path)
    connection.execute(f"PRAGMA user_version={len(MIGRATIONS) + 1}")
    connection.close()
    with pytest.raises(SchemaTooNew):
        await Store.open(path)


async def test_a_failing_transaction_is_rolled_back(store):
    with pytest.raises(RuntimeError):
        async with store.transaction() as tx:
            await store.meta.set(tx, "half", "written")
            raise RuntimeError("boom")
    assert await store.meta.get("half") is None
    async with store.transaction() as tx:  # the connection is usable again
        await store.meta.set(tx, "after", "ok")
    assert await store.meta.get("after") == "ok"


async def test_one_open_game_per_channel(store):
    async with store.transaction() as tx:
        first = await store.sessions.create(tx, lobby())
    with pytest.raises(ChannelTaken):
        async with store.transaction() as tx:
            await store.sessions.create(tx, lobby())
    record = await store.sessions.get(first)
    record.status = "finished"
    async with store.transaction() as tx:
        await store.sessions.save(tx, record)
        await store.sessions.create(tx, lobby())  # allowed once the first one is over


async def test_session_round_trips_json_fields(store):
    record = lobby()
    record.options = {"language": "fr", "words": 5}
    record.snapshot = {"board": [[1, 2], [3]], "name": "Zoë"}
    async with store.transaction() as tx:
        record.id = await store.sessions.create(tx, record)
    loaded = await store.sessions.get(record.id)
    assert loaded == record


async def test_user_text_is_bound_never_interpolated(store):
    hostile = "x'); DROP TABLE sessions; --"
    async with store.transaction() as tx:
        sid = await store.sessions.create(tx, lobby())
        await store.used_words.add(tx, sid, [UsedWordRecord(1, hostile, hostile, hostile)])
    assert (await store.used_words.for_session(sid))[0].word == hostile
    assert await store.sessions.get(sid) is not None


async def test_used_words_are_unique_per_round_player_and_word(store):
    async with store.transaction() as tx:
        sid = await store.sessions.create(tx, lobby())
        words = [UsedWordRecord(1, "ann", "pear", "pear"), UsedWordRecord(1, "ann", "pear", "pear")]
        await store.used_words.add(tx, sid, words)
        await store.used_words.add(tx, sid, [UsedWordRecord(1, "bob", "pear", "pear")])
    assert len(await store.used_words.for_session(sid)) == 2
    assert await store.used_words.was_used(sid, "pear", before_round=2)
    assert not await store.used_words.was_used(sid, "pear", before_round=1)


async def test_votes_keep_the_last_ballot_and_close_once(store):
    from bot.store import VoteRecord

    vote = VoteRecord(
        0, None, 10, None, "dispute", "Is 'cans' a word?", ["ann", "bob"], 99.0, "open", None, {}
    )
    async with store.transaction() as tx:
        vote.id = await store.votes.create(tx, vote, 1.0)
        await store.votes.cast(tx, vote.id, "ann", True, 2.0)
        await store.votes.cast(tx, vote.id, "ann", False, 3.0)
    assert await store.votes.ballots(vote.id) == {"ann": False}
    async with store.transaction() as tx:
        assert await store.votes.close(tx, vote.id, "no")
        assert not await store.votes.close(tx, vote.id, "no")
    assert await store.votes.all_open() == []


async def test_profiles_and_guild_settings(store):
    async with store.transaction() as tx:
        await store.profiles.set_birthday(tx, "ann", 2, 29, 1.0)
        await store.profiles.set_language(tx, "ann", "fr", 2.0)
        await store.guild_settings.set_language(tx, 1, "de", 1.0)
    profile = await store.profiles.get("ann")
    assert (profile.birth_month, profile.birth_day, profile.language) == (2, 29, "fr")
    assert await store.guild_settings.language(1, "en") == "de"
    assert await store.guild_settings.language(2, "en") == "en"


async def test_an_older_database_is_upgraded_and_keeps_its_rows(tmp_path):
    from bot.store.database import _split_statements

    path = tmp_path / "old.db"
    connection = sqlite3.connect(path)
    for statement in _split_statements(MIGRATIONS[0]):
        connection.execute(statement)
    connection.execute(
        "INSERT INTO sessions (guild_id, channel_id, game, status, host_id, seed, timers, created_at, updated_at)"
        ' VALUES (1, 10, \'race\', \'lobby\', \'ann\', 7, \'{"lobby": {"at": 5.0, "action": {"do": "x"}}}\','
        " 1.0, 1.0)"
    )
    connection.execute("PRAGMA user_version=1")
    connection.commit()
    connection.close()
    store = await Store.open(path)
    try:
        assert await store.db.schema_version() == len(MIGRATIONS)
        record = await store.sessions.open_in_channel(10)
        assert record.host_id == "ann" and record.names == {}
        # Migration 3: the seed kept as text, the timers moved to their own table.
        assert record.seed == 7
        assert record.timers == {"lobby": {"at": 5.0, "action": {"do": "x"}}}
        assert await store.sessions.all_deadlines() == [(record.id, "lobby", 5.0)]
    finally:
        await store.close()


def an_active_session_at_version(path, version: int) -> None:
    """A database file of schema `version` holding one active session (id 1)."""
    connection = sqlite_at_version(path, version)
    connection.execute(
        "INSERT INTO sessions (guild_id, channel_id, game, status, host_id, seed, created_at, updated_at)"
        " VALUES (1, 10, 'race', 'active', 'ann', 7, 1.0, 1.0)"
    )
    connection.execute(f"PRAGMA user_version={version}")
    connection.commit()
    connection.close()


async def test_migration_6_adds_news_and_turn_notices_to_a_database_of_version_5(tmp_path):
    path = tmp_path / "five.db"
    an_active_session_at_version(path, 5)
    store = await Store.open(path)
    try:
        assert await store.db.schema_version() == len(MIGRATIONS) >= 6
        assert await store.news.players_waiting(1) == set() and await store.turn_notices.get(1) is None
        assert (await store.sessions.get(1)).status == "active"
    finally:
        await store.close()


async def news_session(store) -> int:
    async with store.transaction() as tx:
        return await store.sessions.create(tx, lobby())


async def test_news_are_read_per_player_oldest_first_through_their_index(store):
    from bot.store.repositories import News

    sid = await news_session(store)
    await store.db.run(News.add_statements(sid, 3, 5.0, {"bob": [{"n": 1}, {"n": 2}], "cat": [{"n": 3}]}))
    assert await store.news.players_waiting(sid) == {"bob", "cat"}
    assert [event for _, event in await store.news.waiting(sid, "bob")] == [{"n": 1}, {"n": 2}]
    rows = await store.db.fetch_all("SELECT player, version, created_at FROM news ORDER BY id")
    assert [tuple(row) for row in rows] == [("bob", 3, 5.0), ("bob", 3, 5.0), ("cat", 3, 5.0)]
    if store.db.dialect == "sqlite":  # (PostgreSQL's planner reads a table of three rows whole)
        plan = await store.db.fetch_all(
            "EXPLAIN QUERY PLAN SELECT id, event FROM news WHERE session_id = ? AND player = ? ORDER BY id",
            (sid, "bob"),
        )
        assert any("news_by_player" in row[-1] for row in plan), [tuple(row) for row in plan]
    [(first, _), _] = await store.news.waiting(sid, "bob")
    await store.db.run(News.remove_statements([first]))
    assert [event for _, event in await store.news.waiting(sid, "bob")] == [{"n": 2}]


async def test_a_player_keeps_only_their_latest_news(store):
    from bot.store.repositories import News

    sid = await news_session(store)
    for n in range(News.KEPT + 3):
        await store.db.run(News.add_statements(sid, n, 1.0, {"bob": [{"n": n}]}))
    await store.db.run(News.add_statements(sid, 99, 1.0, {"cat": [{"n": 0}]}))
    kept = [event["n"] for _, event in await store.news.waiting(sid, "bob")]
    assert kept == list(range(3, News.KEPT + 3))
    assert len(await store.news.waiting(sid, "cat")) == 1


async def test_a_closed_session_drops_its_news(store):
    from functools import partial

    from bot.store.repositories import News, Sessions

    sid = await news_session(store)
    await store.db.run(News.add_statements(sid, 1, 1.0, {"bob": [{"n": 1}]}))
    await store.db.run(partial(Sessions.close_work, session_id=sid, status="cancelled", now=2.0))
    assert await store.news.players_waiting(sid) == set()


async def test_a_tables_turn_notice_is_stored_replaced_and_dropped(store):
    from bot.store import TurnNotice
    from bot.store.repositories import TurnNotices

    sid = await news_session(store)
    await store.db.run(TurnNotices.save_statements(sid, TurnNotice(("ann",), 11)))
    assert await store.turn_notices.get(sid) == TurnNotice(("ann",), 11, None)
    await store.db.run(TurnNotices.save_statements(sid, TurnNotice(("bob", "cat"), 12, 11)))
    assert await store.turn_notices.get(sid) == TurnNotice(("bob", "cat"), 12, 11)
    await store.db.run(TurnNotices.drop_statements(sid))
    assert await store.turn_notices.get(sid) is None


async def test_migration_12_adds_the_consoles_to_a_database_of_version_11(tmp_path):
    path = tmp_path / "eleven.db"
    an_active_session_at_version(path, 11)
    store = await Store.open(path)
    try:
        assert await store.db.schema_version() == len(MIGRATIONS) >= 12
        assert await store.consoles.live("race", 0.0) == []
    finally:
        await store.close()


async def test_a_players_console_is_stored_replaced_read_back_and_dropped(store):
    from functools import partial

    from bot.store import StoredConsole
    from bot.store.repositories import Consoles, Sessions

    sid = await news_session(store)
    other = await news_session_in(store, channel_id=11, game="other")
    for session_id in (sid, other):
        await store.db.run([Statement("UPDATE sessions SET status = 'active' WHERE id = ?", (session_id,))])
    ann = StoredConsole(sid, "ann", 99, "token-1", "fr", 100.0, 500)
    await store.db.run(Consoles.save_statements(ann))
    await store.db.run(Consoles.save_statements(StoredConsole(sid, "bob", 99, "token-2", "en", 50.0)))
    await store.db.run(Consoles.save_statements(StoredConsole(other, "ann", 99, "token-3", "en", 100.0)))
    assert await store.consoles.live("race", 60.0) == [ann]  # this game's, opened since then
    newer = StoredConsole(sid, "ann", 99, "token-4", "de", 200.0, 501)
    await store.db.run(Consoles.save_statements(newer))  # one row a player: their latest console
    assert await store.consoles.live("race", 0.0) == [
        newer,
        StoredConsole(sid, "bob", 99, "token-2", "en", 50.0),
    ]
    await store.db.run(Consoles.drop_statements(sid, "ann", "token-1"))  # replaced meanwhile: stays
    await store.db.run(Consoles.drop_older_statements(60.0))
    assert await store.consoles.live("race", 0.0) == [newer]
    await store.db.run(partial(Sessions.close_work, session_id=sid, status="cancelled", now=2.0))
    assert await store.consoles.live("race", 0.0) == []  # a closed game's consoles are not redrawn
    await store.db.run(Consoles.drop_statements(other, "ann", "token-3"))
    assert await store.consoles.live("other", 0.0) == []


async def news_session_in(store, *, channel_id: int, game: str) -> int:
    async with store.transaction() as tx:
        return await store.sessions.create(tx, lobby(channel_id, game))


async def test_the_leaderboard_ranks_a_player_who_left_after_those_who_stayed(store):
    """RULES-NOTES (TopWords): a player who left is ranked after every player who stayed, whatever their
    score; the leaderboard follows the places the game gave, not the points alone."""
    from bot.engine.game import Outcome, Termination
    from bot.engine.sessions import _result_rows

    outcome = Outcome(
        ["ann"],
        {"ann": 4, "bob": -25, "cat": 12},
        left=["cat"],
        termination=Termination.ALL_PASSED,
        draw=False,
    )
    async with store.transaction() as tx:
        sid = await store.sessions.create(tx, lobby(game="topwords"))
        await store.results.record(tx, sid, 1, "topwords", _result_rows(outcome), 2.0)
    board = await store.results.leaderboard(1, "topwords")
    assert [row.user_id for row in board] == ["ann", "bob", "cat"]
