"""Top Stop and the server's own dictionary: a vote on a dictionary verdict is remembered (a WordRuling the
engine stores), and the words a game takes along from earlier votes override the spellchecker."""

from __future__ import annotations

import random

import pytest
from topstop_helpers import StubWords, Table

from bot.engine.errors import BadAction
from bot.engine.game import WordRuling
from bot.games.topstop import TopStop

PLAYERS = ("ann", "bob", "cat")


def checked(**setup: object) -> Table:
    table = Table(PLAYERS, service=StubWords(unknown={"blorf"}, proper={"paris"}), check_words=True)
    if setup:
        table.setup = {**table.setup, **setup}
        table.state = table.game.new_game(table.options, table.players, table.setup, random.Random(0))
    return table


def test_a_vote_that_accepts_a_word_the_dictionary_refused_is_remembered() -> None:
    table = checked()
    table.play_round("B", {"ann": ["blorf"], "bob": ["bread"]}, score=False)
    table.do("dispute", "ann", of="ann", word="blorf")
    table.do("vote", "bob", accept=True)
    applied = table.do("vote", "cat", accept=True)
    assert applied.rulings == [WordRuling("blorf", True)]


def test_a_vote_that_crosses_out_a_valid_word_is_remembered_as_refused() -> None:
    table = checked()
    table.play_round("B", {"ann": ["bread"], "bob": ["bagel"]}, score=False)
    table.do("dispute", "bob", of="ann", word="bread")  # the others vote: ann and cat
    table.do("vote", "ann", accept=False)
    applied = table.do("vote", "cat", accept=False)
    assert applied.rulings == [WordRuling("bread", False)]


def test_a_vote_on_a_matter_of_the_round_or_a_tie_is_not_the_dictionarys() -> None:
    table = checked()
    table.play_round("B", {"ann": ["bread", "cup"], "bob": ["bread"]}, score=False)
    table.do("dispute", "ann", of="ann", word="bread")  # common: written by two players
    table.do("vote", "bob", accept=True)
    assert table.do("vote", "cat", accept=True).rulings == []
    table.do("dispute", "ann", of="ann", word="cup")  # the wrong letter
    table.do("vote", "bob", accept=True)
    assert table.do("vote", "cat", accept=False).rulings == []  # a tie keeps the verdict: no ruling


def test_without_dictionary_checks_no_vote_is_remembered() -> None:
    table = Table(PLAYERS)  # check_words off: there is no dictionary verdict to overrule
    table.play_round("B", {"ann": ["blorf"], "bob": ["bread"]}, score=False)
    table.do("dispute", "bob", of="ann", word="blorf")
    table.do("vote", "ann", accept=False)
    assert table.do("vote", "cat", accept=False).rulings == []


def test_the_servers_words_override_the_dictionary_with_the_day_of_their_vote() -> None:
    table = checked(
        server_words={
            "blorf": {"valid": True, "day": "2026-11-20"},
            "bread": {"valid": False, "day": "2026-11-21"},
        }
    )
    record = table.play_round("B", {"ann": ["blorf", "bread", "bagel"], "bob": ["paris"]})
    assert record["words"]["ann"] == [
        {"word": "blorf", "valid": True, "reason": None, "ruled": "2026-11-20"},
        {"word": "bread", "valid": False, "reason": "voted_out", "ruled": "2026-11-21"},
        {"word": "bagel", "valid": True, "reason": None},
    ]


def test_a_later_vote_overturns_the_servers_word_and_is_remembered() -> None:
    table = checked(server_words={"bread": {"valid": False, "day": "2026-11-21"}})
    table.play_round("B", {"ann": ["bread"], "bob": ["bagel"]}, score=False)
    table.do("dispute", "ann", of="ann", word="bread")
    table.do("vote", "bob", accept=True)
    assert table.do("vote", "cat", accept=True).rulings == [WordRuling("bread", True)]
    table.do("end_round")
    assert table.output()["history"][-1]["words"]["ann"] == [{"word": "bread", "valid": True, "reason": None}]


@pytest.mark.parametrize(
    "bad", [[], {"x": True}, {"x": {"valid": "yes", "day": "2026-01-01"}}, {"x": {"valid": True}}, {1: {}}]
)
def test_a_malformed_server_dictionary_is_refused(bad: object) -> None:
    with pytest.raises(BadAction) as refused:
        TopStop(None).new_game(
            {"check_words": False}, ["ann", "bob"], {"server_words": bad}, random.Random(0)
        )
    assert refused.value.key == "engine.server_words"
