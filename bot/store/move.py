"""Move an SQLite database to a new PostgreSQL database: `python -m bot.store.move data/bot.db postgresql://…`.

Every table is copied whole, row ids and versions kept, in one transaction: a game under way plays on where it
stood once the bot starts with DATABASE_URL, old buttons included (they name sessions by id). The SQLite file
is brought to the latest schema first and then only read; the PostgreSQL database must have no rows yet: a new
database, where the bot has not started (a start writes a row). Stop the bot before moving: what it writes meanwhile
would stay behind.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import asyncpg

from bot.store.database import Database, UnusableDatabase
from bot.store.postgres import PostgresDatabase, is_postgresql_url, safe_url

# Rows read and sent at a time: a large database never sits in memory whole.
CHUNK = 5_000


class MoveRefused(RuntimeError):
    """The move cannot be made as asked (nothing was written)."""


def _tables_in_order(source: sqlite3.Connection) -> list[str]:
    """The tables, each after those it refers to (a row's session exists before the row)."""
    names = [
        row[0]
        for row in source.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
    ]
    refers = {
        name: {row[2] for row in source.execute(f'PRAGMA foreign_key_list("{name}")')} - {name}
        for name in names
    }
    ordered: list[str] = []
    while len(ordered) < len(names):
        ready = [name for name in names if name not in ordered and refers[name] <= set(ordered)]
        if not ready:
            raise MoveRefused(
                f"the tables refer to one another in a circle: {sorted(set(names) - set(ordered))}"
            )
        ordered += ready
    return ordered


def _rows(source: sqlite3.Connection, table: str, columns: Sequence[str]) -> Iterator[list[tuple[Any, ...]]]:
    listed = ", ".join(f'"{column}"' for column in columns)
    order = " ORDER BY rowid" if _has_rowid(source, table) else ""  # the order they were written in
    cursor = source.execute(f'SELECT {listed} FROM "{table}"{order}')
    while chunk := cursor.fetchmany(CHUNK):
        yield chunk


def _has_rowid(source: sqlite3.Connection, table: str) -> bool:
    try:
        source.execute(f'SELECT rowid FROM "{table}" LIMIT 0')
    except sqlite3.OperationalError:
        return False  # WITHOUT ROWID
    return True


def _as_column_type(value: Any, kind: str) -> Any:
    """SQLite keeps a value of any type in any column: a whole REAL in an INTEGER column becomes an int, an
    integer in a REAL one a float (PostgreSQL's columns hold their own type only)."""
    if kind == "bigint" and isinstance(value, float) and value.is_integer():
        return int(value)
    if kind == "double precision" and isinstance(value, int):
        return float(value)
    return value


async def move(sqlite_path: Path, url: str) -> dict[str, int]:
    """Copy every table of the SQLite file into the PostgreSQL database; the rows copied per table."""
    if not await asyncio.to_thread(sqlite_path.is_file):
        raise MoveRefused(f"no database at {sqlite_path}")
    # Opened once through the store: checked (a damaged file is refused) and brought to the latest schema.
    await (await Database.open(sqlite_path)).close()
    target = await PostgresDatabase.open(url)  # migrated: the same tables, empty
    await target.close()
    source = sqlite3.connect(f"file:{sqlite_path}?mode=ro", uri=True)
    connection = await asyncpg.connect(url)
    try:
        copied: dict[str, int] = {}
        async with connection.transaction():
            for table in _tables_in_order(source):
                columns = await connection.fetch(
                    "SELECT column_name, data_type, is_identity FROM information_schema.columns"
                    " WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER'"
                    " ORDER BY ordinal_position",  # a generated column is computed there, never copied
                    table,
                )
                if not columns:
                    raise MoveRefused(f"the table {table} of {sqlite_path} has no counterpart in PostgreSQL")
                if await connection.fetchval(f'SELECT EXISTS (SELECT 1 FROM "{table}")'):
                    raise MoveRefused(
                        f"the PostgreSQL database already has rows in {table}: move into a new one"
                    )
                names = [column["column_name"] for column in columns]
                kinds = [column["data_type"] for column in columns]
                copied[table] = 0
                for chunk in _rows(source, table, names):
                    records = [
                        tuple(_as_column_type(value, kind) for value, kind in zip(row, kinds, strict=True))
                        for row in chunk
                    ]
                    await connection.copy_records_to_table(table, records=records, columns=names)
                    copied[table] += len(records)
                # New rows are numbered after the ones moved.
                for column in columns:
                    if column["is_identity"] == "YES":
                        await connection.execute(
                            f"SELECT setval(pg_get_serial_sequence('\"{table}\"', '{column['column_name']}'),"
                            f' COALESCE((SELECT MAX("{column["column_name"]}") FROM "{table}"), 0) + 1, false)'
                        )
                counted = await connection.fetchval(f'SELECT COUNT(*) FROM "{table}"')
                if counted != copied[table]:
                    raise MoveRefused(f"{table}: {copied[table]} rows sent, {counted} arrived")
        return copied
    finally:
        await connection.close()
        source.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot.store.move",
        description="Move the bot's SQLite database to a new PostgreSQL database (the bot stopped meanwhile).",
    )
    parser.add_argument("sqlite_file", type=Path, help="the SQLite database (DATABASE_PATH)")
    parser.add_argument("postgresql_url", help="the PostgreSQL database (DATABASE_URL), with no rows yet")
    arguments = parser.parse_args(argv)
    if not is_postgresql_url(arguments.postgresql_url):
        print("the second argument must be a postgresql:// URL", file=sys.stderr)
        return 2
    try:
        copied = asyncio.run(move(arguments.sqlite_file, arguments.postgresql_url))
    except (MoveRefused, UnusableDatabase, asyncpg.PostgresError) as exc:
        print(f"nothing moved: {exc}", file=sys.stderr)
        return 1
    for table, count in copied.items():
        print(f"{table}: {count} rows")
    print(
        f"moved {sum(copied.values())} rows to {safe_url(arguments.postgresql_url)}; set DATABASE_URL to use it"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
