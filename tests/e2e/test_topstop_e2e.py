"""Top Stop against the fake Discord: three players play two rounds (a duplicate, disputes and votes) to the
end and the leaderboard; a spectator who can act on nothing; leaving and ending; a restart during writing.

Letters come from the bot's own wheel. The tests read the letter from the table message and write words
from WORDS, a bank of valid English words for every letter; only the second round of the long test rigs
the wheel (in this process) so that a word written in round one comes back as a duplicate.
"""

from __future__ import annotations

import asyncio
import copy
import re
import signal
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest

from bot.i18n import t

from .conftest import requires_product, shared_words
from .driver import Message, Player, Reply, Table
from .fake_discord import FakeDiscord
from .process import SpawnBot, wait_for_new_session

pytestmark = requires_product

PRODUCT = "bot.__main__:main"
LOBBY_BUTTONS = ["Join", "Leave", "Start", "Cancel"]
REVIEW_BUTTONS = ["Dispute a word", "Nothing to dispute"]
LETTER = re.compile(r"round \d+: letter ([A-Z])")
COUNTDOWN = re.compile(r"<t:(\d+):R>")
SPINNER = re.compile(r"\*\*(\w+)\*\* spins the letter")

# Ten valid, common English words for every letter, none a variant of another (checked by
# test_the_word_bank_is_valid): three players write three each, and one is left over.
WORDS = {
    letter: words.split()
    for letter, words in {
        "A": "anchor apple arrow attic autumn avenue axle acorn almond ankle",
        "B": "basket blanket bottle bridge butter bucket banana button barrel bishop",
        "C": "candle carpet castle cherry cotton circle copper cradle cabbage cactus",
        "D": "dagger dentist desert dolphin donkey drawer dragon dinner doctor diamond",
        "E": "eagle earth easel elbow engine envelope eraser evening elephant empire",
        "F": "falcon feather fiddle finger forest fountain furnace fabric frog funnel",
        "G": "garden garlic ginger glove goblet gravel guitar giraffe grape goose",
        "H": "hammer harbor helmet hermit hollow honey hornet hunger hatchet husband",
        "I": "iceberg igloo insect island ivory itch idea ink inch iron",
        "J": "jacket jaguar jelly jewel jigsaw journey juggler jungle juice jar",
        "K": "kettle kernel kidney kitchen kitten knuckle koala kingdom kite knife",
        "L": "ladder lantern lemon lizard lobster locket lumber lettuce lily lamp",
        "M": "magnet mango marble meadow mirror monkey mustard mitten muffin mushroom",
        "N": "napkin needle nephew nickel noodle nugget nutmeg nest necklace night",
        "O": "oatmeal ocean office olive onion orange orchid otter oven owl",
        "P": "paddle pebble pencil pepper pickle pillow pirate pocket puddle parrot",
        "Q": "quail quarry quartz queen quest quiet quilt quiver quota quiz",
        "R": "rabbit radish raisin ribbon river rocket rubber ruler robin rattle",
        "S": "saddle salmon sandal shovel silver spider sponge sugar summer spoon",
        "T": "table tablet teapot temple thimble thunder tomato tunnel turnip turtle",
        "U": "umbrella uncle unicorn uniform universe utensil udder ukulele umpire usher",
        "V": "valley vanilla velvet village violin volcano voyage vulture vinegar vest",
        "W": "waffle wagon walnut window winter wizard wrench whistle walrus weasel",
        "X": "xylophone xenon xylem xenophobia xerography xylene xylitol xiphoid xenolith xerophyte",
        "Y": "yacht yard yarn yawn year yeast yellow yogurt yolk youth",
        "Z": "zebra zero zinc zipper zone zoo zeal zest zombie zucchini",
    }.items()
}


def hand_out(letter: str) -> Iterator[list[str]]:
    """Three different valid words on `letter` for each player in turn."""
    bank = WORDS[letter]
    return (bank[i : i + 3] for i in range(0, 9, 3))


def leaked(messages: list[Message], words: set[str]) -> list[str]:
    """The words of `words` that any of the messages shows."""
    return sorted(w for w in words if any(re.search(rf"\b{w}\b", m.text) for m in messages))


def changed(message: Message) -> Callable[[], bool]:
    """True once the message reads differently from now."""
    before = message.text
    return lambda: message.text != before


def countdowns(message: Message) -> list[int]:
    return [int(t) for t in COUNTDOWN.findall(message.text)]


def field_of(message: Message, name: str) -> str:
    """The value of the embed field whose name starts with `name` (a player's words, Scores, Votes)."""
    for embed in message.embeds:
        for item in embed.get("fields") or []:
            if item.get("name", "").startswith(name):
                return f"{item['name']}\n{item['value']}"
    raise AssertionError(f"no field {name!r} in {message!r}")


class Game:
    """One Top Stop game at the table: the people, its table message, and (in process) its timers."""

    def __init__(self, table: Table, players: list[Player], bot: Any = None, lang: str = "en") -> None:
        self.table = table
        self.players = players
        self.bot = bot
        self.sid = 0
        self.lang = lang  # the table's language: labels and texts are looked up in the catalogue

    def text(self, key: str, **params: Any) -> str:
        return t(key, self.lang, **params)

    def pattern(self, key: str, **groups: str) -> re.Pattern[str]:
        """A regular expression for the catalogue text `key`, each named parameter a capturing group."""
        marked = self.text(key, **{name: f"\x00{name}\x00" for name in groups})
        regex = re.escape(marked)
        for name, group in groups.items():
            regex = regex.replace(re.escape(f"\x00{name}\x00"), group)
        return re.compile(regex)

    @classmethod
    async def open(cls, table: Table, names: list[str], bot: Any = None, **options: Any) -> Game:
        """The first name opens a lobby, the others join, the host starts."""
        game = cls(table, [table.user(name) for name in names], bot)
        host = game.players[0]
        lobby = (await host.slash("topstop new", **options)).linked
        assert lobby is not None and lobby.button_labels == LOBBY_BUTTONS, lobby
        for player in game.players[1:]:
            await player.click(lobby, "Join")
        await host.click(lobby, "Start")
        # Edited once the start is through: a bot in a process of its own is watched for its requests only,
        # and quiet can come before the start's commit on a busy machine.
        await table.fake.wait_until(
            lambda: lobby.buttons == [] and f"started with {len(names)} players" in lobby.text,
            within=table.timeout,
            what="the lobby to show that the game started",
        )
        first = await table.wait_for_message(lambda m: "who spins first?" in m.text, what="the first spin")
        game.sid = int(re.findall(r"game #(\d+)", first.text)[0])
        return game

    def named(self, name: str) -> Player:
        return next(p for p in self.players if p.name.capitalize() == name)

    async def first_spin(self) -> Message:
        """Everyone still waiting presses Spin (tied players again) until round one's table appears."""
        title = self.text("topstop.table.first_spin_title")
        first = await self.table.wait_for_message(lambda m: title in m.text, what="the first spin")
        waiting_for = self.pattern("topstop.table.waiting", name=r"(\w+)")
        spin = self.text("topstop.button.spin")
        for _ in range(10):
            waiting = waiting_for.findall(first.text)
            if not waiting:
                break
            spun = changed(first)
            await self.named(waiting[0]).click(first, spin)
            # The letter (or the close, when this spin settles it) may be drawn after the answer.
            await self.until(spun, f"{waiting[0]}'s spin on the table")
        round_one = self.text("topstop.table.round", number=1)
        board = await self.table.wait_for_message(
            lambda m: round_one in m.text and m.button_labels == [spin], what="round one's table"
        )
        assert first.buttons == []  # closed before the next one was posted
        return board

    async def until(self, predicate: Callable[[], bool], what: str) -> None:
        """Waits for what the bot does after it has answered (a command's or a pick's table update)."""
        await self.table.fake.wait_until(predicate, within=self.table.timeout, what=what)

    async def spin(self, message: Message) -> str:
        """The round's spinner presses Spin: the letter is everyone's, writing is open."""
        spinners = self.pattern("topstop.table.spinner", name=r"(\w+)").findall(message.text)
        spinner = self.named((spinners or SPINNER.findall(message.text))[0])
        spun = await spinner.click(message, self.text("topstop.button.spin"))
        # Acknowledged at once; the table message itself is edited right after (redraws are coalesced).
        assert spun.kind == "deferred update" and spun.message is not None and spun.message.id == message.id
        letter = self.pattern("topstop.table.round_letter", number=r"\d+", letter="([A-Z])")
        await self.until(lambda: bool(letter.findall(message.text)), "the letter on the table")
        letters: list[str] = letter.findall(message.text)
        assert len(letters) == 1, message.text
        return letters[0]

    async def write(self, player: Player, message: Message, words: list[str]) -> Reply:
        """Opens "Write my words" and fills the first fields with `words`, the rest blank."""
        opened = await player.click(message, self.text("topstop.button.write"))
        assert opened.kind == "modal", opened
        values = {f"word{i}": words[i - 1] if i <= len(words) else "" for i in range(1, 6)}
        return await player.submit_modal(values)

    async def timer(self, prefix: str) -> None:
        """Runs the session's timer `prefix:…` now, as if its deadline had come."""
        assert self.bot is not None
        record = await self.bot.sessions.session(self.sid)
        keys = [key for key in record.timers if key.startswith(f"{prefix}:")]
        assert keys, f"no {prefix} timer; the timers are {list(record.timers)}"
        assert await self.bot.sessions.fire_timer(self.sid, keys[0]) is not None
        await self.table.settle()


def rig_next_spin(bot: Any, monkeypatch: pytest.MonkeyPatch, letter: str) -> None:
    """The next round spin lands on `letter` (FAQ 3: any letter may come up)."""
    game = bot.sessions.games["topstop"]
    real = game.resolve_chance
    pending = [letter]

    def resolve(state: Any, action: dict[str, Any], rng: Any) -> dict[str, Any]:
        if action.get("do") == "spin" and action.get("letter") is None and state.phase == "spin" and pending:
            action = {**action, "letter": pending.pop()}
        resolved: dict[str, Any] = real(state, action, rng)
        return resolved

    monkeypatch.setattr(game, "resolve_chance", resolve)


def test_the_word_bank_is_valid() -> None:
    words = shared_words()
    for letter, bank in WORDS.items():
        assert len(bank) == 10 and all(w.startswith(letter.lower()) for w in bank), letter
        assert [w for w in bank if not words.check(w, "en").valid] == [], letter
        lemmas = [words.lemmas(w, "en") for w in bank]
        assert all(a.isdisjoint(b) for i, a in enumerate(lemmas) for b in lemmas[i + 1 :]), letter


@pytest.mark.spec_crosscheck
@pytest.mark.both_databases
async def test_three_players_play_two_rounds_with_a_duplicate_disputes_and_votes(
    product_bot: Any, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = await Game.open(
        table, ["alice", "bob", "carol"], product_bot, language="en", target=5, mode="base"
    )
    alice, bob, carol = game.players
    lobby = table.channel_messages()[0]
    assert "English · Base game · target 5" in lobby.text

    # Round one: the spinner spins, the letter and the writing countdown show for everyone.
    board = await game.first_spin()
    letter = await game.spin(board)
    [deadline] = countdowns(board)
    assert board.button_labels == ["My words", "Write my words", "STOP!", "No words? Ask to re-spin"]
    assert f"Write 5 words starting with **{letter}** (English)" in board.text
    later = next(c for c in WORDS if c != letter)  # round two's letter
    duplicate = WORDS[later][9]
    mine, his, hers = hand_out(letter)
    nonsense = f"{letter.lower()}ozquaxe"  # no word of any dictionary

    early = await carol.click(board, "STOP!")
    assert early.ephemeral and "Submit your words before calling STOP" in early.text

    saved = await game.write(alice, board, [mine[0], nonsense])
    assert saved.kind == "deferred update"
    await game.until(lambda: "Alice (2)" in board.text, "Alice's count on the table")
    await game.until(lambda: bool(saved.followups), "Alice's private confirmation")
    [confirmation] = saved.followups
    assert confirmation.ephemeral and confirmation.id in {m.id for m in alice.ephemerals}
    assert mine[0] in confirmation.text and nonsense in confirmation.text
    assert all(confirmation.id not in {m.id for m in p.ephemerals} for p in (bob, carol))

    reopened = await alice.click(board, "Write my words")  # the form comes back with her words
    assert reopened.kind == "modal" and alice.modal is not None
    inputs = [row["components"][0] for row in alice.modal["components"]]
    assert [i["custom_id"] for i in inputs] == ["word1", "word2", "word3", "word4", "word5"]
    assert [i.get("value") for i in inputs] == [mine[0], nonsense, None, None, None]
    await alice.submit_modal({"word1": mine[0], "word2": nonsense, "word3": mine[1], "word4": mine[2]})
    await game.write(bob, board, his)
    await game.write(carol, board, [*hers, duplicate])  # a word on the next letter: the wrong letter
    assert "Alice (4), Bob (3), Carol (4)" in board.text

    stopped = await alice.click(board, "STOP!")
    assert stopped.kind == "deferred update"
    await game.until(lambda: "**Alice** called STOP!" in board.text, "the STOP on the table")
    # Until the reveal, a list is seen by its writer only: in nothing public, in nobody else's replies.
    assert leaked(table.channel_messages(), {*mine, nonsense, *his, *hers, duplicate}) == []
    assert leaked(bob.ephemerals + carol.ephemerals, {*mine, nonsense}) == []
    assert leaked(alice.ephemerals + carol.ephemerals, set(his)) == []
    assert board.button_labels == ["My words", "Write my words"]  # STOP is called once a round
    [grace] = countdowns(board)
    assert grace < deadline  # the grace period replaces the round time limit
    final = await alice.click(board, "Write my words")
    assert final.ephemeral and "your list is final" in final.text

    # The reveal: one message with every list, the crossed-out words struck with their reason.
    await game.timer("grace")
    reveal = table.last_message
    assert reveal.id != board.id and reveal.button_labels == REVIEW_BUTTONS
    assert f"~~{nonsense}~~ *not in the dictionary*" in reveal.text
    assert f"~~{duplicate}~~ *wrong letter*" in reveal.text
    assert "STOP penalty −1" in field_of(reveal, "Alice")
    assert all(w in field_of(reveal, "Bob") for w in his)
    assert countdowns(reveal), "the review window shows its countdown"
    showing = [m.id for m in table.channel_messages() if his[0] in m.text]
    assert showing == [reveal.id], "the words are revealed in one message"
    assert board.buttons == [] and "Writing is closed" in board.text

    await game.timer("review")
    assert reveal.buttons == []
    assert field_of(reveal, "Alice").startswith("Alice — +2")  # 3 words − the STOP penalty
    assert field_of(reveal, "Bob").startswith("Bob — +3") and field_of(reveal, "Carol").startswith(
        "Carol — +3"
    )
    board = table.last_message
    assert "round 2" in board.text and board.button_labels == ["Spin"]
    assert "**3** Bob" in field_of(board, "Scores") and "**2** Alice" in field_of(board, "Scores")

    # Round two: the wheel lands on the letter of carol's stray word, which is now used.
    rig_next_spin(product_bot, monkeypatch, later)
    assert await game.spin(board) == later
    mine, his, hers = hand_out(later)
    await game.write(alice, board, [*mine, duplicate])
    await game.write(bob, board, [his[0], his[1], mine[0]])  # mine[0]: written by two players
    await game.write(carol, board, hers)
    await game.timer("writing")  # nobody called STOP: the round time limit ran out
    reveal = table.last_message
    assert f"~~{duplicate}~~ *used in an earlier round*" in field_of(reveal, "Alice")
    assert f"~~{mine[0]}~~ *written by another player too*" in field_of(reveal, "Alice")
    assert f"~~{mine[0]}~~ *written by another player too*" in field_of(reveal, "Bob")

    # Alice disputes her duplicate; bob and carol vote and accept it.
    asked = await alice.click(reveal, "Dispute a word")
    assert asked.ephemeral and asked.answer is not None
    picked = await alice.select(asked.answer, f"{alice.user.id}|{duplicate}")
    assert picked.kind == "deferred update" and f"You disputed **{duplicate}**" in picked.text
    await game.until(lambda: reveal.button_labels == ["It counts", "Cross it out"], "the vote on the table")
    assert f"**Alice** disputes **{duplicate}** by **Alice**" in field_of(reveal, "🗳️ Vote")
    assert "0/2 voted" in reveal.text and countdowns(reveal)
    own = await alice.click(reveal, "It counts")
    assert own.ephemeral and "the other players decide" in own.text
    voted = await bob.click(reveal, "It counts")
    assert voted.followups and voted.followups[0].ephemeral and "Your vote is in" in voted.followups[0].text
    assert "1/2 voted" in reveal.text
    again = await bob.click(reveal, "Cross it out")
    assert again.ephemeral and "already voted" in again.text
    await carol.click(reveal, "It counts")
    assert reveal.button_labels == REVIEW_BUTTONS
    assert f"~~{duplicate}~~" not in reveal.text and duplicate in field_of(reveal, "Alice")
    assert f"**{duplicate}** (Alice): counts after the vote, 2–0" in field_of(reveal, "Votes")

    # Carol disputes one of bob's words; alice and bob split: a tie keeps the verdict.
    asked = await carol.click(reveal, "Dispute a word")
    assert asked.answer is not None
    await carol.select(asked.answer, f"{bob.user.id}|{his[0]}")
    await game.until(lambda: "It counts" in reveal.button_labels, "the vote on the table")
    await alice.click(reveal, "Cross it out")
    await bob.click(reveal, "It counts")
    assert f"**{his[0]}** (Bob): no majority, the verdict stays, 1–1" in field_of(reveal, "Votes")
    assert f"~~{his[0]}~~" not in reveal.text

    status = await bob.slash("topstop status")
    assert status.ephemeral and status.message is not None and status.message.buttons == []
    assert his[1] in status.text and "Scores before this round" in status.text

    # The review closes: carol reaches the target with the most points and wins.
    await game.timer("review")
    over = table.last_message
    assert "game over" in over.text and "🏆 **Carol** wins!" in over.text and over.buttons == []
    scores = field_of(over, "Final scores")
    assert scores.index("**6** Carol") < scores.index("**5** Alice") and "**5** Bob" in scores
    assert all(m.pinged == [] for m in table.channel_messages())

    leaders = await alice.slash("leaderboard", game="topstop")
    assert f"**1.** {carol.mention} — wins: 1 · games: 1 · best: 6" in leaders.text
    assert alice.mention in leaders.text and bob.mention in leaders.text
    gone = await alice.slash("topstop status")
    assert gone.ephemeral and "No Top Stop game is open in this channel" in gone.text


def snapshot(table: Table) -> list[dict[str, Any]]:
    return [copy.deepcopy(m.raw) for m in table.channel_messages()]


async def refused(game: Game, action: Awaitable[Reply], text: str) -> None:
    """The action gets an ephemeral refusal saying `text`, and the game and its messages stay as they were."""
    version, before = (await game.bot.sessions.session(game.sid)).version, snapshot(game.table)
    reply = await action
    assert reply.ephemeral and text in reply.text, reply.text
    assert (await game.bot.sessions.session(game.sid)).version == version
    assert snapshot(game.table) == before


async def test_a_spectator_sees_everything_public_and_can_act_on_nothing(
    product_bot: Any, table: Table
) -> None:
    game = await Game.open(table, ["alice", "bob"], product_bot, language="en")
    alice, bob = game.players
    dave = table.user("dave")
    watching = "You are not playing in this game"

    await refused(game, dave.click(table.last_message, "Spin"), watching)
    board = await game.first_spin()
    await refused(game, dave.click(board, "Spin"), watching)
    letter = await game.spin(board)
    await refused(
        game, dave.click(board, "Write my words"), "You are not playing in this game; you can watch."
    )
    await refused(game, dave.click(board, "No words? Ask to re-spin"), watching)
    mine, his, _ = hand_out(letter)
    await game.write(alice, board, mine)
    await game.write(bob, board, his)
    await refused(game, dave.click(board, "STOP!"), watching)
    await refused(game, dave.slash("topstop leave"), watching)
    await refused(game, dave.slash("topstop end"), "Only the host or a member with Manage Server")

    status = await dave.slash("topstop status")  # what the table shows, and nothing private
    assert status.ephemeral and "Submitted: Alice (3), Bob (3)" in status.text
    assert "Your words" not in status.text and not any(w in status.text for w in (*mine, *his))

    await game.timer("writing")
    reveal = table.last_message
    await refused(
        game, dave.click(reveal, "Dispute a word"), "You are not playing in this game; you can watch."
    )
    asked = await alice.click(reveal, "Dispute a word")
    assert asked.answer is not None
    await alice.select(asked.answer, f"{bob.id}|{his[0]}")
    await game.until(lambda: "It counts" in reveal.button_labels, "the vote on the table")
    await refused(game, dave.click(reveal, "It counts"), watching)
    await refused(game, dave.click(reveal, "Cross it out"), watching)
    await bob.click(reveal, "It counts")  # the only voter: the vote closes
    assert f"**{his[0]}** (Bob): counts after the vote, 1–0" in field_of(reveal, "Votes")

    ended = await table.user("dev").slash("topstop end")  # Manage Server, not a player
    assert ended.ephemeral and "The game is over." in ended.text
    over = await table.wait_for_message(lambda m: "game over" in m.text, what="the final table")
    assert "🏆 **Alice**, **Bob** win!" in over.text
    assert reveal.buttons == [] and "Scoring" not in reveal.text  # the review message is closed


async def test_the_round_is_scored_as_soon_as_every_player_has_nothing_to_dispute(
    product_bot: Any, table: Table
) -> None:
    game = await Game.open(table, ["alice", "bob", "carol"], product_bot, language="en")
    alice, bob, carol = game.players
    dave = table.user("dave")
    board = await game.first_spin()
    letter = await game.spin(board)
    mine, his, hers = hand_out(letter)
    for player, words in ((alice, mine), (bob, his), (carol, hers)):
        await game.write(player, board, words)
    await game.timer("writing")
    reveal = table.last_message
    assert reveal.button_labels == REVIEW_BUTTONS
    assert "Press **Nothing to dispute**: the round is scored as soon as everyone has." in field_of(
        reveal, "Review"
    )
    await refused(game, dave.click(reveal, "Nothing to dispute"), "You are not playing in this game")
    drawn = copy.deepcopy(reveal.raw)  # the button as drawn before any vote

    done = await alice.click(reveal, "Nothing to dispute")
    assert done.kind == "deferred update"
    await game.until(lambda: bool(done.followups), "alice's private confirmation")
    assert done.followups[0].ephemeral and "Noted: nothing more to dispute" in done.followups[0].text
    await game.until(lambda: "Still reviewing: Bob, Carol." in reveal.text, "who is still reviewing")
    await refused(
        game, alice.click(reveal, "Nothing to dispute"), "You have already said you have nothing to dispute"
    )

    # Carol disputes one of bob's words: after the vote everyone says it again, and a click on the button
    # drawn before the vote is stale.
    asked = await carol.click(reveal, "Dispute a word")
    assert asked.answer is not None
    await carol.select(asked.answer, f"{bob.user.id}|{his[0]}")
    await game.until(lambda: "It counts" in reveal.button_labels, "the vote on the table")
    await refused(game, click_as_drawn(bob, drawn, "Nothing to dispute"), "A vote is open: vote")
    await alice.click(reveal, "It counts")
    await bob.click(reveal, "It counts")
    await game.until(lambda: reveal.button_labels == REVIEW_BUTTONS, "the review again after the vote")
    assert "Still reviewing" not in reveal.text and "Press **Nothing to dispute**" in reveal.text
    await refused(game, click_as_drawn(alice, drawn, "Nothing to dispute"), "The table has moved on")

    for player in (alice, bob):
        await player.click(reveal, "Nothing to dispute")
    await game.until(lambda: "Still reviewing: Carol." in reveal.text, "carol still reviewing")
    last = await carol.click(reveal, "Nothing to dispute")  # the last one: no timer needed
    await game.until(lambda: bool(last.followups), "carol's private confirmation")
    assert "everyone is done, so the round is scored" in last.followups[0].text
    board = await table.wait_for_message(lambda m: "round 2" in m.text, what="round two's table")
    assert reveal.buttons == [] and field_of(reveal, "Alice").startswith("Alice — +3")
    assert board.button_labels == ["Spin"] and "**3** Alice" in field_of(board, "Scores")
    record = await product_bot.sessions.session(game.sid)
    assert not any(key.startswith("review:") for key in record.timers)  # the review window's timer is gone


async def test_players_leave_and_the_game_goes_on_while_two_remain(product_bot: Any, table: Table) -> None:
    alice = table.user("alice")
    for command in ("topstop status", "topstop leave", "topstop end"):
        nothing = await alice.slash(command, channel="games")
        assert nothing.ephemeral, command
        assert "No Top Stop game is open in this channel. Start one with `/topstop new`." in nothing.text
    assert table.channel_messages("games") == []

    game = await Game.open(
        table, ["alice", "bob", "carol", "erin"], product_bot, language="en", writing_time=90, grace=5
    )
    alice, bob, carol, erin = game.players
    assert (
        "grace 5 s" in table.channel_messages()[0].text and "writing 90 s" in table.channel_messages()[0].text
    )
    busy = await bob.slash("topstop new")
    assert busy.ephemeral and "A game is already open in this channel" in busy.text

    board = await game.first_spin()
    letter = await game.spin(board)
    mine, hers, his = hand_out(letter)
    await game.write(carol, board, hers)
    left = await carol.slash("topstop leave")
    assert left.ephemeral and "You left the game." in left.text
    await game.until(lambda: "Carol (left)" in board.text, "carol's leaving on the table")
    assert board.button_labels[:2] == ["My words", "Write my words"]
    assert "Carol" not in board.text.split("Submitted:")[1].split("\n")[0]  # her words are dropped
    await refused(game, carol.click(board, "Write my words"), "You have left this game.")
    await refused(game, carol.slash("topstop leave"), "You have left this game.")

    await game.write(alice, board, mine)
    await game.write(erin, board, his)  # bob writes nothing
    await game.timer("writing")
    reveal = table.last_message
    assert field_of(reveal, "Bob").startswith("Bob — +0\n*(no words)*")
    assert not any(w in m.text for m in table.channel_messages() for w in hers)  # never revealed
    await game.timer("review")
    assert field_of(reveal, "Bob").startswith("Bob — +0") and "STOP penalty" not in reveal.text
    board = table.last_message
    assert "**3** Alice" in field_of(board, "Scores") and "**0** Bob" in field_of(board, "Scores")

    # The host leaves: the game goes on with bob and erin, and bob (the first seat left) hosts.
    await alice.slash("topstop leave")
    await game.until(lambda: "Alice (left)" in board.text, "alice's leaving on the table")
    assert "round 2" in board.text
    await refused(game, alice.slash("topstop end"), "Only the host or a member with Manage Server")
    ended = await bob.slash("topstop end")
    assert ended.ephemeral and "The game is over." in ended.text
    over = await table.wait_for_message(lambda m: "game over" in m.text, what="the final table")
    assert "🏆 **Erin** wins!" in over.text and board.buttons == []
    assert (
        "round 2" in board.text
        and "The game ended before the words of this round were revealed." in board.text
    )


@pytest.mark.both_databases
async def test_a_restart_during_writing_keeps_every_word_and_the_deadline(
    spawn_bot: SpawnBot, fake_discord: FakeDiscord, table: Table
) -> None:
    first = await spawn_bot(PRODUCT)
    await wait_for_new_session(fake_discord, first)
    game = await Game.open(table, ["alice", "bob", "carol"], language="en")
    alice, bob, carol = game.players
    board = await game.first_spin()
    letter = await game.spin(board)
    mine, his, hers = hand_out(letter)
    await game.write(alice, board, mine)
    await game.write(bob, board, his)
    [deadline] = countdowns(board)
    shown = board.text

    session = fake_discord.gateway.current
    await first.kill()  # SIGKILL: no clean-up
    second = await spawn_bot(PRODUCT)  # same database
    await wait_for_new_session(fake_discord, second, previous=session)

    for player, words, others in ((alice, mine, his), (bob, his, mine)):
        status = await player.slash("topstop status")
        assert status.ephemeral and "Only you see this" in status.text and ", ".join(words) in status.text
        assert not any(w in status.text for w in others)
        assert countdowns(status.message) == [deadline]  # type: ignore[arg-type]
    assert board.text == shown and countdowns(board) == [deadline]

    reopened = await alice.click(board, "Write my words")  # the old message's button, a new process
    assert reopened.kind == "modal" and alice.modal is not None
    assert [row["components"][0].get("value") for row in alice.modal["components"]] == [*mine, None, None]
    saved = await alice.submit_modal({"word1": mine[0], "word2": mine[1], "word3": mine[2], "word4": hers[2]})
    # A bot in another process: its first action after the restart loads the game; wait for its answer.
    await table.fake.wait_until(lambda: bool(saved.followups), within=10, what="the saved words")
    assert saved.kind == "deferred update" and saved.followups[0].ephemeral
    await game.write(carol, board, hers[:2])
    # Another process draws the table after its private answer: wait for the edit, not for a quiet spell.
    await table.fake.wait_until(
        lambda: "Submitted: Alice (4), Bob (3), Carol (2)" in board.text, within=10, what="the redrawn table"
    )
    assert countdowns(board) == [deadline]  # drawn again by the new process, from the stored deadline
    assert await second.stop(signal.SIGTERM) == 0


async def test_a_click_on_a_table_message_just_posted_lands_on_it(
    product_bot: Any, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The new message's id reaches the database a moment after the message appears; a click in that
    # moment used to redraw the previous message (the lobby, the first spin) with the new stage.
    remember = product_bot.sessions.set_message

    async def slowly(session_id: int, message_id: int) -> None:
        await asyncio.sleep(0.3)
        await remember(session_id, message_id)

    monkeypatch.setattr(product_bot.sessions, "set_message", slowly)
    game = await Game.open(table, ["alice", "bob"], product_bot, language="en")
    board = await game.first_spin()
    letter = await game.spin(board)
    lobby, first, _ = table.channel_messages()
    assert "The game has started with 2 players" in lobby.text and lobby.buttons == []
    assert "who spins first?" in first.text and first.buttons == []
    assert f"Write 5 words starting with **{letter}**" in board.text and "STOP!" in board.button_labels


async def click_as_drawn(player: Player, drawn: dict[str, Any], label: str) -> Reply:
    """Clicks a button on a message as it was drawn earlier (`drawn`, a copy of its raw payload): a client
    that still shows an old message, or a message whose closing edit did not go through."""
    button = next(c for row in drawn["components"] for c in row["components"] if c.get("label") == label)
    data = {"custom_id": button["custom_id"], "component_type": 2, "id": button.get("id")}
    record = await player.table.fake.send_interaction(
        player.user, 3, data, channel_id=int(drawn["channel_id"]), message=copy.deepcopy(drawn)
    )
    reply = Reply(player.table.fake, record)
    await player.table.fake.wait_until(
        lambda: record.acknowledged, within=player.table.timeout, what=f"the answer to {label!r}"
    )
    await player.table.fake.settle(within=player.table.timeout)
    return reply


async def test_a_button_of_the_previous_round_is_refused_and_changes_nothing(
    product_bot: Any, table: Table
) -> None:
    game = await Game.open(table, ["alice", "bob"], product_bot, language="en")
    alice, bob = game.players
    board = await game.first_spin()
    letter = await game.spin(board)
    drawn = copy.deepcopy(board.raw)  # round one's writing message, its STOP button still on it
    assert [b["custom_id"].split(":")[2:] for b in board.buttons] == [
        ["mine"],
        ["write", "1.0.1"],  # round 1, no re-spin yet, the form's first page
        ["stop", "1.0"],
        ["respin", "1.0"],
    ]
    mine, his, _ = hand_out(letter)
    await game.write(alice, board, mine)
    await game.write(bob, board, his)
    await game.timer("writing")
    await game.timer("review")
    board = table.last_message
    assert "round 2" in board.text and board.buttons[0]["custom_id"].endswith(":spin:2")
    letter = await game.spin(board)
    mine, _, _ = hand_out(letter)
    await game.write(alice, board, mine)  # alice may call STOP in round two: only round one's button is stale

    await refused(
        game,
        click_as_drawn(alice, drawn, "STOP!"),
        "The table has moved on since that message: use the latest one.",
    )
    assert "called STOP" not in board.text and "STOP!" in board.button_labels
    await refused(game, click_as_drawn(bob, drawn, "Write my words"), "The table has moved on")
    assert bob.modal is None
    stopped = await alice.click(board, "STOP!")  # the latest message's button works
    assert stopped.kind == "deferred update"
    await game.until(lambda: "**Alice** called STOP!" in board.text, "the STOP on the table")


async def test_words_written_in_a_form_opened_before_a_re_spin_are_refused(
    product_bot: Any, table: Table
) -> None:
    game = await Game.open(table, ["alice", "bob"], product_bot, language="en")
    alice, bob = game.players
    board = await game.first_spin()
    letter = await game.spin(board)
    opened = await alice.click(board, "Write my words")  # the form for the first letter, left open
    assert opened.kind == "modal"
    for player in (alice, bob):
        await player.click(board, "No words? Ask to re-spin")
    await game.until(lambda: "Re-spun by everyone's wish" in board.text, "the re-spin on the table")
    await game.spin(board)
    first_letter_words = [w.replace(w[0], letter.lower(), 1) for w in ("apple", "ant")]
    await refused(
        game, alice.submit_modal({"word1": first_letter_words[0], "word2": first_letter_words[1]}), "moved on"
    )
    assert "Alice (" not in board.text  # nothing saved for the new letter


async def test_a_new_game_takes_the_servers_language_and_refuses_a_zero_grace(
    product_bot: Any, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = table.user("alice")
    zero = await alice.slash("topstop new", grace=0)
    assert zero.ephemeral and "grace is 1 to 120 (seconds); 0 is out of bounds." in zero.text
    assert table.channel_messages() == []  # no lobby

    settled = await table.user("dev").slash("settings language", language="fr")  # Manage Server
    assert settled.ephemeral and "in French" in settled.text
    bob = table.user("bob")
    lobby = (await alice.slash("topstop new")).linked  # no language given
    assert lobby is not None and "français · Jeu de base" in lobby.text
    by_action = {b["custom_id"].split(":")[2]: b["custom_id"] for b in lobby.buttons}
    await bob.click(lobby, by_action["join"])  # the lobby speaks French: clicked by custom_id
    await alice.click(lobby, by_action["start"])
    game = Game(table, [alice, bob], product_bot, lang="fr")  # the table speaks the game's language
    title = game.text("topstop.table.first_spin_title")
    first = await table.wait_for_message(lambda m: title in m.text, what="the first spin")
    game.sid = int(re.findall(r"n°\s(\d+)", first.text)[0])
    board = await game.first_spin()
    rig_next_spin(product_bot, monkeypatch, "P")
    assert await game.spin(board) == "P"
    assert "Écrivez 5 mots commençant par **P** (français)." in board.text
    await game.write(alice, board, ["pomme", "poire"])
    await game.write(bob, board, ["pencil", "pillow"])  # English words
    await game.timer("writing")
    reveal = table.last_message
    assert field_of(reveal, "Alice").startswith("Alice — +2\npomme\npoire")
    assert "~~pencil~~ *absent du dictionnaire*" in field_of(reveal, "Bob")  # said in the table's language
