"""Top Stop's advanced game against the fake Discord: round one is played normally, round two opens with The
Draw — the spinner's private prompt, a face-down Level card that no public message shows, a Ba Oossee card
whose choice is a select — and the table then shows the Level in force, the card played and who holds Level
cards; `/topstop cards` shows a player their own. A 10-vs-6 round gives a two-page writing form.

The decks are forced through the cog's start setup (as a scenario's `level_deck` / `ba_oossee_deck` would);
everything else goes through the real buttons, selects and forms.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from .conftest import requires_product
from .driver import Message, Player, Table
from .test_topstop_e2e import WORDS, Game, field_of

pytestmark = requires_product


def force_decks(bot: Any, monkeypatch: pytest.MonkeyPatch, level: list[str], ba_oossee: list[str]) -> None:
    """The decks' top cards, added to what the cog itself sets up at the start (the birthdays)."""
    cog = bot.get_cog("Top Stop")
    own = cog.start_setup

    async def forced(record: Any) -> dict[str, Any]:
        return {**(await own(record)), "level_deck": level, "ba_oossee_deck": ba_oossee}

    monkeypatch.setattr(cog, "start_setup", forced)


async def play_round_one(game: Game) -> Message:
    """The first round, played normally (no cards): everyone writes, the time runs out, it is scored.
    Nobody writes the letter's first word: round two may draw the same letter, and the tests write that
    word there (a word used in an earlier round would be struck for that reason instead)."""
    board = await game.first_spin()
    letter = await game.spin(board)
    bank = WORDS[letter][1:]
    for player, words in zip(game.players, (bank[i : i + 3] for i in range(0, 9, 3)), strict=False):
        await game.write(player, board, words)
    await game.timer("writing")
    await game.timer("review")
    draw = game.table.last_message
    assert "round 2" in draw.text
    return draw


def spinner_of(game: Game, message: Message) -> Player:
    [name] = game.pattern("topstop.table.spinner", name=r"(\w+)").findall(message.text)
    return game.named(name)


async def test_the_draw_is_private_and_a_choice_card_is_a_select(
    product_bot: Any, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    force_decks(product_bot, monkeypatch, ["III"], ["steal_3"])
    bob = table.user("bob")
    saved = await bob.slash("profile birthday", month=3, day=14)
    assert saved.ephemeral
    game = await Game.open(table, ["alice", "bob", "carol"], product_bot, language="en", mode="advanced")
    record = await product_bot.sessions.session(game.sid)
    assert record.setup["birthdays"] == {str(bob.user.id): "03-14"}  # stored with the game: replays agree
    assert "today" in record.options

    draw = await play_round_one(game)
    spinner = spinner_of(game, draw)
    others = [p for p in game.players if p is not spinner]
    assert draw.button_labels == [f"The Draw ({spinner.name.capitalize()})"]
    assert "No Level in force" in field_of(draw, "🃏 Cards")

    refused = await others[0].click(draw, draw.button_labels[0])
    assert (
        refused.ephemeral and "Draw" in refused.text and f"{spinner.name.capitalize()}'s Draw" in refused.text
    )

    prompt = await spinner.click(draw, draw.button_labels[0])
    assert prompt.ephemeral and prompt.answer is not None and "FAQ 6" in prompt.text
    assert prompt.answer.button_labels == ["Draw a Level card, then Ba Oossee", "Only the Ba Oossee card"]
    drawn = await spinner.click(prompt.answer, "Draw a Level card, then Ba Oossee")
    assert drawn.kind == "deferred update" and drawn.message is not None and "Done" in drawn.message.text
    await game.until(lambda: bool(drawn.followups), "the spinner's card news")
    [news] = drawn.followups
    assert news.ephemeral and "Your face-down Level card: **Level III**" in news.text
    assert "**Steal 3**" in news.text and len(news.selects) == 1

    # Until the Ba Oossee card's choice is made, the Level card stays face down: no public message shows it.
    await game.until(lambda: "Waiting for" in draw.text, "the choice on the table")
    assert all("Level III" not in m.text for m in table.channel_messages())
    assert all("Level III" not in m.text for p in others for m in p.ephemerals)
    assert draw.button_labels == [f"Choose ({spinner.name.capitalize()})"]
    meddling = await others[1].click(draw, draw.button_labels[0])
    assert meddling.ephemeral and "makes this choice" in meddling.text

    victim = others[0]
    chosen = await spinner.select(news, str(victim.user.id))
    assert chosen.kind == "deferred update"
    await game.until(lambda: "Level III" in draw.text, "the Level revealed on the table")
    cards = field_of(draw, "🃏 Cards")
    assert "**Level III** in force" in cards and "exactly three letters" in cards
    assert f"**Steal 3** ({spinner.name.capitalize()})" in cards and f"→ {victim.name.capitalize()}" in cards
    assert f"{spinner.name.capitalize()} · 🃏 1" in field_of(draw, "Scores")
    assert draw.button_labels == ["Spin"]

    mine = await spinner.slash("topstop cards")
    assert mine.ephemeral and "Your Level cards (only you see this): Level III" in mine.text
    theirs = await victim.slash("topstop cards")
    assert theirs.ephemeral and "no Level card yet" in theirs.text
    watcher = await table.user("dave").slash("topstop cards")
    assert watcher.ephemeral and "not playing" in watcher.text

    letter = await game.spin(draw)
    assert f"target letter **{letter}**" in draw.text
    opened = await victim.click(draw, "Write my words")
    assert opened.kind == "modal" and victim.modal is not None
    three = [w for w in WORDS[letter] if len(w) == 3][:1] or ["zzz"]
    await victim.submit_modal({"word1": WORDS[letter][0], "word2": three[0]})
    await game.timer("writing")
    reveal = table.last_message
    assert f"~~{WORDS[letter][0]}~~ *breaks the Level card*" in field_of(reveal, victim.name.capitalize())


async def test_ten_words_take_a_second_page(
    product_bot: Any, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    force_decks(product_bot, monkeypatch, [], ["ten_vs_six"])
    game = await Game.open(table, ["alice", "bob"], product_bot, language="en", mode="advanced")
    draw = await play_round_one(game)
    spinner = spinner_of(game, draw)
    other = next(p for p in game.players if p is not spinner)
    prompt = await spinner.click(draw, draw.button_labels[0])
    assert prompt.answer is not None
    await spinner.click(prompt.answer, "Only the Ba Oossee card")
    await game.until(lambda: draw.button_labels == ["Spin"], "the spin after The Draw")
    assert "**10 vs 6**" in field_of(draw, "🃏 Cards")
    letter = await game.spin(draw)
    bank = WORDS[letter]

    opened = await spinner.click(draw, "Write my words")
    assert opened.kind == "modal" and spinner.modal is not None and "(1/2)" in spinner.modal["title"]
    assert [row["components"][0]["custom_id"] for row in spinner.modal["components"]] == [
        f"word{n}" for n in range(1, 6)
    ]
    first = await spinner.submit_modal({f"word{n}": bank[n - 1] for n in range(1, 6)})
    await game.until(lambda: bool(first.followups), "the first page's confirmation")
    [saved] = first.followups
    assert "5 of your 10 words" in saved.text and saved.button_labels == ["Words 6–10"]
    second = await spinner.click(saved, "Words 6–10")
    assert second.kind == "modal" and spinner.modal is not None and "(2/2)" in spinner.modal["title"]
    assert [row["components"][0]["custom_id"] for row in spinner.modal["components"]] == [
        f"word{n}" for n in range(6, 11)
    ]
    await spinner.submit_modal({f"word{n}": bank[n - 1] for n in range(6, 11)})
    await game.until(lambda: f"{spinner.name.capitalize()} (10)" in draw.text, "ten words on the table")

    opened = await other.click(draw, "Write my words")
    assert opened.kind == "modal" and other.modal is not None and "(1/2)" in other.modal["title"]
    six = await other.submit_modal({"word1": bank[0], "word2": bank[1]})
    await game.until(lambda: bool(six.followups), "the other player's confirmation")
    assert six.followups[0].button_labels == ["Word 6"]
    await other.click(six.followups[0], "Word 6")
    assert other.modal is not None and [
        row["components"][0]["custom_id"] for row in other.modal["components"]
    ] == ["word6"]
    await other.submit_modal({"word6": bank[2]})
    await game.until(lambda: f"{other.name.capitalize()} (3)" in draw.text, "three words on the table")


async def test_a_stolen_level_card_is_news_to_its_owner_alone(
    product_bot: Any, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round two's spinner keeps a Level card; round three's draws "Steal a Level card" and takes it. The
    owner did nothing: their open console tells them, and no public message or other player does."""
    force_decks(product_bot, monkeypatch, ["III"], ["mabrouk_3", "steal_level"])
    game = await Game.open(table, ["alice", "bob"], product_bot, language="en", mode="advanced")
    draw = await play_round_one(game)
    owner = spinner_of(game, draw)
    thief = next(p for p in game.players if p is not owner)
    prompt = await owner.click(draw, draw.button_labels[0])
    assert prompt.answer is not None
    await owner.click(prompt.answer, "Draw a Level card, then Ba Oossee")
    await game.until(lambda: draw.button_labels == ["Spin"], "the spin after The Draw")
    assert f"{owner.name.capitalize()} · 🃏 1" in field_of(draw, "Scores")
    await game.spin(draw)
    console = (await owner.click(draw, "My words")).message
    assert console is not None and console.ephemeral
    await game.timer("writing")
    record = await product_bot.sessions.session(game.sid)
    if any(key.startswith("review:") for key in record.timers):
        await game.timer("review")
    round_three = table.last_message
    assert "round 3" in round_three.text and spinner_of(game, round_three) is thief

    prompt = await thief.click(round_three, round_three.button_labels[0])
    assert prompt.answer is not None
    drawn = await thief.click(prompt.answer, "Only the Ba Oossee card")
    await game.until(lambda: bool(drawn.followups), "the thief's card")
    [card] = drawn.followups
    assert "**Steal a Level card**" in card.text and len(card.selects) == 1
    took = await thief.select(card, str(owner.user.id))
    assert took.kind == "deferred update"

    lost = f"{thief.name.capitalize()} took your **Level III**."
    await game.until(lambda: lost in console.text, "the owner's news in their console")
    assert console.text.index("News:") < console.text.index(lost)
    assert all(lost not in m.text for m in table.channel_messages())
    assert all(lost not in m.text for m in thief.ephemerals)
    await game.until(
        lambda: f"{thief.name.capitalize()} · 🃏 1" in field_of(round_three, "Scores"), "the steal"
    )


async def test_a_level_ii_spin_stalls_no_event_loop_turn_over_20_ms(
    product_bot: Any, table: Table, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Which second letters combine under Level II comes from the word tables (`python -m bot.words build`),
    not from a scan of the dictionary on the event loop: the stall log, at 20 ms, is the witness."""
    force_decks(product_bot, monkeypatch, ["II"], ["immunity"])
    game = await Game.open(table, ["alice", "bob"], product_bot, language="en", mode="advanced")
    draw = await play_round_one(game)
    spinner = spinner_of(game, draw)
    prompt = await spinner.click(draw, draw.button_labels[0])
    assert prompt.answer is not None
    await spinner.click(prompt.answer, prompt.answer.button_labels[0])  # a Level card, then Ba Oossee
    spin = game.text("topstop.button.spin")
    await game.until(lambda: "II" in draw.text and draw.button_labels == [spin], "Level II in force")
    watchdog = product_bot._watchdog
    monkeypatch.setattr(watchdog, "threshold", 0.02)
    with caplog.at_level(logging.INFO, logger="bot.monitor"):
        spun = await spinner.click(draw, spin)
        assert spun.kind == "deferred update"
        await game.until(lambda: draw.button_labels not in ([spin], []), "the second letter's choice")
    stalls = [r.getMessage() for r in caplog.records if "blocked" in r.getMessage()]
    level_ii = [m for m in stalls if "any_word_starts_with" in m or "combinable" in m or "_stems_for" in m]
    assert not level_ii, level_ii
