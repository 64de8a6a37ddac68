"""/leaderboard against the fake Discord: a server's board of 25 players, a page at a time, with the caller's
own place under the page; its Previous/Next buttons are answered by a bot process started after the one that
drew them was killed (everything a page needs is in the buttons' ids)."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from bot.store import Store

from .conftest import requires_product
from .driver import Table
from .fake_discord import FakeDiscord
from .process import SpawnBot, wait_for_new_session

pytestmark = requires_product

PRODUCT = "bot.__main__:main"


async def seed_results(database: Path | str, guild_id: int, scores: dict[str, int]) -> None:
    """One finished Top Stop game per player, yesterday, with that score."""
    finished_at = time.time() - 86400
    store = await Store.open(database)
    try:
        async with store.transaction() as tx:
            for channel, (player, score) in enumerate(scores.items(), 1):
                session_id = await tx.insert(
                    "INSERT INTO sessions (guild_id, channel_id, game, status, host_id, seed, created_at,"
                    " updated_at) VALUES (?, ?, 'topstop', 'finished', ?, 0, ?, ?)",
                    (guild_id, 9000 + channel, player, finished_at, finished_at),
                )
                await tx.execute(
                    "INSERT INTO results (session_id, guild_id, game, user_id, score, rank, won, finished_at,"
                    " result) VALUES (?, ?, 'topstop', ?, ?, 1, 1, ?, 'won')",
                    (session_id, guild_id, player, score, finished_at),
                )
    finally:
        await store.close()


@pytest.mark.both_databases
async def test_a_paginated_leaderboard_shows_the_callers_place_and_its_buttons_survive_a_restart(
    spawn_bot: SpawnBot, fake_discord: FakeDiscord, table: Table, bot_database: Path | str
) -> None:
    first = await spawn_bot(PRODUCT)
    await wait_for_new_session(fake_discord, first)
    alice = table.user("alice")
    others = {str(700_000 + n): 100 - 2 * n for n in range(24)}  # 700000 scores most; 19 above 63
    await seed_results(bot_database, fake_discord.guild_id, {**others, str(alice.id): 63})  # 20th of 25

    board = await alice.slash("leaderboard", game="topstop", by="points")
    assert not board.ephemeral and board.message is not None
    shown = board.message
    assert "**1.** <@700000> — points per game: 100.0 · games: 1" in shown.text
    assert "**10.** <@700009>" in shown.text and "**11.**" not in shown.text
    assert f"Your place\n**20.** {alice.mention} — points per game: 63.0" in shown.text
    assert "Points per game · All time · page 1/3" in shown.text
    assert shown.button("Previous").get("disabled") and not shown.button("Next").get("disabled")

    session = fake_discord.gateway.current
    await first.kill()  # SIGKILL: nothing of the board is left in memory
    second = await spawn_bot(PRODUCT)
    await wait_for_new_session(fake_discord, second, previous=session)

    bob = table.user("bob")  # anyone may turn the page; the place shown stays the caller's
    await bob.click(shown, "Next")
    await table.fake.wait_until(lambda: "page 2/3" in shown.text, within=15, what="the second page")
    assert "**11.** <@700010>" in shown.text and "**1.** " not in shown.text
    assert f"**20.** {alice.mention}" in shown.text and "Your place" not in shown.text  # on this page now
    await alice.click(shown, "Next")
    await table.fake.wait_until(lambda: "page 3/3" in shown.text, within=15, what="the last page")
    assert "**25.** <@700023>" in shown.text and shown.button("Next").get("disabled")
    await alice.click(shown, "Previous")
    await table.fake.wait_until(lambda: "page 2/3" in shown.text, within=15, what="back to the second page")
    assert await second.stop(signal.SIGTERM) == 0
