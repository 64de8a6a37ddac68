"""The web pages in a real headless browser: Debian's Chromium (`make setup` installs it with apt), driven
by Playwright. Without it these tests fail: they never skip.

Each test serves the pages on 127.0.0.1 as the bot does (WebServer, on a port the system picks) and records
every request the browser makes, to check that none leaves 127.0.0.1."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import pytest_asyncio
from playwright.async_api import Browser as PlaywrightBrowser
from playwright.async_api import BrowserContext, Page, async_playwright

from bot.web.reads import WebReads
from bot.web.server import WebPages, WebServer
from bot.web.tables import BotTables

from .conftest import GAME, HOSTILE, TOKEN, Site, serving_site

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass
class Browser:
    context: BrowserContext
    page: Page
    base: str  # http://127.0.0.1:<port>
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)

    def url(self, rest: str = "", token: str = TOKEN) -> str:
        return f"{self.base}/s/{token}/{rest}"


def installed_chromium() -> str:
    """Debian's chromium, or the test fails: a missing browser is a broken set-up, never a skip."""
    assert os.path.isfile(CHROMIUM), f"no browser at {CHROMIUM}: `make setup` installs Debian's chromium"
    return CHROMIUM


# One Chromium per module (and worker), a new context per test: launching it was 1–2 s of every test. The
# module's tests and their async fixtures share the module's event loop, which the browser's driver is bound to.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def chromium() -> AsyncIterator[PlaywrightBrowser]:
    executable = installed_chromium()
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=executable, headless=True, args=ARGS)
        try:
            yield launched
        finally:
            await launched.close()


@pytest_asyncio.fixture(loop_scope="module")
async def site(database: str | Path, tmp_path: Any) -> AsyncIterator[Site]:
    async with serving_site(database, tmp_path) as served:
        yield served


@pytest_asyncio.fixture(loop_scope="module")
async def browser(chromium: PlaywrightBrowser, site: Site) -> AsyncIterator[Browser]:
    reads = await WebReads.open(site.database)
    server = WebServer(WebPages(reads, BotTables(site.bot), rate_limit=600), "127.0.0.1", 0)
    await server.start()
    try:
        context = await chromium.new_context()  # its own cookies, cache and storage: nothing of another test
        page = await context.new_page()
        seen = Browser(context, page, f"http://127.0.0.1:{server.port_bound}")
        context.on("request", lambda request: seen.requests.append(request.url))
        page.on("dialog", lambda dialog: seen.dialogs.append(dialog.message))
        page.on(
            "console",
            lambda message: message.type == "error" and seen.console_errors.append(message.text),
        )
        try:
            yield seen
        finally:
            await context.close()
    finally:
        await server.close()
        await reads.close()
    # Whatever the test did: every request the browser made stayed on this machine's loopback address.
    assert seen.requests, "the browser made no request"
    assert {urlsplit(url).hostname for url in seen.requests} == {"127.0.0.1"}, seen.requests


async def test_the_leaderboard_shows_one_row_per_player_in_place_order(browser: Browser) -> None:
    response = await browser.page.goto(browser.url(f"?game={GAME}&period=all&by=wins"))
    assert response is not None and response.status == 200
    rows = browser.page.locator("table.board tbody tr")
    assert await rows.count() == 3
    places = [await rows.nth(index).locator("td").first.inner_text() for index in range(3)]
    names = [await rows.nth(index).locator("td.player").inner_text() for index in range(3)]
    assert places == ["1", "2", "3"]
    assert names[0] == "Ann" and set(names) == {"Ann", "Bob", HOSTILE}
    # The stylesheet is the app's own and the policy lets it apply: the page's width is the sheet's.
    assert await browser.page.evaluate("getComputedStyle(document.body).maxWidth") == "960px"
    assert browser.console_errors == []


async def test_the_filters_form_asks_the_same_server_for_another_board(browser: Browser) -> None:
    await browser.page.goto(browser.url())
    await browser.page.select_option("select[name=game]", GAME)
    await browser.page.select_option("select[name=by]", "rating")
    await browser.page.click("form.filters button[type=submit]")
    await browser.page.wait_for_load_state()
    assert f"game={GAME}" in browser.page.url and "by=rating" in browser.page.url
    header = await browser.page.locator("table.board thead").inner_text()
    assert "Rating" in header


@pytest.mark.parametrize(
    ("lang", "figure", "day"),
    [("en", "1,234", "Nov 14, 2023"), ("fr", "1\u202f234", "14 nov. 2023"), ("de", "1.234", "14.11.2023")],
)
async def test_numbers_and_dates_are_written_as_each_language_writes_them(
    browser: Browser, lang: str, figure: str, day: str
) -> None:
    await browser.page.goto(browser.url(f"?game={GAME}&lang={lang}"))
    ann = browser.page.locator("table.board tbody tr", has_text="Ann")
    assert await ann.locator("td.best").inner_text() == figure
    assert await browser.page.locator("html").get_attribute("lang") == lang
    await browser.page.goto(browser.url(f"games?lang={lang}"))
    assert day in await browser.page.locator("table.games").inner_text()


async def test_a_hostile_display_name_is_shown_as_text_and_never_run(browser: Browser, site: Site) -> None:
    for rest in ("", "games", f"games/{site.played[0]}", f"games/{site.played[0]}?step=0", "player/103"):
        await browser.page.goto(browser.url(rest))
        assert HOSTILE in await browser.page.locator("main").inner_text(), rest
        assert await browser.page.locator("script").count() == 0, rest
        assert await browser.page.locator('img[src="x"]').count() == 0, rest
    assert browser.dialogs == []
    assert all(not url.endswith("/x") for url in browser.requests)


async def test_a_wrong_token_is_refused_with_404(browser: Browser) -> None:
    response = await browser.page.goto(browser.url(token="w" * 32))
    assert response is not None and response.status == 404
    assert await browser.page.locator("h1").inner_text() == "Page not found"
    assert await browser.page.locator("table").count() == 0


async def test_the_replay_steps_forward_and_back_with_the_board_at_each_step(
    browser: Browser, site: Site
) -> None:
    page = browser.page
    await page.goto(browser.url("games"))
    await page.click(f'a[href$="/games/{site.played[0]}"]')
    steps = len(await site.store.actions.for_session(site.played[0]))
    assert await page.locator(".step").inner_text() == f"Step {steps} of {steps}"
    await page.click("a.first")
    assert await page.locator(".step").inner_text() == f"Step 0 of {steps}"
    assert await page.locator(".actor").inner_text() != ""
    for number in range(1, steps + 1):
        await page.click("a.next")
        assert page.url.endswith(f"step={number}")
        assert await page.locator(".step").inner_text() == f"Step {number} of {steps}"
        board = page.locator("img.picture")
        assert await board.evaluate("img => img.complete && img.naturalWidth > 0")
    assert await page.locator("a.next").count() == 0
    await page.click("a.previous")
    assert await page.locator(".step").inner_text() == f"Step {steps - 1} of {steps}"


async def test_a_players_page_draws_the_rating_chart_without_a_script(browser: Browser, site: Site) -> None:
    await browser.page.goto(browser.url(f"?game={GAME}"))
    await browser.page.click("table.board a:text-is('Ann')")
    assert "/player/101" in browser.page.url
    chart = browser.page.locator("svg.chart")
    assert await chart.count() == 1
    assert await chart.locator("circle").count() >= 2  # a point per rated game
    assert await browser.page.locator("script").count() == 0
