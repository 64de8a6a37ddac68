"""What the web pages read, on a connection of their own opened read-only: the repositories the commands
use (leaderboards, statistics, history, settings), plus the few reads only the pages need.

SQLite's connection is opened with `mode=ro` and `query_only`, PostgreSQL's with every transaction read-only:
the database itself refuses any write through them, so no page can change it, whatever it is asked."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import aiosqlite

from bot.store.database import Backend, Database
from bot.store.postgres import PostgresDatabase, is_postgresql_url
from bot.store.repositories import (
    ActionRecord,
    Actions,
    GuildSettings,
    History,
    Leaderboards,
    SessionRecord,
    Sessions,
    Stats,
)


def read_only_uri(path: str | Path) -> str:
    """The SQLite URI of the file at `path`, opened read-only (its characters escaped as a URI needs);
    FileNotFoundError when there is no such file: the pages never create one."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no database at {path}")
    return Path(os.path.abspath(path)).as_uri() + "?mode=ro"


async def open_read_only(path: str | Path) -> Backend:
    """The database at `path` (an SQLite file, or a PostgreSQL URL), for reading only (it must exist:
    nothing is created)."""
    if is_postgresql_url(path):
        return await PostgresDatabase.open_read_only(str(path))
    connection = await aiosqlite.connect(read_only_uri(path), uri=True, isolation_level=None)
    connection.row_factory = aiosqlite.Row
    await connection.execute("PRAGMA query_only=ON")
    await connection.execute("PRAGMA busy_timeout=5000")
    return Database(connection)


@dataclass(frozen=True)
class FinishedSession:
    """A finished game as its replay needs it: the stored session and its action log."""

    record: SessionRecord
    actions: list[ActionRecord]


class WebReads:
    """The repositories on the read-only connection."""

    def __init__(self, db: Backend) -> None:
        self.db = db
        self.guild_settings = GuildSettings(db)
        self.leaderboards = Leaderboards(db)
        self.stats = Stats(db)
        self.history = History(db)
        self.sessions = Sessions(db)
        self.actions = Actions(db)

    @classmethod
    async def open(cls, path: str | Path) -> WebReads:
        return cls(await open_read_only(path))

    async def close(self) -> None:
        await self.db.close()

    async def guild_of_token(self, token: str) -> int | None:
        """The server whose pages this link token opens (None: no server has it now)."""
        token_of = (
            "CAST(settings AS jsonb) ->> 'web_token'"
            if self.db.dialect == "postgresql"
            else "json_extract(settings, '$.web_token')"
        )
        row = await self.db.fetch_one(f"SELECT guild_id FROM guild_settings WHERE {token_of} = ?", (token,))
        return int(row["guild_id"]) if row is not None else None

    async def names(self, guild_id: int, user_ids: list[str]) -> dict[str, str]:
        """Each player's display name in their latest finished game on the server (a player without one keeps
        their id)."""
        if not user_ids:
            return {}
        marks = ", ".join("?" for _ in user_ids)  # placeholders only: the ids are bound
        players = (
            "jsonb_each_text(CAST(sessions.names AS jsonb)) AS player (key, value)"
            if self.db.dialect == "postgresql"
            else "json_each(sessions.names) AS player"
        )
        rows = await self.db.fetch_all(
            f"SELECT player.key AS user_id, player.value AS name FROM sessions, {players}"
            f" WHERE sessions.guild_id = ? AND sessions.status = 'finished' AND player.key IN ({marks})"
            " ORDER BY sessions.updated_at, sessions.id",
            (guild_id, *user_ids),
        )
        names = {str(row["user_id"]): str(row["name"]) for row in rows}  # the latest wins
        return {user_id: names.get(user_id, user_id) for user_id in user_ids}

    async def finished_session(self, guild_id: int, session_id: int) -> FinishedSession | None:
        """A finished game of this server with its log; None for any other (open, elsewhere, unknown)."""
        record = await self.sessions.get(session_id)
        if record is None or record.guild_id != guild_id or record.status != "finished":
            return None
        return FinishedSession(record, await self.actions.for_session(session_id))

    async def has_played(self, guild_id: int, user_id: str) -> bool:
        row = await self.db.fetch_one(
            "SELECT 1 FROM results WHERE guild_id = ? AND user_id = ? LIMIT 1", (guild_id, user_id)
        )
        return row is not None
