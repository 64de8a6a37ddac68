"""Numbered schema migrations; the number applied is SQLite's `PRAGMA user_version`, PostgreSQL's
`schema_version` table.

The migrations are written for SQLite and run as they are there. PostgreSQL runs the same text with SQLite's
types said in its words (`postgresql_migration`), or, where a migration does more than declare tables, a
variant of its own (`POSTGRESQL_VARIANTS`)."""

from __future__ import annotations

import re

# Append only: never edit a migration that has shipped; add the next one.
MIGRATIONS: list[str] = [
    # 1: sessions, their action log, used words, votes, results, profiles, guild settings, meta
    """
    CREATE TABLE sessions (
        id          INTEGER PRIMARY KEY,
        guild_id    INTEGER NOT NULL,
        channel_id  INTEGER NOT NULL,
        game        TEXT NOT NULL,
        status      TEXT NOT NULL CHECK (status IN ('lobby', 'active', 'finished', 'cancelled')),
        host_id     TEXT NOT NULL,
        players     TEXT NOT NULL DEFAULT '[]',
        options     TEXT NOT NULL DEFAULT '{}',
        seed        INTEGER NOT NULL,
        setup       TEXT NOT NULL DEFAULT '{}',
        snapshot    TEXT,
        version     INTEGER NOT NULL DEFAULT 0,
        timers      TEXT NOT NULL DEFAULT '{}',
        message_id  INTEGER,
        created_at  REAL NOT NULL,
        updated_at  REAL NOT NULL
    );
    -- One open game per channel.
    CREATE UNIQUE INDEX sessions_one_open_per_channel ON sessions (channel_id)
        WHERE status IN ('lobby', 'active');
    CREATE INDEX sessions_by_status ON sessions (status);

    CREATE TABLE actions (
        id              INTEGER PRIMARY KEY,
        session_id      INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        version         INTEGER NOT NULL,
        interaction_id  TEXT,
        player          TEXT,
        action          TEXT NOT NULL,
        events          TEXT NOT NULL DEFAULT '[]',
        created_at      REAL NOT NULL,
        UNIQUE (session_id, version),
        UNIQUE (session_id, interaction_id)
    );

    CREATE TABLE used_words (
        id          INTEGER PRIMARY KEY,
        session_id  INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        round       INTEGER NOT NULL,
        player      TEXT NOT NULL,
        word        TEXT NOT NULL,
        lemma_key   TEXT NOT NULL,
        UNIQUE (session_id, round, player, word)
    );
    CREATE INDEX used_words_by_lemma ON used_words (session_id, lemma_key);

    CREATE TABLE votes (
        id          INTEGER PRIMARY KEY,
        session_id  INTEGER REFERENCES sessions (id) ON DELETE CASCADE,
        channel_id  INTEGER NOT NULL,
        message_id  INTEGER,
        kind        TEXT NOT NULL,
        question    TEXT NOT NULL,
        eligible    TEXT NOT NULL,
        deadline    REAL NOT NULL,
        status      TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
        result      TEXT CHECK (result IN ('yes', 'no', 'tie')),
        payload     TEXT NOT NULL DEFAULT '{}',
        created_at  REAL NOT NULL
    );
    CREATE INDEX votes_open ON votes (status);

    CREATE TABLE ballots (
        vote_id  INTEGER NOT NULL REFERENCES votes (id) ON DELETE CASCADE,
        voter    TEXT NOT NULL,
        yes      INTEGER NOT NULL CHECK (yes IN (0, 1)),
        cast_at  REAL NOT NULL,
        PRIMARY KEY (vote_id, voter)
    );

    CREATE TABLE results (
        session_id   INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        guild_id     INTEGER NOT NULL,
        game         TEXT NOT NULL,
        user_id      TEXT NOT NULL,
        score        INTEGER NOT NULL,
        rank         INTEGER NOT NULL,
        won          INTEGER NOT NULL CHECK (won IN (0, 1)),
        finished_at  REAL NOT NULL,
        PRIMARY KEY (session_id, user_id)
    );
    CREATE INDEX results_by_board ON results (guild_id, game);

    CREATE TABLE profiles (
        user_id      TEXT PRIMARY KEY,
        birth_month  INTEGER CHECK (birth_month BETWEEN 1 AND 12),
        birth_day    INTEGER CHECK (birth_day BETWEEN 1 AND 31),
        language     TEXT,
        updated_at   REAL NOT NULL
    );

    CREATE TABLE guild_settings (
        guild_id    INTEGER PRIMARY KEY,
        language    TEXT NOT NULL DEFAULT 'en',
        settings    TEXT NOT NULL DEFAULT '{}',
        updated_at  REAL NOT NULL
    );

    CREATE TABLE meta (
        key    TEXT PRIMARY KEY,
        value  TEXT NOT NULL
    );
    """,
    # 2: players' display names per session, so that buttons and selects can name them after a restart
    """
    ALTER TABLE sessions ADD COLUMN names TEXT NOT NULL DEFAULT '{}';
    """,
    # 3: 128-bit seeds (beyond SQLite's 64-bit integers: kept as decimal text); timers in a table of their own,
    # so that start-up arms every deadline without reading a single snapshot; what a result means.
    """
    ALTER TABLE sessions ADD COLUMN seed_text TEXT;
    UPDATE sessions SET seed_text = CAST(seed AS TEXT);
    CREATE TABLE timers (
        session_id  INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        key         TEXT NOT NULL,
        at          REAL NOT NULL,
        action      TEXT NOT NULL,
        PRIMARY KEY (session_id, key)
    ) WITHOUT ROWID;
    INSERT INTO timers (session_id, key, at, action)
        SELECT s.id, t.key, json_extract(t.value, '$.at'), json_extract(t.value, '$.action')
        FROM sessions AS s, json_each(s.timers) AS t
        WHERE s.status IN ('lobby', 'active') AND json_valid(s.timers);
    -- The column stays for older rows' sake only; timers live in their table from now on.
    UPDATE sessions SET timers = '{}';
    CREATE INDEX timers_by_deadline ON timers (at);
    ALTER TABLE results ADD COLUMN result TEXT;
    UPDATE results SET result = CASE WHEN won THEN 'won' ELSE 'lost' END;
    ALTER TABLE results ADD COLUMN lower_is_better INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE results ADD COLUMN team_result TEXT;
    ALTER TABLE results ADD COLUMN team_rating INTEGER;
    """,
    # 4: each server's own dictionary: words its tables accepted or refused by vote, or its admins set
    """
    CREATE TABLE server_words (
        guild_id    INTEGER NOT NULL,
        language    TEXT NOT NULL,
        word        TEXT NOT NULL,
        valid       INTEGER NOT NULL,
        source      TEXT NOT NULL CHECK (source IN ('vote', 'admin')),
        decided_at  REAL NOT NULL,
        decided_by  TEXT,
        session_id  INTEGER,
        PRIMARY KEY (guild_id, language, word)
    ) WITHOUT ROWID;
    """,
    # 5: whether a player wants a message that mentions them when it is their turn (/profile turn_notices)
    """
    ALTER TABLE profiles ADD COLUMN turn_notices INTEGER NOT NULL DEFAULT 1;
    """,
    # 6: what must outlive a restart at the tables: news (private events told to a player by another's action
    # or a timer, written with that action and deleted once shown) and each table's last turn message.
    """
    CREATE TABLE news (
        id          INTEGER PRIMARY KEY,
        session_id  INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        player      TEXT NOT NULL,
        event       TEXT NOT NULL,
        version     INTEGER NOT NULL,
        created_at  REAL NOT NULL
    );
    CREATE INDEX news_by_player ON news (session_id, player, id);
    CREATE TABLE turn_notices (
        session_id   INTEGER PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        awaiting     TEXT NOT NULL,
        message_id   INTEGER,
        previous_id  INTEGER
    );
    """,
    # 7: the snapshot is written now and then, no longer at every action: `snapshot_version` is the version of
    # the state it holds, and the actions logged from that version on are replayed when the session loads.
    """
    ALTER TABLE sessions ADD COLUMN snapshot_version INTEGER NOT NULL DEFAULT 0;
    UPDATE sessions SET snapshot_version = version;
    """,
    # 8: a skill rating per server, game and player (openskill), updated in the transaction that writes a game's
    # results; and each game's new figures, in the order they were rated, for the trend.
    """
    CREATE TABLE ratings (
        guild_id    INTEGER NOT NULL,
        game        TEXT NOT NULL,
        user_id     TEXT NOT NULL,
        mu          REAL NOT NULL,
        sigma       REAL NOT NULL,
        games       INTEGER NOT NULL,
        updated_at  REAL NOT NULL,
        PRIMARY KEY (guild_id, game, user_id)
    ) WITHOUT ROWID;
    CREATE TABLE rating_history (
        id          INTEGER PRIMARY KEY,
        session_id  INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        guild_id    INTEGER NOT NULL,
        game        TEXT NOT NULL,
        user_id     TEXT NOT NULL,
        mu          REAL NOT NULL,
        sigma       REAL NOT NULL,
        rated_at    REAL NOT NULL
    );
    CREATE INDEX rating_history_by_player ON rating_history (guild_id, game, user_id, id);
    CREATE INDEX results_by_guild_time ON results (guild_id, finished_at);
    """,
    # 9: what /stats and /history read: a member's results on a server (in time) and the server's
    # finished games, newest first (partial: only finished sessions are listed).
    """
    CREATE INDEX results_by_player ON results (guild_id, user_id, finished_at);
    CREATE INDEX sessions_finished_by_guild ON sessions (guild_id, updated_at) WHERE status = 'finished';
    CREATE INDEX sessions_finished_by_game ON sessions (guild_id, game, updated_at)
        WHERE status = 'finished';
    """,
    # 10: each vote's guild, so that a process restores only the votes of the guilds of its shards (the guild of
    # a vote of a session is its session's; a vote of no session keeps none, and shard 0 serves it).
    """
    ALTER TABLE votes ADD COLUMN guild_id INTEGER;
    UPDATE votes SET guild_id = (SELECT sessions.guild_id FROM sessions WHERE sessions.id = votes.session_id);
    """,
    # 11: finished games listed by `finished_at`, the time of the step that finished them (their updated_at),
    # computed by the database and empty while a game is open: the update every action makes of `updated_at`
    # then changes no indexed value, so PostgreSQL rewrites the row in its page without touching any index
    # (a HOT update) instead of adding an entry to each of the table's indexes.
    """
    ALTER TABLE sessions ADD COLUMN finished_at REAL
        GENERATED ALWAYS AS (CASE WHEN status = 'finished' THEN updated_at END) VIRTUAL;
    DROP INDEX sessions_finished_by_guild;
    DROP INDEX sessions_finished_by_game;
    CREATE INDEX sessions_finished_by_guild ON sessions (guild_id, finished_at) WHERE status = 'finished';
    CREATE INDEX sessions_finished_by_game ON sessions (guild_id, game, finished_at)
        WHERE status = 'finished';
    """,
    # 12: each player's open console, so that it follows the table again after a restart: the interaction token
    # that edits its message (Discord honours one for 15 minutes), when it was issued, and the message.
    """
    CREATE TABLE consoles (
        session_id      INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        player          TEXT NOT NULL,
        application_id  INTEGER NOT NULL,
        token           TEXT NOT NULL,
        language        TEXT NOT NULL,
        opened_at       REAL NOT NULL,
        message_id      INTEGER,
        PRIMARY KEY (session_id, player)
    ) WITHOUT ROWID;
    """,
    # 13: bot players (docs/bots.md): each session's bot seats (id -> level and the seat's own seed), and
    # whether a result comes from a game with a bot (those change no rating and no leaderboard place).
    """
    ALTER TABLE sessions ADD COLUMN bots TEXT NOT NULL DEFAULT '{}';
    ALTER TABLE results ADD COLUMN with_bots INTEGER NOT NULL DEFAULT 0;
    """,
]


# Where the text differs beyond the types: migration 3 copies the timers out of the sessions' JSON (SQLite's
# json_each and json_extract there) and reads the integer `won` as a truth value (PostgreSQL wants a test);
# migration 11 stores its generated column and leaves room in the pages of sessions.
POSTGRESQL_VARIANTS: dict[int, str] = {
    3: """
    ALTER TABLE sessions ADD COLUMN seed_text TEXT;
    UPDATE sessions SET seed_text = CAST(seed AS TEXT);
    CREATE TABLE timers (
        session_id  INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        key         TEXT NOT NULL,
        at          REAL NOT NULL,
        action      TEXT NOT NULL,
        PRIMARY KEY (session_id, key)
    );
    INSERT INTO timers (session_id, key, at, action)
        SELECT s.id, t.key, CAST(t.value ->> 'at' AS DOUBLE PRECISION), t.value ->> 'action'
        FROM sessions AS s, jsonb_each(CAST(s.timers AS jsonb)) AS t
        WHERE s.status IN ('lobby', 'active') AND s.timers LIKE '{%';
    UPDATE sessions SET timers = '{}';
    CREATE INDEX timers_by_deadline ON timers (at);
    ALTER TABLE results ADD COLUMN result TEXT;
    UPDATE results SET result = CASE WHEN won = 1 THEN 'won' ELSE 'lost' END;
    ALTER TABLE results ADD COLUMN lower_is_better INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE results ADD COLUMN team_result TEXT;
    ALTER TABLE results ADD COLUMN team_rating INTEGER;
    """,
    # PostgreSQL stores a generated column (it has no virtual ones). A HOT update needs room in the row's own
    # page: the table keeps 30% of each page free for the next versions of its rows, set before the column is
    # added, since adding a stored column rewrites the table.
    11: """
    ALTER TABLE sessions SET (fillfactor = 70);
    ALTER TABLE sessions ADD COLUMN finished_at REAL
        GENERATED ALWAYS AS (CASE WHEN status = 'finished' THEN updated_at END) STORED;
    DROP INDEX sessions_finished_by_guild;
    DROP INDEX sessions_finished_by_game;
    CREATE INDEX sessions_finished_by_guild ON sessions (guild_id, finished_at) WHERE status = 'finished';
    CREATE INDEX sessions_finished_by_game ON sessions (guild_id, game, finished_at)
        WHERE status = 'finished';
    """,
}

# SQLite's types in PostgreSQL's words: its INTEGER holds 64 bits (Discord's ids), its REAL 8 bytes (times),
# and `id INTEGER PRIMARY KEY` numbers new rows by itself; WITHOUT ROWID is a storage choice of SQLite's.
_POSTGRESQL_TYPES = (
    (
        re.compile(r"\bid(\s+)INTEGER PRIMARY KEY\b"),
        r"id\1BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
    ),
    (re.compile(r"\bINTEGER\b"), "BIGINT"),
    (re.compile(r"\bREAL\b"), "DOUBLE PRECISION"),
    (re.compile(r"\)\s*WITHOUT ROWID"), ")"),
)


def postgresql_migration(number: int) -> str:
    """Migration `number` (from 1) as PostgreSQL runs it."""
    script = POSTGRESQL_VARIANTS.get(number, MIGRATIONS[number - 1])
    for pattern, replacement in _POSTGRESQL_TYPES:
        script = pattern.sub(replacement, script)
    return script
