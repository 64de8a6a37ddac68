"""A game whose stored data cannot be read back is closed, and its channel is told so in the table's
language: the game's own language option when that can still be read, else the server's setting."""

from __future__ import annotations

import time
from typing import Any

import pytest

from bot.i18n import t
from bot.store.database import Statement

from .conftest import requires_product
from .driver import Table
from .test_topstop_languages import _open_top_stop

pytestmark = requires_product


async def _damage(bot: Any, session_id: int, **columns: str) -> None:
    """Overwrite stored columns of a session, then drop it from memory so the next use reads the store."""
    assignments = ", ".join(f"{column} = ?" for column in columns)
    await bot.store.db.run(
        [Statement(f"UPDATE sessions SET {assignments} WHERE id = ?", (*columns.values(), session_id))]
    )
    bot.sessions.idle_seconds = 0
    assert bot.sessions.evict_idle() >= 1


async def _set_server_language(bot: Any, table: Table, language: str) -> None:
    async with bot.store.transaction() as tx:
        await bot.store.guild_settings.set_language(tx, table.fake.guild_id, language, time.time())


@pytest.mark.allow_bot_errors  # the closing is logged as an error: checked below
@pytest.mark.parametrize(
    ("damaged", "told_in"),
    [
        ({"snapshot": '{"not": "a Top Stop state"}'}, "fr"),  # the game's language option still reads
        ({"snapshot": "{", "options": "{"}, "de"),  # the options are lost too: the server's language
    ],
)
@pytest.mark.both_databases
async def test_an_unreadable_game_is_closed_and_its_channel_told_in_the_tables_language(
    product_bot: Any, table: Table, bot_errors: Any, damaged: dict[str, str], told_in: str
) -> None:
    await _set_server_language(product_bot, table, "de")
    game = await _open_top_stop(table, product_bot, "fr")
    await _damage(product_bot, game.sid, **damaged)

    await game.players[0].slash("topstop status")

    notice = t("ui.unreadable_closed", told_in, command="/topstop new")
    assert any(notice in message.text for message in table.channel_messages()), [
        m.text for m in table.channel_messages()[-3:]
    ]
    assert await product_bot.sessions.open_in_channel(table.channel_id) is None  # closed
    logged = [record.getMessage() for record in bot_errors.records]
    assert logged and all("cannot be read and is closed" in line for line in logged), logged
