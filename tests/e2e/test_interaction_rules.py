"""Interaction rules: 3 s to answer (10062), one acknowledgement (40060), 15-minute tokens (50027)."""

from __future__ import annotations

import asyncio
from typing import Any

import discord
import pytest
from discord.webhook.async_ import async_context, interaction_response_params

from .driver import Table
from .fake_discord import ANSWER_DEADLINE, TOKEN_LIFETIME, FakeDiscord, InteractionRecord
from .minimal_bot import MinimalBot

pytestmark = pytest.mark.expect_violations


async def _respond_raw(
    bot: MinimalBot, record: InteractionRecord, kind: int, data: dict[str, Any] | None
) -> Any:
    """Sends a callback the way discord.py does, bypassing the Interaction object's own guards."""
    session = bot.http._HTTPClient__session  # type: ignore[attr-defined]
    return await async_context.get().create_interaction_response(
        record.id, record.token, session=session, params=interaction_response_params(kind, data)
    )


async def _held(bot: MinimalBot, table: Table) -> InteractionRecord:
    """An interaction the bot has received but holds without answering (/slow waits on its gate)."""
    reply = await table.user("alice").slash("slow", wait=False)
    await asyncio.wait_for(bot.slow_started.wait(), 5)
    return reply.record


@pytest.mark.allow_bot_errors
async def test_an_answer_after_three_seconds_is_an_unknown_interaction(
    minimal_bot: MinimalBot, table: Table, fake_discord: FakeDiscord, bot_errors: Any
):
    record = await _held(minimal_bot, table)
    table.clock.advance(ANSWER_DEADLINE + 0.1)
    minimal_bot.slow_gate.set()
    await fake_discord.wait_until(lambda: fake_discord.violations, within=5, what="the late answer")
    [violation] = fake_discord.take_violations()
    assert violation.kind == "deadline" and "answered after 3.1" in violation.detail
    assert not record.acknowledged
    await fake_discord.wait_until(lambda: bot_errors.records, within=5, what="the bot to log the failure")
    error = bot_errors.records[0].exc_info[1].original
    assert isinstance(error, discord.NotFound) and error.code == 10062


async def test_a_second_acknowledgement_gets_40060(
    minimal_bot: MinimalBot, table: Table, fake_discord: FakeDiscord
):
    reply = await table.user("alice").slash("ping")
    with pytest.raises(discord.HTTPException) as refused:
        await _respond_raw(minimal_bot, reply.record, 4, {"content": "again"})
    assert (refused.value.status, refused.value.code) == (400, 40060)
    assert [v.kind for v in fake_discord.take_violations()] == ["double-ack"]
    assert [m.content for m in table.channel_messages()] == ["pong"]


async def test_a_refused_body_is_not_an_acknowledgement(
    minimal_bot: MinimalBot, table: Table, fake_discord: FakeDiscord
):
    record = await _held(minimal_bot, table)
    inputs = [
        {"type": 1, "components": [{"type": 4, "custom_id": f"f{i}", "style": 1, "label": "F"}]}
        for i in range(6)
    ]
    with pytest.raises(discord.HTTPException) as refused:
        await _respond_raw(minimal_bot, record, 9, {"custom_id": "m", "title": "Six", "components": inputs})
    assert refused.value.code == 50035
    assert "A modal holds 1 to 5 components (got 6)" in fake_discord.take_violations()[0].detail
    minimal_bot.slow_gate.set()
    await fake_discord.wait_until(lambda: record.acknowledged, within=5, what="the real answer")
    assert table.last_message.content == "finally"


async def test_a_callback_type_that_does_not_fit_the_interaction_is_refused(
    minimal_bot: MinimalBot, table: Table, fake_discord: FakeDiscord
):
    record = await _held(minimal_bot, table)
    with pytest.raises(discord.HTTPException):
        await _respond_raw(
            minimal_bot, record, 7, {"content": "update what?"}
        )  # a slash command has no message
    with pytest.raises(discord.NotFound):
        await discord.Webhook.partial(fake_discord.application_id, record.token, client=minimal_bot).send(
            "early"
        )
    assert [v.kind for v in fake_discord.take_violations()] == ["invalid-callback", "not-acknowledged"]
    minimal_bot.slow_gate.set()
    await fake_discord.wait_until(lambda: record.acknowledged, within=5, what="the real answer")


async def test_interaction_tokens_expire_after_15_minutes(
    minimal_bot: MinimalBot, table: Table, fake_discord: FakeDiscord
):
    alice = table.user("alice")
    reply = await alice.slash("secret")
    # What interaction.followup is: an application webhook (type 3) on the interaction's token.
    payload = {"id": fake_discord.application_id, "type": 3, "token": reply.record.token}
    webhook = discord.Webhook.from_state(data=payload, state=minimal_bot._connection)
    table.clock.advance(TOKEN_LIFETIME - 60)
    late = await webhook.send("Still in time.", ephemeral=True, wait=True)
    assert alice.ephemerals[-1].id == late.id

    table.clock.advance(61)
    with pytest.raises(discord.HTTPException) as refused:
        await webhook.send("Too late.", wait=True)
    assert (refused.value.status, refused.value.code) == (401, 50027)
    assert reply.message is not None
    with pytest.raises(discord.HTTPException):
        await webhook.edit_message(reply.message.id, content="An ephemeral message cannot change now.")
    assert [v.kind for v in fake_discord.take_violations()] == ["expired-token", "expired-token"]
    assert reply.message.content == "Your secret card: 7"
