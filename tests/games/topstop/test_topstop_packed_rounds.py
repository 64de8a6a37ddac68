"""Finished rounds are kept packed in memory (PastRound), with nothing lost: what is stored, shown and judged
stays the same, and a snapshot stored before rounds were packed loads and is written back unchanged."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import orjson
from topstop_helpers import Table

from bot.engine.game import state_json
from bot.games.topstop import TopStop
from bot.games.topstop.output import history_record
from bot.games.topstop.state import PastRound, Round, unpacked

# Made by the code before packing (a six-player table in its fourth round, three judged rounds behind it,
# disputes and votes): its stored snapshot, and what that code showed of it.
BEFORE_PACKING = Path(__file__).parent / "fixtures" / "topstop_snapshot_before_packing.json"
ADDED_SINCE = {"ready": []}  # a round's fields the fixture's code did not have, as loading defaults them


def test_every_round_but_the_last_is_kept_packed_once_the_next_begins() -> None:
    table = Table(("ann", "bob"))
    table.play_round("P", {"ann": ["pear", "plum"], "bob": ["pig"]}, score=False)
    judged = table.state.round  # in review: still the last round, as the rules change it
    assert isinstance(judged, Round) and len(table.state.rounds) == 1
    table.do("end_round")  # scored, and the next round begins
    rounds = table.state.rounds
    assert isinstance(rounds[0], PastRound) and isinstance(rounds[1], Round)
    assert replace(unpacked(rounds[0]), points=None) == judged  # the round as it ended
    assert unpacked(rounds[0]).points == table.output()["history"][0]["points"]
    assert rounds[0].used_lemmas() == ["pear", "plum", "pig"]  # what later rounds are judged against


def test_the_history_shows_packed_rounds_as_their_full_form_shows_them() -> None:
    table = Table(("ann", "bob"))
    table.play_round("P", {"ann": ["pear"], "bob": ["pig", "pear"]})
    table.play_round("B", {"ann": ["bear"], "bob": ["pear"]}, stop="ann")
    table.play_round("C", {"ann": ["cat"]}, score=False)
    past = table.state.rounds[:-1]
    assert all(isinstance(r, PastRound) for r in past) and len(past) == 2
    shown = table.output()["history"]
    assert shown[:2] == [history_record(unpacked(r)) for r in past]  # the record kept = the one computed
    assert shown[2] == history_record(table.state.round) and shown[1]["stopped_by"] == "ann"


def test_a_state_with_packed_rounds_is_stored_and_loaded_as_plain_json() -> None:
    table = Table(("ann", "bob", "cat"))
    for letter in "PBC":
        table.play_round(letter, {"ann": [letter.lower() + "ear"], "bob": [letter.lower() + "ig"]})
    state, game = table.state, table.game
    stored = orjson.loads(state_json(state))
    assert stored == game.dump(state) and all(isinstance(r, dict) for r in stored["rounds"])
    assert game.load(stored) == state and game.load(json.loads(json.dumps(stored))) == state


def test_a_snapshot_stored_before_packing_loads_and_is_written_back_unchanged() -> None:
    fixture = json.loads(BEFORE_PACKING.read_text(encoding="utf-8"))
    snapshot = json.loads(fixture["snapshot"])
    game = TopStop(None)
    state = game.load(snapshot)
    assert [type(r) for r in state.rounds] == [PastRound] * (len(state.rounds) - 1) + [Round]
    # The stored form did not change, but for the round fields added since, which loading defaults.
    written = {**snapshot, "rounds": [{**r, **ADDED_SINCE} for r in snapshot["rounds"]]}
    assert orjson.loads(state_json(state)) == written
    assert game.dump(state) == written
    assert json.loads(json.dumps(game.replay_output(state))) == fixture["replay_output"]
    assert json.loads(json.dumps(game.view_for(state, None))) == fixture["views"]["None"]
