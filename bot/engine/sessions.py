"""The session manager: lobbies, actions applied under a per-session lock, persistence, timers, restore."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import sqlite3
import sys
import time
from array import array
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from bot.engine.bots import Seen, bot_id, is_bot
from bot.engine.errors import (
    BadAction,
    ChannelBusy,
    GameError,
    GameOver,
    NoSuchSession,
    NotAPlayer,
    NotServedHere,
    StaleAction,
    WrongPhase,
)
from bot.engine.game import (
    JSON,
    RECEIVED_AT,
    STALE_MESSAGE,
    Action,
    Applied,
    Event,
    Game,
    Outcome,
    Timer,
    live_action,
    new_seed,
    state_json,
    step,
)
from bot.engine.timers import TimerWheel
from bot.i18n import N_
from bot.monitor import YoungCollections
from bot.ratings import Match, finishing_unit
from bot.store import ActionRecord, ChannelTaken, ResultRow, SessionRecord, Shards, Store, UsedWordRecord
from bot.store.database import Statement, Unit
from bot.store.repositories import ServerWords, Sessions, StoredSession, encode

log = logging.getLogger(__name__)

T = TypeVar("T")

# Timer actions the manager handles itself rather than the game.
LOBBY_EXPIRE = "lobby_expire"

# The snapshot is written with an action once the actions logged since the last one take as many bytes as
# it does (or the game ends). So what an action costs to persist does not grow with the game, and loading
# replays at most a snapshot's worth of log. (Writing one after each slow action as well made a round's
# judging pay for a whole snapshot: 3.7 times the encoding per action at round 20 as at round 1.)
SNAPSHOT_LOG_SHARE = 1.0
MOST_ACTIONS_BETWEEN_SNAPSHOTS = 1_000
# A repeated interaction (the same one delivered twice) is recognised from memory within this window: past
# it, Discord no longer takes an answer to it. Each session remembers the last RECENT_KEPT interactions it
# applied since it was loaded (by hash: see _Live); a miss is read from the log only when the interaction
# may be older than those (below).
REPEAT_WINDOW_SECONDS = 15 * 60
RECENT_KEPT = 16
# Discord's ids carry the moment they were made (a snowflake: milliseconds since 2015 in the high bits). An
# interaction made after the newest one let go was applied, if at all, after it, so memory holds it. The
# margin covers a difference between Discord's clock and ours.
DISCORD_EPOCH_MS = 1_420_070_400_000
CLOCK_MARGIN_SECONDS = 10.0
# A game's slow action runs in a worker thread only while it is slow. Top Stop's judging takes 0.5–1.1 ms
# with the word tables: in a thread, that cost more than inline, since every system call of the loop (each
# write to the writer process) then waited for the interpreter lock, about a millisecond each under load.
# What each slow action takes (its thread's CPU time, not the waits) is followed as a running average.
INLINE_BELOW_SECONDS = 0.003
COST_WEIGHT = 0.2  # of the newest measure in the running average


@dataclass
class ActResult:
    """What an action did: the session after it, its events, and whether it was a repeat of a logged one."""

    session: SessionRecord
    events: list[Event]  # public: for the table
    duplicate: bool = False
    private: dict[str, list[Event]] = field(default_factory=dict)  # per player: only for their own reply
    # The players whose private events became news (stored with the action): all they were told but the actor.
    news_for: tuple[str, ...] = ()

    def private_to(self, player: str) -> list[Event]:
        return self.private.get(player, [])


# Told the whole result of an action nobody clicked (a timer, an unreadable session closed): its public
# events for the table, its private ones so that the players they are addressed to can be told.
ResultListener = Callable[[ActResult], Awaitable[None]]


@dataclass(slots=True)
class _Live:
    """A session in memory: its record (without the snapshot: the state is the one copy) and its state."""

    record: SessionRecord
    state: Any
    last_used: float
    snapshot_bytes: int = 0  # the size of the stored snapshot
    logged_bytes: int = 0  # of the actions logged since it
    logged_actions: int = 0
    # Interactions applied lately, to answer a repeat without reading the log: each id's hash and when it
    # was applied, oldest first, in two arrays (400 bytes for 16, where a dict of the ids took 1.9 KB). A
    # hash shared by two ids only sends the second to the log, which says whether it was applied.
    recent_ids: array[int] | None = None
    recent_at: array[float] | None = None
    recent_let_go: float = 0.0  # when the newest interaction dropped to keep the arrays short was applied

    def snapshot_written(self, size: int) -> None:
        self.snapshot_bytes, self.logged_bytes, self.logged_actions = size, 0, 0

    def remember(self, interaction_id: str, at: float) -> None:
        ids, times = self.recent_ids, self.recent_at
        if ids is None or times is None:
            ids, times = self.recent_ids, self.recent_at = array("q"), array("d")
        ids.append(hash(interaction_id))
        times.append(at)
        if len(ids) > RECENT_KEPT:
            del ids[0]
            self.recent_let_go = max(self.recent_let_go, times.pop(0))

    def may_have_applied(self, interaction_id: str | None, now: float) -> bool:
        """Whether this interaction could be one already applied (then the log says)."""
        if interaction_id is None:
            return False
        if self.recent_ids is not None and hash(interaction_id) in self.recent_ids:
            return True
        if self.recent_let_go < now - REPEAT_WINDOW_SECONDS:
            return False  # every interaction of the window is in memory
        made = _made_at(interaction_id)
        return made is None or made < self.recent_let_go + CLOCK_MARGIN_SECONDS


@dataclass(slots=True)
class _Lock:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0  # holders and waiters: the lock is dropped when none is left


class SessionManager:
    """Create, act on, view and cancel game sessions; the store is the truth, memory only a cache.

    Every read or write of a session's cache entry that may await happens under the session's lock, and
    memory changes only after the store committed, in one step without an await: so a reader can never
    put an older copy in the cache, and nothing can write an older snapshot over a newer one.
    """

    def __init__(
        self,
        store: Store,
        games: Mapping[str, Game],
        *,
        clock: Callable[[], float] = time.time,
        lobby_seconds: float = 15 * 60,
        idle_seconds: float = 10 * 60,
        max_games_per_guild: int | None = None,
        shards: Shards | None = None,
    ) -> None:
        self.store = store
        # The guilds this process serves: only their sessions are restored, loaded or acted on.
        self.shards = shards or Shards()
        self.games = dict(games)
        self.clock = clock
        self.lobby_seconds = lobby_seconds
        self.max_games_per_guild = max_games_per_guild
        self.idle_seconds = idle_seconds
        self.listeners: list[ResultListener] = []
        self._live: dict[int, _Live] = {}
        self._locks: dict[int, _Lock] = {}
        self.timers = TimerWheel(clock, self._timer_due)
        self._firing: set[asyncio.Task[None]] = set()
        self._slow_costs: dict[tuple[str, str], float] = {}  # (game, action) → seconds of CPU, averaged
        self._closing = False
        self._collections = YoungCollections()

    # -- life cycle -------------------------------------------------------------------------------

    async def start(self) -> int:
        """Arm every stored deadline of the guilds of this process's shards (a restart loses nothing);
        sessions load when first used.

        Returns how many of those sessions are open."""
        for session_id, key, at in await self.store.sessions.all_deadlines(self.shards):
            self.timers.arm(session_id, key, at)
        count = await self.store.sessions.count_open(self.shards)
        log.info(
            "restored %d open session(s), %d deadline(s) armed%s",
            count,
            len(self.timers),
            "" if self.shards.all else f" ({self.shards.describe()})",
        )
        return count

    def require_served(self, guild_id: int | None, what: str) -> None:
        """Refuse (NotServedHere, and a warning in the log) what belongs to a guild of another process's
        shard. Discord sends a process only its own guilds' interactions, so this is a guard, never a path."""
        if not self.shards.owns(guild_id):
            log.warning("refused %s of guild %s: not on %s", what, guild_id, self.shards.describe())
            raise NotServedHere(N_("engine.not_served_here"))

    async def close(self) -> None:
        """Stop every timer and wait for actions under way to finish their writes."""
        self._closing = True
        self.timers.close()
        for task in list(self._firing):
            task.cancel()
        await asyncio.gather(*self._firing, return_exceptions=True)
        for entry in list(self._locks.values()):
            async with entry.lock:
                pass

    def evict_idle(self) -> int:
        """Drop sessions unused for a while from memory; they come back from the store on demand."""
        cutoff = time.monotonic() - self.idle_seconds
        idle = [sid for sid, live in self._live.items() if live.last_used < cutoff]
        evicted = 0
        for sid in idle:
            if sid not in self._locks:  # nobody holds or awaits this session
                del self._live[sid]
                evicted += 1
        return evicted

    @property
    def loaded_sessions(self) -> int:
        return len(self._live)

    # -- lobby ------------------------------------------------------------------------------------

    async def open_lobby(
        self,
        guild_id: int,
        channel_id: int,
        game_name: str,
        host_id: str,
        options: Mapping[str, Any],
        host_name: str | None = None,
        *,
        max_games: int | None = None,
    ) -> SessionRecord:
        """A new lobby in the channel with the host seated; refused when a game is already open there, when
        the host already has an open lobby on this server, or when the server has its most games open: the
        lower of the manager's limit (the bot's) and `max_games` (the server's own, given by the caller)."""
        self.require_served(guild_id, "a new lobby")
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
            seed=new_seed(),
            timers={"lobby": {"at": now + self.lobby_seconds, "action": {"do": LOBBY_EXPIRE}}},
            created_at=now,
            updated_at=now,
            names={host_id: host_name or host_id},
        )
        try:
            async with self.store.transaction() as tx:
                # Checked in the transaction that inserts, so two commands at once cannot both pass.
                if await self.store.sessions.lobby_of_host(tx, guild_id, host_id) is not None:
                    raise ChannelBusy("engine.one_lobby_per_host")
                limit = min(
                    (cap for cap in (self.max_games_per_guild, max_games) if cap is not None), default=None
                )
                if limit is not None and await self.store.sessions.count_open_in_guild(tx, guild_id) >= limit:
                    raise ChannelBusy("engine.server_full", limit=limit)
                record.id = await self.store.sessions.create(tx, record)
        except ChannelTaken as exc:
            raise ChannelBusy("engine.channel_busy") from exc
        self._live[record.id] = _Live(record, None, time.monotonic())
        self._arm(record)
        return record

    async def join(self, session_id: int, user_id: str, name: str | None = None) -> SessionRecord:
        async with self._locked(session_id):
            record = (await self._load(session_id)).record
            self._require_lobby(record)
            if is_bot(user_id):
                raise NotAPlayer("engine.not_playing")
            if user_id in record.players:
                raise BadAction("engine.already_joined")
            if len(record.players) >= self._game(record.game).max_players:
                raise BadAction("engine.full")
            await self._reseat(
                record, [*record.players, user_id], {**record.names, user_id: name or user_id}, record.bots
            )
            return record

    async def _reseat(
        self,
        record: SessionRecord,
        players: list[str],
        names: dict[str, str],
        bots: dict[str, dict[str, Any]],
    ) -> None:
        """A lobby's seats changed (under its lock): written, then the record follows."""
        await self._write(
            record.id,
            partial(
                Sessions.seats_work,
                session_id=record.id,
                players=players,
                names=names,
                now=self.clock(),
                bots=bots,
            ),
        )
        record.players, record.names, record.bots = players, names, bots

    async def leave_lobby(self, session_id: int, user_id: str) -> SessionRecord:
        async with self._locked(session_id):
            record = (await self._load(session_id)).record
            self._require_lobby(record)
            if user_id not in record.players:
                raise NotAPlayer("engine.not_in_lobby")
            if user_id == record.host_id:
                raise BadAction("engine.host_cannot_leave")
            await self._reseat(record, [p for p in record.players if p != user_id], record.names, record.bots)
            return record

    async def add_bot(
        self, session_id: int, user_id: str, level: str, name: Callable[[str], str]
    ) -> tuple[SessionRecord, str]:
        """The host seats a bot at `level` (named `name(seat)`, in the table's language): it takes the lowest free
        number (`bot:1`, `bot:2`…) and a seed of its own, never derived from the session's. Refused when the
        table is full or the caller is not the host. Returns the lobby and the bot's id."""
        async with self._locked(session_id):
            record = (await self._load(session_id)).record
            self._require_lobby(record)
            if user_id != record.host_id:
                raise NotAPlayer("engine.host_seats_bots")
            if len(record.players) >= self._game(record.game).max_players:
                raise BadAction("engine.full")
            number = next(n for n in range(1, len(record.players) + 2) if bot_id(n) not in record.players)
            seat = bot_id(number)
            await self._reseat(
                record,
                [*record.players, seat],
                {**record.names, seat: name(seat)},
                {**record.bots, seat: {"level": level, "seed": new_seed()}},
            )
            return record, seat

    async def remove_bot(self, session_id: int, user_id: str, seat: str) -> SessionRecord:
        """The host takes a bot's seat away before the start."""
        async with self._locked(session_id):
            record = (await self._load(session_id)).record
            self._require_lobby(record)
            if user_id != record.host_id:
                raise NotAPlayer("engine.host_seats_bots")
            if seat not in record.bots:
                raise BadAction("engine.no_such_bot")
            bots = {key: value for key, value in record.bots.items() if key != seat}
            await self._reseat(record, [p for p in record.players if p != seat], record.names, bots)
            return record

    async def start_game(
        self, session_id: int, user_id: str, setup: Mapping[str, Any] | None = None
    ) -> ActResult:
        """The host starts the game: the rules deal the initial state from the session's seed.

        `setup` adds what is only known at the start (e.g. the seated players' registered birthdays); it is
        stored with the session, so a replay deals the same game.
        """
        async with self._locked(session_id):
            live = await self._load(session_id)
            record = live.record
            self._require_lobby(record)
            if user_id != record.host_id:
                raise NotAPlayer("engine.host_starts")
            game = self._game(record.game)
            if len(record.players) < game.min_players:
                raise BadAction("engine.too_few_players", count=game.min_players)
            if not record.people:
                raise BadAction("engine.needs_a_person")
            full_setup = {**record.setup, **(setup or {})}
            if getattr(game, "server_dictionary", False) and "server_words" not in full_setup:
                # The server's own dictionary, as it stands now, goes with the game: a replay judges alike.
                language = record.options.get("language")
                if isinstance(language, str):
                    full_setup["server_words"] = await self.store.server_words.snapshot(
                        record.guild_id, language
                    )
            state = game.new_game(record.options, record.players, full_setup, random.Random(record.seed))
            now = self.clock()
            timers = self._merge_timers({}, game.timers(state), now)
            snapshot = _encode_state(game, state)
            await self._write(
                session_id,
                partial(
                    Sessions.start_work,
                    record=record,
                    setup=full_setup,
                    snapshot=snapshot,
                    timers=timers,
                    now=now,
                ),
            )
            record.status, record.timers, record.updated_at, record.setup = "active", timers, now, full_setup
            record.snapshot_version = record.version
            live.state = state
            live.snapshot_written(len(snapshot))
            self._arm(record)
            return ActResult(record, [{"type": "started", "players": list(record.players)}])

    async def cancel(self, session_id: int, reason: str = "cancelled") -> SessionRecord:
        """Close a lobby or stop a game without a result (the caller checks who may)."""
        async with self._locked(session_id):
            record = (await self._load(session_id)).record
            if not record.is_open:
                raise GameOver("engine.already_over")
            await self._close(record, "cancelled")
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
        """Apply one action: lock, check, apply, commit in one transaction, then re-arm timers.

        The action is stamped with the moment it was received, before it waits for the lock; any chance
        outcome it names is dropped (the engine draws those)."""
        received = self.clock()
        # `_locked` spelled out: this is the hot path, and a generator-based context manager costs more.
        entry = self._locks.get(session_id)
        if entry is None:
            entry = self._locks[session_id] = _Lock()
        entry.users += 1
        try:
            async with entry.lock:
                result = await self._act_locked(
                    session_id, player, action, interaction_id, received, live=True
                )
                return await self._unless_abandoned(session_id, result, received)
        finally:
            entry.users -= 1
            if entry.users == 0:
                del self._locks[session_id]

    async def _act_locked(
        self,
        session_id: int,
        player: str | None,
        action: Action,
        interaction_id: str | None,
        received: float,
        *,
        live: bool,
    ) -> ActResult:
        """`live`: the action comes from outside (chance dropped, stamped `received`); else it is a timer's
        own action, stamped by `fire_timer`."""
        entry = await self._load(session_id)
        record = entry.record
        action = live_action(self._game(record.game), action, received) if live else action
        do = action.get("do")
        try:
            if isinstance(do, str) and do in self._game(record.game).slow_actions:
                game, complete, applied = await self._slow_step(entry, player, action, do)
            else:
                game, complete, applied = self._step(entry, player, action)
        except GameError as error:
            # A repeated interaction (a retry of one already applied) gets the first answer again.
            if entry.may_have_applied(interaction_id, received):
                logged = await self._logged(session_id, interaction_id)
                if logged is not None:
                    return logged
            # The rules speak of players by id; the people reading the message know them by name.
            error.params = _with_names(error.params, record)
            raise
        outcome = game.outcome(applied.state)
        if outcome is not None:
            applied.events.append(outcome.event())
        # New deadlines run from the moment the action was received, as the game's own do.
        timers = {} if outcome else self._merge_timers(record.timers, game.timers(applied.state), received)
        now = self.clock()
        # What the rules told players who did not act is stored with the action, until they are shown it.
        news = {} if outcome else _news_of(applied, player)
        logged_events = _log_events(applied)
        encoded = (encode(complete), encode(logged_events))
        logged_bytes = entry.logged_bytes + len(encoded[0]) + len(encoded[1])
        snapshot = (
            _encode_state(game, applied.state)
            if outcome is not None
            or logged_bytes >= entry.snapshot_bytes * SNAPSHOT_LOG_SHARE
            or entry.logged_actions + 1 >= MOST_ACTIONS_BETWEEN_SNAPSHOTS
            else None
        )
        results = _result_rows(outcome) if outcome else None
        statements = Sessions.step_unit(
            record,
            version=record.version + 1,
            status="finished" if outcome else record.status,
            snapshot=snapshot,
            timers_removed=[key for key in record.timers if key not in timers],
            timers_set={key: t for key, t in timers.items() if record.timers.get(key) != t},
            action=ActionRecord(
                session_id, record.version, interaction_id, player, complete, logged_events, now
            ),
            used_words=[UsedWordRecord(w.round, w.player, w.word, w.lemma_key) for w in applied.used_words],
            extra=_ruling_statements(record, applied, now),
            results=results,
            outcome_meta=_outcome_meta(outcome) if outcome else None,
            news=news,
            encoded=encoded,
        )
        # The ratings move in the same transaction as the results, computed where it runs: from the figures
        # it reads, so two games ending at once with a player in common both count.
        # A game with a bot changes no rating: ratings stay people against people (docs/bots.md).
        work: Unit = (
            finishing_unit(statements, _match(record, results, outcome, now))
            if outcome is not None and results and not record.with_bots
            else statements
        )
        try:
            await self._write(session_id, work)
        except sqlite3.IntegrityError:
            logged = await self._logged(session_id, interaction_id)
            if logged is not None:
                return logged
            raise
        # Committed: memory follows in one step, with no await in between.
        record.version += 1
        record.status = "finished" if outcome else record.status
        record.updated_at = now
        entry.state = applied.state
        if snapshot is not None:
            record.snapshot_version = record.version
            entry.snapshot_written(len(snapshot))
        else:
            entry.logged_bytes, entry.logged_actions = logged_bytes, entry.logged_actions + 1
        if interaction_id is not None:
            entry.remember(interaction_id, now)
        if timers != record.timers:
            record.timers = timers
            self._arm(record)
        self._collections.applied()
        return ActResult(record, applied.events, private=applied.private, news_for=tuple(news))

    async def _unless_abandoned(self, session_id: int, result: ActResult, received: float) -> ActResult:
        """A table with bots where no person plays any more (the last one left, or the rules sent them away)
        is abandoned: its bots leave too, one by one through the rules (logged like anyone's leaving), so
        the game ends as the rules end a table below its minimum (docs/bots.md). Should the rules refuse a
        bot's leaving, the game is cancelled. Under the session's lock."""
        record = result.session
        if not record.bots or record.status != "active":
            return result
        if any(not is_bot(p) for p in await self._playing(session_id)):
            return result
        events, private, news_for = list(result.events), dict(result.private), set(result.news_for)
        for seat in [p for p in record.players if p in record.bots]:
            if record.status != "active" or seat not in await self._playing(session_id):
                continue
            try:
                left = await self._act_locked(session_id, seat, {"do": "leave"}, None, received, live=True)
            except GameError as error:
                log.warning(
                    "session %d: bot %s could not leave (%s): cancelled", session_id, seat, error.code
                )
                await self._close(record, "cancelled")
                events.append({"type": "abandoned"})
                break
            events += left.events
            for player, told in left.private.items():
                private[player] = [*private.get(player, []), *told]
            news_for |= set(left.news_for)
        if record.status == "active":  # the rules kept bots alone at the table: nobody is left to play
            await self._close(record, "cancelled")
            events.append({"type": "abandoned"})
        log.info("session %d: no person left at a table with bots: %s", session_id, record.status)
        return ActResult(record, events, private=private, news_for=tuple(news_for))

    async def host(self, session_id: int) -> str:
        """Who hosts the table now (ends it, `/end`): the lobby's host until the start; then the rules' host
        when they name one (the first seat still playing) — but never a bot seat: at a table with bots, the
        first person still playing (docs/bots.md); the lobby's host when none is left."""
        live = await self._read(session_id)
        record = live.record
        if record.status == "lobby" or live.state is None:
            return record.host_id
        view = self._game(record.game).view_for(live.state, None)
        host = view.get("host")
        if isinstance(host, str) and not is_bot(host):
            return host
        if not record.bots:
            return record.host_id
        people = [p for p in _still_playing(record, view) if not is_bot(p)]
        return people[0] if people else record.host_id

    async def _playing(self, session_id: int) -> list[str]:
        """The seats still playing (under the session's lock)."""
        live = await self._load(session_id)
        return _still_playing(live.record, self._game(live.record.game).view_for(live.state, None))

    async def _slow_step(
        self, live: _Live, player: str | None, action: Action, do: str
    ) -> tuple[Game, Action, Applied]:
        """A slow action: in a worker thread while it costs more than INLINE_BELOW_SECONDS (the session stays
        locked; its state is never changed in place, so reads go on meanwhile), else on the loop."""
        key = (live.record.game, do)
        cost = self._slow_costs.get(key)
        work = partial(self._step, live, player, action)
        if cost is None or cost >= INLINE_BELOW_SECONDS:
            stepped, took = await asyncio.to_thread(_cpu_timed, work)
        else:
            stepped, took = _cpu_timed(work)
        self._slow_costs[key] = took if cost is None else cost + COST_WEIGHT * (took - cost)
        return stepped

    def _step(self, live: _Live, player: str | None, action: Action) -> tuple[Game, Action, Applied]:
        record = live.record
        if record.status == "lobby":
            raise WrongPhase("engine.not_started")
        if not record.is_open:
            raise GameOver("engine.over")
        if player is not None and player not in record.players:
            raise NotAPlayer("engine.not_playing")
        game = self._game(record.game)
        # The actor is who the interaction says, never what the action claims.
        action = {key: value for key, value in action.items() if key != "player"}
        if player is not None:
            action["player"] = player
        complete, applied = step(game, live.state, record.seed, record.version, action)
        return game, complete, applied

    async def _logged(self, session_id: int, interaction_id: str | None) -> ActResult | None:
        if interaction_id is None:
            return None
        logged = await self.store.actions.by_interaction(session_id, interaction_id)
        if logged is None:
            return None
        record = (await self._load(session_id)).record
        public, private = _split_events(logged.events)
        return ActResult(record, public, duplicate=True, private=private)

    async def session(self, session_id: int) -> SessionRecord:
        return (await self._read(session_id)).record

    async def state(self, session_id: int) -> Any:
        """The full game state (secrets included): for the rules' own use, never for display."""
        return (await self._read(session_id)).state

    async def view(self, session_id: int, player: str | None) -> dict[str, Any]:
        """What `player` may see of the game (None: a spectator)."""
        live = await self._read(session_id)
        if live.state is None:
            raise WrongPhase("engine.not_started")
        return self._game(live.record.game).view_for(live.state, player)

    async def seen(self, session_id: int, seat: str) -> tuple[int, Seen] | None:
        """What a bot seat may know now, and the version it is of: its own view, the actions the rules
        offer it and the table's buttons for it (never the state). None when the game is not under way."""
        live = await self._read(session_id)
        record = live.record
        if live.state is None or record.status != "active" or seat not in record.players:
            return None
        game = self._game(record.game)
        legal = game.legal_actions(live.state, seat) or []
        seen = Seen(
            seat=seat,
            view=game.view_for(live.state, seat),
            legal=tuple(legal),
            offered=game.table_actions(live.state, seat),
        )
        return record.version, seen

    async def freshness(self, session_id: int) -> dict[str, Any]:
        """What a button made now must carry (the game's freshness), read here so that the table layer never
        reads the whole state, secrets included, to draw its buttons."""
        live = await self._read(session_id)
        if live.state is None:
            raise WrongPhase("engine.not_started")
        return self._game(live.record.game).freshness(live.state)

    async def offered(
        self, session_id: int, player: str, action: Action, made_against: Mapping[str, Any]
    ) -> bool:
        """Whether the rules take `action` (an example of it) from `player` now, before a form or a private
        prompt opens for it: nothing is applied. An earlier freshness value in `made_against` is refused as
        stale, and the rules' own refusal of the example is raised where it says more than "not now"."""
        live = await self._read(session_id)
        if live.state is None:
            raise WrongPhase("engine.not_started")
        record, game = live.record, self._game(live.record.game)
        now = game.freshness(live.state)
        if any(now.get(key) != value for key, value in made_against.items()):
            raise StaleAction(STALE_MESSAGE)
        if action["do"] in game.table_actions(live.state, player):
            return True
        try:
            step(game, live.state, record.seed, record.version, {**action, "player": player})
        except GameError as error:
            if type(error) is not BadAction:  # a malformed example says nothing to the player
                error.params = _with_names(error.params, record)
                raise
        return False

    async def open_in_channel(self, channel_id: int) -> SessionRecord | None:
        """The channel's open game, as memory holds it (loaded if need be)."""
        session_id = await self.store.sessions.open_id_in_channel(channel_id)
        if session_id is None:
            return None
        try:
            record = await self.session(session_id)
        except NoSuchSession:
            return None
        return record if record.is_open else None

    async def set_message(self, session_id: int, message_id: int) -> None:
        """Remember the table message so that it can be edited after a restart (that column only)."""
        async with self._locked(session_id):
            live = await self._load(session_id)
            await self._write(
                session_id, partial(Sessions.message_work, session_id=session_id, message_id=message_id)
            )
            live.record.message_id = message_id

    # -- internals --------------------------------------------------------------------------------

    def _game(self, name: str) -> Game:
        try:
            return self.games[name]
        except KeyError:
            raise BadAction("engine.unknown_game", name=repr(name)) from None

    @contextlib.asynccontextmanager
    async def _locked(self, session_id: int) -> AsyncIterator[None]:
        entry = self._locks.get(session_id)
        if entry is None:
            entry = self._locks[session_id] = _Lock()
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.users -= 1
            if entry.users == 0:
                del self._locks[session_id]

    @staticmethod
    def _require_lobby(record: SessionRecord) -> None:
        if record.status != "lobby":
            raise WrongPhase(N_("engine.lobby_closed") if not record.is_open else N_("engine.started"))

    async def _read(self, session_id: int) -> _Live:
        """A cached session as it is (consistent: it only changes after a commit); else load it locked."""
        live = self._live.get(session_id)
        if live is not None:
            live.last_used = time.monotonic()
            return live
        async with self._locked(session_id):
            return await self._load(session_id)

    async def _load(self, session_id: int) -> _Live:
        """The session from the cache or the store; call it holding the session's lock."""
        live = self._live.get(session_id)
        if live is None:
            try:
                stored = await self.store.sessions.load_with_tail(session_id)
                if stored is None:
                    raise NoSuchSession("engine.no_such_session")
                # Before it is restored: another process may be writing it.
                self.require_served(stored.record.guild_id, f"session {session_id}")
                live = _restore(self.games.get(stored.record.game), stored)
            except GameError:
                raise
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                await self._close_unreadable(session_id, exc)
                raise NoSuchSession("engine.unreadable") from exc
            record = live.record
            if record.is_open:
                self._live[session_id] = live
        live.last_used = time.monotonic()
        return live

    async def _close_unreadable(self, session_id: int, error: Exception) -> None:
        """One unreadable session must not stop the others: close it, say why, tell its channel."""
        record = await self.store.sessions.header(session_id)
        if record is None:
            return
        self.require_served(record.guild_id, f"session {session_id}")  # never close another process's game
        log.error("session %d cannot be read and is closed: %s: %s", session_id, type(error).__name__, error)
        if record.is_open:
            await self.store.db.run(
                partial(Sessions.close_work, session_id=session_id, status="cancelled", now=self.clock())
            )
            self.timers.disarm(session_id)
            record.status = "cancelled"
            await self._notify(ActResult(record, [{"type": "unreadable"}]))

    async def _write(self, session_id: int, work: Unit) -> Any:
        """Commit a unit of work; if it fails or is cancelled midway, forget the cached session, so the
        next use loads what the store really holds."""
        try:
            return await self.store.db.run(work)
        except BaseException:
            self._live.pop(session_id, None)
            raise

    async def _close(self, record: SessionRecord, status: str) -> None:
        await self._write(
            record.id, partial(Sessions.close_work, session_id=record.id, status=status, now=self.clock())
        )
        record.status = status
        record.timers = {}
        self.timers.disarm(record.id)
        self._live.pop(record.id, None)

    def _merge_timers(self, current: dict[str, Any], wanted: list[Timer], now: float) -> dict[str, Any]:
        """Keys that stay keep their first deadline; new keys start `now`; vanished keys are dropped."""
        merged = {}
        for timer in wanted:
            kept = current.get(timer.key)
            if kept is not None and kept["action"] == timer.action:
                merged[timer.key] = kept
            else:
                merged[timer.key] = {"at": now + timer.seconds, "action": timer.action}
        return merged

    def _arm(self, record: SessionRecord) -> None:
        if not self._closing:
            self.timers.set(record.id, {key: timer["at"] for key, timer in record.timers.items()})

    def _timer_due(self, session_id: int, key: str, at: float) -> None:
        task = asyncio.create_task(self._run_timer(session_id, key, at))
        self._firing.add(task)
        task.add_done_callback(self._firing.discard)

    async def _run_timer(self, session_id: int, key: str, at: float) -> None:
        try:
            await self.fire_timer(session_id, key, at)
        except NoSuchSession:
            pass
        except Exception:
            log.exception("timer %s of session %d failed", key, session_id)

    async def fire_timer(self, session_id: int, key: str, at: float | None = None) -> ActResult | None:
        """Apply a due timer's action, unless the state moved on and the timer is gone or was re-set.

        The action is stamped as received when the timer fired, never before its deadline."""
        fired = self.clock()
        async with self._locked(session_id):
            record = (await self._load(session_id)).record
            timer = record.timers.get(key)
            if not record.is_open or timer is None or (at is not None and timer["at"] != at):
                return None
            if timer["action"]["do"] == LOBBY_EXPIRE:
                await self._close(record, "cancelled")
                result = ActResult(record, [{"type": "lobby_expired"}])
            else:
                received = max(fired, timer["at"])
                stamped = {**timer["action"], RECEIVED_AT: received}
                try:
                    result = await self._act_locked(session_id, None, stamped, None, received, live=False)
                    result = await self._unless_abandoned(session_id, result, received)
                except Exception:
                    # A timer the rules refuse must not fire again and again.
                    record = (await self._load(session_id)).record
                    await self._write(
                        session_id, partial(Sessions.drop_timer_work, session_id=session_id, key=key)
                    )
                    record.timers = {k: t for k, t in record.timers.items() if k != key}
                    self._arm(record)
                    raise
        await self._notify(result)
        return result

    async def _notify(self, result: ActResult) -> None:
        for listener in self.listeners:
            try:
                await listener(result)
            except Exception:
                log.exception("event listener failed for session %d", result.session.id)


def _still_playing(record: SessionRecord, view: JSON) -> list[str]:
    """The seats still playing, as the rules' public view says: its `players` less those it lists as `left`
    (every game's view has both)."""
    left = set(view.get("left") or ())
    return [p for p in record.players if p not in left]


def _cpu_timed(work: Callable[[], T]) -> tuple[T, float]:
    """`work()` and the CPU time its thread spent on it (waits for the interpreter lock left out)."""
    started = time.thread_time()
    result = work()
    return result, time.thread_time() - started


def _made_at(interaction_id: str) -> float | None:
    """When Discord made the interaction (its snowflake id), or None for an id that is not one."""
    if not interaction_id.isascii() or not interaction_id.isdigit() or len(interaction_id) < 15:
        return None
    return ((int(interaction_id) >> 22) + DISCORD_EPOCH_MS) / 1000


def _restore(game: Game | None, stored: StoredSession) -> _Live:
    """The session's state: its last snapshot, and the actions logged since it applied again (each as it
    was logged, chance included: the same state). A log the rules refuse is a damaged session: ValueError."""
    record = stored.record
    live = _Live(record, None, time.monotonic())
    if stored.snapshot is None or game is None:
        return live
    # The standard library's parser: orjson reads a number beyond 64 bits as a float, without a word.
    state = game.load(_shared_strings(json.loads(stored.snapshot)))
    for version, text in stored.tail:
        try:
            # Its strings shared too: a player's id or a word it brings would stay in the state as a copy.
            _, applied = step(game, state, record.seed, version, _shared_strings(json.loads(text)))
        except GameError as error:
            raise ValueError(f"action {version} of the log is refused on replay: {error.message}") from error
        state = applied.state
    live.state = state
    live.snapshot_bytes = len(stored.snapshot)
    live.logged_bytes = sum(
        len(text) for _, text in stored.tail
    )  # the actions alone: a snapshot comes sooner
    live.logged_actions = len(stored.tail)
    # Nothing applied before now is in memory: a repeat of an interaction made before the last action (or
    # of one that is not a Discord id) is looked up in the log, for as long as Discord takes an answer.
    live.recent_let_go = record.updated_at if record.version else 0.0
    return live


def _shared_strings(value: Any) -> Any:
    """The decoded snapshot with every string shared with its equals (`sys.intern`): a player's id, a word
    and its lemma, a verdict appear many times in a state, and each decoded copy costs 50 bytes and more;
    a restored Top Stop game in its fourth round takes 40% less memory. In place: a copy of every container
    was garbage as soon as the game loaded the state, scattered between what stays (the allocator's pages
    then stay half used)."""
    if isinstance(value, str):
        return sys.intern(value)
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str | dict | list):
                value[key] = _shared_strings(item)  # a key's value replaced: the dict keeps its size
        # The decoder already shares a key with its equals within one text; keys get interned as well.
        if any(type(key) is str and sys.intern(key) is not key for key in value):
            return {sys.intern(key) if isinstance(key, str) else key: item for key, item in value.items()}
        return value
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, str | dict | list):
                value[index] = _shared_strings(item)
        return value
    return value


def _encode_state(game: Game, state: Any) -> str:
    """The snapshot as stored: the state serialised as it is (see the Game contract), when one is due."""
    try:
        return state_json(state).decode()
    except TypeError:  # e.g. an integer beyond 64 bits
        return encode(game.dump(state))


def _with_names(params: dict[str, object], record: SessionRecord) -> dict[str, object]:
    """A refusal's parameters with each player id (a whole parameter) replaced by the player's name."""
    return {
        key: record.names.get(value) or value if isinstance(value, str) and value in record.players else value
        for key, value in params.items()
    }


def _ruling_statements(record: SessionRecord, applied: Applied, now: float) -> list[Statement]:
    """The table's votes on words, remembered by the server in the game's language, in the action's unit."""
    language = record.options.get("language")
    if not applied.rulings or not isinstance(language, str):
        return []
    return [
        ServerWords.ruling_statement(record.guild_id, language, ruling.word, ruling.valid, now, record.id)
        for ruling in applied.rulings
    ]


def _news_of(applied: Applied, actor: str | None) -> dict[str, list[Event]]:
    """The private events addressed to players other than the actor (a timer has none: all of them)."""
    return {player: events for player, events in applied.private.items() if player != actor and events}


def _log_events(applied: Applied) -> list[Event]:
    """The log keeps private events too (marked with their player), so a repeated interaction gets them."""
    private = [
        {**event, "private_to": player} for player, events in applied.private.items() for event in events
    ]
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
    """One row per player: score, competition rank in the game's direction, won or lost."""
    ranks = outcome.ranks()
    ordered = sorted(outcome.scores, key=lambda player: (ranks[player], player))
    return [
        ResultRow(
            player,
            outcome.scores[player],
            ranks[player],
            outcome.result_of(player) == "won",
            outcome.result_of(player),
        )
        for player in ordered
    ]


def _match(record: SessionRecord, results: list[ResultRow], outcome: Outcome, now: float) -> Match:
    """The finished game as the ratings see it: the results' ranks, and the team's result if any."""
    placings = [(row.user_id, row.rank) for row in results]
    return Match.of(record.id, record.guild_id, record.game, now, placings, outcome.team_result)


def _outcome_meta(outcome: Outcome) -> dict[str, Any]:
    return {
        "lower_is_better": outcome.lower_is_better,
        "team_result": outcome.team_result,
        "team_rating": outcome.team_rating,
    }
