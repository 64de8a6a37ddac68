"""A persisted vote: a player who is not the host asks the table to end the game; the others decide.

The vote (bot/ui/vote.py) is stored with its eligible voters and deadline, so it survives a restart. The
asker is told only after the vote is written; two asks at once open one vote; the vote speaks the table's
language.
"""

from __future__ import annotations

import asyncio
import re
import signal
from typing import Any

import pytest

import bot.ui.controls
from bot.i18n import t

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


@pytest.mark.both_databases
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


# -- confirm only what is written ------------------------------------------------------------------------


@pytest.mark.both_databases
async def test_two_asks_at_once_open_exactly_one_vote(
    product_bot: Any, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = await Game.open(table, ["alice", "bob", "carol"], product_bot, language="en")
    alice, bob, carol = game.players
    await game.first_spin()
    # Both asks pass the read that looks for an open vote before either writes: only the write can tell.
    votes = product_bot.store.votes
    read = votes.for_session
    arrived: list[int] = []
    both_read = asyncio.Event()

    async def read_then_wait_for_the_other(session_id: int, kind: str) -> Any:
        found = await read(session_id, kind)
        arrived.append(session_id)
        if len(arrived) == 2:
            both_read.set()
        await asyncio.wait_for(both_read.wait(), 10)
        return found

    monkeypatch.setattr(votes, "for_session", read_then_wait_for_the_other)
    answers = await asyncio.gather(bob.slash("topstop end"), carol.slash("topstop end"))
    assert len(arrived) == 2
    told = [answer.text for answer in answers]
    assert all(answer.ephemeral for answer in answers)
    opened = [text for text in told if t("ui.end.asked", "en") in text]
    already = [text for text in told if t("ui.end_vote_open", "en") in text]
    assert len(opened) == 1 and len(already) == 1, told
    written = await read(game.sid, "topstop:end")
    assert [vote.status for vote in written] == ["open"]
    assert len([m for m in table.channel_messages() if is_vote(m)]) == 1


@pytest.mark.both_databases
async def test_a_session_has_one_open_vote_of_a_kind_checked_in_the_write(
    product_bot: Any, table: Table
) -> None:
    game = await Game.open(table, ["alice", "bob"], product_bot, language="en")
    channel = product_bot.get_partial_messageable(table.channel_id_of(None))
    ask = {
        "kind": "topstop:end",
        "question": "End?",
        "eligible": [str(game.players[0].id)],
        "seconds": 60.0,
        "lang": "en",
        "session_id": game.sid,
    }
    first, second = await asyncio.gather(
        product_bot.votes.open(channel, channel.id, **ask), product_bot.votes.open(channel, channel.id, **ask)
    )
    assert (first.created, second.created) == (True, False)
    assert second.vote.id == first.vote.id  # the one already open, untouched
    other = await product_bot.votes.open(channel, channel.id, **{**ask, "kind": "topstop:other"})
    assert other.created  # another kind is another vote
    assert len([m for m in table.channel_messages() if is_vote(m)]) == 2


async def test_the_asker_is_told_only_after_the_vote_is_written(
    product_bot: Any, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = await Game.open(table, ["alice", "bob", "carol"], product_bot, language="en")
    bob = game.players[1]
    await game.first_spin()
    seen_when_told: list[tuple[list[str], int]] = []
    reply_private = bot.ui.controls.reply_private

    async def reply_looking_at_the_store(interaction: Any, content: str | None = None, **kwargs: Any) -> None:
        if content == t("ui.end.asked", "en"):
            written = await product_bot.store.votes.for_session(game.sid, "topstop:end")
            posted = [m for m in table.channel_messages() if is_vote(m)]
            seen_when_told.append(([vote.status for vote in written], len(posted)))
        await reply_private(interaction, content, **kwargs)

    monkeypatch.setattr(bot.ui.controls, "reply_private", reply_looking_at_the_store)
    asked = await bob.slash("topstop end")
    assert t("ui.end.asked", "en") in asked.text
    assert seen_when_told == [(["open"], 1)]  # the vote was stored and posted before the asker was told


@pytest.mark.parametrize("lang", ["fr", "de"])
async def test_an_end_vote_speaks_the_table_language(product_bot: Any, table: Table, lang: str) -> None:
    game = Game(table, [table.user(name) for name in ("alice", "bob", "carol")], product_bot, lang=lang)
    alice, bob, carol = game.players
    lobby = (await alice.slash("topstop new", language=lang)).linked
    assert lobby is not None
    for player in (bob, carol):
        await player.click(lobby, t("ui.lobby.join", lang))
    await alice.click(lobby, t("ui.lobby.start", lang))
    title = t("topstop.table.first_spin_title", lang)
    first = await table.wait_for_message(lambda m: title in m.text, what="the first spin")
    game.sid = int(re.findall(r"(\d+)$", first.embeds[0]["footer"]["text"])[0])
    await game.first_spin()

    asked = await bob.slash("topstop end")  # bob's own answer speaks his Discord language (English)
    assert asked.ephemeral and t("ui.end.asked", "en") in asked.text
    yes, no = t("ui.vote.yes", lang), t("ui.vote.no", lang)
    vote = await table.wait_for_message(lambda m: m.button_labels == [yes, no], what="the vote message")
    assert t("ui.vote.title", lang) in vote.text
    assert t("ui.end.question", lang, name="Bob", game="Top Stop") in vote.text
    assert t("ui.vote.count", lang, yes=0, no=0, eligible=2) in vote.text
    await alice.click(vote, yes)
    await carol.click(vote, yes)
    await game.until(
        lambda: t("ui.vote.accepted", lang) in vote.text and vote.buttons == [], "the closed vote"
    )
    assert (await product_bot.sessions.session(game.sid)).status == "finished"
