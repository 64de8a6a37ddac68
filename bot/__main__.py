"""python -m bot: read the settings, then run the bot until SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

import discord

from bot.config import Settings, SettingsError
from bot.store import SchemaTooNew, Store, UnusableDatabase

log = logging.getLogger("bot")

NO_TOKEN = (
    "DISCORD_TOKEN is not set: create an application at https://discord.com/developers/applications, "
    "copy its bot token into .env (see .env.example and README.md), then run again."
)


async def run(settings: Settings) -> int:
    from bot.app import TopBot, invite_url

    assert settings.token is not None
    if settings.application_id:
        print(f"Invite the bot: {invite_url(settings.application_id)}", flush=True)
    try:
        # Opened (and migrated) before logging in, so that an unusable database stops us at once.
        store = await Store.open(settings.database_path)
    except (SchemaTooNew, UnusableDatabase) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    bot = TopBot(settings, store)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    async with bot:
        runner = asyncio.create_task(bot.start(settings.token))
        stopper = asyncio.create_task(stop.wait())
        done, _ = await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if stopper in done:
            log.info("stopping: finishing writes and closing")
            await bot.close()
        else:
            stopper.cancel()
        try:
            await runner
        except discord.LoginFailure:
            print(
                "Discord refused the token in DISCORD_TOKEN: reset it in the developer portal.",
                file=sys.stderr,
            )
            return 1
    log.info("stopped cleanly")
    return 0


def main() -> int:
    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )
    if not settings.token:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    return asyncio.run(run(settings))


if __name__ == "__main__":
    sys.exit(main())
