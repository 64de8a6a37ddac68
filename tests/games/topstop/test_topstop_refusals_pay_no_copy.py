"""Top Stop checks who acts, and whether now, on the state as it is: a refused action never pays the copy
an accepted one makes (`_copy_for_step`)."""

from __future__ import annotations

import pytest
from topstop_helpers import Table

from bot.engine.errors import BadAction, GameError, IllegalMove, NotAPlayer, TooLate, WrongPhase
from bot.engine.game import RECEIVED_AT
from bot.games.topstop import game as rules


@pytest.fixture
def copies(monkeypatch):
    made: list[object] = []
    real = rules._copy_for_step

    def counted(state):
        made.append(state)
        return real(state)

    monkeypatch.setattr(rules, "_copy_for_step", counted)
    return made


def test_refusals_of_who_acts_and_when_make_no_copy(copies):
    table = Table(("ann", "bob", "cat"))
    table.do("spin", "ann", letter="P", **{RECEIVED_AT: 1_000.0})
    copies.clear()
    refusals: list[tuple[type[GameError], str, str | None, dict]] = [
        (NotAPlayer, "submit", "eve", {"words": ["pear"]}),  # not at the table
        (BadAction, "submit", None, {"words": ["pear"]}),  # a player's action without a player
        (IllegalMove, "end_writing", "ann", {}),  # a system action sent by a player
        (WrongPhase, "dispute", "bob", {"of": "ann", "word": "pear"}),  # nothing revealed yet
        (WrongPhase, "vote", "bob", {"accept": True}),
        (TooLate, "submit", "bob", {"words": ["pear"], RECEIVED_AT: 1_000.0 + 180.0 + 1}),
        (TooLate, "stop", "bob", {RECEIVED_AT: 1_000.0 + 180.0 + 1}),
    ]
    for error, do, player, args in refusals:
        table.refuses(error, do, player, **args)
    assert copies == []
    table.do("submit", "bob", words=["pear"], **{RECEIVED_AT: 1_000.0 + 180.0})  # on the deadline: in time
    assert len(copies) == 1
