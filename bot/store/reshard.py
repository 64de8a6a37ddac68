"""python -m bot.store.reshard --count N: record a new shard count.

Every process of the bot must be stopped: the shards of the old count are all taken first (on SQLite, the
database's lock), so a running process makes this refuse. Start the processes again with SHARD_COUNT=N.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from bot.store.shards import SHARD_COUNT_KEY, ShardsRefused, set_count


def main(argv: list[str] | None = None) -> int:
    from bot.config import Settings, SettingsError
    from bot.store import SchemaTooNew, Store, UnusableDatabase

    parser = argparse.ArgumentParser(prog="python -m bot.store.reshard", description=__doc__)
    parser.add_argument("--count", type=int, required=True, help="the new shard count (1 or more)")
    arguments = parser.parse_args(argv)
    if arguments.count < 1:
        parser.error("--count must be 1 or more")

    async def run() -> int:
        settings = Settings.from_env()
        store = await Store.open(settings.database_path, synchronous=settings.synchronous)
        try:
            old = int(await store.meta.get(SHARD_COUNT_KEY) or settings.shard_count)
            await set_count(store, arguments.count, old)
        finally:
            await store.close()
        print(f"shard count: {old} -> {arguments.count}")
        return 0

    try:
        return asyncio.run(run())
    except (SettingsError, ShardsRefused, SchemaTooNew, UnusableDatabase) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
