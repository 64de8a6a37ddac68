"""Every game counts its votes through bot.engine.votes, and the tables show its tally: a rule changed in
the helper is seen by Top Stop's re-spin and disputes, TopWords' end vote and the counts the tables show."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from bot.engine import votes
from bot.engine.game import Applied, step
from bot.engine.votes import Rule, VoteResult
from bot.games.topstop import TopStop
from bot.games.topwords import TopWords
from bot.i18n import t
from cogs.topwords import table as topwords_table
from tests.cogs.test_topstop_cog import Table as CogTable
from tests.cogs.test_topstop_cog import embed_text

ResultRule = Callable[[Rule, int, int, int], VoteResult]


class Driver:
    """One game driven through `step`, as live play drives it (no dictionary: any word is a word)."""

    def __init__(self, game: Any, players: tuple[str, ...]) -> None:
        self.game = game
        self.players = list(players)
        self.state = game.new_game(
            {"check_words": False}, self.players, {"first_player": players[0]}, random.Random(0)
        )
        self.version = 0
        self.last: Applied | None = None

    def do(self, do: str, player: str | None = None, **args: Any) -> Applied:
        action: dict[str, Any] = {"do": do, **args, **({"player": player} if player else {})}
        _, self.last = step(self.game, self.state, 0, self.version, action)
        self.state, self.version = self.last.state, self.version + 1
        return self.last

    def events(self, kind: str) -> list[dict[str, Any]]:
        assert self.last is not None
        return [e for e in self.last.events if e["type"] == kind]

    def view(self) -> dict[str, Any]:
        view: dict[str, Any] = self.game.view_for(self.state, None)
        return view


def top_stop_writing(players: tuple[str, ...] = ("ann", "bob", "cat")) -> Driver:
    table = Driver(TopStop(None), players)
    table.do("spin", "ann", letter="X")
    return table


def top_stop_disputing() -> Driver:
    """Review: ann's "cot" is disputed by bob; ann and cat vote."""
    table = Driver(TopStop(None), ("ann", "bob", "cat"))
    table.do("spin", "ann", letter="C")
    table.do("submit", "ann", words=["cot"])
    table.do("submit", "bob", words=["cup"])
    table.do("end_writing")
    table.do("dispute", "bob", of="ann", word="cot")
    return table


@pytest.fixture
def change_rule(monkeypatch: pytest.MonkeyPatch) -> Callable[[Rule, ResultRule], None]:
    """Replace how one rule decides, in the helper only."""

    def change(rule: Rule, result: ResultRule) -> None:
        real = votes._result
        monkeypatch.setattr(
            votes, "_result", lambda r, yes, no, missing: (result if r is rule else real)(r, yes, no, missing)
        )

    return change


def one_yes_is_enough(rule: Rule, yes: int, no: int, missing: int) -> VoteResult:
    return "yes" if yes else "no"


def a_tie_accepts(rule: Rule, yes: int, no: int, missing: int) -> VoteResult:
    return "yes" if yes >= no else "no"


# -- the counts -------------------------------------------------------------------------------------------


def test_top_stop_respin_is_decided_by_the_unanimous_rule(change_rule):
    table = top_stop_writing()
    table.do("respin", "ann")
    assert table.state.phase == "writing"  # one of three asked: not unanimous
    assert table.events("respin_vote")[0] | {"player": "ann"} == {
        "type": "respin_vote",
        "player": "ann",
        "votes": 1,
        "needed": 3,
    }
    change_rule(Rule.UNANIMOUS, one_yes_is_enough)
    table = top_stop_writing()
    table.do("respin", "ann")
    assert table.state.phase == "spin" and table.events("respin")


def test_top_stop_dispute_is_decided_by_the_majority_rule(change_rule):
    table = top_stop_disputing()
    table.do("vote", "ann", accept=True)
    table.do("vote", "cat", accept=False)
    assert table.view()["history"][-1]["disputes"][0]["result"] == "kept"  # a tie: the verdict stays
    change_rule(Rule.MAJORITY, a_tie_accepts)
    table = top_stop_disputing()
    table.do("vote", "ann", accept=True)
    table.do("vote", "cat", accept=False)
    closed = table.view()["history"][-1]["disputes"][0]
    assert (closed["result"], closed["accept"], closed["reject"]) == ("accepted", 1, 1)


def test_topwords_end_vote_is_decided_by_the_unanimous_rule(change_rule):
    table = Driver(TopWords(None), ("ann", "bob", "cat"))
    table.do("propose_end", "ann")
    table.do("vote", "bob", accept=True)
    table.do("vote", "cat", accept=False)
    assert table.state.phase == "play"  # one no keeps the game going
    change_rule(Rule.UNANIMOUS, one_yes_is_enough)
    table.do("propose_end", "bob")
    table.do("vote", "ann", accept=True)
    table.do("vote", "cat", accept=False)
    assert table.state.phase == "over" and table.state.end_reason == "no_words"
    assert table.events("vote_result")[0]["yes"] == 1 and table.events("vote_result")[0]["no"] == 1


# -- what the tables show --------------------------------------------------------------------------------


def test_top_stop_table_shows_the_respin_tally_of_the_players_still_seated():
    table = CogTable(["ann", "bob", "cat"])
    table.act("ann", do="spin", letter="X")
    table.act("ann", do="respin")
    assert table.view()["round"]["respin"] == {
        "voted": 1,
        "missing": 2,
        "eligible": 3,
        "yes": 1,
        "no": 0,
        "result": "no",
    }
    assert "Re-spin asked by 1 of 3." in table.text()
    table.act("cat", do="leave")  # the re-spin now needs ann and bob only
    assert "Re-spin asked by 1 of 2." in table.text()


def test_top_stop_table_reads_the_open_dispute_tally_not_its_lists():
    table = CogTable(["ann", "bob", "cat"])
    table.act("ann", do="spin", letter="C")
    table.act("ann", do="submit", words=["cot"])
    table.act(None, do="end_writing")
    table.act("bob", do="dispute", of="ann", word="cot")
    table.act("ann", do="vote", accept=False)
    view = table.view()
    assert view["round"]["dispute"]["tally"] == {"voted": 1, "missing": 1, "eligible": 2}
    assert "1/2 voted" in table.text()
    view["round"]["dispute"]["tally"] = {"voted": 7, "missing": 2, "eligible": 9}
    assert "7/9 voted" in embed_text(table.cog.drawer.table_embed(table.record, view))


def test_topwords_vote_shows_how_many_voted_from_the_tally():
    words = Driver(TopWords(None), ("ann", "bob", "cat"))
    words.do("propose_end", "ann")
    words.do("vote", "bob", accept=False)
    vote = words.view()["vote"]
    assert vote["tally"] == {"voted": 1, "missing": 1, "eligible": 2}  # not how bob voted
    assert t("topwords.vote_count", "en", voted=1, voters=2) in topwords_table.vote_text(
        "en", str, vote, None
    )
    vote["tally"] = {"voted": 7, "missing": 2, "eligible": 9}
    assert t("topwords.vote_count", "en", voted=7, voters=9) in topwords_table.vote_text(
        "en", str, vote, None
    )
