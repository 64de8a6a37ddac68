"""Runs a bot, unmodified, against the fake Discord: `python tests/e2e/launcher.py`.

The environment names the fake: FAKE_DISCORD_API (for discord.http.Route.BASE) and
FAKE_DISCORD_GATEWAY (for DiscordWebSocket.DEFAULT_GATEWAY), both on 127.0.0.1. E2E_BOT_MAIN picks
the entry point as module:function (default bot.__main__:main, the product); the bot reads
DISCORD_TOKEN, DATABASE_PATH, DEV_GUILD_ID … as in production.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import yarl

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]


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


def main() -> int:
    # Run as a script, this folder is sys.path[0]; its modules (gateway, spec …) must not shadow others.
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
    sys.path.insert(0, str(REPO_ROOT))  # bot, cogs and tests.e2e.minimal_bot
    point_discord_at(os.environ["FAKE_DISCORD_API"], os.environ["FAKE_DISCORD_GATEWAY"])
    module_name, _, function = os.environ.get("E2E_BOT_MAIN", "bot.__main__:main").partition(":")
    entry = getattr(importlib.import_module(module_name), function or "main")
    return int(entry() or 0)


if __name__ == "__main__":
    sys.exit(main())
