"""/leaderboard's pages: ten players a page, Previous/Next whose ids carry the whole board (so a click is
understood by a bot that has just started), and the caller's own place under the page when it is elsewhere."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bot.i18n import t
from bot.store import SessionRecord, Store
from bot.ui import components
from cogs.leaderboard import PAGE_ARGS, BoardQuery, Leaderboard, read_board, render

GUILD = 1
NOW = 1_000_000.0


@pytest.fixture
async def store(tmp_path: Path):
    opened = await Store.open(tmp_path / "bot.db")
    yield opened
    await opened.close()


async def one_game_each(
    store: Store, scores: dict[str, int], game: str = "topstop", lower: bool = False
) -> None:
    async with store.transaction() as tx:
        for channel, (player, score) in enumerate(scores.items(), 1):
            session_id = await store.sessions.create(
                tx, SessionRecord(0, GUILD, channel, game, "finished", player, [player], {}, 1)
            )
            await tx.execute(
                "INSERT INTO results (session_id, guild_id, game, user_id, score, rank, won, finished_at, result,"
                " lower_is_better) VALUES (?, ?, ?, ?, ?, 1, 1, ?, 'won', ?)",
                (session_id, GUILD, game, player, score, NOW - 3600, int(lower)),
            )


def players(n: int) -> dict[str, int]:
    """Players 1001… with 1001 the best scorer."""
    return {str(1001 + i): 100 - i for i in range(n)}


def buttons(view: Any) -> dict[str, Any]:
    return {item.item.label: item.item for item in view.children}


async def page(store: Store, query: BoardQuery) -> tuple[Any, Any, BoardQuery]:
    board, query = await read_board(store.leaderboards, GUILD, query, NOW)
    embed, view = render(board, query)
    return embed, view, query


@pytest.fixture
def routes():
    """The cog's page route, as the bot registers it when it loads the cog."""
    cog = Leaderboard(SimpleNamespace())  # type: ignore[arg-type]
    components.register("leaderboard", "page", cog.turn_page, *PAGE_ARGS, sessionless=True)
    yield
    components.unregister_game("leaderboard")


async def test_ten_a_page_with_the_callers_own_place_below_when_it_is_elsewhere(store, routes):
    await one_game_each(store, players(25))
    query = BoardQuery("topstop", "all", "points", 1, viewer="1018", lang="en")
    embed, view, _ = await page(store, query)
    lines = embed.description.splitlines()
    assert (
        len(lines) == 10 and lines[0].startswith("**1.** <@1001>") and lines[-1].startswith("**10.** <@1010>")
    )
    [own] = embed.fields
    assert own.name == "Your place" and own.value.startswith("**18.** <@1018> — points per game: 83.0")
    assert embed.footer.text == "Points per game · All time · page 1/3"
    labels = buttons(view)
    assert labels["Previous"].disabled and not labels["Next"].disabled


async def test_next_carries_the_board_in_its_id_and_reaches_the_last_page(store, routes):
    await one_game_each(store, players(25))
    query = BoardQuery("topstop", "week", "points", 1, viewer="1003", lang="en")
    _, view, _ = await page(store, query)
    route, session_id, args = components.resolve(buttons(view)["Next"].custom_id)
    assert session_id == 0 and args == {
        "game": "topstop", "period": "week", "by": "points", "page": 2, "viewer": "1003", "lang": "en"
    }  # fmt: skip
    embed, view, query = await page(store, BoardQuery(**{**args, "game": "topstop"}))
    assert embed.description.splitlines()[0].startswith("**11.** <@1011>")
    assert embed.fields[0].value.startswith("**3.** <@1003>")
    third = components.resolve(buttons(view)["Next"].custom_id)[2]
    embed, view, _ = await page(store, BoardQuery(**third))
    assert len(embed.description.splitlines()) == 5 and buttons(view)["Next"].disabled
    assert components.resolve(buttons(view)["Previous"].custom_id)[2]["page"] == 2


async def test_the_callers_place_is_not_repeated_when_it_is_on_the_page(store, routes):
    await one_game_each(store, players(12))
    embed, _, _ = await page(store, BoardQuery("topstop", "all", "points", 1, viewer="1002", lang="en"))
    assert embed.fields == []
    embed, _, _ = await page(store, BoardQuery("topstop", "all", "points", 1, viewer="999", lang="en"))
    assert embed.fields[0].value == t("general.leaderboard.unranked", "en", player="<@999>")


async def test_a_page_beyond_a_board_that_shrank_shows_its_last_page(store, routes):
    await one_game_each(store, players(12))
    embed, view, query = await page(store, BoardQuery("topstop", "all", "wins", 7, viewer="1001", lang="en"))
    assert query.page == 2 and embed.description.startswith("**11.**") and buttons(view)["Next"].disabled


async def test_one_page_needs_no_buttons_and_fewer_points_is_said_to_be_better(store, routes):
    await one_game_each(store, {"1001": 30, "1002": 5}, game="toppo", lower=True)
    embed, view, _ = await page(store, BoardQuery("toppo", "all", "points", 1, viewer="1001", lang="fr"))
    assert view is None
    assert embed.description.splitlines()[0].startswith("**1.** <@1002> — points par partie\u00a0: 5,0")
    assert embed.footer.text.endswith(t("general.leaderboard.fewer_better", "fr"))


async def test_a_forged_page_id_is_refused(routes):
    with pytest.raises(components.DamagedComponent):
        components.resolve("leaderboard::page:topstop.all.points.0.1001.en")
    with pytest.raises(components.DamagedComponent):
        components.resolve("leaderboard::page:nogame.all.points.1.1001.en")
