"""Every SQL statement of the bot lives here; values are always bound parameters."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

import aiosqlite

from bot.store.database import Database, Transaction

OPEN_STATUSES = ("lobby", "active")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


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
            seed=row["seed"],
            setup=json.loads(row["setup"]),
            snapshot=json.loads(row["snapshot"]) if row["snapshot"] is not None else None,
            version=row["version"],
            timers=json.loads(row["timers"]),
            message_id=row["message_id"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            names=json.loads(row["names"]),
        )


@dataclass
class ActionRecord:
    session_id: int
    version: int
    interaction_id: str | None
    player: str | None
    action: dict[str, Any]
    events: list[dict[str, Any]]
    created_at: float


class Sessions:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def create(self, tx: Transaction, record: SessionRecord) -> int:
        try:
            return await tx.execute(
                "INSERT INTO sessions (guild_id, channel_id, game, status, host_id, players, options, seed,"
                " setup, snapshot, version, timers, message_id, created_at, updated_at, names)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.guild_id,
                    record.channel_id,
                    record.game,
                    record.status,
                    record.host_id,
                    _dumps(record.players),
                    _dumps(record.options),
                    record.seed,
                    _dumps(record.setup),
                    None if record.snapshot is None else _dumps(record.snapshot),
                    record.version,
                    _dumps(record.timers),
                    record.message_id,
                    record.created_at,
                    record.updated_at,
                    _dumps(record.names),
                ),
            )
        except sqlite3.IntegrityError as exc:
            raise ChannelTaken(str(exc)) from exc

    async def save(self, tx: Transaction, record: SessionRecord) -> None:
        await tx.execute(
            "UPDATE sessions SET status = ?, players = ?, options = ?, setup = ?, snapshot = ?, version = ?,"
            " timers = ?, message_id = ?, updated_at = ?, names = ? WHERE id = ?",
            (
                record.status,
                _dumps(record.players),
                _dumps(record.options),
                _dumps(record.setup),
                None if record.snapshot is None else _dumps(record.snapshot),
                record.version,
                _dumps(record.timers),
                record.message_id,
                record.updated_at,
                _dumps(record.names),
                record.id,
            ),
        )

    async def get(self, session_id: int) -> SessionRecord | None:
        row = await self._db.fetch_one("SELECT * FROM sessions WHERE id = ?", (session_id,))
        return SessionRecord.from_row(row) if row else None

    async def open_in_channel(self, channel_id: int) -> SessionRecord | None:
        row = await self._db.fetch_one(
            "SELECT * FROM sessions WHERE channel_id = ? AND status IN ('lobby', 'active')", (channel_id,)
        )
        return SessionRecord.from_row(row) if row else None

    async def all_open(self) -> list[SessionRecord]:
        rows = await self._db.fetch_all(
            "SELECT * FROM sessions WHERE status IN ('lobby', 'active') ORDER BY id"
        )
        return [SessionRecord.from_row(row) for row in rows]


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
            "INSERT OR REPLACE INTO results (session_id, guild_id, game, user_id, score, rank, won, finished_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(session_id, guild_id, game, r.user_id, r.score, r.rank, int(r.won), now) for r in rows],
        )

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[LeaderboardRow]:
        rows = await self._db.fetch_all(
            "SELECT user_id, COUNT(*) AS games, SUM(won) AS wins, MAX(score) AS best, SUM(score) AS total"
            " FROM results WHERE guild_id = ? AND game = ? GROUP BY user_id"
            " ORDER BY wins DESC, total DESC, user_id LIMIT ?",
            (guild_id, game, limit),
        )
        return [LeaderboardRow(r["user_id"], r["games"], r["wins"], r["best"], r["total"]) for r in rows]

    async def for_session(self, session_id: int) -> list[ResultRow]:
        rows = await self._db.fetch_all(
            "SELECT user_id, score, rank, won FROM results WHERE session_id = ? ORDER BY rank, user_id",
            (session_id,),
        )
        return [ResultRow(r["user_id"], r["score"], r["rank"], bool(r["won"])) for r in rows]


@dataclass(frozen=True)
class Profile:
    user_id: str
    birth_month: int | None
    birth_day: int | None
    language: str | None


class Profiles:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, user_id: str) -> Profile | None:
        row = await self._db.fetch_one("SELECT * FROM profiles WHERE user_id = ?", (user_id,))
        if row is None:
            return None
        return Profile(row["user_id"], row["birth_month"], row["birth_day"], row["language"])

    async def set_birthday(self, tx: Transaction, user_id: str, month: int, day: int, now: float) -> None:
        await tx.execute(
            "INSERT INTO profiles (user_id, birth_month, birth_day, updated_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET birth_month = excluded.birth_month,"
            " birth_day = excluded.birth_day, updated_at = excluded.updated_at",
            (user_id, month, day, now),
        )

    async def set_language(self, tx: Transaction, user_id: str, language: str, now: float) -> None:
        await tx.execute(
            "INSERT INTO profiles (user_id, language, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET language = excluded.language, updated_at = excluded.updated_at",
            (user_id, language, now),
        )


class GuildSettings:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def language(self, guild_id: int, default: str) -> str:
        row = await self._db.fetch_one("SELECT language FROM guild_settings WHERE guild_id = ?", (guild_id,))
        return str(row["language"]) if row else default

    async def set_language(self, tx: Transaction, guild_id: int, language: str, now: float) -> None:
        await tx.execute(
            "INSERT INTO guild_settings (guild_id, language, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (guild_id) DO UPDATE SET language = excluded.language, updated_at = excluded.updated_at",
            (guild_id, language, now),
        )


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
