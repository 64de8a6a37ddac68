"""The web pages through aiohttp's test client, on a real SQLite file: a server's pages exist only under its
current link token, any other path is the same 404, only GET and HEAD are answered, every answer carries the
security headers, a client is held to its rate, the pages' connection cannot write, and no page holds a
secret: an unfinished game, a rack, a seed."""

from __future__ import annotations

import random
import sqlite3
from typing import Any

import asyncpg
import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.engine.game import step
from bot.web.reads import WebReads
from bot.web.server import CONTENT_SECURITY_POLICY, WebPages
from bot.web.tables import BotTables

from .conftest import (
    GAME,
    GUILD,
    HOSTILE,
    OTHER_GUILD,
    OTHER_TOKEN,
    PLAYERS,
    TOKEN,
    Site,
    open_pages,
)

WRONG_TOKEN = "w" * 32


async def page(client: TestClient[Any, Any], path: str) -> tuple[int, str]:
    response = await client.get(path)
    return response.status, await response.text()


async def test_the_leaderboard_lists_the_servers_players_under_its_token(site: Site, client: Any) -> None:
    status, html = await page(client, site.path())
    assert status == 200 and "Ann" in html and "Bob" in html
    status, html = await page(client, site.path(f"?game={GAME}"))
    assert status == 200 and "1,234" in html  # Ann's best game
    assert f'href="/s/{TOKEN}/player/101"' in html


async def test_each_server_sees_only_its_own_games(site: Site, client: Any) -> None:
    other_games = (await page(client, site.path("games", token=OTHER_TOKEN)))[1]
    ours = (await page(client, site.path("games")))[1]
    assert other_games.count("/games/") == 1 and ours.count("/games/") == 3
    other_game = next(iter(await site.store.history.finished(OTHER_GUILD)))
    assert (await page(client, site.path(f"games/{other_game.session_id}")))[0] == 404


async def test_a_wrong_old_or_withdrawn_token_is_the_same_404_as_an_unknown_path(
    site: Site, client: Any
) -> None:
    unknown = await page(client, "/nothing/here")
    assert unknown[0] == 404
    assert await page(client, site.path(token=WRONG_TOKEN)) == unknown
    assert await page(client, site.path("games", token=WRONG_TOKEN)) == unknown
    assert await page(client, site.path("player/101", token=WRONG_TOKEN)) == unknown
    assert await page(client, f"/s/{TOKEN}/nothing") == unknown

    await open_pages(site.store, "n" * 32)  # a new link: the old one dies
    assert await page(client, site.path()) == unknown
    assert (await page(client, site.path(token="n" * 32)))[0] == 200
    await open_pages(site.store, None)  # the pages turned off
    assert await page(client, site.path(token="n" * 32)) == unknown


async def test_only_finished_games_are_shown(site: Site, client: Any) -> None:
    lobby = await site.manager.open_lobby(GUILD, 30, GAME, "101", {}, host_name="Ann")
    running = await site.manager.open_lobby(GUILD, 31, GAME, "102", {}, host_name="Bob")
    await site.manager.join(running.id, "101", "Ann")
    await site.manager.start_game(running.id, "102")
    for unfinished in (lobby.id, running.id):
        assert (await page(client, site.path(f"games/{unfinished}")))[0] == 404
        assert (await page(client, site.path(f"games/{unfinished}/0.png")))[0] == 404
        assert f"/games/{unfinished}" not in (await page(client, site.path("games")))[1]


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
async def test_anything_but_reading_is_refused_with_405(site: Site, client: Any, method: str) -> None:
    for path in (site.path(), site.path(token=WRONG_TOKEN), "/nothing", "/site.css"):
        response = await client.request(method, path)
        assert response.status == 405, path
        assert response.headers["Allow"] == "GET, HEAD"


async def test_head_answers_like_get_without_a_body(site: Site, client: Any) -> None:
    response = await client.head(site.path())
    assert response.status == 200 and await response.read() == b""
    assert (await client.head(site.path(token=WRONG_TOKEN))).status == 404


async def test_every_answer_carries_the_security_headers(site: Site, tmp_path: Any) -> None:
    reads = await WebReads.open(site.database)
    pages = WebPages(reads, BotTables(site.bot), rate_limit=12)
    async with TestClient(TestServer(pages.app())) as client:
        answers = [
            await client.get(site.path()),
            await client.get(site.path(f"games/{site.played[0]}")),
            await client.get(site.path(f"games/{site.played[0]}/0.png")),
            await client.get("/site.css"),
            await client.get(site.path(token=WRONG_TOKEN)),
            await client.post(site.path()),
        ]
        while (limited := await client.get("/site.css")).status != 429:
            pass
        answers.append(limited)
    await reads.close()
    assert [answer.status for answer in answers] == [200, 200, 200, 200, 404, 405, 429]
    for answer in answers:
        assert answer.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
        assert "script-src" not in answer.headers["Content-Security-Policy"]
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
        assert answer.headers["Referrer-Policy"] == "no-referrer"
    assert CONTENT_SECURITY_POLICY.startswith("default-src 'none';")
    assert (
        "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY and "base-uri 'none'" in CONTENT_SECURITY_POLICY
    )


async def test_a_client_over_its_rate_gets_429_with_retry_after(site: Site, tmp_path: Any) -> None:
    reads = await WebReads.open(site.database)
    pages = WebPages(reads, BotTables(site.bot), rate_limit=3)
    async with TestClient(TestServer(pages.app())) as client:
        statuses = [(await client.get(site.path())).status for _ in range(3)]
        refused = await client.get(site.path())
        also_refused = await client.get("/nothing")  # a 404 is counted too: tokens are not guessed faster
    await reads.close()
    assert statuses == [200, 200, 200]
    assert refused.status == 429 and also_refused.status == 429
    assert 1 <= int(refused.headers["Retry-After"]) <= 20  # a token comes back every 20 s at 3 a minute


async def test_the_pages_connection_refuses_every_write(site: Site, tmp_path: Any) -> None:
    reads = await WebReads.open(site.database)
    try:
        for statement in (
            "UPDATE guild_settings SET settings = '{}'",
            "DELETE FROM results",
            "INSERT INTO meta (key, value) VALUES ('web', 'wrote')",
            "CREATE TABLE written (x INTEGER)",
        ):
            with pytest.raises((sqlite3.OperationalError, asyncpg.PostgresError), match="readonly|read-only"):
                await reads.db.fetch_all(statement)
        assert await reads.guild_of_token(TOKEN) == GUILD  # and it still reads
    finally:
        await reads.close()
    assert await site.store.meta.get("web") is None


async def test_a_missing_database_is_not_created_by_the_pages(tmp_path: Any) -> None:
    with pytest.raises(FileNotFoundError):
        await WebReads.open(tmp_path / "none.db")
    assert not (tmp_path / "none.db").exists()


async def test_numbers_and_dates_are_written_in_the_readers_language(site: Site, client: Any) -> None:
    # Ann's best game scored 1234; the game known by its results ended on 2023-11-14 (conftest).
    written = {
        "en": ("1,234", "Nov 14, 2023"),
        "fr": ("1\u202f234", "14 nov. 2023"),
        "de": ("1.234", "14.11.2023"),
    }
    for lang, (figure, day) in written.items():
        assert figure in (await page(client, site.path(f"?game={GAME}&lang={lang}")))[1], lang
        assert figure in (await page(client, site.path(f"player/101?lang={lang}")))[1], lang
        assert day in (await page(client, site.path(f"games?lang={lang}")))[1], lang


async def test_the_servers_language_is_the_default_and_lang_switches_it(site: Site, client: Any) -> None:
    async with site.store.transaction() as tx:
        await site.store.guild_settings.set_language(tx, GUILD, "de", 0.0)
    german = (await page(client, site.path()))[1]
    assert '<html lang="de">' in german and "Bestenliste" in german
    french = (await page(client, site.path("?lang=fr")))[1]
    assert '<html lang="fr">' in french and "Classement" in french
    assert f"/s/{TOKEN}/games?lang=fr" in french  # the links keep the reader's choice


async def test_names_are_text_never_markup(site: Site, client: Any) -> None:
    for path in ("", "games", f"games/{site.played[0]}", f"games/{site.played[0]}?step=0", "player/103"):
        html = (await page(client, site.path(path)))[1]
        assert HOSTILE not in html and "<img src=x" not in html, path
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html, path


async def test_the_replay_steps_from_the_start_to_the_end(site: Site, client: Any) -> None:
    actions = await site.store.actions.for_session(site.played[0])
    last = len(actions)
    start = (await page(client, site.path(f"games/{site.played[0]}?step=0")))[1]
    assert f"Step 0 of {last}" in start and f"games/{site.played[0]}?step=1" in start
    end = (await page(client, site.path(f"games/{site.played[0]}")))[1]  # by default, how it ended
    assert f"Step {last} of {last}" in end and "?step=" + str(last - 1) in end
    beyond = (await page(client, site.path(f"games/{site.played[0]}?step=999")))[1]
    assert f"Step {last} of {last}" in beyond
    picture = await client.get(site.path(f"games/{site.played[0]}/1.png"))
    assert picture.status == 200 and picture.content_type == "image/png"
    assert (await picture.read()).startswith(b"\x89PNG\r\n\x1a\n")
    assert (await client.get(site.path(f"games/{site.played[0]}/{last + 1}.png"))).status == 404


async def test_no_page_holds_a_rack_or_the_seed(site: Site, client: Any) -> None:
    """Every step of a replay, in every language, against what only each player saw: their rack."""
    session_id = site.played[0]
    record = await site.store.sessions.get(session_id)
    assert record is not None
    rules = site.manager.games[GAME]
    state = rules.new_game(record.options, record.players, record.setup, random.Random(record.seed))
    racks = [[rules.view_for(state, player)["rack"] for player in PLAYERS]]
    for logged in await site.store.actions.for_session(session_id):
        _, applied = step(rules, state, record.seed, logged.version, logged.action)
        state = applied.state
        racks.append([rules.view_for(state, player)["rack"] for player in PLAYERS])
    pages = [f"games/{session_id}/{index}.png" for index in range(len(racks))]
    for lang in ("en", "fr", "de"):
        pages += [f"games/{session_id}?step={index}&lang={lang}" for index in range(len(racks))]
        pages += [f"?lang={lang}", f"games?lang={lang}", f"player/101?lang={lang}"]
    for path in pages:
        if path.endswith(".png"):
            continue
        html = (await page(client, site.path(path)))[1]
        assert str(record.seed) not in html
        index = int(path.split("step=")[1].split("&")[0]) if "step=" in path else None
        for rack in racks[index] if index is not None else [r for step_racks in racks for r in step_racks]:
            assert len(rack) == 7 and "".join(rack) not in html, path


async def test_a_player_who_made_their_results_anonymous_is_named_as_one(site: Site, client: Any) -> None:
    async with site.store.transaction() as tx:
        anonymous, _ = await site.store.profiles.anonymise_results(tx, "102")
    html = (await page(client, site.path(f"?game={GAME}")))[1]
    assert "Bob" not in html.split("<tbody>")[1] and "an anonymous player" in html
    assert anonymous not in html.replace(f"player/{anonymous}", "")
    assert "an anonymous player" in (await page(client, site.path(f"player/{anonymous}")))[1]
    assert (await page(client, site.path("player/102")))[0] == 404  # nothing is theirs any more
