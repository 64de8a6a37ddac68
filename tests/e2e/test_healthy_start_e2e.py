"""Issue 30, item 17: a healthy start logs no WARNING. Stalls while the bot starts (imports, opening the word
tables) are INFO until its set-up is done (bot/monitor.py); a WARNING is something to act on.

The bot runs as `python -m bot` does, in a process of its own: in the test's process the loopback Discord
shares the event loop, and a pause of its own work (checking a request against Discord's schema) would be
logged as the bot's.
"""

from __future__ import annotations

import asyncio
import signal

import pytest

from .conftest import requires_product
from .fake_discord import FakeDiscord
from .process import SpawnBot, wait_for_new_session

pytestmark = requires_product

PRODUCT = "bot.__main__:main"


@pytest.mark.both_databases
async def test_item17_a_healthy_start_of_the_bot_logs_no_warning(
    spawn_bot: SpawnBot, fake_discord: FakeDiscord
) -> None:
    bot = await spawn_bot(PRODUCT)
    await wait_for_new_session(fake_discord, bot)
    await fake_discord.wait_until(
        lambda: bool(fake_discord.all_commands()), within=30, what="the bot to sync its commands"
    )
    await asyncio.sleep(0.5)  # what the bot does right after it is ready
    assert await bot.stop(signal.SIGTERM) == 0
    log = bot.log_text()
    assert "Stopped cleanly".lower() in log.lower(), log[-2000:]
    # What the start logged (the dictionaries load from the first moment) was held back, then shown once online.
    loaded = log.find("words for en ready")
    assert 0 <= loaded < log.index("stopping"), log[-3000:]
    warnings = [line for line in log.splitlines() if " WARNING " in line or " ERROR " in line]
    assert warnings == [], log[-3000:]
