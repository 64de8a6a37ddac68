"""Bot seats in the session manager (docs/bots.md): seated by the host in the lobby with a seed of their own,
stored with the session, removed before the start; a game needs a person; a finished game with a bot is
recorded "with bots", rates nobody and moves no leaderboard place; /stats counts it per bot level."""

from __future__ import annotations

import inspect

import pytest

from bot.engine.bots import Policy, bot_rng, is_bot
from bot.engine.errors import BadAction, NotAPlayer
from bot.engine.sessions import SessionManager
from bot.games import GameInfo, every_game
from bot.games.skeleton import Skeleton
from bot.games.topwords import TopWords
from bot.store import Store

HOST, OTHER = "111111111111111111", "222222222222222222"


@pytest.fixture
async def env(database):
    store = await Store.open(database)
    manager = SessionManager(store, {"skeleton": Skeleton()})
    await manager.start()
    yield manager, store
    await manager.close()
    await store.close()


def named(seat: str) -> str:
    return f"🤖 {seat}"


async def lobby(manager: SessionManager, channel: int = 10) -> int:
    record = await manager.open_lobby(1, channel, "skeleton", HOST, {"target": 3}, "Host")
    return record.id


async def test_the_host_seats_bots_each_with_its_own_seed_and_removes_one_before_the_start(env):
    manager, store = env
    session = await lobby(manager)
    record, first = await manager.add_bot(session, HOST, "hard", named)
    record, second = await manager.add_bot(session, HOST, "easy", named)
    assert (first, second) == ("bot:1", "bot:2") and all(is_bot(seat) for seat in (first, second))
    assert record.players == [HOST, first, second] and record.names[first] == "🤖 bot:1"
    assert record.bots[first]["level"] == "hard" and record.bots[second]["level"] == "easy"
    seeds = {record.bots[first]["seed"], record.bots[second]["seed"], record.seed}
    assert len(seeds) == 3  # each seat's own, never the session's

    stored = await store.sessions.get(session)
    assert stored is not None and stored.bots == record.bots and stored.names[second] == "🤖 bot:2"

    record = await manager.remove_bot(session, HOST, first)
    assert record.players == [HOST, second] and list(record.bots) == [second]
    record, again = await manager.add_bot(session, HOST, "medium", named)
    assert again == "bot:1"  # the lowest free number
    stored = await store.sessions.get(session)
    assert stored is not None and stored.players == [HOST, second, again]


async def test_only_the_host_seats_bots_and_never_beyond_the_games_maximum(env):
    manager, _ = env
    session = await lobby(manager)
    await manager.join(session, OTHER, "Other")
    with pytest.raises(NotAPlayer):
        await manager.add_bot(session, OTHER, "easy", named)
    for _ in range(2):
        await manager.add_bot(session, HOST, "easy", named)
    with pytest.raises(BadAction) as full:
        await manager.add_bot(session, HOST, "easy", named)
    assert full.value.key == "engine.full"
    with pytest.raises(NotAPlayer):
        await manager.remove_bot(session, OTHER, "bot:1")
    with pytest.raises(BadAction):
        await manager.remove_bot(session, HOST, OTHER)  # a person is no bot to remove


async def test_a_bot_id_cannot_join_as_a_person(env):
    manager, _ = env
    session = await lobby(manager)
    with pytest.raises(NotAPlayer):
        await manager.join(session, "bot:5", "sneaky")


async def test_a_bot_sees_only_its_own_view_and_legal_actions(env):
    manager, _ = env
    session = await lobby(manager)
    _, seat = await manager.add_bot(session, HOST, "hard", named)
    (await manager.session(session)).setup = {"first_player": seat}
    await manager.start_game(session, HOST)
    looked = await manager.seen(session, seat)
    assert looked is not None
    version, seen = looked
    assert version == 0 and seen.seat == seat and seen.offered == frozenset({"draw"})
    assert [action["do"] for action in seen.legal] == ["draw", "leave"]
    assert seen.view["hand"] == [] and "deck" not in seen.view
    assert await manager.seen(session, "bot:9") is None


async def play_out(manager: SessionManager, session: int, seat: str) -> None:
    """Play the game to its end: everyone draws and plays its first card."""
    for _ in range(100):
        record = await manager.session(session)
        if not record.is_open:
            return
        for player in record.players:
            looked = await manager.seen(session, player)
            assert looked is not None
            _, seen = looked
            moves = [a for a in seen.legal if a["do"] in ("draw", "play")] or [
                a for a in seen.legal if a["do"] == "pass"
            ]
            if moves:
                await manager.act(session, player, moves[0])
                break


async def test_a_game_with_a_bot_is_recorded_with_bots_rates_nobody_and_moves_no_leaderboard_place(env):
    manager, store = env
    session = await lobby(manager)
    _, seat = await manager.add_bot(session, HOST, "hard", named)
    await manager.start_game(session, HOST)
    await play_out(manager, session, seat)
    assert (await manager.session(session)).status == "finished"

    rows = await store.db.fetch_all("SELECT user_id, with_bots FROM results WHERE session_id = ?", (session,))
    assert sorted(row["user_id"] for row in rows) == sorted([HOST, seat])
    assert all(row["with_bots"] == 1 for row in rows)
    assert await store.ratings.get(1, "skeleton", HOST) is None
    board = await store.leaderboards.board(1, "skeleton")
    assert board.rows == [] and board.entries == 0
    assert await store.stats.tallies(1, HOST) == []
    [against] = await store.stats.against_bots(1, HOST)
    assert (against.game, against.level, against.games) == ("skeleton", "hard", 1)
    [finished] = await store.history.finished(1)
    assert seat in finished.players and finished.names[seat] == named(seat)


async def test_a_game_of_people_alone_is_still_rated_and_ranked(env):
    manager, store = env
    session = await lobby(manager)
    await manager.join(session, OTHER, "Other")
    await manager.start_game(session, HOST)
    await play_out(manager, session, OTHER)
    assert await store.ratings.get(1, "skeleton", HOST) is not None
    assert (await store.leaderboards.board(1, "skeleton")).entries == 2
    assert await store.stats.against_bots(1, HOST) == []


def test_a_bots_random_source_comes_from_its_seat_and_the_version_alone():
    assert bot_rng(7, 3).random() == bot_rng(7, 3).random()
    assert bot_rng(7, 3).random() != bot_rng(7, 4).random()
    assert bot_rng(7, 3).random() != bot_rng(8, 3).random()


async def test_the_host_is_never_a_bot_seat_after_the_host_leaves_the_game(env):
    """The rules' host is the first seat still playing: a bot seated before the other person would be it;
    the table's host (who may `/end` it) is the first person still playing instead."""
    manager, _ = env
    session = await lobby(manager)
    _, seat = await manager.add_bot(session, HOST, "easy", named)
    await manager.join(session, OTHER, "Other")
    assert await manager.host(session) == HOST  # the lobby's
    await manager.start_game(session, HOST)
    assert await manager.host(session) == HOST
    await manager.act(session, HOST, {"do": "leave"})
    assert (await manager.view(session, None))["host"] == seat  # the rules' host
    assert await manager.host(session) == OTHER
    assert (await manager.session(session)).status == "active"  # a person still plays: the game goes on


async def test_when_the_last_person_leaves_a_table_with_bots_the_bots_leave_and_the_rules_end_it(env):
    manager, store = env
    session = await lobby(manager)
    await manager.add_bot(session, HOST, "easy", named)
    await manager.add_bot(session, HOST, "hard", named)
    await manager.join(session, OTHER, "Other")
    await manager.start_game(session, HOST)
    await manager.act(session, OTHER, {"do": "leave"})
    assert (await manager.session(session)).status == "active"  # the host still plays
    result = await manager.act(session, HOST, {"do": "leave"})
    # Two bots are enough for the rules to go on: they leave through the rules, the first one ends the game
    # as a table below its minimum (the last seat standing wins), and nobody is left waiting.
    assert result.session.status == "finished"
    assert [e["player"] for e in result.events if e["type"] == "left"] == [HOST, "bot:1"]
    [finished] = [e for e in result.events if e["type"] == "finished"]
    assert finished["winners"] == ["bot:2"] and set(finished["left"]) == {OTHER, HOST, "bot:1"}
    logged = await store.actions.for_session(session)
    assert [(entry.player, entry.action["do"]) for entry in logged][-2:] == [
        (HOST, "leave"),
        ("bot:1", "leave"),
    ]
    assert await manager.host(session) == HOST  # no person plays: the lobby's host, never a bot


async def test_a_table_whose_person_the_rules_send_away_ends_too(database):
    """Not only `/leave`: whatever makes the last person leave ends the table with bots, here TopWords' turn
    timer (a timer's action: three lost turns in a row and the player is asked to leave)."""
    store = await Store.open(database)
    manager = SessionManager(store, {"topwords": TopWords(None)})
    await manager.start()
    try:
        record = await manager.open_lobby(
            1, 10, "topwords", HOST, {"turn_seconds": 60, "check_words": False}, "Host"
        )
        for _ in range(2):
            await manager.add_bot(record.id, HOST, "easy", named)
        (await manager.session(record.id)).setup = {"first_player": HOST}
        await manager.start_game(record.id, HOST)
        told: list[str] = []
        for _ in range(3 * 3):  # nobody moves: every seat's turn runs out, the person's first
            record = await manager.session(record.id)
            if not record.is_open:
                break
            [key] = [key for key in record.timers if key.startswith("turn")]
            result = await manager.fire_timer(record.id, key)
            assert result is not None
            told += [event["type"] for event in result.events]
        assert "player_idle_left" in told
        record = await manager.session(record.id)
        assert record.status == "finished"
        assert (await manager.host(record.id)) == HOST
    finally:
        await manager.close()
        await store.close()


WITH_BOTS = [info for info in every_game() if info.bots is not None]


@pytest.mark.parametrize("info", WITH_BOTS, ids=lambda info: info.name)
async def test_in_every_game_with_bots_the_last_person_leaving_ends_the_table(database, info: GameInfo):
    """Each game's rules end it once its bots have left after the person: no bots-only table plays on."""
    game = info.make(None)
    options = {"check_words": False} if info.name in ("topwords", "topstop") else {}
    store = await Store.open(database)
    manager = SessionManager(store, {info.name: game})
    await manager.start()
    try:
        record = await manager.open_lobby(1, 10, info.name, HOST, options, "Host")
        for _ in range(min(2, game.max_players - 1)):
            await manager.add_bot(record.id, HOST, "easy", named)
        await manager.start_game(record.id, HOST)
        assert "left" in await manager.view(record.id, None)  # what tells who still plays
        result = await manager.act(record.id, HOST, {"do": "leave"})
        assert result.session.status == "finished", info.name
        assert not (await manager.session(record.id)).is_open
    finally:
        await manager.close()
        await store.close()


def test_a_policys_level_is_read_only_in_the_contract():
    assert isinstance(inspect.getattr_static(Policy, "level"), property)


async def test_the_host_cannot_leave_a_lobby_with_bots_so_a_lobby_always_has_its_person(env):
    manager, _ = env
    session = await lobby(manager)
    await manager.add_bot(session, HOST, "easy", named)
    with pytest.raises(BadAction) as refused:
        await manager.leave_lobby(session, HOST)
    assert refused.value.key == "engine.host_cannot_leave"
    record = await manager.session(session)
    assert record.host_id == HOST and record.people == [HOST]
    assert await manager.host(session) == HOST
