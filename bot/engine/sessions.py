"""The session manager: lobbies, actions applied under a per-session lock, persistence, timers, restore."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.engine.errors import (
    BadAction,
    ChannelBusy,
    GameError,
    GameOver,
    NoSuchSession,
    NotAPlayer,
    WrongPhase,
)
from bot.engine.game import Action, Applied, Event, Game, Outcome, Timer, step
from bot.store import ActionRecord, ChannelTaken, ResultRow, SessionRecord, Store, UsedWordRecord

log = logging.getLogger(__name__)

# Timer actions the manager handles itself rather than the game.
LOBBY_EXPIRE = "lobby_expire"

EventListener = Callable[[SessionRecord, list[Event]], Awaitable[None]]


@dataclass
class ActResult:
    """What an action did: the session after it, its events, and whether it was a repeat of a logged one."""

    session: SessionRecord
    events: list[Event]  # public: for the table
    duplicate: bool = False
    private: dict[str, list[Event]] = field(default_factory=dict)  # per player: only for their own reply

    def private_to(self, player: str) -> list[Event]:
        return self.private.get(player, [])


@dataclass
class _Loaded:
    record: SessionRecord
    state: Any = None
    last_used: float = field(default_factory=time.monotonic)


class SessionManager:
    """Create, act on, view and cancel game sessions; the store is the truth, memory only a cache."""

    def __init__(
        self,
        store: Store,
        games: Mapping[str, Game],
        *,
        clock: Callable[[], float] = time.time,
        lobby_seconds: float = 15 * 60,
        idle_seconds: float = 10 * 60,
    ) -> None:
        self.store = store
        self.games = dict(games)
        self.clock = clock
        self.lobby_seconds = lobby_seconds
        self.idle_seconds = idle_seconds
        self.listeners: list[EventListener] = []
        self._loaded: dict[int, _Loaded] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._timer_tasks: dict[tuple[int, str], asyncio.Task[None]] = {}
        self._closing = False

    # -- life cycle -------------------------------------------------------------------------------

    async def start(self) -> int:
        """Re-arm the timers of every open session (a restart loses nothing); returns how many sessions."""
        records = await self.store.sessions.all_open()
        for record in records:
            self._arm_timers(record)
        log.info("restored %d open session(s)", len(records))
        return len(records)

    async def close(self) -> None:
        """Stop every timer and wait for actions under way to finish their writes."""
        self._closing = True
        tasks = list(self._timer_tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._timer_tasks.clear()
        for lock in list(self._locks.values()):
            async with lock:
                pass

    def evict_idle(self) -> int:
        """Drop sessions unused for a while from memory; they come back from the store on demand."""
        cutoff = time.monotonic() - self.idle_seconds
        idle = [sid for sid, loaded in self._loaded.items() if loaded.last_used < cutoff]
        for sid in idle:
            lock = self._locks.get(sid)
            if lock is None or not lock.locked():
                del self._loaded[sid]
                # No await between this check and the deletion, so nobody holds or awaits this lock.
                self._locks.pop(sid, None)
        return len(idle)

    @property
    def loaded_sessions(self) -> int:
        return len(self._loaded)

    # -- lobby ------------------------------------------------------------------------------------

    async def open_lobby(
        self,
        guild_id: int,
        channel_id: int,
        game_name: str,
        host_id: str,
        options: Mapping[str, Any],
        host_name: str | None = None,
    ) -> SessionRecord:
        """A new lobby in the channel with the host seated; refused when a game is already open there."""
        game = self._game(game_name)
        # Bad options are refused now, not when the host presses Start.
        game.validate_options(dict(options))
        now = self.clock()
        record = SessionRecord(
            id=0,
            guild_id=guild_id,
            channel_id=channel_id,
            game=game_name,
            status="lobby",
            host_id=host_id,
            players=[host_id],
            options=dict(options),
            seed=random.SystemRandom().randrange(2**31),
            timers={"lobby": {"at": now + self.lobby_seconds, "action": {"do": LOBBY_EXPIRE}}},
            created_at=now,
            updated_at=now,
            names={host_id: host_name or host_id},
        )
        try:
            async with self.store.transaction() as tx:
                record.id = await self.store.sessions.create(tx, record)
        except ChannelTaken as exc:
            raise ChannelBusy("A game is already open in this channel: finish or end it first.") from exc
        self._loaded[record.id] = _Loaded(record)
        self._arm_timers(record)
        return record

    async def join(self, session_id: int, user_id: str, name: str | None = None) -> SessionRecord:
        async with self._lock(session_id):
            loaded = await self._load(session_id)
            record = loaded.record
            self._require_lobby(record)
            if user_id in record.players:
                raise BadAction("You are already in this game.")
            if len(record.players) >= self._game(record.game).max_players:
                raise BadAction("This game is full.")
            record.players = [*record.players, user_id]
            record.names = {**record.names, user_id: name or user_id}
            await self._save(record)
            return record

    async def leave_lobby(self, session_id: int, user_id: str) -> SessionRecord:
        async with self._lock(session_id):
            record = (await self._load(session_id)).record
            self._require_lobby(record)
            if user_id not in record.players:
                raise NotAPlayer("You are not in this game.")
            if user_id == record.host_id:
                raise BadAction("The host cannot leave the lobby; press Cancel to close it.")
            record.players = [p for p in record.players if p != user_id]
            await self._save(record)
            return record

    async def start_game(self, session_id: int, user_id: str) -> ActResult:
        """The host starts the game: the rules deal the initial state from the session's seed."""
        async with self._lock(session_id):
            loaded = await self._load(session_id)
            record = loaded.record
            self._require_lobby(record)
            if user_id != record.host_id:
                raise NotAPlayer("Only the host can start the game.")
            game = self._game(record.game)
            if len(record.players) < game.min_players:
                raise BadAction(f"At least {game.min_players} players are needed to start.")
            state = game.new_game(record.options, record.players, record.setup, random.Random(record.seed))
            record.status = "active"
            record.snapshot = game.dump(state)
            record.timers = self._merge_timers({}, game.timers(state))
            events: list[Event] = [{"type": "started", "players": list(record.players)}]
            await self._save(record)
            loaded.state = state
            self._arm_timers(record)
            return ActResult(record, events)

    async def cancel(self, session_id: int, reason: str = "cancelled") -> SessionRecord:
        """Close a lobby or stop a game without a result (the caller checks who may)."""
        async with self._lock(session_id):
            record = (await self._load(session_id)).record
            if not record.is_open:
                raise GameOver("This game is already over.")
            record.status = "cancelled"
            record.timers = {}
            await self._save(record)
            self._disarm_timers(record.id)
            self._loaded.pop(session_id, None)
            log.info("session %d %s", session_id, reason)
            return record

    # -- play -------------------------------------------------------------------------------------

    async def act(
        self,
        session_id: int,
        player: str | None,
        action: Action,
        *,
        interaction_id: str | None = None,
    ) -> ActResult:
        """Apply one action: lock, check, apply, persist in one transaction, then re-arm timers."""
        async with self._lock(session_id):
            return await self._act_locked(session_id, player, action, interaction_id)

    async def _act_locked(
        self,
        session_id: int,
        player: str | None,
        action: Action,
        interaction_id: str | None,
    ) -> ActResult:
        loaded = await self._load(session_id)
        record = loaded.record
        if interaction_id is not None:
            logged = await self.store.actions.by_interaction(session_id, interaction_id)
            if logged is not None:
                public, private = _split_events(logged.events)
                return ActResult(record, public, duplicate=True, private=private)
        if record.status == "lobby":
            raise WrongPhase("The game has not started yet.")
        if not record.is_open:
            raise GameOver("This game is over.")
        if player is not None and player not in record.players:
            raise NotAPlayer("You are not playing in this game.")
        game = self._game(record.game)
        # The actor is who the interaction says, never what the action claims.
        action = {key: value for key, value in action.items() if key != "player"}
        if player is not None:
            action["player"] = player
        try:
            complete, applied = step(game, loaded.state, record.seed, record.version, action)
        except GameError as error:
            # The rules speak of players by id; the people reading the message know them by name.
            error.message = _with_names(error.message, record)
            german = getattr(error, "message_de", None)  # games with texts of their own (TopWords)
            if isinstance(german, str):
                error.message_de = _with_names(german, record)  # type: ignore[attr-defined]
            raise
        try:
            return await self._persist(loaded, session_id, player, interaction_id, complete, applied)
        except BaseException:
            # The write failed (or was cancelled) midway: the record in memory may be ahead of the store,
            # so forget it; the next action loads the state the store really holds.
            self._loaded.pop(session_id, None)
            raise

    async def _persist(
        self,
        loaded: _Loaded,
        session_id: int,
        player: str | None,
        interaction_id: str | None,
        complete: Action,
        applied: Applied,
    ) -> ActResult:
        record = loaded.record
        game = self._game(record.game)
        outcome = game.outcome(applied.state)
        now = self.clock()
        record.snapshot = game.dump(applied.state)
        record.timers = {} if outcome else self._merge_timers(record.timers, game.timers(applied.state))
        if outcome is not None:
            record.status = "finished"
            applied.events.append({"type": "finished", "winners": outcome.winners, "scores": outcome.scores})
        async with self.store.transaction() as tx:
            await self.store.actions.append(
                tx,
                ActionRecord(
                    session_id, record.version, interaction_id, player, complete, _log_events(applied), now
                ),
            )
            if applied.used_words:
                await self.store.used_words.add(
                    tx,
                    session_id,
                    [UsedWordRecord(w.round, w.player, w.word, w.lemma_key) for w in applied.used_words],
                )
            record.version += 1
            record.updated_at = now
            await self.store.sessions.save(tx, record)
            if outcome is not None:
                await self.store.results.record(
                    tx, session_id, record.guild_id, record.game, _result_rows(outcome), now
                )
        loaded.state = applied.state
        loaded.last_used = time.monotonic()
        self._arm_timers(record)
        return ActResult(record, applied.events, private=applied.private)

    async def session(self, session_id: int) -> SessionRecord:
        return (await self._load(session_id)).record

    async def state(self, session_id: int) -> Any:
        """The full game state (secrets included): for the rules' own use, never for display."""
        return (await self._load(session_id)).state

    async def view(self, session_id: int, player: str | None) -> dict[str, Any]:
        """What `player` may see of the game (None: a spectator)."""
        loaded = await self._load(session_id)
        if loaded.state is None:
            raise WrongPhase("The game has not started yet.")
        return self._game(loaded.record.game).view_for(loaded.state, player)

    async def open_in_channel(self, channel_id: int) -> SessionRecord | None:
        return await self.store.sessions.open_in_channel(channel_id)

    async def set_message(self, session_id: int, message_id: int) -> None:
        """Remember the table message so that it can be edited after a restart."""
        async with self._lock(session_id):
            record = (await self._load(session_id)).record
            record.message_id = message_id
            await self._save(record)

    def deadline(self, record: SessionRecord, key_prefix: str) -> float | None:
        """The earliest deadline among the session's timers whose key starts with the prefix."""
        times = [t["at"] for key, t in record.timers.items() if key.startswith(key_prefix)]
        return min(times) if times else None

    # -- internals --------------------------------------------------------------------------------

    def _game(self, name: str) -> Game:
        try:
            return self.games[name]
        except KeyError:
            raise BadAction(f"Unknown game {name!r}.") from None

    def _lock(self, session_id: int) -> asyncio.Lock:
        return self._locks.setdefault(session_id, asyncio.Lock())

    @staticmethod
    def _require_lobby(record: SessionRecord) -> None:
        if record.status != "lobby":
            raise WrongPhase(
                "This lobby is closed." if not record.is_open else "The game has already started."
            )

    async def _load(self, session_id: int) -> _Loaded:
        loaded = self._loaded.get(session_id)
        if loaded is None:
            record = await self.store.sessions.get(session_id)
            if record is None:
                raise NoSuchSession("This game no longer exists.")
            loaded = _Loaded(record)
            if record.snapshot is not None and record.game in self.games:
                loaded.state = self.games[record.game].load(record.snapshot)
            if record.is_open:
                self._loaded[session_id] = loaded
        loaded.last_used = time.monotonic()
        return loaded

    async def _save(self, record: SessionRecord) -> None:
        record.updated_at = self.clock()
        async with self.store.transaction() as tx:
            await self.store.sessions.save(tx, record)

    def _merge_timers(self, current: dict[str, Any], wanted: list[Timer]) -> dict[str, Any]:
        """Keys that stay keep their first deadline; new keys start now; vanished keys are dropped."""
        now = self.clock()
        merged = {}
        for timer in wanted:
            kept = current.get(timer.key)
            if kept is not None and kept["action"] == timer.action:
                merged[timer.key] = kept
            else:
                merged[timer.key] = {"at": now + timer.seconds, "action": timer.action}
        return merged

    def _arm_timers(self, record: SessionRecord) -> None:
        self._disarm_timers(record.id)
        if self._closing:
            return
        for key, timer in record.timers.items():
            task = asyncio.create_task(self._run_timer(record.id, key, timer["at"]))
            self._timer_tasks[(record.id, key)] = task

    def _disarm_timers(self, session_id: int) -> None:
        current = asyncio.current_task()
        for key in [k for k in self._timer_tasks if k[0] == session_id]:
            task = self._timer_tasks.pop(key)
            if task is not current:
                task.cancel()

    async def _run_timer(self, session_id: int, key: str, at: float) -> None:
        await asyncio.sleep(max(0.0, at - self.clock()))
        try:
            await self.fire_timer(session_id, key, at)
        except Exception:
            log.exception("timer %s of session %d failed", key, session_id)

    async def fire_timer(self, session_id: int, key: str, at: float | None = None) -> ActResult | None:
        """Apply a due timer's action, unless the state moved on and the timer is gone or was re-set."""
        async with self._lock(session_id):
            record = (await self._load(session_id)).record
            timer = record.timers.get(key)
            if not record.is_open or timer is None or (at is not None and timer["at"] != at):
                return None
            self._timer_tasks.pop((session_id, key), None)
            if timer["action"]["do"] == LOBBY_EXPIRE:
                record.status = "cancelled"
                record.timers = {}
                await self._save(record)
                self._loaded.pop(session_id, None)
                result = ActResult(record, [{"type": "lobby_expired"}])
            else:
                try:
                    result = await self._act_locked(session_id, None, timer["action"], None)
                except Exception:
                    # A timer the rules refuse must not fire again and again. Reloaded: a failed write
                    # leaves the store, not the memory, as the truth.
                    record = (await self._load(session_id)).record
                    record.timers.pop(key, None)
                    await self._save(record)
                    raise
        await self._notify(result)
        return result

    async def _notify(self, result: ActResult) -> None:
        for listener in self.listeners:
            try:
                await listener(result.session, result.events)
            except Exception:
                log.exception("event listener failed for session %d", result.session.id)


def _with_names(message: str, record: SessionRecord) -> str:
    for player in sorted(record.players, key=len, reverse=True):
        name = record.names.get(player)
        if name and name != player:
            message = message.replace(player, name)
    return message


def _log_events(applied: Applied) -> list[Event]:
    """The log keeps private events too (marked with their player), so a repeated interaction gets them."""
    private = [{**event, "private_to": player} for player, events in applied.private.items() for event in events]
    return [*applied.events, *private]


def _split_events(logged: list[Event]) -> tuple[list[Event], dict[str, list[Event]]]:
    public = [event for event in logged if "private_to" not in event]
    private: dict[str, list[Event]] = {}
    for event in logged:
        if "private_to" in event:
            player = event["private_to"]
            private.setdefault(player, []).append({k: v for k, v in event.items() if k != "private_to"})
    return public, private


def _result_rows(outcome: Outcome) -> list[ResultRow]:
    """Competition ranking (1, 2, 2, 4) by final score."""
    ordered = sorted(outcome.scores.items(), key=lambda item: -item[1])
    rows = []
    for user_id, score in ordered:
        rank = 1 + sum(1 for _, other in ordered if other > score)
        rows.append(ResultRow(user_id, score, rank, user_id in outcome.winners))
    return rows
