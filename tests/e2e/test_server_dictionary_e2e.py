"""The server's own dictionary against the fake Discord: a word the table voted valid in one game is accepted
without a vote in the next game on that server — and not in a game on another server; members who manage
the server list, add and remove words (with autocomplete), everyone else is refused.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from .conftest import requires_product
from .driver import Table
from .fake_discord import ALL_PERMISSIONS
from .test_topstop_e2e import WORDS, Game, field_of, rig_next_spin

pytestmark = requires_product


NONSENSE = "ozquaxe"  # after the round's letter: no word of any dictionary


async def a_round_with_nonsense(game: Game, monkeypatch: pytest.MonkeyPatch, bot: Any, letter: str) -> Any:
    """Round one on `letter`: alice writes a valid word and the nonsense one; writing closes; the reveal."""
    board = await game.first_spin()
    rig_next_spin(bot, monkeypatch, letter)
    assert await game.spin(board) == letter
    alice, bob, carol = game.players
    await game.write(alice, board, [WORDS[letter][0], letter.lower() + NONSENSE])
    await game.write(bob, board, [WORDS[letter][1]])
    await game.write(carol, board, [WORDS[letter][2]])
    await game.timer("writing")
    return game.table.last_message


@pytest.mark.both_databases
async def test_a_word_voted_valid_is_accepted_in_the_next_game_on_this_server_only(
    product_bot: Any, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    word = "b" + NONSENSE
    today = time.strftime("%Y-%m-%d", time.gmtime())
    game = await Game.open(table, ["alice", "bob", "carol"], product_bot, language="en")
    alice, bob, carol = game.players
    reveal = await a_round_with_nonsense(game, monkeypatch, product_bot, "B")
    assert f"~~{word}~~ *not in the dictionary*" in field_of(reveal, "Alice")

    asked = await alice.click(reveal, "Dispute a word")
    assert asked.answer is not None
    await alice.select(asked.answer, f"{alice.user.id}|{word}")
    await game.until(lambda: "It counts" in reveal.button_labels, "the vote on the table")
    await bob.click(reveal, "It counts")
    await carol.click(reveal, "It counts")
    await game.until(lambda: f"~~{word}~~" not in reveal.text, "the accepted word")
    ended = await alice.slash("topstop end")
    assert ended.ephemeral or ended.kind == "reply"
    await game.until(lambda: table.channel_messages()[-1].buttons == [], "the game's end")

    admin = table.user("admin", permissions=ALL_PERMISSIONS)
    listed = await admin.slash("dictionary list")
    assert (
        listed.ephemeral
        and f"**{word}** — ✅ accepted · by the table's vote on {today} (game #1)" in listed.text
    )

    # The next game on this server: the word counts at once, and the reveal says why.
    second = await Game.open(table, ["alice", "bob", "carol"], product_bot, language="en")
    reveal = await a_round_with_nonsense(second, monkeypatch, product_bot, "B")
    assert f"{word} *(accepted by this server's vote on {today})*" in field_of(reveal, "Alice")
    assert f"~~{word}~~" not in reveal.text

    # Another server: its own dictionary is empty, so the spellchecker's verdict stands.
    sessions = product_bot.sessions
    other = await sessions.open_lobby(table.fake.guild_id + 1, 999, "topstop", "1", {"language": "en"})
    await sessions.join(other.id, "2")
    await sessions.start_game(other.id, "1", {"first_player": "1"})
    assert (await sessions.session(other.id)).setup["server_words"] == {}
    rig_next_spin(product_bot, monkeypatch, "B")
    await sessions.act(other.id, "1", {"do": "spin"})
    await sessions.act(other.id, "1", {"do": "submit", "words": [word]})
    await sessions.act(other.id, None, {"do": "end_writing"})
    [verdict] = (await sessions.view(other.id, None))["history"][-1]["words"]["1"]
    assert verdict["reason"] == "not_a_word" and "ruled" not in verdict


async def test_admins_list_add_and_remove_words_and_others_cannot(product_bot: Any, table: Table) -> None:
    admin = table.user("admin", permissions=ALL_PERMISSIONS)
    empty = await admin.slash("dictionary list")
    assert empty.ephemeral and "No word yet" in empty.text
    added = await admin.slash("dictionary add", word="  Zorblax ")
    assert added.ephemeral and "**zorblax** is now accepted in this server's games in English" in added.text
    refused = await admin.slash("dictionary add", word="zorp", valid=False, language="Français")
    assert "**zorp** is now refused" in refused.text
    bad = await admin.slash("dictionary add", word="two words")
    assert bad.ephemeral and "one word of letters only" in bad.text

    typed = await admin.autocomplete("dictionary remove", "word", "zor")
    assert [c["value"] for c in typed.choices] == ["zorblax"]  # the server's language: English only
    typed = await admin.autocomplete("dictionary remove", "word", "zor", language="Français")
    assert [c["value"] for c in typed.choices] == ["zorp"]

    listed = await admin.slash("dictionary list")
    assert "**zorblax** — ✅ accepted · set by <@" in listed.text and "zorp" not in listed.text
    removed = await admin.slash("dictionary remove", word="zorblax")
    assert removed.ephemeral and "**zorblax** is forgotten in English" in removed.text
    again = await admin.slash("dictionary remove", word="zorblax")
    assert again.ephemeral and "not in this server's dictionary" in again.text
    page = await admin.slash("dictionary list", page=3)
    assert page.ephemeral and "There is no page 3" in page.text

    member = table.user("member")
    with pytest.raises(AssertionError, match="cannot use /dictionary"):
        await member.slash("dictionary list")  # Discord does not even show it to them
