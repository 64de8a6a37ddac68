"""A persisted vote: a player who is not the host asks the table to end the game; the others decide.

The vote (bot/ui/vote.py) is stored with its eligible voters and deadline, so it survives a restart.
"""

from __future__ import annotations

import signal
from typing import Any

from .conftest import requires_product
from .driver import Message, Table
from .fake_discord import FakeDiscord
from .process import SpawnBot, wait_for_new_session
from .test_topstop_e2e import PRODUCT, Game

pytestmark = requires_product


def is_vote(message: Message) -> bool:
    return message.button_labels == ["Yes", "No"]


async def test_a_player_asks_to_end_and_the_majority_ends_the_game(product_bot: Any, table: Table) -> None:
    game = await Game.open(table, ["alice", "bob", "carol"], product_bot, language="en")
    alice, bob, carol = game.players
    await game.first_spin()

    asked = await bob.slash("topstop end")  # bob is not the host: he asks the others
    assert asked.ephemeral and "The other players are asked" in asked.text
    vote = await table.wait_for_message(is_vote, what="the vote message")
    assert "**Bob** asks to end this Top Stop game now" in vote.text and "0 of 2" in vote.text

    refused = await table.user("dave").click(vote, "Yes")  # a spectator has no ballot
    assert refused.ephemeral and "You cannot vote on this one." in refused.text
    refused = await bob.click(vote, "Yes")  # nor has the one who asked
    assert refused.ephemeral and "You cannot vote on this one." in refused.text

    cast = await alice.click(vote, "Yes")
    assert cast.followups and cast.followups[0].ephemeral and "Your vote: yes" in cast.followups[0].text
    assert "✅ 1 · ❌ 0 of 2" in vote.text
    await carol.click(vote, "Yes")  # everyone eligible has voted: it closes at once
    await game.until(lambda: "Accepted" in vote.text and vote.buttons == [], "the closed vote")
    over = await table.wait_for_message(lambda m: "game over" in m.text, what="the final table")
    assert "win" in over.text
    assert (await product_bot.sessions.session(game.sid)).status == "finished"


async def test_a_tie_keeps_the_game_going(product_bot: Any, table: Table) -> None:
    game = await Game.open(table, ["alice", "bob", "carol"], product_bot, language="en")
    alice, bob, carol = game.players
    await game.first_spin()
    await carol.slash("topstop end")
    vote = await table.wait_for_message(is_vote, what="the vote message")
    await alice.click(vote, "Yes")
    await bob.click(vote, "No")
    await game.until(lambda: "Tie: the verdict stands" in vote.text, "the tied vote")
    assert (await product_bot.sessions.session(game.sid)).status == "active"


async def test_an_open_vote_survives_a_restart(
    spawn_bot: SpawnBot, fake_discord: FakeDiscord, table: Table
) -> None:
    first = await spawn_bot(PRODUCT)
    await wait_for_new_session(fake_discord, first)
    game = await Game.open(table, ["alice", "bob"], language="en")
    alice, bob = game.players
    await game.first_spin()
    await bob.slash("topstop end")
    vote = await table.wait_for_message(is_vote, what="the vote message")

    session = fake_discord.gateway.current
    await first.kill()  # SIGKILL while the vote is open
    second = await spawn_bot(PRODUCT)  # same database: the vote and its deadline come back
    await wait_for_new_session(fake_discord, second, previous=session)

    await alice.click(vote, "Yes")  # the old message's button, answered by the new process
    over = await table.wait_for_message(lambda m: "game over" in m.text, what="the final table")
    assert "win" in over.text and "Accepted" in vote.text, second.log_text()[-3000:]
    assert await second.stop(signal.SIGTERM) == 0


async def test_at_the_deadline_the_votes_cast_decide(product_bot: Any, table: Table) -> None:
    cog = product_bot.get_cog("Top Stop")
    cog.end_vote_seconds = 1.0  # the window is a minute in play; the rule is the same
    game = await Game.open(table, ["alice", "bob", "carol"], product_bot, language="en")
    alice, bob, carol = game.players
    await game.first_spin()
    await bob.slash("topstop end")
    vote = await table.wait_for_message(is_vote, what="the vote message")
    await alice.click(vote, "Yes")  # carol never votes: one yes of one cast is a majority
    await game.until(
        lambda: "Accepted" in vote.text and vote.buttons == [], "the vote closed by its deadline"
    )
    await table.wait_for_message(lambda m: "game over" in m.text, what="the final table")
    assert (await product_bot.sessions.session(game.sid)).status == "finished"
