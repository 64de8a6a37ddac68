"""The fake refuses what Discord refuses — and the test that sent it fails unless it expected that."""

from __future__ import annotations

import asyncio

import aiohttp
import discord
import pytest
from discord.http import Route

from .driver import Table
from .fake_discord import FakeDiscord
from .minimal_bot import MinimalBot
from .spec import SPEC_ENV, OpenApiSpec, find_spec_path

pytestmark = pytest.mark.expect_violations


def _channel(bot: MinimalBot, table: Table) -> discord.TextChannel:
    channel = bot.get_channel(table.channel_id)
    assert isinstance(channel, discord.TextChannel)
    return channel


async def test_a_2001_character_message_gets_50035_and_is_recorded(
    minimal_bot: MinimalBot, fake_discord: FakeDiscord, table: Table
):
    with pytest.raises(discord.HTTPException) as refused:
        await _channel(minimal_bot, table).send("x" * 2001)
    assert (refused.value.status, refused.value.code) == (400, 50035)
    assert "In content: Must be 2000 or fewer in length" in refused.value.text
    [violation] = fake_discord.take_violations()
    assert violation.kind == "invalid-body" and violation.path == f"/channels/{table.channel_id}/messages"
    assert table.channel_messages() == []  # nothing was posted


async def test_a_bad_component_type_breaks_the_spec(
    minimal_bot: MinimalBot, fake_discord: FakeDiscord, table: Table, discord_spec: OpenApiSpec | None
):
    if discord_spec is None:
        pytest.skip(f"Discord's OpenAPI spec is missing (set {SPEC_ENV}): component types are a spec check")
    route = Route("POST", "/channels/{channel_id}/messages", channel_id=table.channel_id)
    body = {"content": "hi", "components": [{"type": 1, "components": [{"type": 99, "custom_id": "x"}]}]}
    with pytest.raises(discord.HTTPException) as refused:
        await minimal_bot.http.request(route, json=body)
    assert refused.value.code == 50035
    assert "In components.0.components.0.type: Value 99 is not one of" in refused.value.text
    [violation] = fake_discord.take_violations()
    assert "components.0.components.0.type" in violation.detail


async def test_embeds_over_6000_characters_in_total_are_refused(
    minimal_bot: MinimalBot, fake_discord: FakeDiscord, table: Table
):
    embeds = [discord.Embed(description="a" * 4000), discord.Embed(description="b" * 2001)]
    with pytest.raises(discord.HTTPException, match="Embed size exceeds maximum size of 6000"):
        await _channel(minimal_bot, table).send(embeds=embeds)
    assert [v.kind for v in fake_discord.take_violations()] == ["invalid-body"]


async def test_layout_limits_rows_buttons_and_custom_ids(
    minimal_bot: MinimalBot, fake_discord: FakeDiscord, table: Table
):
    def button(custom_id: str) -> dict[str, object]:
        return {"type": 2, "style": 1, "label": "B", "custom_id": custom_id}

    route = Route("POST", "/channels/{channel_id}/messages", channel_id=table.channel_id)
    six_rows = [{"type": 1, "components": [button(f"r{i}")]} for i in range(6)]
    six_buttons = [{"type": 1, "components": [button(f"b{i}") for i in range(6)]}]
    twice = [{"type": 1, "components": [button("same"), button("same")]}]
    long_id = [{"type": 1, "components": [button("x" * 101)]}]
    for components in (six_rows, six_buttons, twice, long_id):
        with pytest.raises(discord.HTTPException) as refused:
            await minimal_bot.http.request(route, json={"content": "layout", "components": components})
        assert refused.value.code == 50035
    details = [v.detail for v in fake_discord.take_violations()]
    assert "at most 5 action rows" in details[0]
    assert "at most 5 buttons" in details[1]
    assert "is used twice" in details[2]
    assert "custom_id" in details[3]


async def test_bad_command_names_and_descriptions_are_refused_at_sync(
    minimal_bot: MinimalBot, fake_discord: FakeDiscord
):
    commands = [
        {"name": "TopStop", "description": "Uppercase name", "type": 1},
        {"name": "top stop", "description": "A space", "type": 1},
        {"name": "पहेली", "description": "", "type": 1},  # Devanagari is allowed; the empty description is not
        {"name": "rules", "description": "d" * 101, "type": 1},
    ]
    with pytest.raises(discord.HTTPException):
        await minimal_bot.http.bulk_upsert_guild_commands(
            fake_discord.application_id, fake_discord.guild_id, payload=commands
        )
    [violation] = fake_discord.take_violations()
    assert "0.name: Name 'TopStop' must be lowercase" in violation.detail
    assert "1.name: Name 'top stop' does not match" in violation.detail
    assert "2.description: Description must be 1 to 100 characters (got 0)" in violation.detail
    assert "3.description" in violation.detail
    assert "2.name" not in violation.detail


async def test_an_unknown_route_fails_the_test(minimal_bot: MinimalBot, fake_discord: FakeDiscord):
    with pytest.raises(discord.NotFound):
        await minimal_bot.http.request(Route("GET", "/nowhere/at/all"))
    with pytest.raises(discord.NotFound):
        await minimal_bot.http.request(
            Route("GET", "/guilds/{guild_id}/roles", guild_id=fake_discord.guild_id)
        )
    details = [(v.kind, v.detail) for v in fake_discord.take_violations()]
    if fake_discord.spec is not None:
        assert details[0] == ("unknown-route", "not a route of Discord's API")
    assert details[-1] == ("unknown-route", "the fake does not implement this route")


async def test_without_the_spec_the_limits_still_hold(monkeypatch: pytest.MonkeyPatch, tmp_path):
    monkeypatch.setenv(SPEC_ENV, str(tmp_path / "missing.json"))
    assert find_spec_path() is None
    fake = FakeDiscord(None)
    await fake.start()
    try:
        url = f"{fake.api_base}/channels/{next(iter(fake.channels))}/messages"
        headers = {"Authorization": f"Bot {fake.token}"}
        async with aiohttp.ClientSession() as session:
            async with session.post(url, json={"content": "x" * 2001}, headers=headers) as answer:
                assert answer.status == 400 and (await answer.json())["code"] == 50035
            odd = {
                "content": "hi",
                "components": [{"type": 1, "components": [{"type": 99, "custom_id": "x"}]}],
            }
            async with session.post(url, json=odd, headers=headers) as answer:
                assert answer.status == 200  # only the spec knows the component types
    finally:
        await fake.close()
    assert [v.kind for v in fake.violations] == ["invalid-body"]


async def test_an_edit_that_leaves_nothing_to_show_is_refused(
    minimal_bot: MinimalBot, fake_discord: FakeDiscord, table: Table
):
    message = await _channel(minimal_bot, table).send(embed=discord.Embed(title="Round 1"))
    with pytest.raises(discord.HTTPException) as refused:
        await message.edit(embed=None, view=None)
    assert refused.value.code == 50006
    assert [v.kind for v in fake_discord.take_violations()] == ["empty-message"]
    assert table.last_message.embeds[0]["title"] == "Round 1"  # unchanged


async def test_more_than_50_requests_a_second_are_rate_limited(
    minimal_bot: MinimalBot, fake_discord: FakeDiscord, table: Table
):
    channel = _channel(minimal_bot, table)
    await asyncio.gather(*(channel.fetch_message(0) for _ in range(55)), return_exceptions=True)
    kinds = {v.kind for v in fake_discord.take_violations()}
    assert kinds == {"rate-limit"}
    statuses = [r.status for r in fake_discord.requests if r.path.endswith("/messages/0")]
    assert 429 in statuses and statuses.count(404) == 55  # discord.py waited and retried


def test_a_violation_the_test_did_not_expect_fails_that_test(tmp_path):
    """Run a small test without `expect_violations` in a child pytest: its teardown must fail it."""
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "test_careless.py").write_text(
        "import discord, pytest\n\n"
        "async def test_sends_too_much(minimal_bot, table):\n"
        "    channel = minimal_bot.get_channel(table.channel_id)\n"
        "    with pytest.raises(discord.HTTPException):\n"
        "        await channel.send('x' * 2001)\n"
    )
    root = Path(__file__).resolve().parents[2]
    child = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.e2e.conftest", "-p", "no:cacheprovider", "-q"]
        + ["-o", "asyncio_mode=auto", "--rootdir", str(tmp_path), str(tmp_path / "test_careless.py")],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert child.returncode == 1, child.stdout + child.stderr
    assert "the fake Discord recorded 1 violation" in child.stdout, child.stdout
    assert "Must be 2000 or fewer in length" in child.stdout
