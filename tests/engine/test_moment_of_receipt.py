"""The moment of receipt: `SessionManager.act` stamps every live action with the time the bot received it
(before it waits for the session's lock) and logs it with the action, so a game judges "too late" alike in
live play and in a replay. Top Stop's writing window: a list received after it is refused, however late the
lock lets it through; one received in time counts even when applied after the deadline."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.engine.errors import TooLate
from bot.engine.game import RECEIVED_AT
from bot.engine.sessions import SessionManager
from bot.games import make_game
from bot.replay import export_session, run_scenario
from bot.store import Store
from tests.engine.stacked_spins import stack_spins
from tests.engine.test_sessions import Clock

WRITING = 180.0  # Top Stop's default writing time
GRACE = 10.0


@pytest.fixture
async def env(database):
    clock = Clock()
    store = await Store.open(database)
    rules = make_game("topstop", None)
    stack_spins(rules, "P" * 5)
    manager = SessionManager(store, {"topstop": rules}, clock=clock)
    await manager.start()
    yield manager, store, clock, str(database)
    await manager.close()
    await store.close()


async def writing(manager: SessionManager) -> int:
    """A table of three whose round one has just been spun (P), at the clock's time."""
    lobby = await manager.open_lobby(1, 10, "topstop", "ann", {"check_words": False})
    for player in ("bob", "cat"):
        await manager.join(lobby.id, player)
    await manager.start_game(lobby.id, "ann", {"first_player": "ann"})
    await manager.act(lobby.id, "ann", {"do": "spin"})
    return lobby.id


async def logged(store: Store, sid: int) -> list[dict[str, Any]]:
    return [entry.action for entry in await store.actions.for_session(sid)]


async def test_every_live_action_is_logged_with_the_moment_it_was_received_never_the_senders(env):
    manager, store, clock, _ = env
    sid = await writing(manager)
    clock.now = 1_050.5
    await manager.act(sid, "bob", {"do": "submit", "words": ["pear"], RECEIVED_AT: 0.0})  # a forged stamp
    spin, submit = await logged(store, sid)
    assert spin[RECEIVED_AT] == 1_000.0 and submit[RECEIVED_AT] == 1_050.5


async def test_the_writing_window_closes_where_its_timer_fires(env):
    manager, store, clock, _ = env
    sid = await writing(manager)
    record, state = await manager.session(sid), await manager.state(sid)
    assert state.round.writing_until == 1_000.0 + WRITING == record.timers["writing:1:0"]["at"]
    clock.now = 1_100.0
    await manager.act(sid, "ann", {"do": "submit", "words": ["pear"]})
    await manager.act(sid, "ann", {"do": "stop"})  # STOP: the others have the grace period from now
    record, state = await manager.session(sid), await manager.state(sid)
    assert state.round.writing_until == 1_100.0 + GRACE == record.timers["grace:1"]["at"]
    clock.now = 1_100.0 + GRACE + 0.5
    with pytest.raises(TooLate):
        await manager.act(sid, "bob", {"do": "submit", "words": ["plum"]})


async def test_a_list_received_after_the_writing_time_is_refused_even_before_writing_closes(env):
    manager, store, clock, _ = env
    sid = await writing(manager)
    clock.now = 1_000.0 + WRITING + 0.5
    with pytest.raises(TooLate) as refused:
        await manager.act(sid, "bob", {"do": "submit", "words": ["pear"]})
    assert refused.value.code == "too_late" and refused.value.key == "topstop.too_late"
    assert "ended 0.5 s before" in refused.value.message
    assert (await manager.session(sid)).version == 1  # nothing applied: the spin is the last action
    assert (await manager.state(sid)).phase == "writing"  # the timer has not run yet
    # The timer's own action is never late: it closes writing as always.
    result = await manager.fire_timer(sid, "writing:1:0")
    assert result is not None and result.events[0]["type"] == "writing_closed"
    assert result.events[0]["lists"] == {}


async def test_a_list_received_in_time_counts_though_the_lock_applies_it_after_the_deadline(env):
    manager, store, clock, _ = env
    sid = await writing(manager)
    async with manager._locked(sid):  # another action of the table holds the session
        clock.now = 1_000.0 + WRITING - 1
        in_time = asyncio.create_task(manager.act(sid, "bob", {"do": "submit", "words": ["pear"]}))
        await asyncio.sleep(0)  # received (stamped) now; it waits for the lock
        clock.now = 1_000.0 + WRITING + 5
    await in_time
    closed = await manager.fire_timer(sid, "writing:1:0")
    assert closed is not None
    assert [entry["word"] for entry in closed.events[0]["lists"]["bob"]] == ["pear"]
    submit = (await logged(store, sid))[-2]
    assert submit["do"] == "submit" and submit[RECEIVED_AT] == 1_000.0 + WRITING - 1


async def test_a_timers_action_is_stamped_with_its_deadline(env):
    manager, store, clock, _ = env
    sid = await writing(manager)
    await manager.fire_timer(sid, "writing:1:0")  # run early, as a test may: stamped at its deadline
    end_writing = (await logged(store, sid))[-1]
    assert end_writing == {"do": "end_writing", RECEIVED_AT: 1_000.0 + WRITING}


async def test_a_replay_judges_the_moment_alike(env):
    manager, store, clock, path = env
    sid = await writing(manager)
    clock.now = 1_000.0 + WRITING - 1
    await manager.act(sid, "bob", {"do": "submit", "words": ["pear"]})
    clock.now = 1_000.0 + WRITING + 1
    with pytest.raises(TooLate):
        await manager.act(sid, "cat", {"do": "submit", "words": ["plum"]})
    await manager.fire_timer(sid, "writing:1:0")
    scenario = await export_session(sid, path)
    live = manager.games["topstop"].replay_output(await manager.state(sid))
    replayed = run_scenario(scenario)
    assert {key: replayed[key] for key in live} == live and replayed["rejected"] == []
    # cat's list, as it was received, is refused by the replay too; bob's, applied in time, is not.
    cat = {"do": "submit", "player": "cat", "words": ["plum"], RECEIVED_AT: 1_000.0 + WRITING + 1}
    late = {**scenario, "actions": [*scenario["actions"][:-1], cat, scenario["actions"][-1]]}
    assert [r["error"] for r in run_scenario(late)["rejected"]] == ["too_late"]


async def test_a_log_written_before_the_stamp_replays_with_no_deadline(env):
    manager, store, clock, path = env
    sid = await writing(manager)
    clock.now = 1_000.0 + WRITING - 1
    await manager.act(sid, "bob", {"do": "submit", "words": ["pear"]})
    await manager.fire_timer(sid, "writing:1:0")
    scenario = await export_session(sid, path)
    old = [{k: v for k, v in action.items() if k != RECEIVED_AT} for action in scenario["actions"]]
    replayed = run_scenario({**scenario, "actions": old})
    assert replayed["rejected"] == [] and replayed["history"][0]["words"]["bob"][0]["word"] == "pear"
    # Unstamped, a list is under no deadline even far after the writing time.
    late = {"do": "submit", "player": "cat", "words": ["plum"]}
    late_log = {**scenario, "actions": [*old[:-1], late, old[-1]]}
    assert run_scenario(late_log)["rejected"] == []


def test_a_malformed_moment_is_refused_as_a_bad_action():
    scenario = {
        "game": "topstop",
        "players": ["ann", "bob"],
        "options": {"check_words": False},
        "setup": {"first_player": "ann"},
        "actions": [
            {"do": "spin", "player": "ann", RECEIVED_AT: "noon"},
            {"do": "spin", "player": "ann", RECEIVED_AT: True},
            {"do": "spin", "player": "ann", RECEIVED_AT: 10**400},
        ],
    }
    assert [r["error"] for r in run_scenario(scenario)["rejected"]] == ["bad_action"] * 3
