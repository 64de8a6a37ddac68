"""The history keeps every move but the last as one JSON text (History), with nothing lost: the rules read
the last move as before, a move taken back leaves the history it came after, what is stored and shown stays
the same, and a snapshot stored before the history was packed loads and is written back unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
from topwords_helpers import EXAMPLES, StubWords, examples_table

from bot.engine.game import state_json
from bot.games.topwords import TopWords
from bot.games.topwords.state import History, MoveRecord, ScoredWord

# Made by the code before packing (a German table in strict mode, 15 moves and more in, the last one pending):
# its stored snapshot, and what that code showed of it.
BEFORE_PACKING = Path(__file__).parent / "fixtures" / "topwords_snapshot_before_packing.json"
BAD_RAT = StubWords({"RAT": "not_a_word"})


def test_the_history_reads_every_move_as_it_was_made_and_the_last_as_the_record_itself() -> None:
    table = examples_table()
    made = [table.state.history[-1]]
    for player, tiles in zip(["bob", "ann", "bob"], EXAMPLES[:3], strict=True):
        table.place(player, tiles)
        made.append(table.state.history[-1])
    history = table.state.history
    assert isinstance(history, History) and len(history) == 4
    assert history[-1] is made[-1] and history[3] is made[-1]  # the last: no decoding
    assert list(history) == made and history[1] == made[1] and history[:2] == made[:2]
    assert history.plain() == [record.plain() for record in made]


def test_a_move_taken_back_leaves_the_history_it_came_after() -> None:
    table = examples_table(words=BAD_RAT, mode="challenge")
    table.place("bob", EXAMPLES[0])
    before = table.state.history
    table.place("ann", EXAMPLES[1])  # RAT: the dictionary refuses it
    table.do("challenge", "bob", move=table.game.freshness(table.state)["move"])
    assert table.events("taken_back") and table.state.history == before
    assert table.state.history[-1] == before[-1] and isinstance(table.state.history[-1], MoveRecord)


def test_a_move_record_reads_and_serialises_as_the_json_object_it_stores() -> None:
    record = MoveRecord(3, "ann", [[7, 7, "A"]], [ScoredWord("AB", 4)], False, 0, 4)
    plain = {
        "move": 3,
        "player": "ann",
        "tiles": [[7, 7, "A"]],
        "words": [{"word": "AB", "points": 4}],
        "doubled": False,
        "bonus": 0,
        "points": 4,
    }
    assert record.plain() == plain and record == plain and dict(record) == plain
    assert orjson.dumps(record) == orjson.dumps(plain) and MoveRecord.of(plain) == record
    assert record["words"][0]["word"] == "AB" and "tiles" in record and "score" not in record


def test_a_snapshot_stored_before_packing_loads_and_is_written_back_unchanged() -> None:
    fixture = json.loads(BEFORE_PACKING.read_text(encoding="utf-8"))
    snapshot = json.loads(fixture["snapshot"])
    game = TopWords(None)
    state = game.load(snapshot)
    assert isinstance(state.history, History) and len(state.history) == len(snapshot["history"])
    assert orjson.loads(state_json(state)) == snapshot  # the stored form did not change
    assert game.dump(state) == snapshot
    assert json.loads(json.dumps(game.replay_output(state))) == fixture["replay_output"]
    assert json.loads(json.dumps(game.view_for(state, None))) == fixture["views"]["None"]
