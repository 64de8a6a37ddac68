"""The store: SQLite (a file, the default) or PostgreSQL (`postgresql://…`), numbered migrations, repositories
that own all SQL."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from pathlib import Path

from bot.store.database import (
    Backend,
    ConstraintViolation,
    Database,
    SchemaTooNew,
    StaleWrite,
    Transaction,
    UnusableDatabase,
)
from bot.store.postgres import PostgresDatabase, is_postgresql_url
from bot.store.repositories import (
    ActionRecord,
    Actions,
    Board,
    BotRecord,
    ChannelTaken,
    Consoles,
    FinishedGame,
    GameTally,
    GuildSettings,
    History,
    LeaderboardRow,
    Leaderboards,
    Meta,
    News,
    PlayerRating,
    Profile,
    Profiles,
    RatingPoint,
    Ratings,
    ResultRow,
    Results,
    ScorePoint,
    ServerSettings,
    ServerWord,
    ServerWords,
    SessionRecord,
    Sessions,
    Standing,
    Stats,
    StoredConsole,
    TurnNotice,
    TurnNotices,
    UsedWordRecord,
    UsedWords,
    VoteRecord,
    Votes,
)
from bot.store.shards import (
    AdvisoryShardLocks,
    FileShardLocks,
    NoShardLocks,
    ShardLocks,
    Shards,
    ShardsRefused,
)
from bot.store.writer import DEFAULT_SYNCHRONOUS

__all__ = [
    "ActionRecord",
    "Backend",
    "Board",
    "ChannelTaken",
    "ConstraintViolation",
    "Database",
    "BotRecord",
    "FinishedGame",
    "GameTally",
    "LeaderboardRow",
    "PostgresDatabase",
    "PlayerRating",
    "Profile",
    "RatingPoint",
    "ResultRow",
    "SchemaTooNew",
    "ScorePoint",
    "ServerSettings",
    "ServerWord",
    "ServerWords",
    "SessionRecord",
    "ShardLocks",
    "Shards",
    "ShardsRefused",
    "StaleWrite",
    "Standing",
    "StoredConsole",
    "Store",
    "Transaction",
    "TurnNotice",
    "UnusableDatabase",
    "UsedWordRecord",
    "VoteRecord",
]


class Store:
    """The database and its repositories."""

    def __init__(self, db: Backend, shard_locks: ShardLocks | None = None) -> None:
        self.db = db
        # Who owns which shard (bot/store/shards.py): nothing to share for a database in memory.
        self.shard_locks: ShardLocks = shard_locks or NoShardLocks()
        self.sessions = Sessions(db)
        self.actions = Actions(db)
        self.used_words = UsedWords(db)
        self.votes = Votes(db)
        self.results = Results(db)
        self.leaderboards = Leaderboards(db)
        self.ratings = Ratings(db)
        self.stats = Stats(db)
        self.history = History(db)
        self.profiles = Profiles(db)
        self.guild_settings = GuildSettings(db)
        self.server_words = ServerWords(db)
        self.meta = Meta(db)
        self.news = News(db)
        self.turn_notices = TurnNotices(db)
        self.consoles = Consoles(db)

    @classmethod
    async def open(cls, path: str | Path, *, synchronous: str = DEFAULT_SYNCHRONOUS) -> Store:
        """An SQLite file (or ":memory:"), or a PostgreSQL database named by its URL (where `synchronous`
        sets synchronous_commit). Each with the shard locks that fit it (bot/store/shards.py)."""
        if is_postgresql_url(path):
            database = await PostgresDatabase.open(str(path), synchronous=synchronous)
            return cls(database, AdvisoryShardLocks.for_url(str(path)))
        locks = NoShardLocks() if str(path) == ":memory:" else FileShardLocks(Path(path))
        return cls(await Database.open(path, synchronous=synchronous), locks)

    def transaction(self) -> AbstractAsyncContextManager[Transaction]:
        return self.db.transaction()

    async def close(self) -> None:
        await self.db.close()
        await self.shard_locks.release()
