"""Every SQL statement of the bot lives here; values are always bound parameters."""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import aiosqlite
import orjson

from bot.store.database import Database, StaleWrite, Statement, Transaction

OPEN_STATUSES = ("lobby", "active")

# The legacy INTEGER `seed` column cannot hold a 128-bit seed; `seed_text` holds it (migration 3).
LEGACY_SEED = 0


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def encode(value: Any) -> str:
    """JSON text for the hot path: orjson (dataclasses included), the standard library for what it refuses."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # e.g. an integer beyond 64 bits
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _seed(row: aiosqlite.Row) -> int:
    text = row["seed_text"]
    return int(text) if text is not None else int(row["seed"])


class ChannelTaken(Exception):
    """Another game is already open in this channel."""


@dataclass
class SessionRecord:
    """A game session as stored: a lobby, a game under way, or a finished one."""

    id: int
    guild_id: int
    channel_id: int
    game: str
    status: str
    host_id: str
    players: list[str]
    options: dict[str, Any]
    seed: int
    setup: dict[str, Any] = field(default_factory=dict)
    snapshot: dict[str, Any] | None = None
    version: int = 0
    timers: dict[str, Any] = field(default_factory=dict)
    message_id: int | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    names: dict[str, str] = field(default_factory=dict)  # user id -> display name when they joined
    snapshot_version: int = 0  # the version of the state the stored snapshot holds (≤ version)

    def name(self, user_id: str) -> str:
        return self.names.get(user_id, user_id)

    @property
    def is_open(self) -> bool:
        return self.status in OPEN_STATUSES

    @classmethod
    def from_row(cls, row: aiosqlite.Row) -> SessionRecord:
        return cls(
            id=row["id"],
            guild_id=row["guild_id"],
            channel_id=row["channel_id"],
            game=row["game"],
            status=row["status"],
            host_id=row["host_id"],
            players=json.loads(row["players"]),
            options=json.loads(row["options"]),
            seed=_seed(row),
            setup=json.loads(row["setup"]),
            snapshot=None,
            version=row["version"],
            timers={},
            message_id=row["message_id"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            names=json.loads(row["names"]),
            snapshot_version=row["snapshot_version"],
        )


@dataclass
class StoredSession:
    """A session as stored: its record, its last snapshot (text) and the actions logged since it (the tail:
    version and action, in order), which bring the snapshot up to `record.version`."""

    record: SessionRecord
    snapshot: str | None
    tail: list[tuple[int, str]]


@dataclass
class ActionRecord:
    session_id: int
    version: int
    interaction_id: str | None
    player: str | None
    action: dict[str, Any]
    events: list[dict[str, Any]]
    created_at: float


def _timer_rows(session_id: int, timers: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    return [(session_id, key, timer["at"], encode(timer["action"])) for key, timer in timers.items()]


class Sessions:
    """Sessions and their timers. The async methods suit occasional use; the `*_work` functions are
    units for `Database.run` (group commit) on the engine's hot path."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def create(self, tx: Transaction, record: SessionRecord) -> int:
        try:
            session_id = await tx.execute(
                "INSERT INTO sessions (guild_id, channel_id, game, status, host_id, players, options, seed,"
                " seed_text, setup, snapshot, version, message_id, created_at, updated_at, names)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.guild_id,
                    record.channel_id,
                    record.game,
                    record.status,
                    record.host_id,
                    _dumps(record.players),
                    _dumps(record.options),
                    LEGACY_SEED,
                    str(record.seed),
                    _dumps(record.setup),
                    None if record.snapshot is None else encode(record.snapshot),
                    record.version,
                    record.message_id,
                    record.created_at,
                    record.updated_at,
                    _dumps(record.names),
                ),
            )
        except sqlite3.IntegrityError as exc:
            raise ChannelTaken(str(exc)) from exc
        await tx.executemany(
            "INSERT INTO timers (session_id, key, at, action) VALUES (?, ?, ?, ?)",
            _timer_rows(session_id, record.timers),
        )
        return session_id

    async def save(self, tx: Transaction, record: SessionRecord) -> None:
        """Every field of the record, timers included (tests and tools; the engine writes what changed)."""
        await tx.execute(
            "UPDATE sessions SET status = ?, players = ?, options = ?, setup = ?, snapshot = ?, version = ?,"
            " snapshot_version = ?, message_id = ?, updated_at = ?, names = ? WHERE id = ?",
            (
                record.status,
                _dumps(record.players),
                _dumps(record.options),
                _dumps(record.setup),
                None if record.snapshot is None else encode(record.snapshot),
                record.version,
                record.version,
                record.message_id,
                record.updated_at,
                _dumps(record.names),
                record.id,
            ),
        )
        await tx.execute("DELETE FROM timers WHERE session_id = ?", (record.id,))
        await tx.executemany(
            "INSERT INTO timers (session_id, key, at, action) VALUES (?, ?, ?, ?)",
            _timer_rows(record.id, record.timers),
        )

    async def get(self, session_id: int) -> SessionRecord | None:
        """The whole stored session: its snapshot parsed and its timers."""
        loaded = await self.load(session_id)
        if loaded is None:
            return None
        record, snapshot = loaded
        record.snapshot = json.loads(snapshot) if snapshot is not None else None
        return record

    async def load(self, session_id: int) -> tuple[SessionRecord, str | None] | None:
        """The session with its timers, and its last snapshot as stored text (at `snapshot_version`)."""
        row = await self._db.fetch_one("SELECT * FROM sessions WHERE id = ?", (session_id,))
        if row is None:
            return None
        record = SessionRecord.from_row(row)
        record.timers = await self.timers(session_id)
        return record, row["snapshot"]

    async def load_with_tail(self, session_id: int) -> StoredSession | None:
        """The session, its last snapshot and the actions logged after it.

        Call it holding the session's lock: nothing else writes the session meanwhile. A tail with a gap
        (a log that does not reach the record's version) is a damaged session: ValueError."""
        loaded = await self.load(session_id)
        if loaded is None:
            return None
        record, snapshot = loaded
        rows = await self._db.fetch_all(
            "SELECT version, action FROM actions WHERE session_id = ? AND version >= ? AND version < ?"
            " ORDER BY version",
            (session_id, record.snapshot_version, record.version),
        )
        tail = [(row["version"], row["action"]) for row in rows]
        if [version for version, _ in tail] != list(range(record.snapshot_version, record.version)):
            raise ValueError(
                f"the log of session {session_id} does not lead from its snapshot (version"
                f" {record.snapshot_version}) to version {record.version}"
            )
        return StoredSession(record, snapshot, tail)

    async def header(self, session_id: int) -> SessionRecord | None:
        """Only the columns that are never JSON: enough to close a session whose data cannot be read."""
        row = await self._db.fetch_one(
            "SELECT id, guild_id, channel_id, game, status, host_id, message_id, version FROM sessions"
            " WHERE id = ?",
            (session_id,),
        )
        if row is None:
            return None
        return SessionRecord(
            id=row["id"],
            guild_id=row["guild_id"],
            channel_id=row["channel_id"],
            game=row["game"],
            status=row["status"],
            host_id=row["host_id"],
            players=[],
            options={},
            seed=0,
            message_id=row["message_id"],
            version=row["version"],
        )

    async def timers(self, session_id: int) -> dict[str, Any]:
        rows = await self._db.fetch_all(
            "SELECT key, at, action FROM timers WHERE session_id = ?", (session_id,)
        )
        return {row["key"]: {"at": row["at"], "action": json.loads(row["action"])} for row in rows}

    async def all_deadlines(self) -> list[tuple[int, str, float]]:
        """Every armed deadline of every open session: (session, key, at). Start-up reads only this."""
        rows = await self._db.fetch_all("SELECT session_id, key, at FROM timers")
        return [(row[0], row[1], row[2]) for row in rows]

    async def open_in_channel(self, channel_id: int) -> SessionRecord | None:
        session_id = await self.open_id_in_channel(channel_id)
        return await self.get(session_id) if session_id is not None else None

    async def open_id_in_channel(self, channel_id: int) -> int | None:
        row = await self._db.fetch_one(
            "SELECT id FROM sessions WHERE channel_id = ? AND status IN ('lobby', 'active')", (channel_id,)
        )
        return int(row["id"]) if row else None

    @staticmethod
    async def lobby_of_host(tx: Transaction, guild_id: int, host_id: str) -> int | None:
        """The open lobby this member hosts on the server, if any (one at a time)."""
        row = await tx.fetch_one(
            "SELECT id FROM sessions WHERE status = 'lobby' AND guild_id = ? AND host_id = ? LIMIT 1",
            (guild_id, host_id),
        )
        return int(row["id"]) if row else None

    @staticmethod
    async def count_open_in_guild(tx: Transaction, guild_id: int) -> int:
        row = await tx.fetch_one(
            "SELECT COUNT(*) FROM sessions WHERE status IN ('lobby', 'active') AND guild_id = ?", (guild_id,)
        )
        return int(row[0]) if row else 0

    async def open_ids(self, game: str) -> list[int]:
        """The sessions of `game` still open (lobby or active), oldest first."""
        rows = await self._db.fetch_all(
            "SELECT id FROM sessions WHERE game = ? AND status IN ('lobby', 'active') ORDER BY id", (game,)
        )
        return [int(row[0]) for row in rows]

    async def count_open(self) -> int:
        row = await self._db.fetch_one("SELECT COUNT(*) FROM sessions WHERE status IN ('lobby', 'active')")
        return int(row[0]) if row else 0

    # -- units of work for group commit -------------------------------------------------------------

    @staticmethod
    def step_unit(
        record: SessionRecord,
        *,
        version: int,
        status: str,
        snapshot: str | None,
        timers_removed: list[str],
        timers_set: dict[str, Any],
        action: ActionRecord,
        used_words: list[UsedWordRecord],
        results: list[ResultRow] | None,
        outcome_meta: dict[str, Any] | None,
        extra: list[Statement] | None = None,
        news: Mapping[str, list[dict[str, Any]]] | None = None,
        encoded: tuple[str, str] | None = None,
    ) -> list[Statement]:
        """One applied action: the log, the used words, the version (and the snapshot, when one is due), the
        timers, the results, the news it told players who did not act (`news`: per player). The version
        moves forward only from the version this step was made on. A step that closes the session drops its
        news instead. `encoded`: the action and its events as JSON already (the caller measured them)."""
        unit = [
            Statement(
                "INSERT INTO actions (session_id, version, interaction_id, player, action, events, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    action.session_id,
                    action.version,
                    action.interaction_id,
                    action.player,
                    *(encoded or (encode(action.action), encode(action.events))),
                    action.created_at,
                ),
            ),
            Statement(
                "UPDATE sessions SET snapshot = ?, snapshot_version = ?, version = ?, updated_at = ?"
                " WHERE id = ? AND version = ?",
                (snapshot, version, version, action.created_at, record.id, record.version),
                one_row=True,
            )
            if snapshot is not None
            else Statement(
                "UPDATE sessions SET version = ?, updated_at = ? WHERE id = ? AND version = ?",
                (version, action.created_at, record.id, record.version),
                one_row=True,
            ),
        ]
        if status != record.status:
            # Set apart, only when it changes: setting it costs the upkeep of the two indexes over it.
            unit.append(Statement("UPDATE sessions SET status = ? WHERE id = ?", (status, record.id)))
        unit += [
            Statement(
                "INSERT OR IGNORE INTO used_words (session_id, round, player, word, lemma_key)"
                " VALUES (?, ?, ?, ?, ?)",
                (record.id, w.round, w.player, w.word, w.lemma_key),
            )
            for w in used_words
        ]
        unit += extra or []
        unit += [
            Statement("DELETE FROM timers WHERE session_id = ? AND key = ?", (record.id, key))
            for key in timers_removed
        ]
        unit += [
            Statement("INSERT OR REPLACE INTO timers (session_id, key, at, action) VALUES (?, ?, ?, ?)", row)
            for row in _timer_rows(record.id, timers_set)
        ]
        meta = outcome_meta or {}
        unit += [
            Statement(
                "INSERT OR REPLACE INTO results (session_id, guild_id, game, user_id, score, rank, won,"
                " finished_at, result, lower_is_better, team_result, team_rating)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.id,
                    record.guild_id,
                    record.game,
                    r.user_id,
                    r.score,
                    r.rank,
                    int(r.won),
                    action.created_at,
                    r.result or ("won" if r.won else "lost"),
                    int(bool(meta.get("lower_is_better"))),
                    meta.get("team_result"),
                    meta.get("team_rating"),
                ),
            )
            for r in results or []
        ]
        if status in OPEN_STATUSES:
            unit += News.add_statements(record.id, version, action.created_at, news or {})
        elif record.status in OPEN_STATUSES:
            unit.append(News.drop_session_statement(record.id))
        return unit

    @staticmethod
    def start_work(
        conn: sqlite3.Connection,
        record: SessionRecord,
        setup: dict[str, Any],
        snapshot: str,
        timers: dict[str, Any],
        now: float,
    ) -> None:
        """A lobby becomes a game: status, first snapshot and timers, only if it is still the lobby."""
        cursor = conn.execute(
            "UPDATE sessions SET status = 'active', snapshot = ?, snapshot_version = version, setup = ?,"
            " updated_at = ? WHERE id = ? AND status = 'lobby' AND version = ?",
            (snapshot, _dumps(setup), now, record.id, record.version),
        )
        if cursor.rowcount != 1:
            raise StaleWrite(f"session {record.id} is no longer the lobby this start was made in")
        _write_timers(conn, record.id, list(record.timers), timers)

    @staticmethod
    def seats_work(
        conn: sqlite3.Connection, session_id: int, players: list[str], names: dict[str, str], now: float
    ) -> None:
        conn.execute(
            "UPDATE sessions SET players = ?, names = ?, updated_at = ? WHERE id = ? AND status = 'lobby'",
            (_dumps(players), _dumps(names), now, session_id),
        )

    @staticmethod
    def message_work(conn: sqlite3.Connection, session_id: int, message_id: int) -> None:
        # Only the message id: a table redraw can never write an older snapshot back.
        conn.execute("UPDATE sessions SET message_id = ? WHERE id = ?", (message_id, session_id))

    @staticmethod
    def close_work(conn: sqlite3.Connection, session_id: int, status: str, now: float) -> None:
        conn.execute("UPDATE sessions SET status = ?, updated_at = ? WHERE id = ?", (status, now, session_id))
        conn.execute("DELETE FROM timers WHERE session_id = ?", (session_id,))
        conn.execute("DELETE FROM news WHERE session_id = ?", (session_id,))  # nobody can be shown them now

    @staticmethod
    def drop_timer_work(conn: sqlite3.Connection, session_id: int, key: str) -> None:
        conn.execute("DELETE FROM timers WHERE session_id = ? AND key = ?", (session_id, key))


def _write_timers(
    conn: sqlite3.Connection, session_id: int, removed: list[str], wanted: Mapping[str, Any]
) -> None:
    if removed:
        conn.executemany(
            "DELETE FROM timers WHERE session_id = ? AND key = ?", [(session_id, key) for key in removed]
        )
    if wanted:
        conn.executemany(
            "INSERT OR REPLACE INTO timers (session_id, key, at, action) VALUES (?, ?, ?, ?)",
            _timer_rows(session_id, wanted),
        )


class News:
    """Private events told to a player by another's action or a timer, until the table layer shows them.

    Written in the unit of the action that told them (`add_statements`, from `Sessions.step_unit`), read by
    (session, player), deleted once shown. A session that closes drops its news: nobody can be shown them
    any more (a closed game has no console and no private answer).
    """

    KEPT = 20  # per player: the latest ones (a long absence must not grow a message)

    def __init__(self, db: Database) -> None:
        self._db = db

    @staticmethod
    def add_statements(
        session_id: int, version: int, now: float, told: Mapping[str, list[dict[str, Any]]]
    ) -> list[Statement]:
        """One row per event, then each player's oldest beyond `KEPT` dropped."""
        unit = [
            Statement(
                "INSERT INTO news (session_id, player, event, version, created_at) VALUES (?, ?, ?, ?, ?)",
                (session_id, player, encode(event), version, now),
            )
            for player, events in told.items()
            for event in events
        ]
        unit += [
            Statement(
                "DELETE FROM news WHERE session_id = ? AND player = ? AND id <= (SELECT id FROM news"
                " WHERE session_id = ? AND player = ? ORDER BY id DESC LIMIT 1 OFFSET ?)",
                (session_id, player, session_id, player, News.KEPT),
            )
            for player, events in told.items()
            if events
        ]
        return unit

    @staticmethod
    def drop_session_statement(session_id: int) -> Statement:
        return Statement("DELETE FROM news WHERE session_id = ?", (session_id,))

    @staticmethod
    def remove_statements(ids: list[int]) -> list[Statement]:
        """News shown: gone."""
        return [Statement("DELETE FROM news WHERE id = ?", (news_id,)) for news_id in ids]

    async def players_waiting(self, session_id: int) -> set[str]:
        rows = await self._db.fetch_all(
            "SELECT DISTINCT player FROM news WHERE session_id = ?", (session_id,)
        )
        return {row[0] for row in rows}

    async def waiting(self, session_id: int, player: str) -> list[tuple[int, dict[str, Any]]]:
        """The player's news, oldest first, with their ids."""
        rows = await self._db.fetch_all(
            "SELECT id, event FROM news WHERE session_id = ? AND player = ? ORDER BY id", (session_id, player)
        )
        return [(int(row[0]), json.loads(row[1])) for row in rows]


@dataclass(frozen=True)
class TurnNotice:
    """A table's last turn message: whom it awaited, its id (None: nobody wanted one), and the message it
    replaced, whose deletion may not have happened yet."""

    awaiting: tuple[str, ...]
    message_id: int | None
    previous_id: int | None = None


class TurnNotices:
    """The last turn message of each table, so that a restart neither announces a turn again nor leaves the
    previous message behind."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, session_id: int) -> TurnNotice | None:
        row = await self._db.fetch_one(
            "SELECT awaiting, message_id, previous_id FROM turn_notices WHERE session_id = ?", (session_id,)
        )
        if row is None:
            return None
        return TurnNotice(tuple(json.loads(row[0])), row[1], row[2])

    @staticmethod
    def save_statements(session_id: int, notice: TurnNotice) -> list[Statement]:
        return [
            Statement(
                "INSERT OR REPLACE INTO turn_notices (session_id, awaiting, message_id, previous_id)"
                " VALUES (?, ?, ?, ?)",
                (session_id, _dumps(list(notice.awaiting)), notice.message_id, notice.previous_id),
            )
        ]

    @staticmethod
    def drop_statements(session_id: int) -> list[Statement]:
        return [Statement("DELETE FROM turn_notices WHERE session_id = ?", (session_id,))]


class Actions:
    """The append-only log of every applied action per session."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def append(self, tx: Transaction, record: ActionRecord) -> None:
        await tx.execute(
            "INSERT INTO actions (session_id, version, interaction_id, player, action, events, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                record.session_id,
                record.version,
                record.interaction_id,
                record.player,
                _dumps(record.action),
                _dumps(record.events),
                record.created_at,
            ),
        )

    async def by_interaction(self, session_id: int, interaction_id: str) -> ActionRecord | None:
        row = await self._db.fetch_one(
            "SELECT * FROM actions WHERE session_id = ? AND interaction_id = ?", (session_id, interaction_id)
        )
        return self._record(row) if row else None

    async def for_session(self, session_id: int) -> list[ActionRecord]:
        rows = await self._db.fetch_all(
            "SELECT * FROM actions WHERE session_id = ? ORDER BY version", (session_id,)
        )
        return [self._record(row) for row in rows]

    @staticmethod
    def _record(row: aiosqlite.Row) -> ActionRecord:
        return ActionRecord(
            session_id=row["session_id"],
            version=row["version"],
            interaction_id=row["interaction_id"],
            player=row["player"],
            action=json.loads(row["action"]),
            events=json.loads(row["events"]),
            created_at=row["created_at"],
        )


@dataclass(frozen=True)
class UsedWordRecord:
    round: int
    player: str
    word: str
    lemma_key: str


class UsedWords:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(self, tx: Transaction, session_id: int, words: list[UsedWordRecord]) -> None:
        await tx.executemany(
            "INSERT OR IGNORE INTO used_words (session_id, round, player, word, lemma_key) VALUES (?, ?, ?, ?, ?)",
            [(session_id, w.round, w.player, w.word, w.lemma_key) for w in words],
        )

    async def for_session(self, session_id: int) -> list[UsedWordRecord]:
        rows = await self._db.fetch_all(
            "SELECT round, player, word, lemma_key FROM used_words WHERE session_id = ? ORDER BY id",
            (session_id,),
        )
        return [UsedWordRecord(r["round"], r["player"], r["word"], r["lemma_key"]) for r in rows]

    async def was_used(self, session_id: int, lemma_key: str, before_round: int) -> bool:
        row = await self._db.fetch_one(
            "SELECT 1 FROM used_words WHERE session_id = ? AND lemma_key = ? AND round < ? LIMIT 1",
            (session_id, lemma_key, before_round),
        )
        return row is not None


@dataclass
class VoteRecord:
    id: int
    session_id: int | None
    channel_id: int
    message_id: int | None
    kind: str
    question: str
    eligible: list[str]
    deadline: float
    status: str
    result: str | None
    payload: dict[str, Any]


class Votes:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def create(self, tx: Transaction, vote: VoteRecord, now: float) -> int:
        return await tx.execute(
            "INSERT INTO votes (session_id, channel_id, message_id, kind, question, eligible, deadline, status,"
            " payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?, ?)",
            (
                vote.session_id,
                vote.channel_id,
                vote.message_id,
                vote.kind,
                vote.question,
                _dumps(vote.eligible),
                vote.deadline,
                _dumps(vote.payload),
                now,
            ),
        )

    async def set_message(self, vote_id: int, message_id: int, tx: Transaction) -> None:
        await tx.execute("UPDATE votes SET message_id = ? WHERE id = ?", (message_id, vote_id))

    async def get(self, vote_id: int) -> VoteRecord | None:
        row = await self._db.fetch_one("SELECT * FROM votes WHERE id = ?", (vote_id,))
        return self._record(row) if row else None

    async def all_open(self) -> list[VoteRecord]:
        rows = await self._db.fetch_all("SELECT * FROM votes WHERE status = 'open' ORDER BY id")
        return [self._record(row) for row in rows]

    async def for_session(self, session_id: int, kind: str) -> list[VoteRecord]:
        """A session's votes of one kind, oldest first (e.g. who already asked to end, and when)."""
        rows = await self._db.fetch_all(
            "SELECT * FROM votes WHERE session_id = ? AND kind = ? ORDER BY id", (session_id, kind)
        )
        return [self._record(row) for row in rows]

    async def open_of_kind(self, tx: Transaction, session_id: int, kind: str) -> VoteRecord | None:
        """The session's open vote of one kind, read inside `tx` (so that a write in it can depend on it)."""
        row = await tx.fetch_one(
            "SELECT * FROM votes WHERE session_id = ? AND kind = ? AND status = 'open' ORDER BY id LIMIT 1",
            (session_id, kind),
        )
        return self._record(row) if row else None

    async def cast(self, tx: Transaction, vote_id: int, voter: str, yes: bool, now: float) -> None:
        """A voter may change their mind while the vote is open: the last ballot counts."""
        await tx.execute(
            "INSERT INTO ballots (vote_id, voter, yes, cast_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (vote_id, voter) DO UPDATE SET yes = excluded.yes, cast_at = excluded.cast_at",
            (vote_id, voter, int(yes), now),
        )

    async def ballots(self, vote_id: int) -> dict[str, bool]:
        rows = await self._db.fetch_all("SELECT voter, yes FROM ballots WHERE vote_id = ?", (vote_id,))
        return {row["voter"]: bool(row["yes"]) for row in rows}

    async def close(self, tx: Transaction, vote_id: int, result: str) -> bool:
        """Close an open vote; False when it was already closed."""
        row = await tx.fetch_one("SELECT status FROM votes WHERE id = ?", (vote_id,))
        if row is None or row["status"] != "open":
            return False
        await tx.execute("UPDATE votes SET status = 'closed', result = ? WHERE id = ?", (result, vote_id))
        return True

    @staticmethod
    def _record(row: aiosqlite.Row) -> VoteRecord:
        return VoteRecord(
            id=row["id"],
            session_id=row["session_id"],
            channel_id=row["channel_id"],
            message_id=row["message_id"],
            kind=row["kind"],
            question=row["question"],
            eligible=json.loads(row["eligible"]),
            deadline=row["deadline"],
            status=row["status"],
            result=row["result"],
            payload=json.loads(row["payload"]),
        )


@dataclass(frozen=True)
class ResultRow:
    user_id: str
    score: int
    rank: int
    won: bool
    result: str | None = None  # "won" | "lost"; a cooperative game's players share the team's result


@dataclass(frozen=True)
class LeaderboardRow:
    user_id: str
    games: int
    wins: int
    best: int
    total: int


class Results:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def record(
        self, tx: Transaction, session_id: int, guild_id: int, game: str, rows: list[ResultRow], now: float
    ) -> None:
        await tx.executemany(
            "INSERT OR REPLACE INTO results (session_id, guild_id, game, user_id, score, rank, won, finished_at,"
            " result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (session_id, guild_id, game, r.user_id, r.score, r.rank, int(r.won), now, r.result)
                for r in rows
            ],
        )

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[LeaderboardRow]:
        """Most wins first; then the better average place (a player who left a game was placed after every
        player who stayed, whatever their score); then the better total in the game's own direction."""
        row = await self._db.fetch_one(
            "SELECT MAX(lower_is_better) FROM results WHERE guild_id = ? AND game = ?", (guild_id, game)
        )
        lower = bool(row[0]) if row and row[0] is not None else False
        # The direction is one of two fixed SQL fragments, never user input.
        total_order = "SUM(score) ASC" if lower else "SUM(score) DESC"
        best = "MIN(score)" if lower else "MAX(score)"
        rows = await self._db.fetch_all(
            f"SELECT user_id, COUNT(*) AS games, SUM(won) AS wins, {best} AS best, SUM(score) AS total"
            " FROM results WHERE guild_id = ? AND game = ? GROUP BY user_id"
            f" ORDER BY wins DESC, AVG(rank) ASC, {total_order}, user_id LIMIT ?",
            (guild_id, game, limit),
        )
        return [LeaderboardRow(r["user_id"], r["games"], r["wins"], r["best"], r["total"]) for r in rows]

    async def for_session(self, session_id: int) -> list[ResultRow]:
        rows = await self._db.fetch_all(
            "SELECT user_id, score, rank, won, result FROM results WHERE session_id = ? ORDER BY rank, user_id",
            (session_id,),
        )
        return [ResultRow(r["user_id"], r["score"], r["rank"], bool(r["won"]), r["result"]) for r in rows]


@dataclass(frozen=True)
class Profile:
    user_id: str
    birth_month: int | None
    birth_day: int | None
    language: str | None
    turn_notices: bool = True  # a message that mentions the player when a game awaits them


class Profiles:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, user_id: str) -> Profile | None:
        row = await self._db.fetch_one("SELECT * FROM profiles WHERE user_id = ?", (user_id,))
        if row is None:
            return None
        return Profile(
            row["user_id"], row["birth_month"], row["birth_day"], row["language"], bool(row["turn_notices"])
        )

    async def set_birthday(self, tx: Transaction, user_id: str, month: int, day: int, now: float) -> None:
        await tx.execute(
            "INSERT INTO profiles (user_id, birth_month, birth_day, updated_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET birth_month = excluded.birth_month,"
            " birth_day = excluded.birth_day, updated_at = excluded.updated_at",
            (user_id, month, day, now),
        )

    async def set_turn_notices(self, tx: Transaction, user_id: str, wanted: bool, now: float) -> None:
        await tx.execute(
            "INSERT INTO profiles (user_id, turn_notices, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET turn_notices = excluded.turn_notices,"
            " updated_at = excluded.updated_at",
            (user_id, int(wanted), now),
        )

    async def set_language(self, tx: Transaction, user_id: str, language: str, now: float) -> None:
        await tx.execute(
            "INSERT INTO profiles (user_id, language, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET language = excluded.language, updated_at = excluded.updated_at",
            (user_id, language, now),
        )

    async def result_count(self, user_id: str) -> int:
        """How many results rows (one per finished game) carry this player's id."""
        row = await self._db.fetch_one("SELECT COUNT(*) FROM results WHERE user_id = ?", (user_id,))
        return int(row[0]) if row else 0

    @staticmethod
    async def delete(tx: Transaction, user_id: str) -> bool:
        """Forget the player's profile (birthday, language, turn-notice choice); False if there was none."""
        if await tx.fetch_one("SELECT 1 FROM profiles WHERE user_id = ?", (user_id,)) is None:
            return False
        await tx.execute("DELETE FROM profiles WHERE user_id = ?", (user_id,))
        return True

    @staticmethod
    async def anonymise_results(tx: Transaction, user_id: str) -> tuple[str, int]:
        """Replace the player's id in every results row by one new anonymous id (the rows stay, so the others'
        leaderboards keep their games): the same id on all of them, drawn at random, so nothing leads back
        to the player. Returns that id and how many rows it replaced."""
        anonymous = anonymous_id()
        row = await tx.fetch_one("SELECT COUNT(*) FROM results WHERE user_id = ?", (user_id,))
        count = int(row[0]) if row else 0
        if count:
            await tx.execute("UPDATE results SET user_id = ? WHERE user_id = ?", (anonymous, user_id))
        return anonymous, count


ANONYMOUS_PREFIX = "anon-"


def anonymous_id() -> str:
    """A new anonymous player id: never a Discord id (those are digits), never derived from one."""
    return ANONYMOUS_PREFIX + secrets.token_hex(8)


def is_anonymous(user_id: str) -> bool:
    return user_id.startswith(ANONYMOUS_PREFIX)


@dataclass(frozen=True)
class ServerWord:
    """One word of a server's own dictionary."""

    word: str
    valid: bool
    source: str  # "vote" (a table's vote) or "admin" (/dictionary add)
    decided_at: float
    decided_by: str | None
    session_id: int | None

    @property
    def day(self) -> str:
        """The day it was decided (UTC), as the verdict shows it."""
        return time.strftime("%Y-%m-%d", time.gmtime(self.decided_at))


class ServerWords:
    """Each server's dictionary, per language: it overrides the spellcheck dictionary in later games."""

    # Most words a game takes along (its setup holds them, so that a replay judges alike).
    SNAPSHOT_LIMIT = 5000

    def __init__(self, db: Database) -> None:
        self._db = db

    @staticmethod
    def ruling_statement(
        guild_id: int, language: str, word: str, valid: bool, now: float, session_id: int | None
    ) -> Statement:
        """A table's vote, written in the same transaction as the action that closed it; a later vote
        overturns an earlier one, and an admin's entry too."""
        return Statement(
            "INSERT INTO server_words (guild_id, language, word, valid, source, decided_at, session_id)"
            " VALUES (?, ?, ?, ?, 'vote', ?, ?) ON CONFLICT (guild_id, language, word) DO UPDATE SET"
            " valid = excluded.valid, source = 'vote', decided_at = excluded.decided_at, decided_by = NULL,"
            " session_id = excluded.session_id",
            (guild_id, language, word, int(valid), now, session_id),
        )

    async def set(
        self, tx: Transaction, guild_id: int, language: str, word: str, valid: bool, by: str, now: float
    ) -> None:
        await tx.execute(
            "INSERT INTO server_words (guild_id, language, word, valid, source, decided_at, decided_by)"
            " VALUES (?, ?, ?, ?, 'admin', ?, ?) ON CONFLICT (guild_id, language, word) DO UPDATE SET"
            " valid = excluded.valid, source = 'admin', decided_at = excluded.decided_at,"
            " decided_by = excluded.decided_by, session_id = NULL",
            (guild_id, language, word, int(valid), now, by),
        )

    async def remove(self, tx: Transaction, guild_id: int, language: str, word: str) -> bool:
        """Forget a word (the spellcheck dictionary judges it again); False if the server had no entry."""
        key = (guild_id, language, word)
        where = "guild_id = ? AND language = ? AND word = ?"
        if await tx.fetch_one(f"SELECT 1 FROM server_words WHERE {where}", key) is None:
            return False
        await tx.execute(f"DELETE FROM server_words WHERE {where}", key)
        return True

    async def list(
        self, guild_id: int, language: str, *, prefix: str = "", offset: int = 0, limit: int = 5000
    ) -> list[ServerWord]:
        """The server's words in a language, alphabetically (those starting with `prefix`)."""
        rows = await self._db.fetch_all(
            "SELECT * FROM server_words WHERE guild_id = ? AND language = ? AND word >= ? AND word < ?"
            " ORDER BY word LIMIT ? OFFSET ?",
            (guild_id, language, prefix, prefix + "\U0010ffff", limit, offset),
        )
        return [_server_word(row) for row in rows]

    async def get(self, guild_id: int, language: str, word: str) -> ServerWord | None:
        row = await self._db.fetch_one(
            "SELECT * FROM server_words WHERE guild_id = ? AND language = ? AND word = ?",
            (guild_id, language, word),
        )
        return _server_word(row) if row is not None else None

    async def count(self, guild_id: int, language: str) -> int:
        row = await self._db.fetch_one(
            "SELECT COUNT(*) AS n FROM server_words WHERE guild_id = ? AND language = ?", (guild_id, language)
        )
        return int(row["n"]) if row else 0

    async def snapshot(self, guild_id: int, language: str) -> dict[str, dict[str, Any]]:
        """What a new game takes along: the most recent SNAPSHOT_LIMIT words, with their verdict and day."""
        rows = await self._db.fetch_all(
            "SELECT * FROM server_words WHERE guild_id = ? AND language = ? ORDER BY decided_at DESC LIMIT ?",
            (guild_id, language, self.SNAPSHOT_LIMIT),
        )
        words = (_server_word(row) for row in rows)
        return {w.word: {"valid": w.valid, "day": w.day} for w in words}


def _server_word(row: Any) -> ServerWord:
    return ServerWord(
        row["word"],
        bool(row["valid"]),
        row["source"],
        row["decided_at"],
        row["decided_by"],
        row["session_id"],
    )


@dataclass
class ServerSettings:
    """What a server's admins set with /settings besides its language (`guild_settings.settings`, JSON):
    the channels where games may start (empty: anywhere), the most games open at once (None: the bot's
    limit), and per game the defaults of its options."""

    channels: list[int] = field(default_factory=list)
    max_games: int | None = None
    defaults: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def from_json(cls, text: str | None) -> ServerSettings:
        """The stored settings; a value of the wrong shape is left out (it never stops a game opening)."""
        try:
            data = json.loads(text or "{}")
        except ValueError:
            data = {}
        if not isinstance(data, dict):
            data = {}
        channels = data.get("channels")
        max_games = data.get("max_games")
        defaults = data.get("defaults")
        return cls(
            channels=[c for c in channels if type(c) is int] if isinstance(channels, list) else [],
            max_games=max_games if type(max_games) is int and max_games > 0 else None,
            defaults={
                game: dict(values)
                for game, values in (defaults.items() if isinstance(defaults, dict) else ())
                if isinstance(game, str) and isinstance(values, dict) and values
            },
        )

    def to_json(self) -> str:
        data: dict[str, Any] = {}
        if self.channels:
            data["channels"] = self.channels
        if self.max_games is not None:
            data["max_games"] = self.max_games
        if any(self.defaults.values()):
            data["defaults"] = {game: values for game, values in self.defaults.items() if values}
        return _dumps(data)


# A server that set /settings but never its language: the `language` column (NOT NULL) holds this, and the
# language is then the caller's (`GuildSettings.language`'s default).
NO_LANGUAGE = ""


class GuildSettings:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def language(self, guild_id: int, default: str) -> str:
        return await self.chosen_language(guild_id) or default

    async def chosen_language(self, guild_id: int) -> str | None:
        """The language the server's admins chose, or None."""
        row = await self._db.fetch_one("SELECT language FROM guild_settings WHERE guild_id = ?", (guild_id,))
        return str(row["language"]) if row and row["language"] != NO_LANGUAGE else None

    async def set_language(self, tx: Transaction, guild_id: int, language: str, now: float) -> None:
        await tx.execute(
            "INSERT INTO guild_settings (guild_id, language, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (guild_id) DO UPDATE SET language = excluded.language, updated_at = excluded.updated_at",
            (guild_id, language, now),
        )

    async def settings(self, guild_id: int) -> ServerSettings:
        row = await self._db.fetch_one("SELECT settings FROM guild_settings WHERE guild_id = ?", (guild_id,))
        return ServerSettings.from_json(row["settings"] if row else None)

    async def update(
        self, tx: Transaction, guild_id: int, change: Callable[[ServerSettings], None], now: float
    ) -> ServerSettings:
        """Read, change (in place) and write the server's settings in the caller's transaction, so that two
        admins' changes at once both stay. Returns the settings as written."""
        row = await tx.fetch_one("SELECT settings FROM guild_settings WHERE guild_id = ?", (guild_id,))
        settings = ServerSettings.from_json(row["settings"] if row else None)
        change(settings)
        await tx.execute(
            "INSERT INTO guild_settings (guild_id, language, settings, updated_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (guild_id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at",
            (guild_id, NO_LANGUAGE, settings.to_json(), now),
        )
        return settings


class Meta:
    """Small facts the bot remembers about itself (the synced command tree's hash)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, key: str) -> str | None:
        row = await self._db.fetch_one("SELECT value FROM meta WHERE key = ?", (key,))
        return str(row["value"]) if row else None

    async def set(self, tx: Transaction, key: str, value: str) -> None:
        await tx.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )
