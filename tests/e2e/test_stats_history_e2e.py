"""/stats and /history against the loopback Discord, after a real game ended: a member's record with the
chart drawn in the picture process, and the server's finished games with a game's final table shown again
to the caller alone, as its own cog draws it."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import requires_product
from .driver import Table

pytestmark = requires_product


@pytest.mark.both_databases
async def test_stats_and_history_after_a_finished_game(product_bot: Any, table: Table) -> None:
    alice, bob = table.user("alice"), table.user("bob")
    lobby = (await alice.slash("topple new")).linked
    assert lobby is not None
    await bob.click(lobby, "Join")
    session = (await product_bot.sessions.open_in_channel(table.channel_id)).id
    await alice.click(lobby, "Start")
    await alice.slash("topple end")
    await table.settle()
    await table.wait_for_message(lambda m: "Topple — game over" in m.text, what="the final table")

    # /stats: the caller's own record, posted in the channel, with the chart of their points.
    stats = await alice.slash("stats")
    shown = stats.answer
    assert shown is not None and not shown.ephemeral
    assert "Statistics — Alice" in shown.text and "Topple" in shown.text
    assert "Games: **1** · wins: **" in shown.text and "Points: **0** in all" in shown.text
    assert "Rating: **" in shown.text  # a game ended by the host is rated: a tie between its players
    assert "Rating over time" in shown.text
    assert shown.files["stats.png"].startswith(b"\x89PNG")

    # Another member's, for one game; and a game they never played.
    about_bob = await alice.slash("stats", member=bob, game="topple")
    assert "Statistics — Bob" in about_bob.text and "Games: **1**" in about_bob.text
    nothing = await alice.slash("stats", member=bob, game="toppo")
    assert f"<@{bob.id}> has no finished game here yet." in nothing.text

    # /history: the game with its day, players and winner; its button shows the final table again.
    history = await alice.slash("history")
    listed = history.answer
    assert listed is not None and not listed.ephemeral
    assert f"`#{session}`" in listed.text and "**Topple**" in listed.text
    assert f"<@{alice.id}>, <@{bob.id}>" in listed.text and "🏆" in listed.text
    assert listed.button_labels == [f"Game #{session}"]  # one page: no Previous or Next
    again = await bob.click(listed, f"Game #{session}")
    final = again.private
    assert final is not None and final.ephemeral
    assert "Topple — game over" in final.text and "The host ended the game early." in final.text
    assert final.files["topple.png"].startswith(b"\x89PNG") and final.buttons == []
    assert f"python -m bot.replay --session {session} --db <database>" in final.text
    assert "No finished game here yet." in (await alice.slash("history", game="toppo")).text
