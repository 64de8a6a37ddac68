"""/settings web against the fake Discord, with the bot serving its web pages (WEB_ENABLED) on 127.0.0.1:
an admin turns the server's pages on and gets their link, a new link retires the old one, off removes them,
and a member who does not manage the server is refused privately."""

from __future__ import annotations

import re
import socket
from typing import Any

import aiohttp
import pytest

from .conftest import requires_product
from .driver import Table
from .test_settings_e2e import shown_to_everyone

pytestmark = requires_product


LINK = re.compile(r"http://127\.0\.0\.1:\d+/s/[A-Za-z0-9_-]{32}/")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def web_on(monkeypatch: pytest.MonkeyPatch) -> int:
    """The bot's web pages on, on a free port of the loopback address (set before the bot reads them)."""
    port = free_port()
    monkeypatch.setenv("WEB_ENABLED", "on")
    monkeypatch.setenv("WEB_PORT", str(port))
    return port


async def status_of(link: str) -> int:
    async with aiohttp.ClientSession() as http, http.get(link) as response:
        return response.status


@pytest.mark.both_databases
async def test_an_admin_opens_renews_and_closes_the_servers_pages(
    web_on: int, product_bot: Any, table: Table
) -> None:
    admin = table.user("dev")
    said = await admin.slash("settings web", options={"action": "on"})
    assert said.ephemeral
    found = LINK.search(said.text)
    assert found is not None and f":{web_on}/" in found[0], said.text
    first = found[0]
    assert await status_of(first) == 200
    again = await admin.slash("settings web", options={"action": "on"})
    assert first in again.text  # on again: the link people have still works

    renewed = await admin.slash("settings web", options={"action": "new_link"})
    found = LINK.search(renewed.text)
    assert found is not None and found[0] != first
    assert await status_of(first) == 404 and await status_of(found[0]) == 200
    shown = await admin.slash("settings show")
    assert found[0] in shown.text

    closed = await admin.slash("settings web", options={"action": "off"})
    assert closed.ephemeral and LINK.search(closed.text) is None
    assert await status_of(found[0]) == 404


@pytest.mark.both_databases
async def test_a_member_who_does_not_manage_the_server_cannot_open_its_pages(
    web_on: int, product_bot: Any, table: Table
) -> None:
    refused = await shown_to_everyone(table, table.user("alice"), "settings web", action="on")
    assert refused.ephemeral and "Only members with Manage Server" in refused.text
    assert (await product_bot.store.guild_settings.settings(table.fake.guild_id)).web_token is None
