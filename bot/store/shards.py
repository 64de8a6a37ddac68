"""Which guilds a bot process serves (its shards), and who owns each shard.

Discord splits a bot's guilds into `count` shards: the guild `g` is on shard `(g >> 22) % count`. A process
connects the shards of its settings (SHARD_IDS) and restores only the sessions, votes and timers of their
guilds. Every process of a bot must agree on the count, so the first start records it in the store (`meta`)
and every later start checks it. Before a shard connects, its process takes the shard's lock (`ShardLocks`),
so that two processes never serve the same guilds; the lock is freed when the process ends, however it ends.

    python -m bot.store.reshard --count N    records a new shard count (every process stopped)
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from bot.store import Store

SHARD_COUNT_KEY = "shard_count"
# The first key of PostgreSQL's two-key advisory locks: the bot's shard locks, apart from any other lock.
ADVISORY_LOCK_SPACE = 0x70B07


def shard_of(guild_id: int, count: int) -> int:
    """The shard Discord puts a guild on (its id's timestamp bits, modulo the shard count)."""
    return (guild_id >> 22) % count


class ShardsRefused(RuntimeError):
    """This process may not serve the shards it was given; the message is the one line to print."""


@dataclass(frozen=True)
class Shards:
    """The shards a process serves: `ids` out of `count`."""

    count: int = 1
    ids: tuple[int, ...] = (0,)

    def __post_init__(self) -> None:
        if self.count < 1 or not self.ids or any(not 0 <= shard < self.count for shard in self.ids):
            raise ValueError(f"shards {self.ids} out of {self.count}")

    @classmethod
    def every(cls, count: int) -> Shards:
        return cls(count, tuple(range(count)))

    @property
    def all(self) -> bool:
        """This process serves every guild."""
        return len(set(self.ids)) == self.count

    @property
    def holds_first(self) -> bool:
        """Shard 0: the one process that syncs the command tree and closes what belongs to no guild."""
        return 0 in self.ids

    def owns(self, guild_id: int | None) -> bool:
        """Whether this process serves the guild (None: something of no guild, which shard 0 serves)."""
        if guild_id is None:
            return self.holds_first
        return self.all or shard_of(guild_id, self.count) in self.ids

    def where(self, column: str) -> tuple[str, tuple[int, ...]]:
        """An SQL condition (and its parameters) true for the rows whose guild `column` this process
        serves; a NULL guild is shard 0's. `column` is the project's own column name, never input."""
        if self.all:
            return "1 = 1", ()
        marks = ", ".join("?" for _ in self.ids)
        condition = f"((({column} >> 22) % ?) IN ({marks}))"
        if self.holds_first:
            condition = f"({column} IS NULL OR {condition})"
        return condition, (self.count, *self.ids)

    def describe(self) -> str:
        return f"shard{'s' if len(self.ids) > 1 else ''} {', '.join(map(str, self.ids))} of {self.count}"


class ShardLocks(Protocol):
    """Ownership of shards across processes: taken before a shard connects, freed when the process ends
    (a process that dies frees them too). `acquire` raises ShardsRefused when another process holds one."""

    async def acquire(self, shards: Shards) -> None: ...

    async def release(self) -> None: ...


class NoShardLocks:
    """A database in memory: no other process can reach it, so there is nothing to share."""

    async def acquire(self, shards: Shards) -> None:
        return None

    async def release(self) -> None:
        return None


class FileShardLocks:
    """SQLite: one process owns every shard of a database file. The lock is a POSIX lock on a file beside
    the database (`bot.db.lock`), held for the life of the process: the system frees it when the process
    ends, even killed. (Not on the database file itself: closing any other descriptor of that file would
    drop SQLite's own locks.)"""

    def __init__(self, database: Path) -> None:
        self.path = database.with_name(database.name + ".lock")
        self._fd: int | None = None

    async def acquire(self, shards: Shards) -> None:
        if self._fd is not None:
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            holder = _read_pid(self.path)
            raise ShardsRefused(
                f"another bot process{f' (pid {holder})' if holder else ''} is using the database "
                f"{self.path.with_suffix('')}: one process serves an SQLite database; for several, use "
                "PostgreSQL (docs/deploying.md)"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    async def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor frees the lock
            self._fd = None


def _read_pid(path: Path) -> str:
    with contextlib.suppress(OSError):
        return path.read_text().strip()
    return ""


class AdvisoryShardLocks:
    """PostgreSQL: a session-level advisory lock per shard, `pg_try_advisory_lock(space, shard)`, on one
    connection of its own per process, opened before the shards connect and kept open for the life of the
    process. When the process dies its connection drops and the server frees its locks at once; per-shard
    rather than per-session locks, since thousands of sessions would exhaust the server's lock table.

    `connect` opens the dedicated connection (an asyncpg connection: `fetchval`, `close`)."""

    def __init__(self, connect: Any) -> None:
        self._connect = connect
        self._connection: Any = None

    @classmethod
    def for_url(cls, url: str) -> AdvisoryShardLocks:
        """Locks held on a connection of their own to the database at `url` (postgresql://…)."""

        async def connect() -> Any:
            import asyncpg

            return await asyncpg.connect(url)

        return cls(connect)

    async def acquire(self, shards: Shards) -> None:
        if self._connection is None:
            self._connection = await self._connect()
        for shard in shards.ids:
            if await self._connection.fetchval(
                "SELECT pg_try_advisory_lock($1, $2)", ADVISORY_LOCK_SPACE, shard
            ):
                continue
            await self.release()  # and the shards taken so far with it
            raise ShardsRefused(
                f"shard {shard} of {shards.count} is served by another bot process: give each process "
                "different SHARD_IDS, or stop the other one first"
            )

    async def release(self) -> None:
        if self._connection is not None:
            connection, self._connection = self._connection, None
            await connection.close()  # the server frees the session's advisory locks with it


async def check_shard_count(store: Store, count: int) -> None:
    """Record the shard count at the first start; refuse any other count afterwards (every process of a bot
    must split the guilds alike, or two would serve the same guild)."""
    recorded = await store.meta.setdefault(SHARD_COUNT_KEY, str(count))
    if recorded != str(count):
        raise ShardsRefused(
            f"SHARD_COUNT is {count} but this database's bot runs {recorded} shard(s): every process must use "
            f"the same count; to change it, stop every process, then run "
            f"`python -m bot.store.reshard --count {count}`"
        )


async def claim(store: Store, shards: Shards) -> None:
    """What a process does before any shard connects: check the count, then take its shards' locks."""
    await check_shard_count(store, shards.count)
    await store.shard_locks.acquire(shards)


async def set_count(store: Store, count: int, old: int) -> None:
    """Record a new shard count, holding every shard of the old one (so no process runs meanwhile)."""
    await store.shard_locks.acquire(Shards.every(old))
    try:
        async with store.transaction() as tx:
            await store.meta.set(tx, SHARD_COUNT_KEY, str(count))
    finally:
        await store.shard_locks.release()
