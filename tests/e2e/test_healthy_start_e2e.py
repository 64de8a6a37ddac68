"""Issue 30, item 17: a healthy start logs no WARNING. Stalls while the bot starts (imports, opening the word
tables) are INFO until its set-up is done (bot/monitor.py); a WARNING is something to act on."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import pytest

# The harness's own loggers (the fake Discord, the gateway): what they say is not the bot's.
HARNESS = ("e2e", "tests.")


class _Warnings(logging.Handler):
    """The WARNINGs (and worse) the bot and discord.py log."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith(HARNESS):
            self.records.append(record)


@pytest.fixture
def start_warnings() -> Iterator[_Warnings]:
    """Every WARNING logged from the bot's construction on (listed before `product_bot`, so set up first)."""
    handler = _Warnings()
    root = logging.getLogger()
    root.addHandler(handler)
    yield handler
    root.removeHandler(handler)


async def test_item17_a_healthy_start_of_the_bot_logs_no_warning(
    start_warnings: _Warnings, product_bot: Any
) -> None:
    await asyncio.wait_for(product_bot.set_up.wait(), 20)
    await asyncio.wait_for(product_bot.wait_until_ready(), 20)
    await asyncio.sleep(0.5)  # what the bot does right after it is ready
    logged = [f"{r.name} {r.levelname}: {r.getMessage()}" for r in start_warnings.records]
    assert logged == []
