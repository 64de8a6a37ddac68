"""A finished game with a bot on the web pages (docs/bots.md): the games page marks it "with bots" and names
the bot (never its id), the player's page counts it apart, against the bot's level, and no leaderboard
place moves for it."""

from __future__ import annotations

import html as markup
from typing import Any

from aiohttp.test_utils import TestClient

from bot.engine.bots import Level
from bot.ui.bots import bot_name

from .conftest import GAME, GUILD, PLAYERS, Site


async def page(client: TestClient[Any, Any], path: str) -> tuple[int, str]:
    response = await client.get(path)
    return response.status, markup.unescape(await response.text())


async def play_with_a_bot(site: Site, channel: int) -> tuple[int, str]:
    """Ann against a hard bot; everyone passes in turn until the game ends."""
    manager = site.manager
    record = await manager.open_lobby(GUILD, channel, GAME, "101", {}, host_name=PLAYERS["101"])
    _, seat = await manager.add_bot(record.id, "101", "hard", lambda s: bot_name(s, Level.HARD, "en"))
    await manager.start_game(record.id, "101")
    for _ in range(20):
        view = await manager.view(record.id, None)
        if view.get("finished"):
            break
        await manager.act(record.id, view["turn"], {"do": "pass"})
    assert (await manager.session(record.id)).status == "finished"
    return record.id, seat


async def test_a_game_with_a_bot_is_marked_and_names_the_bot_and_moves_no_leaderboard_place(
    site: Site, client: Any
) -> None:
    board_before = (await page(client, site.path(f"?game={GAME}")))[1].split("<tbody>")[1]
    session, seat = await play_with_a_bot(site, 30)
    _, games = await page(client, site.path("games"))
    row = next(line for line in games.split("<tr>") if f"games/{session}" in line)
    assert "🤖 with bots" in row and "🤖 Ada (hard)" in row and seat not in row
    assert sum("with bots" in line for line in games.split("<tr>")) == 1  # the people's games are not

    _, player = await page(client, site.path("player/101"))
    [ann] = [row for row in await site.store.results.for_session(session) if row.user_id == "101"]
    assert f"🤖 With bots (no rating): against hard: {int(ann.won)} won of 1" in player
    board_after = (await page(client, site.path(f"?game={GAME}")))[1].split("<tbody>")[1]
    assert board_after == board_before and "Ada" not in board_after
