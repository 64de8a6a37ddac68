"""The launcher runs a bot as its own process against the fake; it survives SIGKILL and a restart."""

from __future__ import annotations

import signal

import pytest

from .driver import Table
from .fake_discord import FakeDiscord
from .process import SpawnBot, wait_for_new_session

MINIMAL = "tests.e2e.minimal_bot:main"


@pytest.mark.both_databases
async def test_a_bot_process_logs_in_and_its_persistent_button_survives_sigkill(
    spawn_bot: SpawnBot, table: Table, fake_discord: FakeDiscord
):
    first = await spawn_bot(MINIMAL)
    await wait_for_new_session(fake_discord, first)
    alice, bob, carol = table.user("alice"), table.user("bob"), table.user("carol")
    lobby = await alice.slash("game new", language="en")
    await bob.click(lobby, "Join")

    session = fake_discord.gateway.current
    await first.kill()
    second = await spawn_bot(MINIMAL)
    await wait_for_new_session(fake_discord, second, previous=session)

    await carol.click(lobby, "Join")  # the message from before the crash, handled by the new process
    assert lobby.message is not None and lobby.message.content.endswith("Players: alice, bob, carol")
    assert fake_discord.gateway.identifies == 2 and fake_discord.command_syncs == 2
    assert await second.stop(signal.SIGINT) == 0
    assert "Traceback" not in first.log_text() + second.log_text()
