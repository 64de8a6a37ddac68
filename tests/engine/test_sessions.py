"""The session manager: lobby, lock, idempotency, stale refusal, persistence, timers, restore."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time

import asyncpg
import pytest

from bot.engine.errors import (
    BadAction,
    ChannelBusy,
    GameOver,
    NotAPlayer,
    NotYourTurn,
    StaleAction,
    WrongPhase,
)
from bot.engine.sessions import SessionManager
from bot.store import Store
from bot.store.database import Statement
from bot.store.repositories import Sessions
from tests.engine.race_game import RaceGame
from tests.engine.restored import restored_state


class Clock:
    """A clock the test moves by hand; timers compare their deadlines with it."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def env(database):
    clock = Clock()
    store = await Store.open(database)
    manager = SessionManager(store, {"race": RaceGame()}, clock=clock)
    await manager.start()
    yield manager, store, clock, database
    await manager.close()
    await store.close()


async def started(manager, players=("ann", "bob"), options=None, channel=10):
    record = await manager.open_lobby(1, channel, "race", players[0], options or {"target": 10})
    for player in players[1:]:
        await manager.join(record.id, player)
    await manager.start_game(record.id, players[0])
    return record.id


async def test_lobby_join_leave_start(env):
    manager, *_ = env
    record = await manager.open_lobby(1, 10, "race", "ann", {})
    await manager.join(record.id, "bob")
    await manager.join(record.id, "cat")
    record = await manager.leave_lobby(record.id, "cat")
    assert record.players == ["ann", "bob"]
    with pytest.raises(BadAction):
        await manager.join(record.id, "bob")
    with pytest.raises(NotAPlayer):
        await manager.start_game(record.id, "bob")  # only the host starts
    result = await manager.start_game(record.id, "ann")
    assert result.session.status == "active"
    with pytest.raises(WrongPhase):
        await manager.join(record.id, "dan")


async def test_start_needs_the_minimum_players_and_bad_options_are_refused_at_once(env):
    manager, *_ = env
    with pytest.raises(BadAction):
        await manager.open_lobby(1, 10, "race", "ann", {"target": -3})
    record = await manager.open_lobby(1, 10, "race", "ann", {})
    with pytest.raises(BadAction):
        await manager.start_game(record.id, "ann")


async def test_one_open_game_per_channel(env):
    manager, *_ = env
    await manager.open_lobby(1, 10, "race", "ann", {})
    with pytest.raises(ChannelBusy):
        await manager.open_lobby(1, 10, "race", "bob", {})
    await manager.open_lobby(1, 11, "race", "bob", {})  # another channel is free


async def test_a_member_hosts_one_open_lobby_per_server_at_a_time(env):
    manager, *_ = env
    first = await manager.open_lobby(1, 10, "race", "ann", {})
    with pytest.raises(ChannelBusy, match="already have an open lobby"):
        await manager.open_lobby(1, 11, "race", "ann", {})
    await manager.open_lobby(2, 20, "race", "ann", {})  # another server
    await manager.join(first.id, "bob")
    await manager.start_game(first.id, "ann")  # a started game is no lobby: she may open another
    await manager.open_lobby(1, 11, "race", "ann", {})


async def test_a_server_has_at_most_its_cap_of_open_games(env):
    manager, *_ = env
    manager.max_games_per_guild = 2
    await manager.open_lobby(1, 10, "race", "ann", {})
    await manager.open_lobby(1, 11, "race", "bob", {})
    with pytest.raises(ChannelBusy, match="has 2 games open"):
        await manager.open_lobby(1, 12, "race", "cat", {})
    await manager.open_lobby(2, 20, "race", "cat", {})  # the cap is per server


async def test_a_servers_own_cap_lowers_the_bots_but_never_raises_it(env):
    manager, *_ = env
    manager.max_games_per_guild = 2
    await manager.open_lobby(1, 10, "race", "ann", {}, max_games=1)
    with pytest.raises(ChannelBusy, match="has 1 game open"):
        await manager.open_lobby(1, 11, "race", "bob", {}, max_games=1)
    await manager.open_lobby(1, 11, "race", "bob", {}, max_games=5)
    with pytest.raises(ChannelBusy, match="has 2 games open"):
        await manager.open_lobby(1, 12, "race", "cat", {}, max_games=5)
    manager.max_games_per_guild = None  # no bot limit: the server's alone
    with pytest.raises(ChannelBusy, match="has 2 games open"):
        await manager.open_lobby(1, 12, "race", "cat", {}, max_games=2)


async def test_act_applies_persists_and_logs(env):
    manager, store, *_ = env
    sid = await started(manager)
    result = await manager.act(sid, "ann", {"do": "advance", "by": 4})
    assert result.events == [{"type": "advanced", "player": "ann", "roll": 4}]
    stored = await store.sessions.get(sid)
    assert stored.version == 1 and stored.snapshot["scores"]["ann"] == 4
    log = await store.actions.for_session(sid)
    # Logged with the moment the bot received it, by the manager's clock.
    assert [entry.action for entry in log] == [
        {"do": "advance", "by": 4, "player": "ann", "received_at": 1000.0}
    ]


async def test_chance_outcomes_enter_the_log(env):
    manager, store, *_ = env
    sid = await started(manager)
    await manager.act(sid, "ann", {"do": "roll"})
    (entry,) = await store.actions.for_session(sid)
    assert 1 <= entry.action["roll"] <= 6


async def test_a_refused_action_changes_nothing(env):
    manager, store, *_ = env
    sid = await started(manager)
    with pytest.raises(NotYourTurn):
        await manager.act(sid, "bob", {"do": "advance", "by": 3})
    with pytest.raises(NotAPlayer):
        await manager.act(sid, "eve", {"do": "advance", "by": 3})
    stored = await store.sessions.get(sid)
    assert stored.version == 0 and await store.actions.for_session(sid) == []


async def test_the_actor_is_the_caller_not_the_action(env):
    manager, *_ = env
    sid = await started(manager)
    with pytest.raises(NotYourTurn):
        await manager.act(sid, "bob", {"do": "advance", "by": 3, "player": "ann"})


async def test_an_interaction_applied_twice_is_applied_once(env):
    manager, store, *_ = env
    sid = await started(manager)
    first = await manager.act(sid, "ann", {"do": "advance", "by": 2}, interaction_id="111")
    again = await manager.act(sid, "ann", {"do": "advance", "by": 2}, interaction_id="111")
    assert again.duplicate and again.events == first.events
    assert (await store.sessions.get(sid)).version == 1


async def test_an_action_made_against_an_earlier_turn_is_stale(env):
    manager, *_ = env
    sid = await started(manager)
    await manager.act(sid, "ann", {"do": "advance", "by": 2, "turn": 0})
    with pytest.raises(StaleAction):
        await manager.act(sid, "bob", {"do": "advance", "by": 2, "turn": 0})
    await manager.act(sid, "bob", {"do": "advance", "by": 2, "turn": 1})


async def test_concurrent_actions_are_serialised_by_the_session_lock(env):
    manager, store, *_ = env
    sid = await started(manager)
    results = await asyncio.gather(
        *(manager.act(sid, "ann", {"do": "note", "text": str(i)}) for i in range(20)), return_exceptions=True
    )
    assert not [r for r in results if isinstance(r, Exception)]
    versions = [entry.version for entry in await store.actions.for_session(sid)]
    assert versions == list(range(20))


async def test_finishing_records_results_and_refuses_more(env):
    manager, store, *_ = env
    sid = await started(manager, options={"target": 5})
    result = await manager.act(sid, "ann", {"do": "advance", "by": 6})
    assert result.session.status == "finished"
    assert result.events[-1] == {
        "type": "finished",
        "winners": ["ann"],
        "scores": {"ann": 6, "bob": 0},
        "lower_is_better": False,
        "team_result": None,
        "team_rating": None,
        "left": [],
        "draw": False,
        "termination": "target_reached",
    }
    rows = await store.results.for_session(sid)
    assert [(r.user_id, r.rank, r.won) for r in rows] == [("ann", 1, True), ("bob", 2, False)]
    with pytest.raises(GameOver):
        await manager.act(sid, "bob", {"do": "advance", "by": 1})
    assert (await store.results.leaderboard(1, "race"))[0].user_id == "ann"


async def test_view_hides_other_players_secrets(env):
    manager, *_ = env
    sid = await started(manager)
    await manager.act(sid, "ann", {"do": "note", "text": "secret plan"})
    assert (await manager.view(sid, "ann"))["notes"] == {"ann": "secret plan"}
    assert (await manager.view(sid, "bob"))["notes"] == {}
    assert (await manager.view(sid, None))["notes"] == {}


async def test_a_due_timer_applies_its_system_action(env):
    manager, store, clock, _ = env
    sid = await started(manager)
    record = await manager.session(sid)
    assert record.timers["turn:0"]["at"] == clock.now + 30
    seen = []

    async def listener(result):
        seen.append(result.events)

    manager.listeners.append(listener)
    result = await manager.fire_timer(sid, "turn:0")
    assert result.events == [{"type": "skipped", "player": "ann"}]
    assert seen == [result.events]
    assert "turn:1" in (await store.sessions.get(sid)).timers


async def test_a_timers_whole_result_private_events_included_reaches_the_listeners(env):
    manager, *_ = env
    sid = await started(manager)
    seen = []

    async def listener(result):
        seen.append(result)

    manager.listeners.append(listener)
    result = await manager.fire_timer(sid, "turn:0")
    assert seen == [result] and seen[0].private is result.private


async def test_a_timer_whose_state_moved_on_does_nothing(env):
    manager, *_ = env
    sid = await started(manager)
    await manager.act(sid, "ann", {"do": "advance", "by": 1})
    assert await manager.fire_timer(sid, "turn:0") is None


async def test_a_lobby_expires(env):
    manager, store, *_ = env
    record = await manager.open_lobby(1, 10, "race", "ann", {})
    result = await manager.fire_timer(record.id, "lobby")
    assert result.events == [{"type": "lobby_expired"}]
    assert (await store.sessions.get(record.id)).status == "cancelled"


async def test_cancel_closes_the_game(env):
    manager, *_ = env
    sid = await started(manager)
    await manager.cancel(sid)
    with pytest.raises(GameOver):
        await manager.act(sid, "ann", {"do": "advance", "by": 1})
    with pytest.raises(GameOver):
        await manager.cancel(sid)


async def test_restore_after_a_restart_gives_the_same_state_and_rearms_timers(env):
    manager, store, clock, path = env
    sid = await started(manager)
    await manager.act(sid, "ann", {"do": "advance", "by": 5})
    await manager.act(sid, "bob", {"do": "note", "text": "hidden"})
    before_view = await manager.view(sid, "bob")
    before_timers = (await manager.session(sid)).timers
    await manager.close()
    await store.close()

    store2 = await Store.open(path)
    manager2 = SessionManager(store2, {"race": RaceGame()}, clock=clock)
    try:
        assert await manager2.start() == 1
        assert manager2.loaded_sessions == 0  # sessions load when first used
        assert manager2.timers.armed(sid) == {"turn:1": before_timers["turn:1"]["at"]}  # re-armed
        assert await manager2.view(sid, "bob") == before_view
        assert (await manager2.session(sid)).timers == before_timers
    finally:
        await manager2.close()
        await store2.close()


async def test_a_deadline_that_passed_while_the_bot_was_down_fires_at_once(env):
    manager, store, clock, path = env
    sid = await started(manager)
    await manager.close()
    await store.close()
    clock.now += 31
    store2 = await Store.open(path)
    manager2 = SessionManager(store2, {"race": RaceGame()}, clock=clock)
    try:
        await manager2.start()
        for _ in range(100):
            await asyncio.sleep(0.01)
            if (await restored_state(store2, RaceGame(), sid))["turn"] == 1:
                break
        assert (await restored_state(store2, RaceGame(), sid))["turn"] == 1
    finally:
        await manager2.close()
        await store2.close()


async def test_idle_sessions_leave_memory_and_come_back(env):
    manager, *_ = env
    sid = await started(manager)
    await manager.act(sid, "ann", {"do": "advance", "by": 3})
    manager.idle_seconds = -1
    assert manager.evict_idle() >= 1
    assert manager.loaded_sessions == 0
    assert (await manager.view(sid, None))["scores"]["ann"] == 3


async def test_a_failed_write_leaves_memory_as_the_store_has_it(env, monkeypatch):
    manager, store, *_ = env
    sid = await started(manager)
    import sqlite3

    from bot.store.database import Statement
    from bot.store.repositories import Sessions

    def broken_step(record, **_):
        # The log row is written, then the unit fails midway (as a full disk would).
        return [
            Statement(
                "INSERT INTO actions (session_id, version, action, created_at) VALUES (?, 0, '{}', 0)", (sid,)
            ),
            Statement("INSERT INTO no_such_table VALUES (1)", ()),
        ]

    with monkeypatch.context() as patched:
        patched.setattr(Sessions, "step_unit", staticmethod(broken_step))
        with pytest.raises((sqlite3.OperationalError, asyncpg.UndefinedTableError)):
            await manager.act(sid, "ann", {"do": "advance", "by": 5})
    # Nothing of the failed move stayed: same version, same turn, no action logged.
    assert (await manager.session(sid)).version == 0
    assert (await manager.view(sid, None))["scores"]["ann"] == 0
    assert await store.actions.for_session(sid) == []
    await manager.act(sid, "ann", {"do": "advance", "by": 2, "turn": 0})
    assert (await store.sessions.get(sid)).version == 1


async def test_evicted_sessions_also_free_their_locks(env):
    manager, *_ = env
    sid = await started(manager)
    await manager.act(sid, "ann", {"do": "advance", "by": 3})
    manager.idle_seconds = -1
    manager.evict_idle()
    assert sid not in manager._locks
    await manager.act(sid, "bob", {"do": "advance", "by": 1})  # a new lock on demand


async def test_replay_of_the_log_gives_the_same_state(env):
    import random

    from bot.engine.game import step

    manager, store, *_ = env
    sid = await started(manager)
    for player in ("ann", "bob", "ann"):
        await manager.act(sid, player, {"do": "roll"})
    record = await store.sessions.get(sid)
    game = RaceGame()
    state = game.new_game(record.options, record.players, record.setup, random.Random(record.seed))
    for entry in await store.actions.for_session(sid):
        _, applied = step(game, state, record.seed, entry.version, entry.action)
        state = applied.state
    assert game.dump(state) == await restored_state(store, game, sid)


async def test_refusals_name_players_by_their_display_names(env):
    manager, *_ = env
    record = await manager.open_lobby(1, 10, "race", "1001", {}, host_name="Ann")
    await manager.join(record.id, "1002", "Bob")
    await manager.start_game(record.id, "1001")
    with pytest.raises(NotYourTurn) as refused:
        await manager.act(record.id, "1002", {"do": "advance", "by": 2})
    assert refused.value.message == "It is Ann's turn."
    assert refused.value.text("de") == "Ann ist am Zug."  # the other languages too


async def test_one_unreadable_session_is_closed_and_told_while_the_others_play_on(env):
    from bot.engine.errors import NoSuchSession

    manager, store, clock, path = env
    broken = await started(manager, channel=10)
    fine = await started(manager, channel=11)
    await manager.close()
    async with store.transaction() as tx:
        await tx.execute("UPDATE sessions SET snapshot = '{\"players\": [' WHERE id = ?", (broken,))
    manager2 = SessionManager(store, {"race": RaceGame()}, clock=clock)
    told = []

    async def listener(result):
        told.append((result.session.id, result.session.channel_id, result.events))

    manager2.listeners.append(listener)
    try:
        assert await manager2.start() == 2
        with pytest.raises(NoSuchSession):
            await manager2.act(broken, "ann", {"do": "advance", "by": 1})
        assert told == [(broken, 10, [{"type": "unreadable"}])]
        assert (await store.sessions.header(broken)).status == "cancelled"
        assert manager2.timers.armed(broken) == {}
        await manager2.act(fine, "ann", {"do": "advance", "by": 1})  # the rest is served
        assert (await store.sessions.get(fine)).version == 1
    finally:
        await manager2.close()


def test_the_chance_rng_draws_exactly_what_random_with_that_seed_draws():
    """Seeding waits for the first draw (most actions draw nothing); the draws are unchanged."""
    import random

    from bot.engine.game import chance_rng

    for version in range(20):
        lazy, plain = chance_rng(2**127 + 5, version), random.Random(f"{2**127 + 5}:{version}")
        drawn = [lazy.randint(1, 6), lazy.choice("ABCDEFGHIJ"), lazy.random(), lazy.sample(range(50), 4)]
        assert drawn == [
            plain.randint(1, 6),
            plain.choice("ABCDEFGHIJ"),
            plain.random(),
            plain.sample(range(50), 4),
        ]


async def test_setup_known_only_at_the_start_is_stored_with_the_game(env):
    manager, store, clock, path = env
    record = await manager.open_lobby(1, 10, "race", "ann", {"target": 10})
    await manager.join(record.id, "bob")
    result = await manager.start_game(record.id, "ann", {"first_player": "bob"})
    assert result.session.setup == {"first_player": "bob"}
    assert (await manager.view(record.id, None))["players"][0] == "bob"
    await manager.close()
    await store.close()

    store2 = await Store.open(path)
    manager2 = SessionManager(store2, {"race": RaceGame()}, clock=clock)
    try:
        await manager2.start()
        restored = await manager2.session(record.id)
        assert restored.setup == {"first_player": "bob"}  # a replay deals the same game
        assert (await manager2.view(record.id, None))["players"][0] == "bob"
    finally:
        await manager2.close()
        await store2.close()


async def test_a_slow_action_is_applied_off_the_event_loop_which_serves_other_tables_meanwhile(
    env, monkeypatch
):
    """A game's slow actions (Top Stop judging every list) run in a worker thread: the loop answers the
    other sessions while they run, and the slow one is committed as any other."""
    manager, store, *_ = env
    slow, other = await started(manager), await started(manager, players=("cat", "dan"), channel=11)
    game = manager.games["race"]
    apply, ran_on, release = game.apply, {}, threading.Event()
    loop, checking = asyncio.get_running_loop(), asyncio.Event()

    def timed_apply(state, action):
        ran_on[action["do"]] = threading.get_ident()
        if action["do"] == "note":
            loop.call_soon_threadsafe(checking.set)
            release.wait(5)  # a long check
        return apply(state, action)

    monkeypatch.setattr(game, "apply", timed_apply)
    note = asyncio.create_task(manager.act(slow, "ann", {"do": "note", "text": "hi"}))
    await checking.wait()
    await manager.act(other, "cat", {"do": "roll"})  # served while the note's rules still run
    assert not note.done()
    release.set()
    result = await note
    assert ran_on["note"] != threading.get_ident() == ran_on["roll"]
    assert result.private_to("ann") == [{"type": "noted", "text": "hi"}]
    assert (await store.sessions.get(slow)).version == result.session.version


async def test_freshness_is_read_inside_the_engine(env):
    """The table layer asks for what its buttons carry; it never reads the state, secrets included."""
    manager, *_ = env
    lobby = await manager.open_lobby(1, 10, "race", "ann", {})
    await manager.join(lobby.id, "bob")
    with pytest.raises(WrongPhase):
        await manager.freshness(lobby.id)
    await manager.start_game(lobby.id, "ann")
    assert await manager.freshness(lobby.id) == {"turn": 0}
    await manager.act(lobby.id, "ann", {"do": "advance", "by": 2})
    assert await manager.freshness(lobby.id) == {"turn": 1}


class TellingRace(RaceGame):
    """The race, telling players things privately: the turn timer tells the player it skips; a roll tells the
    roller their own throw and the player two seats on that their turn comes after the next."""

    def apply(self, state, action):
        applied = super().apply(state, action)
        seats = state.players
        current = seats[state.turn % len(seats)]
        if action["do"] == "skip":
            applied.tell(current, {"type": "skipped_you"})
        elif action["do"] == "roll":
            applied.tell(current, {"type": "your_throw", "roll": action["roll"]})
            applied.tell(seats[(state.turn + 2) % len(seats)], {"type": "after_next"})
        return applied


@pytest.fixture
async def telling(database):
    store = await Store.open(database)
    manager = SessionManager(store, {"race": TellingRace()}, clock=Clock())
    await manager.start()
    yield manager, store
    await manager.close()
    await store.close()


async def stored_news(store, sid):
    rows = await store.db.fetch_all(
        "SELECT player, event, version FROM news WHERE session_id = ? ORDER BY id", (sid,)
    )
    return [(row[0], json.loads(row[1]), row[2]) for row in rows]


async def test_a_timers_private_event_for_an_idle_player_is_news_stored_with_the_timers_action(telling):
    manager, store = telling
    sid = await started(manager)
    result = await manager.fire_timer(sid, "turn:0")
    assert result.private == {"ann": [{"type": "skipped_you"}]} and result.news_for == ("ann",)
    assert await stored_news(store, sid) == [("ann", {"type": "skipped_you"}, result.session.version)]
    [logged] = await store.actions.for_session(sid)
    assert logged.player is None and logged.version + 1 == result.session.version


async def test_another_players_private_event_is_news_for_them_and_the_actors_own_is_not(telling):
    manager, store = telling
    sid = await started(manager, players=("ann", "bob", "cat"))
    result = await manager.act(sid, "ann", {"do": "roll"})
    assert set(result.private) == {"ann", "cat"} and result.news_for == ("cat",)
    assert await stored_news(store, sid) == [("cat", {"type": "after_next"}, result.session.version)]


async def test_news_are_written_in_the_actions_own_commit_or_not_at_all(telling, monkeypatch):
    manager, store = telling
    sid = await started(manager, players=("ann", "bob", "cat"))
    step_unit = Sessions.step_unit

    def failing_unit(*args, **kwargs):  # the action's unit fails after its news statements
        return [*step_unit(*args, **kwargs), Statement("INSERT INTO news (session_id) VALUES (NULL)", ())]

    monkeypatch.setattr(Sessions, "step_unit", staticmethod(failing_unit))
    with pytest.raises(sqlite3.IntegrityError):
        await manager.act(sid, "ann", {"do": "roll"})
    assert await stored_news(store, sid) == [] and await store.actions.for_session(sid) == []
    assert (await store.sessions.get(sid)).version == 0


async def test_the_action_that_ends_the_game_drops_its_news(telling):
    manager, store = telling
    sid = await started(manager, players=("ann", "bob", "cat"), options={"target": 1})
    await manager.fire_timer(sid, "turn:0")  # news for ann
    assert [player for player, _, _ in await stored_news(store, sid)] == ["ann"]
    result = await manager.act(sid, "bob", {"do": "roll"})  # bob reaches the target
    assert result.session.status == "finished" and result.news_for == ()
    assert await stored_news(store, sid) == []


async def test_a_slow_action_that_proves_quick_runs_on_the_loop_and_goes_back_to_a_thread_once_slow(
    env, monkeypatch
):
    """A thread costs a quick action more than it saves (the loop then waits for the interpreter lock at
    every system call): each slow action runs where its measured CPU time says it should."""
    manager, *_ = env
    monkeypatch.setattr("bot.engine.sessions.COST_WEIGHT", 1.0)  # the newest measure alone decides
    sid = await started(manager)
    game = manager.games["race"]
    apply, ran_on, busy = game.apply, [], {"seconds": 0.0}

    def measured_apply(state, action):
        ran_on.append(threading.get_ident())
        end = time.thread_time() + busy["seconds"]
        while time.thread_time() < end:  # CPU work, as a judging is
            pass
        return apply(state, action)

    monkeypatch.setattr(game, "apply", measured_apply)
    loop_thread = threading.get_ident()
    await manager.act(sid, "ann", {"do": "note", "text": "1"})  # never measured: a thread
    await manager.act(sid, "ann", {"do": "note", "text": "2"})  # measured quick: the loop
    busy["seconds"] = 0.01
    await manager.act(sid, "ann", {"do": "note", "text": "3"})  # still the loop; measured slow now
    await manager.act(sid, "ann", {"do": "note", "text": "4"})  # a thread again
    assert [thread == loop_thread for thread in ran_on] == [False, True, True, False]
