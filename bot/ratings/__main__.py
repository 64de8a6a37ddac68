"""python -m bot.ratings rebuild [--db PATH|URL]: recompute every skill rating from the stored results.

The figures come out exactly as the live updates made them (bot/ratings: same function, same order). The
bot may keep running meanwhile: the rebuild is one transaction, and a game that ends during it is rated
after it, on the rebuilt figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from bot.ratings import rebuild_work
from bot.store import Store
from bot.store.postgres import is_postgresql_url


async def rebuild(database: Path | str) -> int:
    store = await Store.open(database)
    try:
        return await store.db.run(rebuild_work)
    finally:
        await store.close()


def main(argv: list[str] | None = None) -> int:
    """Exit 0: rebuilt; 2: not understood or no database, with one line on stderr."""
    parser = argparse.ArgumentParser(prog="python -m bot.ratings", description=__doc__)
    parser.add_argument("command", choices=["rebuild"])
    parser.add_argument(
        "--db",
        default=os.environ.get("DATABASE_URL") or os.environ.get("DATABASE_PATH", "data/bot.db"),
        help="the SQLite file or PostgreSQL URL (default: $DATABASE_URL, else $DATABASE_PATH, else data/bot.db)",
    )
    args = parser.parse_args(argv)
    database: Path | str = args.db if is_postgresql_url(args.db) else Path(args.db)
    if isinstance(database, Path) and not database.is_file():  # opening it would create an empty database
        print(f"python -m bot.ratings: no database at {database}", file=sys.stderr)
        return 2
    games = asyncio.run(rebuild(database))
    print(f"rebuilt the ratings from {games} finished game(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
