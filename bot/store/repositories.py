"""Every SQL statement of the bot lives here; values are always bound parameters."""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import aiosqlite
import orjson

from bot.store.database import Backend, StaleWrite, Statement, Transaction
from bot.store.postgres import json_value
from bot.store.shards import Shards

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
    # The bot seats (docs/bots.md): player id ("bot:1") -> {"level": "hard", "seed": <the seat's own seed>}.
    bots: dict[str, dict[str, Any]] = field(default_factory=dict)

    def name(self, user_id: str) -> str:
        return self.names.get(user_id, user_id)

    @property
    def with_bots(self) -> bool:
        return bool(self.bots)

    @property
    def people(self) -> list[str]:
        """The seated players who are not bots."""
        return [player for player in self.players if player not in self.bots]

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
            bots=json.loads(row["bots"]),
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


# A timer set again replaces the one under its key (an upsert: the same text for SQLite and PostgreSQL).
SET_TIMER = (
    "INSERT INTO timers (session_id, key, at, action) VALUES (?, ?, ?, ?)"
    " ON CONFLICT (session_id, key) DO UPDATE SET at = excluded.at, action = excluded.action"
)


def _timer_rows(session_id: int, timers: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    return [(session_id, key, timer["at"], encode(timer["action"])) for key, timer in timers.items()]


class Sessions:
    """Sessions and their timers. The async methods suit occasional use; the `*_work` functions are
    units for `Database.run` (group commit) on the engine's hot path."""

    def __init__(self, db: Backend) -> None:
        self._db = db

    async def create(self, tx: Transaction, record: SessionRecord) -> int:
        try:
            session_id = await tx.insert(
                "INSERT INTO sessions (guild_id, channel_id, game, status, host_id, players, options, seed,"
                " seed_text, setup, snapshot, version, message_id, created_at, updated_at, names, bots)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                    _dumps(record.bots),
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
            " snapshot_version = ?, message_id = ?, updated_at = ?, names = ?, bots = ? WHERE id = ?",
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
                _dumps(record.bots),
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

    async def all_deadlines(self, shards: Shards | None = None) -> list[tuple[int, str, float]]:
        """Every armed deadline of every open session (of the guilds of `shards`): (session, key, at).
        Start-up reads only this."""
        if shards is None or shards.all:
            rows = await self._db.fetch_all("SELECT session_id, key, at FROM timers")
        else:
            served, params = shards.where("sessions.guild_id")
            rows = await self._db.fetch_all(
                "SELECT timers.session_id, timers.key, timers.at FROM timers"
                f" JOIN sessions ON sessions.id = timers.session_id WHERE {served}",
                params,
            )
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

    async def open_ids(self, game: str, shards: Shards | None = None) -> list[int]:
        """The sessions of `game` still open (lobby or active), of the guilds of `shards`, oldest first."""
        served, params = (shards or Shards()).where("guild_id")
        rows = await self._db.fetch_all(
            f"SELECT id FROM sessions WHERE game = ? AND status IN ('lobby', 'active') AND {served} ORDER BY id",
            (game, *params),
        )
        return [int(row[0]) for row in rows]

    async def open_with_bots(self, game: str, shards: Shards | None = None) -> list[int]:
        """The running sessions of `game` with a bot seat (of the guilds of `shards`), oldest first."""
        served, params = (shards or Shards()).where("guild_id")
        rows = await self._db.fetch_all(
            f"SELECT id FROM sessions WHERE game = ? AND status = 'active' AND bots <> '{{}}' AND {served}"
            " ORDER BY id",
            (game, *params),
        )
        return [int(row[0]) for row in rows]

    async def count_open(self, shards: Shards | None = None) -> int:
        """The open sessions (of the guilds of `shards`)."""
        served, params = (shards or Shards()).where("guild_id")
        row = await self._db.fetch_one(
            f"SELECT COUNT(*) FROM sessions WHERE status IN ('lobby', 'active') AND {served}", params
        )
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
                "INSERT INTO used_words (session_id, round, player, word, lemma_key)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (record.id, w.round, w.player, w.word, w.lemma_key),
            )
            for w in used_words
        ]
        unit += extra or []
        unit += [
            Statement("DELETE FROM timers WHERE session_id = ? AND key = ?", (record.id, key))
            for key in timers_removed
        ]
        unit += [Statement(SET_TIMER, row) for row in _timer_rows(record.id, timers_set)]
        meta = outcome_meta or {}
        unit += [
            Statement(
                "INSERT INTO results (session_id, guild_id, game, user_id, score, rank, won, finished_at,"
                " result, lower_is_better, team_result, team_rating, with_bots)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (session_id, user_id) DO UPDATE SET guild_id = excluded.guild_id,"
                " game = excluded.game, score = excluded.score, rank = excluded.rank, won = excluded.won,"
                " finished_at = excluded.finished_at, result = excluded.result,"
                " lower_is_better = excluded.lower_is_better, team_result = excluded.team_result,"
                " team_rating = excluded.team_rating, with_bots = excluded.with_bots",
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
                    int(record.with_bots),
                ),
            )
            for r in results or []
        ]
        if status in OPEN_STATUSES:
            unit += News.add_statements(record.id, version, action.created_at, news or {})
        elif record.status in OPEN_STATUSES:
            unit.append(News.drop_session_statement(record.id))
            unit.append(Consoles.drop_session_statement(record.id))
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
        conn: sqlite3.Connection,
        session_id: int,
        players: list[str],
        names: dict[str, str],
        now: float,
        bots: dict[str, dict[str, Any]],
    ) -> None:
        """The lobby's seats: players, their names and its bot seats."""
        conn.execute(
            "UPDATE sessions SET players = ?, names = ?, bots = ?, updated_at = ? WHERE id = ?"
            " AND status = 'lobby'",
            (_dumps(players), _dumps(names), _dumps(bots), now, session_id),
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
        conn.execute("DELETE FROM consoles WHERE session_id = ?", (session_id,))  # nor a console redrawn

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
            SET_TIMER,
            _timer_rows(session_id, wanted),
        )


class News:
    """Private events told to a player by another's action or a timer, until the table layer shows them.

    Written in the unit of the action that told them (`add_statements`, from `Sessions.step_unit`), read by
    (session, player), deleted once shown. A session that closes drops its news: nobody can be shown them
    any more (a closed game has no console and no private answer).
    """

    KEPT = 20  # per player: the latest ones (a long absence must not grow a message)

    def __init__(self, db: Backend) -> None:
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
class StoredConsole:
    """A player's open console: the interaction token that edits its message, issued at `opened_at`."""

    session_id: int
    player: str
    application_id: int
    token: str
    language: str
    opened_at: float
    message_id: int | None = None


class Consoles:
    """Each player's open console per session, so that a restart keeps it following the table (its token
    edits it for 15 minutes from its interaction). One row per player: their latest console. Dropped with
    the session's end (a closed game's consoles are no longer redrawn) and once the token is of no use."""

    def __init__(self, db: Backend) -> None:
        self._db = db

    @staticmethod
    def save_statements(console: StoredConsole) -> list[Statement]:
        return [
            Statement(
                "INSERT INTO consoles (session_id, player, application_id, token, language, opened_at,"
                " message_id) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, player) DO UPDATE SET"
                " application_id = excluded.application_id, token = excluded.token,"
                " language = excluded.language, opened_at = excluded.opened_at,"
                " message_id = excluded.message_id",
                (
                    console.session_id,
                    console.player,
                    console.application_id,
                    console.token,
                    console.language,
                    console.opened_at,
                    console.message_id,
                ),
            )
        ]

    @staticmethod
    def drop_statements(session_id: int, player: str, token: str) -> list[Statement]:
        """That console's row, unless a newer console of the player replaced it meanwhile."""
        return [
            Statement(
                "DELETE FROM consoles WHERE session_id = ? AND player = ? AND token = ?",
                (session_id, player, token),
            )
        ]

    @staticmethod
    def drop_session_statement(session_id: int) -> Statement:
        return Statement("DELETE FROM consoles WHERE session_id = ?", (session_id,))

    @staticmethod
    def drop_older_statements(before: float) -> list[Statement]:
        """Consoles whose token Discord no longer honours."""
        return [Statement("DELETE FROM consoles WHERE opened_at < ?", (before,))]

    async def live(self, game: str, since: float, shards: Shards | None = None) -> list[StoredConsole]:
        """The consoles of `game`'s running sessions (of the guilds of `shards`) opened since `since`."""
        served, params = (shards or Shards()).where("s.guild_id")
        rows = await self._db.fetch_all(
            "SELECT c.session_id, c.player, c.application_id, c.token, c.language, c.opened_at, c.message_id"
            " FROM consoles AS c JOIN sessions AS s ON s.id = c.session_id"
            f" WHERE s.game = ? AND s.status = 'active' AND c.opened_at >= ? AND {served}"
            " ORDER BY c.session_id, c.player",
            (game, since, *params),
        )
        return [
            StoredConsole(
                session_id=int(row[0]),
                player=str(row[1]),
                application_id=int(row[2]),
                token=str(row[3]),
                language=str(row[4]),
                opened_at=float(row[5]),
                message_id=None if row[6] is None else int(row[6]),
            )
            for row in rows
        ]


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

    def __init__(self, db: Backend) -> None:
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
                "INSERT INTO turn_notices (session_id, awaiting, message_id, previous_id) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (session_id) DO UPDATE SET awaiting = excluded.awaiting,"
                " message_id = excluded.message_id, previous_id = excluded.previous_id",
                (session_id, _dumps(list(notice.awaiting)), notice.message_id, notice.previous_id),
            )
        ]

    @staticmethod
    def drop_statements(session_id: int) -> list[Statement]:
        return [Statement("DELETE FROM turn_notices WHERE session_id = ?", (session_id,))]


class Actions:
    """The append-only log of every applied action per session."""

    def __init__(self, db: Backend) -> None:
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
    def __init__(self, db: Backend) -> None:
        self._db = db

    async def add(self, tx: Transaction, session_id: int, words: list[UsedWordRecord]) -> None:
        await tx.executemany(
            "INSERT INTO used_words (session_id, round, player, word, lemma_key) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT DO NOTHING",
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


@dataclass(frozen=True)
class GameTally:
    """A member's finished games of one game on a server: how many, won, and their points."""

    game: str
    games: int
    wins: int
    total: int
    best: int  # in the game's own direction: the lowest score where lower is better
    lower_is_better: bool

    @property
    def average(self) -> float:
        return self.total / self.games if self.games else 0.0


@dataclass(frozen=True)
class BotRecord:
    """A member's games of one game with a bot of one level: how many, and how many they won."""

    game: str
    level: str
    games: int
    wins: int


@dataclass(frozen=True)
class ScorePoint:
    """One finished game's score, when it ended."""

    game: str
    finished_at: float
    score: int


@dataclass(frozen=True)
class RatingPoint:
    """A member's rating in a game after one finished game."""

    finished_at: float
    rating: float


@dataclass(frozen=True)
class FinishedGame:
    """One finished game of a server, as /history lists it."""

    session_id: int
    game: str
    finished_at: float
    players: tuple[str, ...]
    names: dict[str, str]
    winners: tuple[str, ...]


class Stats:
    """A member's record on a server, read from the results (indexed by server, member, game and time) and,
    for what the results do not hold, from the final snapshot of each finished game: it holds every word
    revealed and every move kept, judged and decided, and it is read once per game, where the action log
    would have to be replayed."""

    def __init__(self, db: Backend) -> None:
        self._db = db

    async def tallies(self, guild_id: int, user_id: str, game: str | None = None) -> list[GameTally]:
        """Per game played against people only: games, wins, total and best score in the game's direction
        (a game with a bot is counted apart: `against_bots`)."""
        rows = await self._db.fetch_all(
            "SELECT game, COUNT(*) AS games, SUM(won) AS wins, SUM(score) AS total, MIN(score) AS low,"
            " MAX(score) AS high, MAX(lower_is_better) AS lower FROM results WHERE guild_id = ? AND user_id = ?"
            " AND with_bots = 0 AND (CAST(? AS TEXT) IS NULL OR game = ?) GROUP BY game ORDER BY game",
            (guild_id, user_id, game, game),
        )
        return [
            GameTally(
                r["game"],
                r["games"],
                r["wins"],
                r["total"],
                r["low"] if r["lower"] else r["high"],
                bool(r["lower"]),
            )
            for r in rows
        ]

    async def against_bots(self, guild_id: int, user_id: str, game: str | None = None) -> list[BotRecord]:
        """The member's games with bots, per game and bot level: how many had a bot of that level, and how many
        of those the member won (a cooperative game's team win counts)."""
        rows = await self._db.fetch_all(
            "SELECT r.game, r.won, s.bots FROM results AS r JOIN sessions AS s ON s.id = r.session_id"
            " WHERE r.guild_id = ? AND r.user_id = ? AND r.with_bots = 1 AND (CAST(? AS TEXT) IS NULL OR r.game = ?)",
            (guild_id, user_id, game, game),
        )
        counted: dict[tuple[str, str], list[int]] = {}
        for row in rows:
            for level in sorted({str(seat.get("level")) for seat in json.loads(row["bots"]).values()}):
                games_won = counted.setdefault((row["game"], level), [0, 0])
                games_won[0] += 1
                games_won[1] += int(row["won"])
        return [
            BotRecord(game, level, games, wins) for (game, level), (games, wins) in sorted(counted.items())
        ]

    async def score_points(
        self, guild_id: int, user_id: str, game: str | None = None, limit: int = 100
    ) -> list[ScorePoint]:
        """The member's last `limit` scores, oldest first."""
        rows = await self._db.fetch_all(
            "SELECT game, finished_at, score FROM results WHERE guild_id = ? AND user_id = ?"
            " AND (CAST(? AS TEXT) IS NULL OR game = ?) ORDER BY finished_at DESC, session_id DESC LIMIT ?",
            (guild_id, user_id, game, game, limit),
        )
        return [ScorePoint(r["game"], r["finished_at"], r["score"]) for r in reversed(rows)]

    async def rating_points(self, guild_id: int, user_id: str, game: str) -> list[RatingPoint] | None:
        """The member's rating in `game` after each rated game, oldest first (the rating shown: mu − 3σ, as
        the leaderboard shows it); None when the member has no rating in it yet."""
        rows = await self._db.fetch_all(
            "SELECT rated_at, mu - 3 * sigma AS rating FROM rating_history WHERE guild_id = ? AND game = ?"
            " AND user_id = ? ORDER BY id",
            (guild_id, game, user_id),
        )
        return [RatingPoint(r["rated_at"], float(r["rating"])) for r in rows] or None

    async def member_entries(
        self, guild_id: int, user_id: str, game: str, *, each: str, keyed: str, fields: Sequence[str]
    ) -> list[tuple[Any, ...]]:
        """From the final snapshot of each of the member's finished games of `game`, oldest first: for every
        element of the array at the JSON path `each`, the member's own list in the object at `keyed` (keyed
        by player id), flattened; each entry as the values at `fields` (JSON paths within it).

        The snapshot is read in the database, never decoded here: only the fields asked for come back."""
        if self._db.dialect == "postgresql":
            return await self._member_entries_postgresql(guild_id, user_id, game, each, keyed, fields)
        picked = ", ".join("json_extract(e.value, ?)" for _ in fields)  # placeholders only: paths are bound
        rows = await self._db.fetch_all(
            f"SELECT {picked} FROM results AS r JOIN sessions AS s ON s.id = r.session_id,"
            " json_each(s.snapshot, ?) AS element, json_each(element.value, ?) AS owned,"
            " json_each(owned.value) AS e"
            " WHERE r.guild_id = ? AND r.user_id = ? AND r.game = ? AND s.status = 'finished'"
            " AND s.snapshot_version = s.version AND owned.key = r.user_id"
            " ORDER BY r.finished_at, r.session_id, element.key, e.key",
            (*fields, each, keyed, guild_id, user_id, game),
        )
        return [tuple(row) for row in rows]

    async def member_items(
        self,
        guild_id: int,
        user_id: str,
        game: str,
        *,
        each: str,
        owner: str,
        fields: Sequence[str],
        highest: str | None = None,
    ) -> list[tuple[Any, ...]]:
        """From the final snapshot of each of the member's finished games of `game`, oldest first: the
        elements of the array at the JSON path `each` whose `owner` (a path within them) is the member, as the
        values at `fields`; `highest`: only the element with the highest value there (the earliest of
        equals)."""
        if self._db.dialect == "postgresql":
            return await self._member_items_postgresql(guild_id, user_id, game, each, owner, fields, highest)
        picked = ", ".join("json_extract(m.value, ?)" for _ in fields)  # placeholders only: paths are bound
        order = "json_extract(m.value, ?) DESC, " if highest is not None else ""
        rows = await self._db.fetch_all(
            f"SELECT {picked} FROM results AS r JOIN sessions AS s ON s.id = r.session_id,"
            " json_each(s.snapshot, ?) AS m"
            " WHERE r.guild_id = ? AND r.user_id = ? AND r.game = ? AND s.status = 'finished'"
            " AND s.snapshot_version = s.version AND json_extract(m.value, ?) = r.user_id"
            f" ORDER BY {order}r.finished_at, r.session_id, m.key LIMIT ?",
            (
                *fields,
                each,
                guild_id,
                user_id,
                game,
                owner,
                *([highest] if highest is not None else []),
                1 if highest is not None else -1,
            ),
        )
        return [tuple(row) for row in rows]

    # PostgreSQL's JSON functions for SQLite's json_each and json_extract: the paths asked for are written
    # alike in both (`$.key`); a value comes back as json_extract gives it (postgres.json_value).

    async def _member_entries_postgresql(
        self, guild_id: int, user_id: str, game: str, each: str, keyed: str, fields: Sequence[str]
    ) -> list[tuple[Any, ...]]:
        picked = ", ".join(_JSON_AT.format("e.value") for _ in fields)
        rows = await self._db.fetch_all(
            f"SELECT {picked} FROM results AS r JOIN sessions AS s ON s.id = r.session_id,"
            f" {_JSON_EACH_AT.format('CAST(s.snapshot AS jsonb)')} AS element (value, key),"
            f" jsonb_each({_JSON_AT.format('element.value')}) AS owned,"
            " jsonb_path_query(owned.value, '$[*]') WITH ORDINALITY AS e (value, key)"
            " WHERE r.guild_id = ? AND r.user_id = ? AND r.game = ? AND s.status = 'finished'"
            " AND s.snapshot_version = s.version AND owned.key = r.user_id"
            " ORDER BY r.finished_at, r.session_id, element.key, e.key",
            (*fields, each, keyed, guild_id, user_id, game),
        )
        return [tuple(json_value(value) for value in row) for row in rows]

    async def _member_items_postgresql(
        self,
        guild_id: int,
        user_id: str,
        game: str,
        each: str,
        owner: str,
        fields: Sequence[str],
        highest: str | None,
    ) -> list[tuple[Any, ...]]:
        picked = ", ".join(_JSON_AT.format("m.value") for _ in fields)
        order = f"{_JSON_AT.format('m.value')} DESC NULLS LAST, " if highest is not None else ""
        rows = await self._db.fetch_all(
            f"SELECT {picked} FROM results AS r JOIN sessions AS s ON s.id = r.session_id,"
            f" {_JSON_EACH_AT.format('CAST(s.snapshot AS jsonb)')} AS m (value, key)"
            " WHERE r.guild_id = ? AND r.user_id = ? AND r.game = ? AND s.status = 'finished'"
            f" AND s.snapshot_version = s.version AND {_JSON_AT.format('m.value')} #>> '{{}}' = r.user_id"
            f" ORDER BY {order}r.finished_at, r.session_id, m.key LIMIT ?",
            (
                *fields,
                each,
                guild_id,
                user_id,
                game,
                owner,
                *([highest] if highest is not None else []),
                1 if highest is not None else None,
            ),
        )
        return [tuple(json_value(value) for value in row) for row in rows]


# The value at a bound JSON path; the elements of the array there, numbered from 1 (none when it is missing).
_JSON_AT = "jsonb_path_query_first({}, CAST(? AS jsonpath))"
_JSON_EACH_AT = "jsonb_path_query({}, CAST(CAST(? AS TEXT) || '[*]' AS jsonpath)) WITH ORDINALITY"


class History:
    """A server's finished games, newest first."""

    def __init__(self, db: Backend) -> None:
        self._db = db

    async def finished(
        self, guild_id: int, game: str | None = None, *, offset: int = 0, limit: int = 10
    ) -> list[FinishedGame]:
        """A page of the server's finished games (of one game, or all), each with its players and winners."""
        # Two statements, not `game = ? OR ? IS NULL`: each must name its partial index's columns to use it.
        # (`finished_at` is a finished session's `updated_at`, computed by the database: migration 11.)
        if game is None:
            rows = await self._db.fetch_all(
                "SELECT id, game, finished_at, players, names FROM sessions"
                " WHERE guild_id = ? AND status = 'finished' ORDER BY finished_at DESC, id DESC LIMIT ? OFFSET ?",
                (guild_id, limit, offset),
            )
        else:
            rows = await self._db.fetch_all(
                "SELECT id, game, finished_at, players, names FROM sessions"
                " WHERE guild_id = ? AND game = ? AND status = 'finished'"
                " ORDER BY finished_at DESC, id DESC LIMIT ? OFFSET ?",
                (guild_id, game, limit, offset),
            )
        ids = [int(row["id"]) for row in rows]
        winners: dict[int, list[str]] = {session_id: [] for session_id in ids}
        if ids:
            marks = ", ".join("?" for _ in ids)  # placeholders only: the ids are bound
            won = await self._db.fetch_all(
                f"SELECT session_id, user_id FROM results WHERE session_id IN ({marks}) AND won = 1"
                " ORDER BY session_id, rank, user_id",
                ids,
            )
            for row in won:
                winners[int(row["session_id"])].append(str(row["user_id"]))
        return [
            FinishedGame(
                int(row["id"]),
                row["game"],
                row["finished_at"],
                tuple(json.loads(row["players"])),
                json.loads(row["names"]),
                tuple(winners[int(row["id"])]),
            )
            for row in rows
        ]

    async def last_public_events(self, session_id: int) -> list[dict[str, Any]]:
        """The public events of a session's last action (a finished game's: those that ended it)."""
        row = await self._db.fetch_one(
            "SELECT events FROM actions WHERE session_id = ? ORDER BY version DESC LIMIT 1", (session_id,)
        )
        events = json.loads(row["events"]) if row is not None else []
        return [event for event in events if "private_to" not in event]


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
    guild_id: int | None = None  # None: its session's guild (filled in by `Votes.create`), or no guild


class Votes:
    def __init__(self, db: Backend) -> None:
        self._db = db

    async def create(self, tx: Transaction, vote: VoteRecord, now: float) -> int:
        return await tx.insert(
            "INSERT INTO votes (session_id, channel_id, message_id, kind, question, eligible, deadline, status,"
            " payload, created_at, guild_id) VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?, ?,"
            " COALESCE(?, (SELECT guild_id FROM sessions WHERE id = ?)))",
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
                vote.guild_id,
                vote.session_id,
            ),
        )

    async def set_message(self, vote_id: int, message_id: int, tx: Transaction) -> None:
        await tx.execute("UPDATE votes SET message_id = ? WHERE id = ?", (message_id, vote_id))

    async def get(self, vote_id: int) -> VoteRecord | None:
        row = await self._db.fetch_one("SELECT * FROM votes WHERE id = ?", (vote_id,))
        return self._record(row) if row else None

    async def all_open(self, shards: Shards | None = None) -> list[VoteRecord]:
        """The open votes (of the guilds of `shards`; a vote of no guild is shard 0's), oldest first."""
        served, params = (shards or Shards()).where("guild_id")
        rows = await self._db.fetch_all(
            f"SELECT * FROM votes WHERE status = 'open' AND {served} ORDER BY id", params
        )
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
            guild_id=row["guild_id"],
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
    def __init__(self, db: Backend) -> None:
        self._db = db

    async def record(
        self, tx: Transaction, session_id: int, guild_id: int, game: str, rows: list[ResultRow], now: float
    ) -> None:
        await tx.executemany(
            "INSERT INTO results (session_id, guild_id, game, user_id, score, rank, won, finished_at, result)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, user_id) DO UPDATE SET"
            " guild_id = excluded.guild_id, game = excluded.game, score = excluded.score, rank = excluded.rank,"
            " won = excluded.won, finished_at = excluded.finished_at, result = excluded.result,"
            " lower_is_better = 0, team_result = NULL, team_rating = NULL",
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
            " FROM results WHERE guild_id = ? AND game = ? AND with_bots = 0 GROUP BY user_id"
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


# A leaderboard's period: every game, or those finished in the last 30 or 7 days (a rolling window: the board
# never empties on the 1st of a month or on a Monday).
PERIOD_SECONDS: dict[str, float | None] = {"all": None, "month": 30 * 86400.0, "week": 7 * 86400.0}
BOARD_ORDERS = ("wins", "points", "rating")


@dataclass(frozen=True)
class Standing:
    """One player's line on a leaderboard: their place on it and what it counts."""

    position: int
    user_id: str
    games: int
    wins: int
    best: int | None  # the best score in the game's direction (None: every game at once)
    average: float | None  # points per game; for a cooperative game, the team's rating per game
    rating: float | None  # the skill rating shown (μ − 3σ), where the player has one


@dataclass(frozen=True)
class Board:
    """A page of a leaderboard, how many players it ranks in all, and the viewer's own line."""

    rows: list[Standing]
    entries: int
    own: Standing | None
    lower_is_better: bool  # the game's points count against the player (Toppo, Top Drop's cards left)
    team: bool  # a cooperative game: points are the team's rating


class Leaderboards:
    """A server's leaderboards, read from the results (and the ratings): one game or every game, over all
    time or a recent period, by wins, points per game or skill rating."""

    def __init__(self, db: Backend) -> None:
        self._db = db

    async def board(
        self,
        guild_id: int,
        game: str | None,
        *,
        by: str = "wins",
        since: float | None = None,
        offset: int = 0,
        limit: int = 10,
        viewer: str | None = None,
    ) -> Board:
        """Positions `offset + 1` to `offset + limit` and the viewer's own line, wherever it is.

        Points are averaged per game in the game's direction (fewer first where lower is better); a
        cooperative game's points are the team's rating (higher is better), its cards left deciding
        between equal ratings. Ranking by points or rating needs one game (ValueError otherwise)."""
        if by not in BOARD_ORDERS:
            raise ValueError(f"no leaderboard by {by!r}")
        if game is None and by != "wins":
            raise ValueError("points and ratings are ranked per game")
        lower, team = await self._direction(guild_id, game)
        # A game with a bot moves no leaderboard place: the boards rank people against people.
        where = "guild_id = ? AND with_bots = 0"
        params: list[Any] = [guild_id]
        if game is not None:
            where += " AND game = ?"
            params.append(game)
        if since is not None:
            where += " AND finished_at >= ?"
            params.append(since)
        # Every fragment below is one of a few fixed SQL texts chosen here, never user input.
        score_order = "ASC" if lower else "DESC"
        best = "NULL" if game is None else ("MIN(score)" if lower else "MAX(score)")
        average = "AVG(team_rating)" if team else "AVG(score)"
        orders = {
            "wins": "wins DESC, place ASC, "
            + ("" if game is None else f"total {score_order}, ")
            + "games DESC, user_id",
            "points": (
                f"average DESC, score_average {score_order}, games DESC, user_id"
                if team
                else f"average {score_order}, games DESC, user_id"
            ),
            "rating": "rating DESC, games DESC, user_id",
        }
        rated_only = "WHERE rating IS NOT NULL" if by == "rating" else ""
        sql = (
            "WITH played AS ("
            f" SELECT user_id, COUNT(*) AS games, SUM(won) AS wins, {best} AS best, {average} AS average,"
            " AVG(score) AS score_average, AVG(rank) AS place, SUM(score) AS total"
            f" FROM results WHERE {where} GROUP BY user_id),"
            " rated AS (SELECT played.*, ratings.mu - 3 * ratings.sigma AS rating FROM played"
            " LEFT JOIN ratings ON ratings.guild_id = ? AND ratings.game = ? AND ratings.user_id = played.user_id),"
            f" ranked AS (SELECT rated.*, ROW_NUMBER() OVER (ORDER BY {orders[by]}) AS position,"
            f" COUNT(*) OVER () AS entries FROM rated {rated_only})"
            " SELECT * FROM ranked WHERE (position > ? AND position <= ?) OR user_id = ? ORDER BY position"
        )
        rows = await self._db.fetch_all(
            sql, (*params, guild_id, game or "", offset, offset + limit, viewer or "")
        )
        entries = int(rows[0]["entries"]) if rows else await self._entries(sql, params, guild_id, game)
        standings = [
            Standing(r["position"], r["user_id"], r["games"], r["wins"], r["best"], r["average"], r["rating"])
            for r in rows
        ]
        page = [s for s in standings if offset < s.position <= offset + limit]
        own = next((s for s in standings if s.user_id == viewer), None)
        return Board(page, entries, own, lower, team)

    async def _entries(self, sql: str, params: list[Any], guild_id: int, game: str | None) -> int:
        """How many players the board ranks, when the page asked for lies beyond its end."""
        counted = sql.rsplit(" SELECT * FROM ranked", 1)[0] + " SELECT COUNT(*) FROM ranked"
        row = await self._db.fetch_one(counted, (*params, guild_id, game or ""))
        return int(row[0]) if row else 0

    async def _direction(self, guild_id: int, game: str | None) -> tuple[bool, bool]:
        """Whether the game's points count against the player, and whether it is played as a team."""
        if game is None:
            return False, False
        row = await self._db.fetch_one(
            "SELECT MAX(lower_is_better), MAX(CASE WHEN team_result IS NOT NULL THEN 1 ELSE 0 END) FROM results WHERE guild_id = ?"
            " AND game = ?",
            (guild_id, game),
        )
        if row is None or row[0] is None:
            return False, False
        return bool(row[0]), bool(row[1])


@dataclass(frozen=True)
class PlayerRating:
    """A player's skill rating in one game on one server."""

    mu: float
    sigma: float
    games: int
    updated_at: float

    @property
    def shown(self) -> float:
        return self.mu - 3 * self.sigma


class Ratings:
    """The skill ratings (bot/ratings writes them, in the transaction of each game's results)."""

    def __init__(self, db: Backend) -> None:
        self._db = db

    async def get(self, guild_id: int, game: str, user_id: str) -> PlayerRating | None:
        row = await self._db.fetch_one(
            "SELECT mu, sigma, games, updated_at FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?",
            (guild_id, game, user_id),
        )
        return PlayerRating(row[0], row[1], row[2], row[3]) if row else None

    async def all(self) -> list[tuple[int, str, str, float, float, int, float]]:
        """Every rating (server, game, player, μ, σ, games, updated): what a rebuild must give again."""
        rows = await self._db.fetch_all(
            "SELECT guild_id, game, user_id, mu, sigma, games, updated_at FROM ratings"
            " ORDER BY guild_id, game, user_id"
        )
        return [(r[0], r[1], r[2], r[3], r[4], r[5], r[6]) for r in rows]

    async def history(self, guild_id: int, game: str, user_id: str) -> list[tuple[float, float, float]]:
        """The player's figures after each rated game, oldest first: (when, μ, σ)."""
        rows = await self._db.fetch_all(
            "SELECT rated_at, mu, sigma FROM rating_history WHERE guild_id = ? AND game = ? AND user_id = ?"
            " ORDER BY id",
            (guild_id, game, user_id),
        )
        return [(row[0], row[1], row[2]) for row in rows]


@dataclass(frozen=True)
class Profile:
    user_id: str
    birth_month: int | None
    birth_day: int | None
    language: str | None
    turn_notices: bool = True  # a message that mentions the player when a game awaits them


class Profiles:
    def __init__(self, db: Backend) -> None:
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
        to the player; the ratings follow them (a rebuild from the results gives the same figures). Returns
        that id and how many results rows it replaced."""
        anonymous = anonymous_id()
        row = await tx.fetch_one("SELECT COUNT(*) FROM results WHERE user_id = ?", (user_id,))
        count = int(row[0]) if row else 0
        if count:
            for table in ("results", "ratings", "rating_history"):
                await tx.execute(f"UPDATE {table} SET user_id = ? WHERE user_id = ?", (anonymous, user_id))
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

    def __init__(self, db: Backend) -> None:
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
    limit), per game the defaults of its options, and the link token of its web pages (None: no pages)."""

    channels: list[int] = field(default_factory=list)
    max_games: int | None = None
    defaults: dict[str, dict[str, Any]] = field(default_factory=dict)
    web_token: str | None = None

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
        web_token = data.get("web_token")
        return cls(
            channels=[c for c in channels if type(c) is int] if isinstance(channels, list) else [],
            max_games=max_games if type(max_games) is int and max_games > 0 else None,
            defaults={
                game: dict(values)
                for game, values in (defaults.items() if isinstance(defaults, dict) else ())
                if isinstance(game, str) and isinstance(values, dict) and values
            },
            web_token=web_token if isinstance(web_token, str) and web_token else None,
        )

    def to_json(self) -> str:
        data: dict[str, Any] = {}
        if self.channels:
            data["channels"] = self.channels
        if self.max_games is not None:
            data["max_games"] = self.max_games
        if any(self.defaults.values()):
            data["defaults"] = {game: values for game, values in self.defaults.items() if values}
        if self.web_token is not None:
            data["web_token"] = self.web_token
        return _dumps(data)


# A server that set /settings but never its language: the `language` column (NOT NULL) holds this, and the
# language is then the caller's (`GuildSettings.language`'s default).
NO_LANGUAGE = ""


class GuildSettings:
    def __init__(self, db: Backend) -> None:
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
    """Small facts the bot remembers about itself (the synced command tree's hash, the shard count)."""

    def __init__(self, db: Backend) -> None:
        self._db = db

    async def get(self, key: str) -> str | None:
        row = await self._db.fetch_one("SELECT value FROM meta WHERE key = ?", (key,))
        return str(row["value"]) if row else None

    async def setdefault(self, key: str, value: str) -> str:
        """The stored value of `key`, which is `value` if none was stored yet (two processes at once: one
        value wins, and both read it)."""
        async with self._db.transaction() as tx:
            await tx.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", (key, value)
            )
            row = await tx.fetch_one("SELECT value FROM meta WHERE key = ?", (key,))
        assert row is not None
        return str(row["value"])

    async def set(self, tx: Transaction, key: str, value: str) -> None:
        await tx.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )
