"""What an action costs to persist does not grow with the game: the snapshot is written now and then, the
actions logged after it are replayed when the session loads, and repeated interactions are known from memory.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from bot.engine.errors import NoSuchSession, NotYourTurn
from bot.engine.sessions import DISCORD_EPOCH_MS, MOST_ACTIONS_BETWEEN_SNAPSHOTS, SessionManager
from bot.store import Store
from bot.store.repositories import Sessions
from tests.engine.race_game import RaceGame
from tests.engine.restored import restored_state


@pytest.fixture
async def env(database):
    store = await Store.open(database)
    manager = SessionManager(store, {"race": RaceGame()})
    yield manager, store
    await manager.close()
    await store.close()


async def started(manager: SessionManager, target: int = 1000) -> int:
    record = await manager.open_lobby(1, 10, "race", "ann", {"target": target})
    await manager.join(record.id, "bob")
    await manager.start_game(record.id, "ann")
    return record.id


def spy_on_steps(monkeypatch) -> list[dict[str, Any]]:
    """Each step's unit as the manager asked for it: its snapshot (or None) and the bytes it logged."""
    seen: list[dict[str, Any]] = []
    step_unit = Sessions.step_unit

    def spying(record, **kwargs):
        action, events = kwargs["encoded"]
        seen.append({"snapshot": kwargs["snapshot"], "logged": len(action) + len(events)})
        return step_unit(record, **kwargs)

    monkeypatch.setattr(Sessions, "step_unit", staticmethod(spying))
    return seen


async def test_a_long_game_writes_its_snapshot_now_and_then_and_a_restart_restores_it_exactly(
    env, monkeypatch
):
    manager, store = env
    sid = await started(manager)
    steps = spy_on_steps(monkeypatch)
    for turn in range(400):  # the state's history grows with every move
        await manager.act(sid, ("ann", "bob")[turn % 2], {"do": "advance", "by": 1})
    snapshots = [len(s["snapshot"]) for s in steps if s["snapshot"] is not None]
    logged = sum(s["logged"] for s in steps)
    assert len(snapshots) < len(steps) / 5, "a snapshot with every action"
    assert snapshots[-1] > 4 * snapshots[0], "the state grew"
    # The snapshots written cost about what the log itself does, however long the game gets.
    assert sum(snapshots) <= 1.5 * logged
    record = await store.sessions.get(sid)
    assert record.snapshot_version <= record.version == 400
    assert await restored_state(store, RaceGame(), sid) == RaceGame().dump(await manager.state(sid))


async def test_the_log_after_the_snapshot_is_never_longer_than_the_bound(env, monkeypatch):
    manager, store = env
    monkeypatch.setattr("bot.engine.sessions.MOST_ACTIONS_BETWEEN_SNAPSHOTS", 3)
    monkeypatch.setattr("bot.engine.sessions.SNAPSHOT_LOG_SHARE", 1e9)  # only the bound writes one
    sid = await started(manager)
    for turn in range(10):
        await manager.act(sid, ("ann", "bob")[turn % 2], {"do": "advance", "by": 1})
        record = await store.sessions.get(sid)
        assert record.version - record.snapshot_version < 3
    assert MOST_ACTIONS_BETWEEN_SNAPSHOTS >= 100  # the bot's own bound keeps loading cheap, not every action


async def test_the_last_action_writes_the_snapshot(env, monkeypatch):
    manager, store = env
    monkeypatch.setattr("bot.engine.sessions.SNAPSHOT_LOG_SHARE", 1e9)
    sid = await started(manager, target=3)
    await manager.act(sid, "ann", {"do": "advance", "by": 1})
    await manager.act(sid, "bob", {"do": "note", "text": "mine"})  # slow, and replayed on load as any other
    record = await store.sessions.get(sid)
    assert record.snapshot_version == 0 and record.version == 2
    assert await restored_state(store, RaceGame(), sid) == RaceGame().dump(await manager.state(sid))
    await manager.act(sid, "bob", {"do": "advance", "by": 1})
    await manager.act(sid, "ann", {"do": "advance", "by": 2})  # ann reaches 3: the race is over
    record = await store.sessions.get(sid)
    assert record.status == "finished" and record.snapshot_version == record.version == 4
    assert record.snapshot["scores"] == {"ann": 3, "bob": 1}


async def test_a_log_with_a_gap_after_the_snapshot_closes_the_session_as_unreadable(env, monkeypatch):
    manager, store = env
    monkeypatch.setattr("bot.engine.sessions.SNAPSHOT_LOG_SHARE", 1e9)
    sid = await started(manager)
    for turn in range(3):
        await manager.act(sid, ("ann", "bob")[turn % 2], {"do": "advance", "by": 1})
    async with store.transaction() as tx:
        await tx.execute("DELETE FROM actions WHERE session_id = ? AND version = 1", (sid,))
    restarted = SessionManager(store, {"race": RaceGame()})
    try:
        with pytest.raises(NoSuchSession):
            await restarted.state(sid)
        assert (await store.sessions.get(sid)).status == "cancelled"
    finally:
        await restarted.close()


async def test_a_refused_click_is_answered_without_reading_the_log(env, monkeypatch):
    manager, store = env
    sid = await started(manager)
    await manager.act(sid, "ann", {"do": "advance", "by": 1}, interaction_id="1")
    reads: list[str] = []
    by_interaction = store.actions.by_interaction

    async def counting(session_id, interaction_id):
        reads.append(interaction_id)
        return await by_interaction(session_id, interaction_id)

    monkeypatch.setattr(store.actions, "by_interaction", counting)
    with pytest.raises(NotYourTurn):
        await manager.act(sid, "ann", {"do": "advance", "by": 1}, interaction_id="2")
    assert reads == []
    # The same interaction delivered twice gets its first answer again: that one is read.
    again = await manager.act(sid, "ann", {"do": "advance", "by": 1}, interaction_id="1")
    assert again.duplicate and again.events[0]["type"] == "advanced" and reads == ["1"]


async def test_a_repeated_interaction_is_recognised_after_a_restart_and_after_many_others(env, monkeypatch):
    manager, store = env
    monkeypatch.setattr("bot.engine.sessions.RECENT_KEPT", 4)
    sid = await started(manager)
    for turn in range(10):
        await manager.act(
            sid, ("ann", "bob")[turn % 2], {"do": "advance", "by": 1}, interaction_id=f"i{turn}"
        )
    restarted = SessionManager(store, {"race": RaceGame()})
    try:
        # i0 was let go from memory long ago (four are kept): the log is asked, and it is found there.
        first = await restarted.act(sid, "ann", {"do": "advance", "by": 1}, interaction_id="i0")
        assert first.duplicate and first.events[0]["player"] == "ann"
        last = await restarted.act(sid, "bob", {"do": "advance", "by": 1}, interaction_id="i9")
        assert last.duplicate and last.events[0]["player"] == "bob"
    finally:
        await restarted.close()


async def test_a_restored_state_shares_each_string_with_its_equals(env):
    manager, store = env
    sid = await started(manager)
    for turn in range(6):
        await manager.act(sid, ("ann", "bob")[turn % 2], {"do": "advance", "by": 1})
    restarted = SessionManager(store, {"race": RaceGame()})
    try:
        state = await restarted.state(sid)
        # "ann" as a seat, a score's key and in every move of the history: one string, not eight.
        names = [state.players[0], *[key for key in state.scores if key == "ann"]]
        names += [move["player"] for move in state.history if move["player"] == "ann"]
        assert len(names) == 5 and all(name is names[0] for name in names)
    finally:
        await restarted.close()


def snowflake(at: float, serial: int = 0) -> str:
    """A Discord id made at `at` (seconds), as Discord makes interaction ids."""
    return str(((int(at * 1000) - DISCORD_EPOCH_MS) << 22) + serial)


async def test_a_refusal_after_many_actions_reads_the_log_only_for_an_interaction_older_than_memory(
    env, monkeypatch
):
    _, store = env
    monkeypatch.setattr("bot.engine.sessions.RECENT_KEPT", 4)
    clock = [time.time() - 60]  # the actions were applied a minute ago
    manager = SessionManager(store, {"race": RaceGame()}, clock=lambda: clock[0])
    try:
        sid = await started(manager)
        for turn in range(10):  # six of them let go from memory
            await manager.act(
                sid,
                ("ann", "bob")[turn % 2],
                {"do": "advance", "by": 1},
                interaction_id=snowflake(clock[0], turn),
            )
        clock[0] += 60
        reads = count_log_reads(store, monkeypatch)
        with pytest.raises(NotYourTurn):  # made now: it cannot be one applied before those in memory
            await manager.act(sid, "bob", {"do": "advance", "by": 1}, interaction_id=snowflake(clock[0], 99))
        assert reads == []
        with pytest.raises(NotYourTurn):  # made an hour ago: only the log can tell
            await manager.act(
                sid, "bob", {"do": "advance", "by": 1}, interaction_id=snowflake(clock[0] - 3600, 7)
            )
        assert len(reads) == 1
        again = await manager.act(
            sid, "bob", {"do": "advance", "by": 1}, interaction_id=snowflake(clock[0] - 60, 1)
        )
        assert again.duplicate and again.events[0]["player"] == "bob"
    finally:
        await manager.close()


def count_log_reads(store: Store, monkeypatch) -> list[str]:
    reads: list[str] = []
    by_interaction = store.actions.by_interaction

    async def counting(session_id, interaction_id):
        reads.append(interaction_id)
        return await by_interaction(session_id, interaction_id)

    monkeypatch.setattr(store.actions, "by_interaction", counting)
    return reads


async def test_after_a_restart_only_an_interaction_made_before_the_last_action_reads_the_log(
    env, monkeypatch
):
    manager, store = env
    sid = await started(manager)
    made = time.time()
    await manager.act(sid, "ann", {"do": "advance", "by": 1}, interaction_id=snowflake(made, 1))
    restarted = SessionManager(store, {"race": RaceGame()}, clock=lambda: made + 60)
    try:
        reads = count_log_reads(store, monkeypatch)
        with pytest.raises(NotYourTurn):  # made a minute after the last action: no repeat of any
            await restarted.act(
                sid, "ann", {"do": "advance", "by": 1}, interaction_id=snowflake(made + 60, 2)
            )
        assert reads == []
        again = await restarted.act(sid, "ann", {"do": "advance", "by": 1}, interaction_id=snowflake(made, 1))
        assert again.duplicate and reads == [snowflake(made, 1)]
    finally:
        await restarted.close()
