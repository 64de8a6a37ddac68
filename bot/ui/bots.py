"""The bot players' driver (docs/bots.md): after every applied action, every start and every restore, each bot
seat of the table looks at what it may see (`SessionManager.seen`: its view, its legal actions, its buttons),
asks the game's policy for a move, waits the move's delay times BOT_PACE, and sends the action through the
same path as a person's click (`SessionManager.act`: the same stamping, lock, refusals; then the table's own
paced redraw). One pending move per bot at a time; cancelled at unload and when the session ends.

The bot's random source comes from the seat's own seed and the state's version (`bot_rng`), never from the
session's seed: a choice can be reproduced from the seat alone. A refused move is logged, and the bot looks
again at the table's next change, never in a loop of its own.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from bot.engine.bots import BOT_PREFIX, LEVEL_NAMES, Level, Move, Policy, Seen, bot_rng
from bot.engine.errors import GameError, NoSuchSession
from bot.engine.game import Action
from bot.i18n import t

if TYPE_CHECKING:
    from bot.engine.sessions import ActResult, SessionManager
    from bot.store import SessionRecord

log = logging.getLogger(__name__)

# A policy runs on the event loop only while it stays cheap: below this average (seconds of its thread's CPU)
# and never once above HOLD_LIMIT; otherwise (and the first time) in a worker thread, where its thinking
# holds no other table back. A thread costs the loop more than a choice of a few microseconds does. The cost
# is learned per level and situation (what the seat may do: its legal actions' kinds and its buttons): a
# seat's many answers while it waits (nothing to do, at once) say nothing of its thinking on its turn, and a
# TopWords placement after them ran on the loop for 20–100 ms.
INLINE_BELOW = 0.001
HOLD_LIMIT = 0.005
COST_WEIGHT = 0.2
# A bot whose move is due within this many seconds counts as busy (tests wait for a quiet table).
BUSY_HORIZON = 2.0

Act = Callable[[int, str, Action], Awaitable["ActResult"]]

__all__ = ["LEVEL_NAMES", "BotDriver", "bot_name"]

# A bot's name: one of these (by its seat's number), marked as a bot, with its level in the table's language.
BOT_NAMES = ("Ada", "Alan", "Grace", "Kurt", "Emmy", "Blaise", "Hedy", "Niklaus", "Sofia")


def bot_name(seat: str, level: Level, lang: str) -> str:
    """ "🤖 Ada (hard)": the seat's name, marked as a bot, in `lang`."""
    number = int(seat.removeprefix(BOT_PREFIX))
    name = BOT_NAMES[(number - 1) % len(BOT_NAMES)]
    return t("ui.bot.name", lang, name=name, level=t(LEVEL_NAMES[level], lang))


@dataclass
class _Pending:
    """One bot seat's move under way: `changed` is set when the table moved on meanwhile (look again)."""

    task: asyncio.Task[None] | None = None
    changed: bool = field(default=False)
    due: float | None = None  # while it waits its delay: when it acts (the loop's clock)

    def busy(self, now: float) -> bool:
        """Thinking or acting, or about to: a bot that waits long (a slow pace) keeps no one waiting."""
        if self.task is None or self.task.done():
            return False
        return self.due is None or self.due - now <= BUSY_HORIZON


@dataclass
class _Cost:
    average: float
    most: float

    def cheap(self) -> bool:
        return self.average < INLINE_BELOW and self.most < HOLD_LIMIT


class BotDriver:
    """The bot seats of one game's tables."""

    def __init__(
        self,
        game: str,
        policy_of: Callable[[Level], Policy] | None,
        sessions: Callable[[], SessionManager],
        act: Act,
        pace: Callable[[], float],
    ) -> None:
        self.game = game
        self._policy_of = policy_of
        self._sessions = sessions
        self._act = act
        self._pace = pace
        self._policies: dict[Level, Policy] = {}
        # Each level's policy, built and warmed (its word data loaded) in a worker thread, once.
        self._ready: dict[Level, asyncio.Future[Policy]] = {}
        self._costs: dict[tuple[Level, frozenset[str]], _Cost] = {}
        self._pending: dict[tuple[int, str], _Pending] = {}
        self._closed = False

    @property
    def busy(self) -> bool:
        """A bot is thinking, waiting its delay or acting (tests wait for the table to be quiet)."""
        try:
            now = asyncio.get_running_loop().time()
        except RuntimeError:
            return False
        return any(pending.busy(now) for pending in self._pending.values())

    def pending(self, session_id: int) -> list[str]:
        """The bot seats of a session with a move under way."""
        return [seat for (sid, seat), p in self._pending.items() if sid == session_id and p.task is not None]

    def poke(self, record: SessionRecord) -> None:
        """The table changed (an action, the start, a restore): each bot seat looks at it, unless a move of
        its own is already under way (that one looks again before it acts)."""
        if self._closed or self._policy_of is None or not record.bots:
            return
        if not record.is_open:
            self.stop(record.id)
            return
        if record.status != "active":
            return
        for seat in record.bots:
            if seat not in record.players:
                continue
            key = (record.id, seat)
            pending = self._pending.get(key)
            if pending is not None and pending.task is not None and not pending.task.done():
                pending.changed = True
                continue
            pending = _Pending()
            pending.task = asyncio.create_task(self._play(record.id, seat, pending))
            pending.task.add_done_callback(partial(self._done, key, pending))
            self._pending[key] = pending

    def _done(self, key: tuple[int, str], pending: _Pending, _task: asyncio.Task[None]) -> None:
        if self._pending.get(key) is pending:
            del self._pending[key]

    def stop(self, session_id: int) -> None:
        """The session ended: its bots' moves under way are dropped."""
        for (sid, _), pending in list(self._pending.items()):
            if sid == session_id and pending.task is not None:
                pending.task.cancel()

    def close(self) -> None:
        """At unload: every move under way is dropped (a restart plays it again: the restore pokes)."""
        self._closed = True
        for pending in list(self._pending.values()):
            if pending.task is not None:
                pending.task.cancel()

    def policy(self, level: Level) -> Policy:
        policy = self._policies.get(level)
        if policy is None:
            assert self._policy_of is not None
            policy = self._policies[level] = self._policy_of(level)
        return policy

    def warm(self, level: Level) -> asyncio.Future[Policy]:
        """The level's policy, made ready off the loop: built, then its `warm()` (loading the word data its
        choices read: TopWords' lexicon takes seconds) in a worker thread, once. Called when a bot is seated
        and at the restore, so that data is ready by the bot's first move; its first choice awaits it."""
        ready = self._ready.get(level)
        if ready is None:
            ready = self._ready[level] = asyncio.ensure_future(asyncio.to_thread(self._warmed, level))
            ready.add_done_callback(partial(self._warm_done, level))
        return ready

    def warmed(self, level: Level) -> bool:
        """Whether the level's policy is ready or being made ready."""
        return level in self._ready

    def _warmed(self, level: Level) -> Policy:
        policy = self.policy(level)
        warm = getattr(policy, "warm", None)
        if callable(warm):
            warm()
        return policy

    def _warm_done(self, level: Level, ready: asyncio.Future[Policy]) -> None:
        if ready.cancelled() or ready.exception() is not None:
            if not ready.cancelled():
                log.error(
                    "the %s bots (%s) could not be made ready", self.game, level, exc_info=ready.exception()
                )
            if self._ready.get(level) is ready:
                del self._ready[level]  # the next one asks again

    async def _play(self, session_id: int, seat: str, pending: _Pending) -> None:
        loop = asyncio.get_running_loop()
        # What the bot is making up its mind on, and since when: a move's kind and the game's freshness. A
        # table that moves meanwhile makes it look again; where the rules call nothing stale (another
        # player's list saved, a STOP: the same round), the time it has spent on a move of the same kind
        # counts towards the new one's delay, so a busy table never keeps it waiting for ever. A new turn, or
        # a new display in Toppo, is a new decision with its whole delay.
        thinking: tuple[str, Any, float] | None = None
        try:
            while not self._closed:
                pending.changed = False
                looked = await self._sessions().seen(session_id, seat)
                if looked is None:
                    return
                version, seen = looked
                record = await self._sessions().session(session_id)
                spec = record.bots[seat]
                move = await self._choose(Level(spec["level"]), seen, bot_rng(int(spec["seed"]), version))
                if move is None:
                    if pending.changed:
                        thinking = None
                        continue
                    return
                try:
                    fresh = await self._sessions().freshness(session_id)
                except GameError:
                    return  # the game ended meanwhile
                about = (str(move.action.get("do")), fresh)
                if thinking is None or thinking[:2] != about:
                    thinking = (*about, loop.time())
                spent = loop.time() - thinking[2]
                wait = max(0.0, max(0.0, move.delay) * self._pace() - spent)
                pending.due = loop.time() + wait
                try:
                    await asyncio.sleep(wait)
                finally:
                    pending.due = None
                if not await self._still_legal(session_id, seat, version, move.action):
                    continue  # the table moved on and this move no longer stands: look again
                thinking = None
                try:
                    await self._act(session_id, seat, move.action)
                except GameError as error:
                    log.info(
                        "bot %s of session %d: %s refused (%s); it looks again at the next change",
                        seat,
                        session_id,
                        move.action.get("do"),
                        error.code,
                    )
                    if pending.changed:
                        continue
                    return
                # Its own move changed the table: it looks again (another move may follow).
        except NoSuchSession:
            return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot %s of session %d failed", seat, session_id)

    async def _choose(self, level: Level, seen: Seen, rng: Any) -> Move | None:
        policy = await asyncio.shield(self.warm(level))
        work = partial(_cpu_timed, partial(policy.choose, seen, rng))
        situation = (level, frozenset(str(action.get("do")) for action in seen.legal) | seen.offered)
        cost = self._costs.get(situation)
        if cost is not None and cost.cheap():
            move, took = work()
        else:
            move, took = await asyncio.to_thread(work)
        if cost is None:
            self._costs[situation] = _Cost(took, took)
        else:
            cost.average += COST_WEIGHT * (took - cost.average)
            cost.most = max(cost.most, took)
        return move

    async def _still_legal(self, session_id: int, seat: str, version: int, action: Action) -> bool:
        """Whether the move chosen at `version` still stands: the table has not moved, or the rules still
        offer that very action to the seat. The version first: a table that has not moved needs no new look
        (the rules' view and actions built again on the loop for nothing, at every move)."""
        record = await self._sessions().session(session_id)
        if record.version == version and record.status == "active" and seat in record.players:
            return True
        looked = await self._sessions().seen(session_id, seat)
        if looked is None:
            return False
        now, seen = looked
        return now == version or action in seen.legal


def _cpu_timed(work: Callable[[], Move | None]) -> tuple[Move | None, float]:
    started = time.thread_time()
    move = work()
    return move, time.thread_time() - started
