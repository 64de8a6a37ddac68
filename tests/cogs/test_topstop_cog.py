"""The Top Stop cog's table without Discord: the embed and the buttons of every phase, drawn from real
rules states; struck words with their reasons; countdowns; Discord's size limits; no unrevealed word in
anything the whole channel sees."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import discord
import pytest

from bot.engine.errors import BadAction, StaleAction
from bot.engine.game import step
from bot.engine.sessions import SessionManager
from bot.games.topstop import TopStop as Rules
from bot.store import SessionRecord
from bot.ui import components
from bot.ui.components import resolve
from bot.ui.table import deadlines_of
from cogs.topstop.cog import TopStopCog, check_bounds
from cogs.topstop.table import dispute_choices, words_modal

NOW = 1_800_000_000.0
COUNTDOWN = re.compile(r"<t:(\d+):R>")


class Bot:
    """What the cog's drawing needs of the bot: the deadlines of a session's timers."""

    def __init__(self, rules: Rules) -> None:
        self.sessions = SessionManager(store=None, games={"topstop": rules}, clock=lambda: NOW)  # type: ignore[arg-type]


class Table:
    """A Top Stop game driven through the rules (dictionary off: any word of letters is a word)."""

    def __init__(
        self,
        players: list[str],
        names: dict[str, str] | None = None,
        first_spin: bool = False,
        **options: Any,
    ) -> None:
        self.rules = Rules(None)
        options = {"language": "en", "check_words": False, **options}
        setup = {} if first_spin else {"first_player": players[0]}
        self.state = self.rules.new_game(options, players, setup, random.Random(1))
        self.record = SessionRecord(
            id=7, guild_id=1, channel_id=2, game="topstop", status="active", host_id=players[0],
            players=list(players), options=options, seed=1,
            names=names or {p: p.capitalize() for p in players},
        )  # fmt: skip
        self.cog = TopStopCog(Bot(self.rules))  # type: ignore[arg-type]
        self.events: list[dict[str, Any]] = []
        self._time()

    def act(self, player: str | None, **action: Any) -> list[dict[str, Any]]:
        if player is not None:
            action["player"] = player
        action = self.rules.resolve_chance(self.state, action, random.Random(0))
        applied = self.rules.apply(self.state, action)
        self.state, self.events = applied.state, applied.events
        self._time()
        return applied.events

    def _time(self) -> None:
        """The session's timers as the engine stores them: each deadline `seconds` from NOW."""
        self.record.timers = {
            t.key: {"at": NOW + t.seconds, "action": t.action} for t in self.rules.timers(self.state)
        }

    def view(self, viewer: str | None = None) -> dict[str, Any]:
        """The view as the table layer hands it to the drawing: with the deadlines by meaning."""
        return {**self.rules.view_for(self.state, viewer), "deadlines": deadlines_of(self.record)}

    def embed(self) -> discord.Embed:
        return self.cog.drawer.table_embed(self.record, self.view())

    def text(self) -> str:
        return embed_text(self.embed())

    def labels(self) -> list[str]:
        items = self.cog.drawer.table_items(self.record, self.view())
        return [getattr(getattr(item, "item", item), "label", None) or "" for item in items]

    def custom_ids(self) -> list[str]:
        items = self.cog.drawer.table_items(self.record, self.view())
        return [item.custom_id for item in items if isinstance(item, components.TableItem)]

    def write(self, lists: dict[str, list[str]]) -> None:
        for player, words in lists.items():
            self.act(player, do="submit", words=words)


def embed_text(embed: discord.Embed) -> str:
    data = embed.to_dict()
    parts = [data.get("title", ""), data.get("description", "")]
    for item in data.get("fields", []):
        parts += [item["name"], item["value"]]
    parts.append(data.get("footer", {}).get("text", ""))
    return "\n".join(p for p in parts if p)


def field(embed: discord.Embed, name: str) -> str:
    for item in embed.fields:
        if (item.name or "").startswith(name):
            return f"{item.name}\n{item.value}"
    raise AssertionError(f"no field {name!r} in {[f.name for f in embed.fields]}")


def within_limits(embed: discord.Embed) -> None:
    """LIMITS.md: title 256, description 4096, ≤ 25 fields (name 256, value 1024), 6000 in all."""
    assert len(embed) <= 6000, len(embed)
    assert len(embed.title or "") <= 256 and len(embed.description or "") <= 4096
    assert len(embed.fields) <= 25
    assert all(len(f.name or "") <= 256 and len(f.value or "") <= 1024 for f in embed.fields)


@pytest.fixture(autouse=True)
def _forget_handlers() -> Iterator[None]:
    yield
    components.unregister_game("topstop")  # the cogs built here registered their buttons


def round_one(players: list[str] | None = None, **options: Any) -> Table:
    """Ann spins P; the lists are still to be written."""
    players = players or ["ann", "bob", "cat"]
    table = Table(players, **options)
    table.act(players[0], do="spin", letter="P")
    return table


async def test_the_first_spin_lists_who_is_awaited_then_every_spin_off() -> None:
    table = Table(["ann", "bob", "cat"], first_spin=True)
    table.act("ann", do="spin", letter="C")
    table.act("bob", do="spin", letter="C")
    assert "Ann: **C**\nBob: **C**\nCat: waiting…" in table.text()
    assert COUNTDOWN.search(table.text()) and table.labels() == ["Spin"]
    table.act("cat", do="spin", letter="F")  # a tie on C: Ann and Bob spin again
    assert "Ann **C** · Bob **C** · Cat **F** — a tie on **C**: Ann, Bob spin again." in table.text()
    assert "Ann: waiting…\nBob: waiting…" in table.text()
    table.act("ann", do="spin", letter="K")
    events = table.act("bob", do="spin", letter="B")

    closed = embed_text(table.cog.drawer.closing_embed(table.record, table.view(), events))
    assert "Ann **K** · Bob **B**" in closed and "**Bob** spins first." in closed
    assert "waiting" not in closed and "<t:" not in closed
    assert "**Bob** spins the letter." in table.text() and table.labels() == ["Spin"]


async def test_the_spin_names_the_spinner_and_when_the_bot_spins_for_them() -> None:
    table = Table(["ann", "bob"])
    assert "Top Stop — round 1\n**Ann** spins the letter." in table.text()
    assert [int(t) for t in COUNTDOWN.findall(table.text())] == [int(NOW + 60)]
    assert table.labels() == ["Spin"]


async def test_writing_shows_the_letter_the_countdown_and_who_submitted_never_the_words() -> None:
    table = round_one()
    embed = table.embed()
    assert embed.title == "Top Stop — round 1: letter P"
    assert "Write 5 words starting with **P** (English)." in embed_text(embed)
    assert f"Writing closes <t:{int(NOW + 180)}:R>." in embed_text(embed)
    assert table.labels() == ["Write my words", "STOP!", "No words? Ask to re-spin"]

    table.write({"ann": ["pear", "plum"], "bob": ["peach"]})
    public = json.dumps(table.embed().to_dict())
    assert "Submitted: Ann (2), Bob (1)" in table.text()
    assert not any(word in public for word in ("pear", "plum", "peach"))
    assert table.labels() == ["Write my words", "STOP!"]  # words are written: no re-spin any more

    table.act("bob", do="stop")
    assert "🛑 **Bob** called STOP!" in table.text()
    assert COUNTDOWN.findall(table.text()) == [str(int(NOW + 10))]  # the grace replaces the time limit
    assert table.labels() == ["Write my words"]
    events = table.act(None, do="end_writing")
    closed = embed_text(table.cog.drawer.closing_embed(table.record, table.view(), events))
    assert "Writing is closed: the words are revealed below." in closed and "STOP by **Bob**" in closed
    assert not any(word in closed for word in ("pear", "plum", "peach"))


async def test_the_reveal_strikes_words_with_their_reason_and_counts_points() -> None:
    table = round_one()
    table.write({"ann": ["pear", "plum", "apple", "pear", "pre-war"], "bob": ["plum", "pip"], "cat": []})
    table.act("bob", do="stop")
    table.act(None, do="end_writing")
    embed = table.embed()
    within_limits(embed)
    assert embed.title == "Top Stop — round 1: letter P" and "🛑 STOP by **Bob**" in embed_text(embed)
    assert field(embed, "Ann") == (
        "Ann — +1\npear\n~~plum~~ *written by another player too*\n~~apple~~ *wrong letter*\n"
        "~~pear~~ *a form of an earlier word of yours*\n~~pre-war~~ *not in the dictionary*"
    )
    assert field(embed, "Bob").startswith("Bob — +0\n~~plum~~ *written by another player too*\npip")
    assert field(embed, "Bob").endswith("STOP penalty −1")
    assert field(embed, "Cat") == "Cat — +0\n*(no words)*"
    assert field(embed, "Scores before this round").endswith("**0** Ann\n**0** Bob\n**0** Cat")
    assert f"Scoring <t:{int(NOW + 30)}:R>." in field(embed, "Review")
    assert table.labels() == ["Dispute a word", "Nothing to dispute"]

    events = table.act(None, do="end_round")
    closed = table.cog.drawer.closing_embed(table.record, table.view(), events)
    assert field(closed, "Ann").startswith("Ann — +1") and field(closed, "Bob").startswith("Bob — +0")
    assert field(closed, "Scores") == "Scores\n**1** Ann\n**0** Bob\n**0** Cat"
    assert "Review" not in embed_text(closed) and "<t:" not in embed_text(closed)


async def test_a_vote_shows_its_question_and_buttons_then_its_result() -> None:
    table = round_one()
    table.write({"ann": ["pear"], "bob": ["pxq"], "cat": ["plum"]})
    table.act(None, do="end_writing")
    table.act("cat", do="dispute", of="ann", word="pear")
    embed = table.embed()
    assert field(embed, "🗳️ Vote") == (
        "🗳️ Vote\n**Cat** disputes **pear** by **Ann**, now counted. Should it count? 0/2 voted; "
        f"closes <t:{int(NOW + 30)}:R>."
    )
    assert table.labels() == ["It counts", "Cross it out"]
    table.act("ann", do="vote", accept=True)
    assert "1/2 voted" in table.text()
    table.act("bob", do="vote", accept=False)  # a tie keeps the verdict
    assert field(table.embed(), "Votes") == "Votes\n**pear** (Ann): no majority, the verdict stays, 1–1"
    table.act("ann", do="dispute", of="cat", word="plum")
    table.act("bob", do="vote", accept=False)
    table.act("cat", do="vote", accept=False)
    embed = table.embed()
    assert "**plum** (Cat): crossed out after the vote, 0–2" in field(embed, "Votes")
    assert field(embed, "Cat") == "Cat — +0\n~~plum~~ *voted out*"
    assert table.labels() == ["Dispute a word", "Nothing to dispute"]


async def test_the_review_says_who_is_still_reviewing_until_everyone_has_nothing_to_dispute() -> None:
    table = round_one()
    table.write({"ann": ["pear"], "bob": ["plum"]})
    table.act(None, do="end_writing")
    review = field(table.embed(), "Review")
    assert "Press **Nothing to dispute**: the round is scored as soon as everyone has." in review
    table.act("ann", do="review_done")
    assert "Still reviewing: Bob, Cat." in field(table.embed(), "Review")
    assert table.labels() == ["Dispute a word", "Nothing to dispute"]  # bob and cat may still say it
    table.act("cat", do="review_done")
    assert "Still reviewing: Bob." in field(table.embed(), "Review")
    table.act("bob", do="dispute", of="ann", word="pear")  # a vote: everyone reviews again after it
    assert table.labels() == ["It counts", "Cross it out"]
    table.act("cat", do="vote", accept=True)
    table.act("ann", do="vote", accept=True)
    assert "Press **Nothing to dispute**" in field(table.embed(), "Review")
    for player in ("ann", "bob", "cat"):
        table.act(player, do="review_done")
    assert table.view()["phase"] == "spin" and table.labels() == ["Spin"]


async def test_the_end_names_the_winner_with_the_final_scores_and_no_buttons() -> None:
    table = round_one(target=1)
    table.write({"ann": ["pear"], "bob": ["plum", "peach"]})
    table.act(None, do="end_writing")
    table.act(None, do="end_round")
    embed = table.embed()
    assert embed.title == "Top Stop — game over" and embed.description == "🏆 **Bob** wins!"
    assert field(embed, "Final scores") == "Final scores\n**2** Bob\n**1** Ann\n**0** Cat"
    assert table.labels() == []


async def test_a_game_ended_during_writing_keeps_the_words_secret() -> None:
    table = round_one()
    table.write({"ann": ["pear"], "bob": ["plum"]})
    events = table.act("ann", do="end")
    closed = embed_text(table.cog.drawer.closing_embed(table.record, table.view(), events))
    assert "round 1: letter P" in closed and "ended before the words of this round were revealed" in closed
    assert "pear" not in closed and "plum" not in closed
    assert "pear" not in table.text() and "plum" not in table.text()


async def test_names_and_words_cannot_inject_markdown() -> None:
    table = round_one(["ann", "bob"], names={"ann": "*Ann*", "bob": "__Bob__"})
    table.write({"ann": ["p**x**"], "bob": ["p~~y"]})
    table.act(None, do="end_writing")
    text = table.text()
    assert "\\*Ann\\*" in text and "~~p\\*\\*x\\*\\*~~" in text and "~~p\\~\\~y~~" in text


async def test_twelve_players_with_five_long_words_fit_discords_limits() -> None:
    players = [f"player{i:02d}" for i in range(12)]
    names = {p: f"{'W' * 28}{i:04d}" for i, p in enumerate(players)}  # 32 characters, Discord's longest
    table = round_one(players, names=names)
    # 40 characters each, Discord's longest word here, full of markdown to escape; every one crossed out.
    table.write({p: [f"p{i}{j}*_~`|" + "*" * 30 for j in range(5)] for i, p in enumerate(players)})
    table.act(players[0], do="stop")
    assert len(json.dumps(table.embed().to_dict())) < 6000
    within_limits(table.embed())
    table.act(None, do="end_writing")
    within_limits(table.embed())
    dispute_for_the_largest_review(table, players)
    embed = table.embed()  # a vote open, three closed: the largest review there is
    within_limits(embed)
    assert "…~~ *not in the dictionary*" in embed_text(embed)  # the words are clipped to fit
    assert "🗳️ Vote" in embed_text(embed) and "Votes" in embed_text(embed)
    assert len(embed.fields) == 12 + 3  # a field per player, the votes, the scores, the open vote
    items = table.cog.drawer.table_items(table.record, table.view())
    assert len(items) <= 25
    ids = [item.custom_id for item in items if isinstance(item, components.TableItem)]
    assert len(ids) == 2 and all(len(i) <= 100 and resolve(i) for i in ids)


async def test_re_spin_is_offered_until_someone_has_words_and_a_unanimous_one_spins_again() -> None:
    table = round_one(["ann", "bob"])
    table.write({"ann": []})  # an empty list is no words (FAQ 2)
    assert table.labels() == ["Write my words", "STOP!", "No words? Ask to re-spin"]
    table.act("ann", do="respin")
    assert "Re-spin asked by 1 of 2." in table.text()
    table.act("bob", do="respin")
    assert "**Ann** spins the letter.\nRe-spun by everyone's wish: P." in table.text()
    assert table.labels() == ["Spin"]


async def test_a_game_ended_during_the_first_spin_says_so() -> None:
    table = Table(["ann", "bob", "cat"], first_spin=True)
    table.act("ann", do="spin", letter="C")
    events = table.act("ann", do="end")
    closed = embed_text(table.cog.drawer.closing_embed(table.record, table.view(), events))
    assert "who spins first?" in closed and "The game ended before the first round." in closed
    assert "waiting" not in closed and table.labels() == []


async def test_re_spin_is_hidden_once_stop_is_called() -> None:
    # Our ruling: once STOP is called the letter is final, so the re-spin button goes with the STOP button.
    table = round_one(["ann", "bob"])
    table.write({"ann": []})
    table.act("bob", do="respin")
    assert table.labels() == ["Write my words", "STOP!", "No words? Ask to re-spin"]
    table.act("ann", do="stop")
    assert table.labels() == ["Write my words"]
    assert "Re-spin asked" not in table.text()  # the pending request was dropped


async def test_every_round_bound_button_names_its_round_and_a_vote_button_its_vote() -> None:
    table = Table(["ann", "bob", "cat"], first_spin=True)
    assert table.custom_ids() == ["topstop:7:spin:0"]  # the first spin
    for player, letter in (("ann", "B"), ("bob", "D"), ("cat", "E")):
        table.act(player, do="spin", letter=letter)
    assert table.custom_ids() == ["topstop:7:spin:1"]
    table.act("ann", do="spin", letter="P")
    # Writing buttons also name the re-spins so far (the write button its form's page first).
    assert table.custom_ids() == ["topstop:7:write:1.0.1", "topstop:7:stop:1.0", "topstop:7:respin:1.0"]
    table.write({"ann": ["pear", "plum"], "bob": ["pip"]})
    table.act(None, do="end_writing")
    # "Nothing to dispute" names its review window too: the rounds so far plus the votes opened.
    assert table.custom_ids() == ["topstop:7:dispute:1", "topstop:7:review_done:1.1"]
    table.act("cat", do="dispute", of="ann", word="pear")
    assert table.custom_ids() == ["topstop:7:vote:yes.1.1", "topstop:7:vote:no.1.1"]
    table.act("ann", do="vote", accept=True)
    table.act("bob", do="vote", accept=True)
    assert table.custom_ids() == ["topstop:7:dispute:1", "topstop:7:review_done:1.2"]
    table.act("bob", do="dispute", of="ann", word="plum")
    assert table.custom_ids() == ["topstop:7:vote:yes.1.2", "topstop:7:vote:no.1.2"]
    table.act("ann", do="vote", accept=True)
    table.act("cat", do="vote", accept=True)
    table.act(None, do="end_round")
    assert table.custom_ids() == ["topstop:7:spin:2"]
    assert all(resolve(i) for i in table.custom_ids())


async def test_button_args_become_typed_arguments_and_ids_without_their_round_are_stale() -> None:
    round_one()  # the cog declares its buttons
    assert resolve("topstop:7:stop:3.1")[1:] == (7, {"round": 3, "respins": 1})
    assert resolve("topstop:7:vote:yes.2.1")[2] == {"answer": "yes", "round": 2, "dispute": 1}
    assert resolve("topstop:7:vote:no.2.3")[2] == {"answer": "no", "round": 2, "dispute": 3}
    assert resolve("topstop:7:review_done:2.3")[2] == {"round": 2, "review": 3}
    # An id without the freshness its action carries never skips the stale check.
    for stale in (
        "topstop:7:stop",
        "topstop:7:stop:3",  # a writing button without its re-spins
        "topstop:7:pick",
        "topstop:7:vote:yes",
        "topstop:7:vote:yes.2",
        "topstop:7:review_done:2",  # "nothing to dispute" without its review window
    ):
        with pytest.raises(StaleAction):
            resolve(stale)
    with pytest.raises(StaleAction):
        resolve("topstop:7:words", modal=True)
    for forged in ("topstop:7:stop:abc", "topstop:7:vote:maybe", "topstop:99999999999999999999:stop"):
        with pytest.raises(BadAction, match="damaged or not one of this bot's"):
            resolve(forged)


async def test_writing_buttons_and_the_form_of_the_letter_before_a_re_spin_are_stale() -> None:
    table = round_one(["ann", "bob"])
    before = [resolve(i)[2] for i in table.custom_ids()]
    assert [args.get("respins") for args in before] == [0, 0, 0]
    form = words_modal(7, "P", 5, [], 1, respins=0)
    assert form.custom_id == "topstop:7:words:1.0"
    assert resolve(form.custom_id, modal=True)[2] == {"round": 1, "respins": 0}
    table.act("ann", do="respin")
    table.act("bob", do="respin")
    table.act("ann", do="spin", letter="K")
    old_write = {key: before[0][key] for key in ("round", "respins")}
    assert table.view("bob")["freshness"]["respins"] == 1 != old_write["respins"]
    for made_against in (old_write, resolve(form.custom_id, modal=True)[2]):
        with pytest.raises(StaleAction):  # the old write button, and the words of the form opened for P
            step(
                table.rules,
                table.state,
                0,
                0,
                {"do": "submit", "player": "bob", "words": ["pear"], **made_against},
            )


async def test_the_dispute_menu_fits_discords_limits_for_values_and_labels() -> None:
    owner = "9" * 20  # the longest Discord id
    table = round_one([owner, "bob"], names={owner: "N" * 32, "bob": "Bob"})
    longest = "p" + "ﬃ" * 13  # 40 characters once normalised, the most a word may have
    table.write({owner: [longest, "pear", "pear"], "bob": ["plum"]})
    table.act(None, do="end_writing")
    choices = dispute_choices(table.record, table.view()["round"]["lists"])
    assert [c.value for c in choices] == [f"{owner}|p{'ffi' * 13}", f"{owner}|pear", "bob|plum"]
    assert all(
        len(c.value) <= 100 and len(c.label) <= 100 and len(c.description or "") <= 100 for c in choices
    )


async def test_the_words_form_shows_the_saved_words_normalised_within_its_max_length() -> None:
    table = round_one(["ann", "bob"], language="de")
    table.act("ann", do="submit", words=["Maße", "PFERD"])
    saved = table.view("ann")["round"]["your_words"]
    assert saved == ["masse", "pferd"]  # case-folded: ß is written ss
    form = words_modal(7, "P", 5, saved, 1, respins=0)
    assert form.custom_id == "topstop:7:words:1.0"
    inputs = [item for item in form.children if isinstance(item, discord.ui.TextInput)]
    assert [i.default for i in inputs] == ["masse", "pferd", None, None, None]
    assert all(i.max_length == 40 for i in inputs)


async def test_the_reveal_starts_with_the_stop_caller_and_goes_clockwise() -> None:
    # Words Reveal: starting with the player who called STOP and moving clockwise; then who wrote nothing.
    table = round_one(["ann", "bob", "cat", "dan"])
    table.write({"ann": ["pear"], "cat": ["plum"], "dan": ["pip"]})
    table.act("cat", do="stop")
    table.act(None, do="end_writing")
    names = [(f.name or "").split(" —")[0] for f in table.embed().fields]
    assert names[:4] == ["Cat", "Dan", "Ann", "Bob"]
    table.act(None, do="end_round")
    closed = table.cog.drawer.reveal_embed(table.record, table.view()["history"][-1], table.view())
    assert [(f.name or "").split(" —")[0] for f in closed.fields][:4] == ["Cat", "Dan", "Ann", "Bob"]


async def test_new_refuses_numbers_out_of_bounds_with_a_clear_message() -> None:
    check_bounds(target=5, writing_time=900, grace=1)
    check_bounds(target=None, writing_time=None, grace=None)
    with pytest.raises(BadAction, match=r"^grace is 1 to 120 \(seconds\); 0 is out of bounds\.$"):
        check_bounds(grace=0)
    with pytest.raises(BadAction, match="target is 5 to 500"):
        check_bounds(target=4)


def dispute_for_the_largest_review(table: Table, players: list[str]) -> None:
    """Three of the long words disputed and voted in, a fourth dispute open (after `end_writing`)."""
    for i in range(3):
        table.act(players[i + 1], do="dispute", of=players[i], word=f"p{i}0*_~`|" + "*" * 30)
        for voter in players:
            if voter != players[i + 1]:
                table.act(voter, do="vote", accept=True)
    table.act(players[5], do="dispute", of=players[4], word="p40*_~`|" + "*" * 30)
