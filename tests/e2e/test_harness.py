"""The test bed tests itself: the minimal bot, unmodified discord.py, real sockets, the fake Discord."""

from __future__ import annotations

import discord
import pytest
from discord.webhook.async_ import async_context

from .driver import Table
from .fake_discord import FakeDiscord
from .minimal_bot import MinimalBot

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


async def test_login_identifies_and_syncs_commands_to_the_dev_guild(
    minimal_bot: MinimalBot, fake_discord: FakeDiscord
):
    seen = {(r.method, r.path) for r in fake_discord.requests}
    assert ("GET", "/users/@me") in seen
    assert ("GET", "/oauth2/applications/@me") in seen
    assert (
        "PUT",
        f"/applications/{fake_discord.application_id}/guilds/{fake_discord.guild_id}/commands",
    ) in seen
    assert fake_discord.gateway.identifies == 1
    assert fake_discord.gateway.heartbeats >= 1  # discord.py beats right after HELLO
    names = {c["name"] for c in fake_discord.all_commands()}
    assert {"ping", "game", "secret", "words"} <= names
    assert minimal_bot.user is not None and minimal_bot.user.id == fake_discord.bot_user.id
    guild = minimal_bot.get_guild(fake_discord.guild_id)
    assert guild is not None and guild.member_count == len(fake_discord.members())
    assert {c.name for c in guild.text_channels} == {"general", "games"}


async def test_slash_command_gets_a_reply_everyone_sees(minimal_bot: MinimalBot, table: Table):
    alice = table.user("alice")
    reply = await alice.slash("ping")
    assert reply.kind == "reply"
    assert reply.message is not None and reply.message.content == "pong"
    assert not reply.ephemeral
    assert table.last_message.id == reply.message.id
    assert reply.message.raw["interaction_metadata"]["user"]["id"] == str(alice.id)


async def test_subcommand_choice_by_name_or_value_and_a_persistent_button_edits(
    minimal_bot: MinimalBot, table: Table
):
    alice, bob = table.user("alice"), table.user("bob")
    lobby = await alice.slash("game new", language="French")
    assert lobby.message is not None
    assert lobby.message.content == "Lobby (fr)\nPlayers: alice"
    assert lobby.message.button_labels == ["Join"]

    joined = await bob.click(lobby.message, "Join")
    assert joined.kind == "update"
    assert lobby.message.content.endswith("Players: alice, bob")

    other = await alice.slash("game new", language="en")
    assert other.message is not None and other.message.content.startswith("Lobby (en)")


async def test_clicking_twice_gets_an_ephemeral_refusal(minimal_bot: MinimalBot, table: Table):
    alice = table.user("alice")
    lobby = await alice.slash("game new", language="en")
    answer = await alice.click(lobby, "Join")
    assert answer.ephemeral and answer.text == "You are already in."
    assert alice.last_ephemeral.content == "You are already in."


async def test_modal_opens_and_its_submission_is_answered(minimal_bot: MinimalBot, table: Table):
    alice = table.user("alice")
    opened = await alice.slash("words")
    assert opened.kind == "modal"
    assert alice.modal is not None and alice.modal["title"] == "Your words"
    reply = await alice.submit_modal({"word1": "pear", "word2": "plum"})
    assert reply.text == f"{alice.mention} wrote pear, plum"
    assert reply.message is not None and reply.message.pinged == []  # echoed user text never pings
    assert alice.modal is None


async def test_modal_refuses_what_the_client_would_refuse(minimal_bot: MinimalBot, table: Table):
    alice = table.user("alice")
    await alice.slash("words")
    with pytest.raises(AssertionError, match="without 'word1'"):
        await alice.submit_modal({"word2": "plum"})
    with pytest.raises(AssertionError, match="no field"):
        await alice.submit_modal({"word1": "pear", "word3": "fig"})


async def test_ephemeral_replies_are_seen_only_by_their_user(minimal_bot: MinimalBot, table: Table):
    alice, bob = table.user("alice"), table.user("bob")
    before = len(table.channel_messages())
    reply = await alice.slash("secret")
    assert reply.ephemeral
    assert [m.content for m in alice.ephemerals] == ["Your secret card: 7", "And a follow-up only you see."]
    assert bob.ephemerals == []
    assert len(table.channel_messages()) == before


async def test_view_bound_to_the_interaction_response_keeps_working(minimal_bot: MinimalBot, table: Table):
    alice, bob = table.user("alice"), table.user("bob")
    counter = await alice.slash("counter")
    await bob.click(counter, "+1")
    await alice.click(counter, "+1")
    assert counter.message is not None and counter.message.content == "Count: 2"


async def test_select_menu_pick_by_label(minimal_bot: MinimalBot, table: Table):
    alice, bob = table.user("alice"), table.user("bob")
    question = await alice.slash("fruit")
    answer = await bob.select(question, "Pear")
    assert answer.ephemeral and answer.text == "You picked Pear."


async def test_deferred_reply_is_completed_by_editing_the_original(minimal_bot: MinimalBot, table: Table):
    reply = await table.user("alice").slash("think")
    assert reply.kind == "deferred reply"
    assert (
        reply.message is not None
        and reply.message.content == "Thought about it."
        and not reply.message.loading
    )


async def test_files_upload_as_multipart_and_are_kept(minimal_bot: MinimalBot, table: Table):
    reply = await table.user("alice").slash("card")
    assert reply.message is not None
    assert reply.message.files["card.png"].startswith(PNG_SIGNATURE)
    copy = await table.wait_for_message(lambda m: m.content == "A copy in the channel.")
    assert list(copy.files) == ["copy.png"]


async def test_user_and_integer_options_are_resolved(minimal_bot: MinimalBot, table: Table):
    alice, bob = table.user("alice"), table.user("bob")
    reply = await alice.slash("greet", who=bob, times=2)
    assert reply.text == f"Hello {bob.mention}! Hello {bob.mention}!"
    assert reply.message is not None and reply.message.pinged == [bob.id]


async def test_driver_refuses_commands_a_person_could_not_send(minimal_bot: MinimalBot, table: Table):
    alice = table.user("alice")
    with pytest.raises(AssertionError, match="has not synced /nope"):
        await alice.slash("nope")
    with pytest.raises(AssertionError, match="needs a subcommand"):
        await alice.slash("game")
    with pytest.raises(AssertionError, match="cannot be sent without"):
        await alice.slash("game new")
    with pytest.raises(AssertionError, match="takes one of"):
        await alice.slash("game new", language="de")


async def test_dropped_connection_resumes_on_the_resume_gateway_url(minimal_bot: MinimalBot, table: Table):
    fake = table.fake
    session = fake.gateway.current
    await fake.gateway.drop()
    await fake.wait_until(lambda: fake.gateway.connected, within=10, what="the bot to resume")
    assert fake.gateway.current is session and session is not None and session.resumes == 1
    assert fake.gateway.connections == ["/gateway", "/resume-gateway"]
    assert fake.gateway.identifies == 1
    reply = await table.user("alice").slash("ping")
    assert reply.text == "pong"


async def test_invalidated_session_identifies_again(
    minimal_bot: MinimalBot, table: Table, monkeypatch: pytest.MonkeyPatch
):
    async def no_identify_pause(shard_id: int | None, *, initial: bool = False) -> None:
        pass  # discord.py waits 5 s before a repeated IDENTIFY (Discord's concurrency rule); not our subject

    monkeypatch.setattr(minimal_bot, "before_identify_hook", no_identify_pause)
    fake = table.fake
    await fake.gateway.drop(invalidate=True)
    await fake.wait_until(
        lambda: fake.gateway.identifies == 2 and fake.gateway.connected, within=15, what="IDENTIFY"
    )
    assert (await table.user("bob").slash("ping")).text == "pong"


async def test_events_sent_while_disconnected_are_replayed_on_resume(minimal_bot: MinimalBot, table: Table):
    fake = table.fake
    await fake.gateway.drop()
    alice = table.user("alice")
    message = await alice.say("hello while you were away")
    await fake.wait_until(lambda: fake.gateway.connected, within=10, what="the bot to resume")
    await fake.wait_until(
        lambda: any(m.id == message.id for m in minimal_bot.cached_messages),
        within=5,
        what="the replayed message",
    )


@pytest.mark.fake_discord(heartbeat_interval=0.05)
async def test_heartbeats_follow_the_interval_from_hello_and_are_acknowledged(
    minimal_bot: MinimalBot, fake_discord: FakeDiscord
):
    await fake_discord.wait_until(
        lambda: fake_discord.gateway.heartbeats >= 5, within=5, what="five heartbeats"
    )
    beats = [p for p in fake_discord.gateway.received if p["op"] == 1]
    assert all(isinstance(p["d"], int) for p in beats[1:])  # each carries the last sequence number seen
    assert minimal_bot.latency < 1.0  # discord.py got its ACKs


async def test_an_unanswered_interaction_fails_with_what_was_awaited(minimal_bot: MinimalBot, table: Table):
    with pytest.raises(
        AssertionError, match=r"timed out after 0.3s waiting for the bot to answer alice running /slow"
    ):
        await table.user("alice").slash("slow", within=0.3)
    minimal_bot.slow_gate.set()
    await table.fake.wait_until(lambda: table.channel_messages(), within=5, what="the late answer")


async def test_global_sync_and_command_listing(minimal_bot: MinimalBot, fake_discord: FakeDiscord):
    synced = await minimal_bot.tree.sync()  # global: PUT /applications/{id}/commands
    assert {c.name for c in synced} >= {"ping", "game"} and fake_discord.global_commands
    listed = await minimal_bot.tree.fetch_commands(guild=discord.Object(fake_discord.guild_id))
    assert {c.name for c in listed} == {c["name"] for c in fake_discord.guild_commands[fake_discord.guild_id]}
    again = await minimal_bot.tree.fetch_commands()
    assert [c.id for c in again] == [c.id for c in synced]


async def test_follow_ups_and_the_original_can_be_read_edited_and_deleted(
    minimal_bot: MinimalBot, table: Table, fake_discord: FakeDiscord
):
    reply = await table.user("alice").slash("ping")
    token = reply.record.token
    webhook = discord.Webhook.from_state(
        data={"id": fake_discord.application_id, "type": 3, "token": token}, state=minimal_bot._connection
    )
    follow_up = await webhook.send("a follow-up", wait=True)
    edited = await follow_up.edit(content="an edited follow-up")
    assert edited.content == table.last_message.content == "an edited follow-up"
    await follow_up.delete()
    assert table.last_message.content == "pong"

    adapter, session = async_context.get(), minimal_bot.http._HTTPClient__session  # type: ignore[attr-defined]
    original = await adapter.get_original_interaction_response(
        fake_discord.application_id, token, session=session
    )
    assert original["content"] == "pong"
    await adapter.delete_original_interaction_response(fake_discord.application_id, token, session=session)
    assert reply.message is not None and reply.message.deleted and table.channel_messages() == []


async def test_rest_reads_of_channels_messages_users_and_members(
    minimal_bot: MinimalBot, table: Table, fake_discord: FakeDiscord
):
    await table.user("alice").slash("ping")
    await table.user("bob").say("hello")
    channel = await minimal_bot.fetch_channel(table.channel_id)
    assert isinstance(channel, discord.TextChannel) and channel.name == "general"
    history = [m.content async for m in channel.history(limit=10)]
    assert history == ["hello", "pong"]
    bob = table.user("bob")
    assert (await minimal_bot.fetch_user(bob.id)).name == "bob"
    guild = minimal_bot.get_guild(fake_discord.guild_id)
    assert guild is not None and (await guild.fetch_member(bob.id)).id == bob.id


@pytest.mark.fake_discord(extra_channels=("bots-1",))
async def test_more_channels_and_a_table_that_waits_for_its_own_channel_only(
    minimal_bot: MinimalBot, fake_discord: FakeDiscord
):
    # A load benchmark's tables: more channels in the first guild, and a table beside others whose bot never
    # stops sending waits for its own channel's quiet, not the whole bot's.
    guild = minimal_bot.get_guild(fake_discord.guild_id)
    assert guild is not None and {c.name for c in guild.text_channels} == {"general", "games", "bots-1"}
    busy = int(fake_discord.channel_named("bots-1")["id"])
    await minimal_bot.http.send_typing(busy)  # a request counts for its channel
    general = Table(fake_discord, channel="general", quiet_here=True)
    assert busy in fake_discord._last_activity_in and general.channel_id not in fake_discord._last_activity_in
    reply = await general.user("alice").slash("ping")  # an interaction's answer counts for its channel
    assert reply.kind == "reply" and general.channel_id in fake_discord._last_activity_in
    # A request held in flight at the other table: the whole bot is never quiet, this table is.
    fake_discord._in_flight += 1
    fake_discord._in_flight_in[busy] += 1
    try:
        await general.settle()
        with pytest.raises(AssertionError, match="kept sending"):
            await Table(fake_discord, channel="general").settle(within=0.3)
    finally:
        fake_discord._in_flight -= 1
        fake_discord._in_flight_in[busy] -= 1
