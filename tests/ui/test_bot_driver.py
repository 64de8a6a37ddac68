"""The bot players' driver (bot/ui/bots.py) on the real session manager and Skeleton's policies: bots play a
game through the manager's own path, a refused move is not tried again until the table changes, a move the
table has moved past is chosen again, a policy's thinking leaves the loop once it is slow, the driver stops
at close."""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import time
from typing import Any

import pytest

from bot.engine.bots import Level, Move, Seen, of_kind
from bot.engine.sessions import ActResult, SessionManager
from bot.games.skeleton import GAME, Skeleton
from bot.games.topstop import TopStop
from bot.games.topstop.bots import make_bot as make_topstop_bot
from bot.i18n import LANGUAGES
from bot.store import Store
from bot.ui import bots
from bot.ui.bots import BOT_NAMES, BotDriver, bot_name
from bot.words import WordService

HOST = "111111111111111111"
PACE = 0.001


@pytest.fixture
async def manager(database):
    store = await Store.open(database)
    manager = SessionManager(store, {"skeleton": Skeleton()})
    await manager.start()
    yield manager
    await manager.close()
    await store.close()


class Table:
    """A driver wired as the table layer wires it: its moves go through `manager.act`, and every applied
    action (the bots' and the person's) pokes it."""

    def __init__(self, manager: SessionManager, policy_of: Any = None) -> None:
        self.manager = manager
        self.acted: list[tuple[str, dict[str, Any]]] = []
        self.driver = BotDriver(
            "skeleton",
            policy_of or (lambda level: GAME.bots(level, None)),  # type: ignore[misc]
            lambda: manager,
            self.bot_act,
            lambda: PACE,
        )

    async def bot_act(self, session_id: int, seat: str, action: dict[str, Any]) -> ActResult:
        result = await self.manager.act(session_id, seat, action)
        self.acted.append((seat, action))
        self.driver.poke(result.session)
        return result

    async def person(self, session_id: int, action: dict[str, Any]) -> None:
        result = await self.manager.act(session_id, HOST, action)
        self.driver.poke(result.session)

    async def quiet(self, within: float = 5.0) -> None:
        deadline = time.monotonic() + within
        while self.driver.busy:
            assert time.monotonic() < deadline, "the bots never stopped"
            await asyncio.sleep(0.005)


async def game_with_bots(manager: SessionManager, *levels: str, first: str | None = None) -> int:
    record = await manager.open_lobby(1, 10, "skeleton", HOST, {"target": 8}, "Host")
    for level in levels:
        await manager.add_bot(record.id, HOST, level, lambda seat, lv=level: bot_name(seat, Level(lv), "en"))
    (await manager.session(record.id)).setup = {"first_player": first or HOST}
    await manager.start_game(record.id, HOST)
    return record.id


async def test_bots_play_through_the_managers_path_until_the_person_is_awaited(manager):
    table = Table(manager)
    session = await game_with_bots(manager, "easy", "hard", first="bot:1")
    table.driver.poke(await manager.session(session))
    for _ in range(60):
        await table.quiet()
        record = await manager.session(session)
        if not record.is_open:
            break
        looked = await manager.seen(session, HOST)
        assert looked is not None
        _, seen = looked
        # The bots have played their turns: the table awaits the person.
        assert seen.view["current"] == HOST
        moves = of_kind(seen.legal, "draw") or of_kind(seen.legal, "pass")
        await table.person(session, moves[0])
    assert not (await manager.session(session)).is_open
    logged = await manager.store.actions.for_session(session)
    bots = [entry for entry in logged if entry.player in ("bot:1", "bot:2")]
    assert bots and len(bots) == len(table.acted)  # every bot move is in the log like anyone's
    assert {entry.player for entry in bots} == {"bot:1", "bot:2"}


class Refused:
    """A policy that always asks for a card it does not hold (the rules refuse it)."""

    level = Level.EASY

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, seen: Seen, rng: random.Random) -> Move | None:
        self.calls += 1
        if not of_kind(seen.legal, "draw") and not of_kind(seen.legal, "pass"):
            return None
        return Move({"do": "play", "turn": seen.view["turn"], "card": "9z"}, 0.0)


async def test_a_refused_move_is_not_tried_again_until_the_table_changes(manager, caplog):
    caplog.set_level(logging.INFO, "bot.ui.bots")
    refused = Refused()
    table = Table(manager, lambda level: refused)
    session = await game_with_bots(manager, "easy", first="bot:1")
    table.driver.poke(await manager.session(session))
    await table.quiet()
    await asyncio.sleep(0.05)
    assert refused.calls == 1 and table.acted == [] and "refused" in caplog.text
    table.driver.poke(await manager.session(session))  # a change of the table: it looks again, once
    await table.quiet()
    assert refused.calls == 2


class Slow:
    """Draws after a delay, thinking for a while; records the thread it thought in."""

    level = Level.HARD

    def __init__(self, thinking: float, delay: float = 0.0) -> None:
        self.thinking, self.delay, self.threads, self.chosen = thinking, delay, [], []
        self.situations: list[frozenset[str]] = []  # what the seat might do at each choice

    def choose(self, seen: Seen, rng: random.Random) -> Move | None:
        self.threads.append(threading.get_ident())
        self.situations.append(frozenset(str(a.get("do")) for a in seen.legal) | seen.offered)
        until = time.thread_time() + self.thinking
        while time.thread_time() < until:
            pass
        moves = of_kind(seen.legal, "draw") or of_kind(seen.legal, "pass")
        if not moves:
            return None
        self.chosen.append(moves[0])
        return Move(moves[0], self.delay)


async def test_a_slow_policy_thinks_off_the_loop_and_a_cheap_one_on_it(manager):
    loop_thread = threading.get_ident()
    for thinking, inline in ((0.01, False), (0.0, True)):
        policy = Slow(thinking)
        table = Table(manager, lambda level, p=policy: p)
        session = await game_with_bots(manager, "hard", first="bot:1")
        for _ in range(3):  # the bot draws and passes; the person passes back
            table.driver.poke(await manager.session(session))
            await table.quiet()
            looked = await manager.seen(session, HOST)
            assert looked is not None
            await table.person(
                session, (of_kind(looked[1].legal, "draw") or of_kind(looked[1].legal, "pass"))[0]
            )
            await table.quiet()
        # The first choice in each situation always in a thread (its cost unknown), the later ones on the loop
        # only when cheap.
        firsts = {policy.situations.index(situation) for situation in policy.situations}
        assert all(policy.threads[index] != loop_thread for index in firsts)
        later = [thread for index, thread in enumerate(policy.threads) if index not in firsts]
        assert later and all((thread == loop_thread) is inline for thread in later)
        await manager.cancel(session)


class ThinksOnItsTurn(Slow):
    """Answers at once while it waits; thinks `thinking` seconds when it may draw or pass."""

    def choose(self, seen: Seen, rng: random.Random) -> Move | None:
        if not (of_kind(seen.legal, "draw") or of_kind(seen.legal, "pass")):
            self.threads.append(None)  # a waiting answer: nothing to think about
            return None
        return super().choose(seen, rng)


async def test_a_policy_cheap_while_it_waits_still_thinks_off_the_loop_on_its_turn(manager):
    # Its cost is learned per situation: many instant answers while the person plays say nothing of its turn.
    loop_thread = threading.get_ident()
    policy = ThinksOnItsTurn(0.01)
    table = Table(manager, lambda level: policy)
    session = await game_with_bots(manager, "hard", first=HOST)
    for _ in range(5):  # the person's turn: the bot looks and waits
        table.driver.poke(await manager.session(session))
        await table.quiet()
    assert policy.threads == [None] * 5
    for kind in ("draw", "pass"):  # the person's turn ends: the bot's, where it thinks
        looked = await manager.seen(session, HOST)
        assert looked is not None
        await table.person(session, of_kind(looked[1].legal, kind)[0])
        await table.quiet()
    thought = [thread for thread in policy.threads if thread is not None]
    assert thought and loop_thread not in thought
    await manager.cancel(session)


async def test_a_move_on_a_table_that_has_not_moved_needs_no_second_look(manager, monkeypatch):
    # Each look builds the seat's view and actions on the loop: one per choice, none again before the move
    # when the version has not changed meanwhile.
    looks = []
    seen = manager.seen

    async def counted(session_id: int, seat: str) -> Any:
        looks.append(seat)
        return await seen(session_id, seat)

    monkeypatch.setattr(manager, "seen", counted)
    policy = Slow(0.0, delay=1.0)
    table = Table(manager, lambda level: policy)
    session = await game_with_bots(manager, "hard", first="bot:1")
    table.driver.poke(await manager.session(session))
    await table.quiet()
    assert len(table.acted) >= 1 and len(looks) == len(policy.threads)
    await manager.cancel(session)


async def test_a_move_the_table_moved_past_is_chosen_again(manager):
    policy = Slow(0.0, delay=0.2 / PACE)  # waits 0.2 s before it acts
    table = Table(manager, lambda level: policy)
    session = await game_with_bots(manager, "hard", first="bot:1")
    table.driver.poke(await manager.session(session))
    await asyncio.sleep(0.05)
    assert table.driver.pending(session) == ["bot:1"]
    # Meanwhile the turn's timer fires: the bot's Draw of turn 1 no longer stands.
    record = await manager.session(session)
    [(key, timer)] = list(record.timers.items())
    result = await manager.fire_timer(session, key, timer["at"])
    assert result is not None
    table.driver.poke(result.session)
    await table.quiet()
    # It looked again (the person's turn now: nothing to do) and never sent the Draw of turn 1.
    assert policy.chosen[0]["turn"] == 1 and len(policy.threads) == 2 and table.acted == []


async def test_close_drops_every_pending_move(manager):
    policy = Slow(0.0, delay=10 / PACE)
    table = Table(manager, lambda level: policy)
    session = await game_with_bots(manager, "hard", first="bot:1")
    table.driver.poke(await manager.session(session))
    await asyncio.sleep(0.05)
    # Waiting ten seconds: pending, though not busy (a long wait keeps no test waiting).
    assert table.driver.pending(session) == ["bot:1"] and not table.driver.busy
    table.driver.close()
    await asyncio.sleep(0)
    await asyncio.sleep(0.01)
    assert table.driver.pending(session) == [] and table.acted == []


def test_a_bots_name_is_marked_localised_and_never_a_mention():
    for lang in LANGUAGES:
        name = bot_name("bot:2", Level.HARD, lang)
        assert name.startswith("🤖 ") and BOT_NAMES[1] in name and "<@" not in name
    assert {bot_name("bot:1", Level.EASY, lang) for lang in LANGUAGES} == {
        "🤖 Ada (easy)",
        "🤖 Ada (facile)",
        "🤖 Ada (leicht)",
    }


class Warming:
    """A policy whose word data loads in `warm()`: it holds its thread until the loop has run on meanwhile."""

    level = Level.EASY

    def __init__(self, loop_ran: threading.Event) -> None:
        self.loop_ran = loop_ran
        self.warmed_in: list[int] = []
        self.released = False
        self.chosen_warm: list[bool] = []

    def warm(self) -> None:
        self.warmed_in.append(threading.get_ident())
        # On the event loop this would wait for ever: the loop could not run the probe that sets it.
        self.released = self.loop_ran.wait(timeout=30)

    def choose(self, seen: Seen, rng: random.Random) -> Move | None:
        self.chosen_warm.append(bool(self.warmed_in))
        return None


async def test_a_policy_warms_its_data_once_in_a_worker_thread_while_the_loop_runs_on(manager):
    loop_thread = threading.get_ident()
    loop_ran = threading.Event()
    made: list[Warming] = []

    def make(level: Level) -> Warming:
        made.append(Warming(loop_ran))
        return made[-1]

    table = Table(manager, make)
    warming = table.driver.warm(Level.EASY)  # as when a bot is seated
    assert table.driver.warm(Level.EASY) is warming  # once per level
    session = await game_with_bots(manager, "easy", first="bot:1")
    table.driver.poke(await manager.session(session))  # its first choice awaits the warm-up
    for _ in range(3):  # the loop runs on while the data loads: a probe's ticks
        await asyncio.sleep(0)
    loop_ran.set()
    await warming
    await table.quiet()
    [policy] = made
    assert policy.released and policy.warmed_in and policy.warmed_in[0] != loop_thread
    assert len(policy.warmed_in) == 1 and policy.chosen_warm == [True]
    await manager.cancel(session)


class Writing:
    """Top Stop's hard bot, its every move made after `delay` (game) seconds."""

    level = Level.HARD

    def __init__(self, words: Any, delay: float) -> None:
        self.policy, self.delay = make_topstop_bot(Level.HARD, words), delay

    def choose(self, seen: Seen, rng: random.Random) -> Move | None:
        move = self.policy.choose(seen, rng)
        return None if move is None else Move(move.action, self.delay)


async def test_a_table_moving_without_staling_the_move_keeps_the_time_already_spent_on_it(
    database, monkeypatch
):
    """Another player's list saved while the bot waits to save its own: once its wait is over the bot looks
    again (the table moved), and as what the rules call fresh has not changed, the time it has spent counts:
    it saves at once instead of waiting its whole delay again (each list saved at a busy table put its own
    off by another delay)."""
    waits: list[float] = []  # each wait the driver begins, in seconds

    class Recorded(bots._Pending):
        def __setattr__(self, name: str, value: Any) -> None:
            if name == "due" and value is not None:
                waits.append(value - asyncio.get_running_loop().time())
            super().__setattr__(name, value)

    monkeypatch.setattr(bots, "_Pending", Recorded)
    words = WordService()
    store = await Store.open(database)
    manager = SessionManager(store, {"topstop": TopStop(words)})
    await manager.start()
    try:
        record = await manager.open_lobby(1, 10, "topstop", HOST, {"language": "en"}, "Host")
        await manager.add_bot(record.id, HOST, "hard", lambda seat: bot_name(seat, Level.HARD, "en"))
        (await manager.session(record.id)).setup = {"first_player": HOST}
        await manager.start_game(record.id, HOST)
        delay = 0.3
        table = Table(manager, lambda level: Writing(words, delay=delay / PACE))
        result = await manager.act(record.id, HOST, {"do": "spin", "letter": "B"})
        table.driver.poke(result.session)
        fresh = await manager.freshness(record.id)
        mine = {"do": "submit", "words": ["bake", "bind", "blend", "boil", "brew"], **fresh}
        result = await manager.act(record.id, HOST, mine)  # while the bot waits
        assert await manager.freshness(record.id) == fresh  # nothing the bot chose is stale
        table.driver.poke(result.session)
        await table.quiet()
        assert table.acted and table.acted[0][1]["do"] == "submit"  # its list (a chunk at a time)
        first, again = waits[:2]  # its first chunk: chosen, then chosen again once the table had moved
        assert first == pytest.approx(delay, abs=0.05) and again < delay / 3
        table.driver.close()
    finally:
        await manager.close()
        await store.close()
