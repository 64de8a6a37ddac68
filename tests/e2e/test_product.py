"""The product bot against the fake Discord: start-up, /help, /rules, a lobby, and a crash mid-lobby.

The start-up and restart tests run the bot as its own process through launcher.py (python -m bot's
main()), the others in this process for speed. They skip while bot.app cannot be imported.
"""

from __future__ import annotations

import signal

import discord
import pytest

from . import limits
from .conftest import requires_product
from .driver import Message, Table
from .fake_discord import FakeDiscord
from .process import SpawnBot, wait_for_new_session

pytestmark = requires_product


PRODUCT = "bot.__main__:main"
LOBBY_BUTTONS = ["Join", "Leave", "Start", "Cancel"]


def _is_lobby(message: Message) -> bool:
    return message.button_labels == LOBBY_BUTTONS


def _seated(message: Message) -> str:
    """The lobby's "Seated (n)" field: who has joined."""
    for embed in message.embeds:
        for field in embed.get("fields") or []:
            if field.get("name", "").startswith("Seated"):
                return f"{field['name']}\n{field['value']}"
    raise AssertionError(f"no 'Seated' field in {message!r}")


@pytest.mark.both_databases
async def test_startup_as_a_process_logs_in_and_syncs_valid_commands(
    spawn_bot: SpawnBot, fake_discord: FakeDiscord
):
    bot = await spawn_bot(PRODUCT)
    await wait_for_new_session(fake_discord, bot)
    seen = {(r.method, r.path) for r in fake_discord.requests}
    assert ("GET", "/users/@me") in seen and ("GET", "/oauth2/applications/@me") in seen
    commands = fake_discord.guild_commands.get(fake_discord.guild_id, [])
    assert {"help", "rules", "topstop"} <= {c["name"] for c in commands}
    # A member whose Discord speaks German or French reads the descriptions in their language.
    help_command = next(c for c in commands if c["name"] == "help")
    assert help_command["description_localizations"]["de"] == "Was dieser Bot kann und wie man spielt"
    # Every body was checked as it came in; say so explicitly for the sync, against spec and limits.
    [sync] = [r for r in fake_discord.requests if r.operation == "bulk_set_guild_application_commands"]
    assert limits.check_commands(sync.body) == []
    if fake_discord.spec is not None:
        operation = fake_discord.spec.match("PUT", sync.path)
        assert operation is not None and fake_discord.spec.validate_request(operation, sync.body) == []
    assert await bot.stop(signal.SIGTERM) == 0
    assert "Traceback" not in bot.log_text(), bot.tail()


async def test_help_and_rules(product_bot: discord.Client, table: Table):
    alice = table.user("alice")
    help_reply = await alice.slash("help")
    assert help_reply.message is not None and "/topstop new" in help_reply.text
    rules = next(c for c in table.fake.all_commands() if c["name"] == "rules")
    games = [choice["value"] for choice in rules["options"][0]["choices"]]
    assert "topstop" in games
    for game in games:
        reply = await alice.slash("rules", game=game)
        assert reply.message is not None and reply.text, f"/rules {game} gave nothing"


async def test_server_settings_are_for_members_who_manage_the_server(
    product_bot: discord.Client, table: Table
):
    with pytest.raises(AssertionError, match="alice cannot use /settings"):
        await table.user("alice").slash("settings language", language="fr")  # the client hides it from her
    reply = await table.user("dev").slash("settings language", language="fr")
    assert reply.ephemeral and "in French" in reply.text  # the language named in the reader's language


async def test_the_lobby_speaks_the_language_of_its_table(product_bot: discord.Client, table: Table):
    await table.user("dev").slash("settings language", language="de")
    alice, bob = table.user("alice"), table.user("bob")
    lobby = (await alice.slash("topwords new")).linked  # TopWords tables follow the server's language
    assert lobby is not None and lobby.button_labels == ["Mitspielen", "Verlassen", "Starten", "Abbrechen"]
    await bob.click(lobby, "Mitspielen")
    assert "Am Tisch (2)" in lobby.text and "Gastgeber" in lobby.text
    await alice.click(lobby, "Abbrechen")
    assert "Abgebrochen von" in lobby.text and lobby.buttons == []

    lobby = (await alice.slash("topstop new", language="fr")).linked  # Top Stop's own language option
    assert lobby is not None and lobby.button_labels == ["Rejoindre", "Quitter", "Lancer", "Annuler"]


async def test_private_replies_speak_the_users_discord_language(product_bot: discord.Client, table: Table):
    """The lobby follows the table (English here); refusals and /help follow each user's own locale."""
    alice = table.user("alice")
    marie, hans = table.user("marie", locale="fr"), table.user("hans", locale="de")
    lobby = (await alice.slash("topstop new", language="en")).linked
    assert lobby is not None and _is_lobby(lobby)
    await marie.click(lobby, "Join")
    refused = await marie.click(lobby, "Join")
    assert refused.ephemeral and refused.text == "⚠️ Vous êtes déjà dans cette partie."
    refused = await hans.click(lobby, "Cancel")
    assert refused.ephemeral and "Nur der Gastgeber" in refused.text and "abbrechen" in refused.text
    assert _is_lobby(lobby) and "Seated (2)" in _seated(lobby)
    help_reply = await marie.slash("help")
    assert "Lancez une partie avec" in help_reply.text and "Tout le reste" in help_reply.text
    help_reply = await hans.slash("help")
    assert "Starte ein Spiel mit" in help_reply.text


async def test_a_lobby_is_joined_by_three_and_started(product_bot: discord.Client, table: Table):
    alice, bob, carol = table.user("alice"), table.user("bob"), table.user("carol")
    opened = await alice.slash("topstop new", language="en")
    assert opened.ephemeral and "lobby is open" in opened.text  # the command's own answer is private
    lobby = opened.linked
    assert lobby is not None and _is_lobby(lobby), lobby
    assert alice.mention in _seated(lobby)

    for player in (bob, carol):
        await player.click(lobby, "Join")
        assert player.mention in _seated(lobby)
    await carol.click(lobby, "Leave")
    assert carol.mention not in _seated(lobby)
    await carol.click(lobby, "Join")
    assert _seated(lobby).startswith("Seated (3)")

    await alice.click(lobby, "Start")
    assert lobby.buttons == [] and "started with 3 players" in lobby.text
    await table.wait_for_message(lambda m: m.id != lobby.id and not _is_lobby(m), what="the game table")


async def test_a_lobby_is_cancelled_by_its_host(product_bot: discord.Client, table: Table):
    alice, bob = table.user("alice"), table.user("bob")
    lobby = (await alice.slash("topstop new", language="en")).linked
    assert lobby is not None
    await bob.click(lobby, "Join")

    refused = await bob.click(lobby, "Cancel")  # only the host (or Manage Server) may cancel
    assert refused.ephemeral and _is_lobby(lobby)

    await alice.click(lobby, "Cancel")
    assert "Cancelled by" in lobby.text and lobby.buttons == []


@pytest.mark.both_databases
async def test_a_lobby_survives_sigkill_and_restart(
    spawn_bot: SpawnBot, fake_discord: FakeDiscord, table: Table
):
    alice, bob, carol = table.user("alice"), table.user("bob"), table.user("carol")
    first = await spawn_bot(PRODUCT)
    await wait_for_new_session(fake_discord, first)
    lobby = (await alice.slash("topstop new", language="en")).linked
    assert lobby is not None
    await bob.click(lobby, "Join")

    session = fake_discord.gateway.current
    await first.kill()
    second = await spawn_bot(PRODUCT)  # same DATABASE_PATH
    await wait_for_new_session(fake_discord, second, previous=session)

    joined = await carol.click(lobby, "Join")
    assert joined.kind == "deferred update", joined  # acknowledged first, then the lobby is edited
    seated = _seated(lobby)
    assert all(p.mention in seated for p in (alice, bob, carol)), seated
    assert await second.stop(signal.SIGTERM) == 0


async def _first_round(table: Table) -> Message:
    """Three players start Top Stop and all press Spin: the round-one table message."""
    alice, bob, carol = table.user("alice"), table.user("bob"), table.user("carol")
    lobby = (await alice.slash("topstop new", language="en")).linked
    assert lobby is not None
    for player in (bob, carol):
        await player.click(lobby, "Join")
    await alice.click(lobby, "Start")

    def round_one() -> Message | None:
        return next((m for m in table.channel_messages() if "round 1" in m.text), None)

    def first_spin() -> Message | None:
        return next((m for m in table.channel_messages() if "who spins first" in m.text), None)

    # Everyone spins on the first-spin message (never on round one's, which may just have appeared);
    # a tie for the letter closest to A means the tied players spin again.
    await table.fake.wait_until(first_spin, within=5, what="the first-spin table")
    for _ in range(5):
        for player in (alice, bob, carol):
            message = first_spin()
            if round_one() is not None or message is None or "Spin" not in message.button_labels:
                break
            await player.click(message, "Spin")  # one who already spun gets an ephemeral refusal
    return await table.fake.wait_until(round_one, within=5, what="the round-one table")


async def test_the_first_spin_message_is_closed_when_round_one_begins(
    product_bot: discord.Client, table: Table
):
    round_one = await _first_round(table)
    assert "Spin" in round_one.button_labels
    first_spin = table.channel_messages()[1]
    assert first_spin.buttons == [] and "who spins first" in first_spin.text  # closed, not emptied (50006)


async def test_a_refusal_names_the_player_whose_turn_it_is(product_bot: discord.Client, table: Table):
    round_one = await _first_round(table)
    spinner = next(
        p for p in ("alice", "bob", "carol") if p.capitalize() in round_one.text.split(" spins")[0]
    )
    other = table.user(next(p for p in ("alice", "bob", "carol") if p != spinner))
    refused = await other.click(round_one, "Spin")
    assert refused.ephemeral
    assert str(table.user(spinner).id) not in refused.text and spinner.capitalize() in refused.text, (
        refused.text
    )
