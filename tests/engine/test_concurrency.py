"""The session cache under concurrency: reads racing actions, evictions, redraws; the store stays the truth."""

from __future__ import annotations

import asyncio
import random
from functools import partial

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine.errors import GameError
from bot.engine.game import step
from bot.engine.sessions import SessionManager
from bot.games import make_game
from bot.store import Store
from tests.engine.race_game import RaceGame
from tests.engine.restored import restored_state


async def replayed_snapshot(store: Store, game, session_id: int, upto: int | None = None) -> tuple[dict, int]:
    """The state the stored log replays to from the start (its first `upto` actions), and the log's length."""
    record = await store.sessions.get(session_id)
    state = game.new_game(record.options, record.players, record.setup, random.Random(record.seed))
    log = await store.actions.for_session(session_id)
    for entry in log[:upto]:
        _, applied = step(game, state, record.seed, entry.version, entry.action)
        state = applied.state
    return game.dump(state), len(log)


async def assert_store_is_consistent(store: Store, game, session_id: int) -> None:
    record = await store.sessions.get(session_id)
    whole, length = await replayed_snapshot(store, game, session_id)
    assert record.version == length
    # The snapshot is the state at its version exactly; with the log after it, the state at the last one.
    assert record.snapshot == (await replayed_snapshot(store, game, session_id, record.snapshot_version))[0]
    assert await restored_state(store, game, session_id) == whole


async def test_a_read_racing_an_action_on_an_evicted_session_cannot_freeze_the_game(database):
    """The reported race: a read loads the session while an action loads and advances it; the read's
    older copy must not win the cache, and the next set_message must not write it back."""
    store = await Store.open(database)
    game = make_game("topwords", None)
    manager = SessionManager(store, {"topwords": game})
    try:
        lobby = await manager.open_lobby(1, 10, "topwords", "a", {"check_words": False})
        await manager.join(lobby.id, "b")
        await manager.start_game(lobby.id, "a")
        sid = lobby.id
        first = (await manager.session(sid)).players[(await manager.state(sid)).turn]
        manager.idle_seconds = -1
        manager.evict_idle()
        await asyncio.gather(manager.act(sid, first, {"do": "pass"}), manager.session(sid))
        await manager.set_message(sid, 999)
        assert (await store.sessions.get(sid)).version == 1
        second = "b" if first == "a" else "a"
        await manager.act(sid, second, {"do": "pass"})  # no UNIQUE failure: the game goes on
        stored = await store.sessions.get(sid)
        assert stored.version == 2 and stored.message_id == 999
        await assert_store_is_consistent(store, game, sid)
    finally:
        await manager.close()
        await store.close()


OPS = st.lists(
    st.tuples(
        st.sampled_from(["roll", "note", "skip_turn", "session", "view", "state", "set_message", "evict"]),
        st.integers(0, 3),  # which session
        st.integers(0, 1),  # which player
        st.integers(1, 6),  # a roll or a message id
    ),
    min_size=5,
    max_size=40,
)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=st.lists(OPS, min_size=1, max_size=4))
def test_random_interleavings_keep_every_snapshot_equal_to_the_replay_of_its_log(
    request, tmp_path_factory, backend, batches
):
    if backend == "sqlite":
        asyncio.run(_interleavings(tmp_path_factory.mktemp("interleave") / "bot.db", batches))
        return
    databases = request.getfixturevalue("postgresql_databases")
    url = databases.fresh()
    try:
        asyncio.run(_interleavings(url, batches))
    finally:
        databases.drop(url)


async def _interleavings(path, batches) -> None:
    store = await Store.open(path)
    game = RaceGame()
    manager = SessionManager(store, {"race": game})
    players = ("ann", "bob")
    sessions = []
    try:
        for channel in range(4):
            lobby = await manager.open_lobby(1, channel, "race", "ann", {"target": 1000})
            await manager.join(lobby.id, "bob")
            await manager.start_game(lobby.id, "ann")
            sessions.append(lobby.id)

        async def run(op, which, who, number):
            sid, player = sessions[which], players[who]
            if op == "roll":
                await manager.act(sid, player, {"do": "roll", "roll": number})
            elif op == "note":
                await manager.act(sid, player, {"do": "note", "text": str(number)})
            elif op == "skip_turn":
                await manager.act(sid, None, {"do": "skip"})
            elif op == "session":
                await manager.session(sid)
            elif op == "view":
                await manager.view(sid, player)
            elif op == "state":
                await manager.state(sid)
            elif op == "set_message":
                await manager.set_message(sid, number)
            else:
                manager.idle_seconds = -1
                manager.evict_idle()

        for batch in batches:
            results = await asyncio.gather(*(run(*op) for op in batch), return_exceptions=True)
            for result in results:
                if isinstance(result, BaseException) and not isinstance(result, GameError):
                    raise result
            for sid in sessions:
                await assert_store_is_consistent(store, game, sid)
                # What memory serves is what the store holds.
                assert (await manager.session(sid)).version == (await store.sessions.get(sid)).version
                assert game.dump(await manager.state(sid)) == await restored_state(store, game, sid)
    finally:
        await manager.close()
        await store.close()


# Units of work cross to the writer process: module-level functions, not closures.
def insert_meta(conn, key):
    return conn.execute("INSERT INTO meta (key, value) VALUES (?, 'v')", (key,)).lastrowid


def insert_then_refuse(conn):
    conn.execute("INSERT INTO meta (key, value) VALUES ('bad', 'v')")
    raise ValueError("refused")


async def test_a_failed_unit_in_a_group_commit_undoes_only_itself(database):
    store = await Store.open(database)
    try:
        results = await asyncio.gather(
            store.db.run(partial(insert_meta, key="one")),
            store.db.run(insert_then_refuse),
            store.db.run(partial(insert_meta, key="two")),
            return_exceptions=True,
        )
        assert isinstance(results[1], ValueError)
        assert await store.meta.get("one") == "v" and await store.meta.get("two") == "v"
        assert await store.meta.get("bad") is None
    finally:
        await store.close()


async def test_seeds_have_128_bits_and_replays_stay_exact(database):
    store = await Store.open(database)
    game = RaceGame()
    manager = SessionManager(store, {"race": game})
    try:
        seeds = []
        for channel in range(8):
            lobby = await manager.open_lobby(1, channel, "race", "ann", {})
            await manager.join(lobby.id, "bob")
            await manager.start_game(lobby.id, "ann")
            await manager.act(lobby.id, "ann", {"do": "roll"})
            seeds.append((await store.sessions.get(lobby.id)).seed)
            await assert_store_is_consistent(store, game, lobby.id)
        assert max(seeds) >= 2**64  # beyond SQLite's integers: stored as text, read back exactly
        assert len(set(seeds)) == len(seeds)
    finally:
        await manager.close()
        await store.close()


@pytest.mark.parametrize("lower_is_better", [False, True])
async def test_results_and_leaderboards_follow_the_games_direction(database, lower_is_better):
    from bot.engine.game import Outcome, Termination
    from bot.engine.sessions import _result_rows

    outcome = Outcome(
        ["ann"] if lower_is_better else ["cat"],
        {"ann": 2, "bob": 5, "cat": 9},
        lower_is_better,
        termination=Termination.WENT_OUT,
        draw=False,
    )
    rows = {row.user_id: row for row in _result_rows(outcome)}
    if lower_is_better:
        assert (rows["ann"].rank, rows["bob"].rank, rows["cat"].rank) == (1, 2, 3)
    else:
        assert (rows["cat"].rank, rows["bob"].rank, rows["ann"].rank) == (1, 2, 3)


def test_a_cooperative_outcome_gives_every_player_the_teams_result():
    from bot.engine.game import Outcome, Termination
    from bot.engine.sessions import _result_rows

    won = Outcome(
        [],
        {"ann": 0, "bob": 0},
        team_result="won",
        team_rating=4,
        termination=Termination.TEAM_WON,
        draw=False,
    )
    rows = _result_rows(won)
    assert all(row.won and row.result == "won" for row in rows)


async def test_statement_units_merged_in_one_batch_fail_alone_when_stale(database):
    """Units of statements run merged (one executemany per statement); a unit whose row moved on fails
    alone with StaleWrite, and the others are committed."""
    from bot.store.database import StaleWrite, Statement

    store = await Store.open(database)
    try:
        async with store.transaction() as tx:
            await tx.execute("INSERT INTO meta (key, value) VALUES ('a', '1'), ('b', '1'), ('c', '1')")

        def bump(key, expected):
            return [
                Statement(
                    "UPDATE meta SET value = ? WHERE key = ? AND value = ?",
                    (str(int(expected) + 1), key, expected),
                    one_row=True,
                )
            ]

        results = await asyncio.gather(
            store.db.run(bump("a", "1")),
            store.db.run(bump("b", "7")),  # made against a value the row no longer has
            store.db.run(bump("c", "1")),
            return_exceptions=True,
        )
        assert results[0] is None and results[2] is None and isinstance(results[1], StaleWrite)
        assert [await store.meta.get(k) for k in "abc"] == ["2", "1", "2"]
    finally:
        await store.close()
