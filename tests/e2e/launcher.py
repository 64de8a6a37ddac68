"""Runs a bot, unmodified, against the fake Discord: `python tests/e2e/launcher.py`.

The environment names the fake: FAKE_DISCORD_API (for discord.http.Route.BASE) and
FAKE_DISCORD_GATEWAY (for DiscordWebSocket.DEFAULT_GATEWAY), both on 127.0.0.1. E2E_BOT_MAIN picks
the entry point as module:function (default bot.__main__:main, the product); the bot reads
DISCORD_TOKEN, DATABASE_PATH, DEV_GUILD_ID … as in production.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import signal
import sys
from pathlib import Path
from typing import Any

import yarl

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
# discord.py dispatches `ready` only once no GUILD_CREATE has come for this long (2 s by default, for
# Discord's guilds that stream in after READY). The fake sends its guilds right behind READY, so a bot
# waiting 2 s here would only make every test wait: a fifth of a second is far more than they take.
GUILD_READY_TIMEOUT = 0.2


def ready_quickly() -> None:
    """Every client made from now on waits GUILD_READY_TIMEOUT for guilds, unless told otherwise."""
    import discord.state

    original = discord.state.ConnectionState.__init__
    if getattr(original, "ready_quickly", False):
        return

    def init(self: discord.state.ConnectionState, *args: object, **options: object) -> None:
        options.setdefault("guild_ready_timeout", GUILD_READY_TIMEOUT)
        original(self, *args, **options)  # type: ignore[arg-type]

    init.ready_quickly = True  # type: ignore[attr-defined]
    discord.state.ConnectionState.__init__ = init  # type: ignore[method-assign]


def point_discord_at(api_base: str, gateway: str) -> None:
    """Sends discord.py's REST calls, webhooks, interaction callbacks and gateway to the fake."""
    import discord.asset
    import discord.gateway
    import discord.http

    for url in (api_base, gateway):
        # The bot must never reach the real Discord from a test.
        if yarl.URL(url).host not in ("127.0.0.1", "localhost", "::1"):
            raise SystemExit(f"launcher: refusing a non-loopback Discord address {url}")
    discord.http.Route.BASE = api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    # Avatar and attachment URLs stay local too, should the bot download one.
    discord.asset.Asset.BASE = str(yarl.URL(api_base).origin())


BUSY_VARIABLE = "E2E_BUSY_FD"  # the pipe through which the process says when its work starts and stops
BUSY_POLL = 0.005  # seconds between looks at the bot's work under way


def is_busy(client: Any) -> bool:
    """What the tests wait for before they look at the channel: a click's handler still at work, or a
    cog's redraws (the in-process bot's `busy_checks` in conftest.py)."""
    try:
        from bot.ui import components
    except ImportError:  # the harness's own minimal bot
        handling = False
    else:
        handling = components.handling()
    cogs = getattr(client, "cogs", {})
    return handling or any(getattr(cog, "busy", False) for cog in list(cogs.values()))


def report_busy(fd: int) -> None:
    """Every client started from now on writes b"1" to `fd` when its work starts and b"0" when it stops."""
    import discord

    original = discord.Client.start

    async def watch(client: Any) -> None:
        last = False
        with contextlib.suppress(OSError):  # the test has gone: nobody listens
            while True:
                busy = is_busy(client)
                if busy != last:
                    os.write(fd, b"1" if busy else b"0")
                    last = busy
                await asyncio.sleep(BUSY_POLL)

    async def start(self: discord.Client, *args: Any, **kwargs: Any) -> None:
        watcher = asyncio.create_task(watch(self))
        try:
            await original(self, *args, **kwargs)
        finally:
            watcher.cancel()

    discord.Client.start = start  # type: ignore[method-assign]


def main() -> int:
    # Run as a script, this folder is sys.path[0]; its modules (gateway, spec …) must not shadow others.
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
    sys.path.insert(0, str(REPO_ROOT))  # bot, cogs and tests.e2e.minimal_bot
    # As started from a terminal: a test run in the background (a shell's `&`) hands its children SIGINT
    # ignored, and Python then never turns it into KeyboardInterrupt.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    point_discord_at(os.environ["FAKE_DISCORD_API"], os.environ["FAKE_DISCORD_GATEWAY"])
    ready_quickly()
    if BUSY_VARIABLE in os.environ:
        report_busy(int(os.environ[BUSY_VARIABLE]))
    module_name, _, function = os.environ.get("E2E_BOT_MAIN", "bot.__main__:main").partition(":")
    entry = getattr(importlib.import_module(module_name), function or "main")
    return int(entry() or 0)


if __name__ == "__main__":
    sys.exit(main())
