"""When the rules fail instead of refusing: the replay still answers, never with a traceback.

A game must refuse a malformed action with a GameError; one that raises something else on it (TypeError,
KeyError, ValueError, AttributeError…) has that action refused as bad_action and the replay goes on. A
failure while starting the game or writing its output is a file not understood: exit 2, one line.
The subject is the engine tests' RaceGame, made a little more fragile.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import bot.games
import bot.replay
from bot.engine.game import Action, Applied
from bot.replay import main, run_scenario
from tests.engine.race_game import RaceGame, RaceState


class FragileRace(RaceGame):
    """RaceGame that reads its arguments without checking them first, as a careless game would."""

    def apply(self, state: RaceState, action: Action) -> Applied:
        if action["do"] == "roll":
            action = {**action, "roll": int(action["roll"])}  # ValueError, TypeError
        elif action["do"] == "note":
            action["player"]  # KeyError without a player
            action["text"].strip()  # KeyError without text, AttributeError for a number
        return super().apply(state, action)


@pytest.fixture
def race(monkeypatch: pytest.MonkeyPatch) -> FragileRace:
    game = FragileRace()
    monkeypatch.setitem(bot.games.GAME_PACKAGES, "race", "tests.engine.race_game")
    monkeypatch.setattr(bot.replay, "make_game", lambda name, words: game)
    return game


def race_file(tmp_path: Path, **changes: Any) -> str:
    scenario = {
        "game": "race",
        "players": ["ann", "bob"],
        "options": {"target": 50},
        "actions": [],
        **changes,
    }
    path = tmp_path / "race.json"
    path.write_text(json.dumps(scenario))
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line(code: int, out: str, err: str, words: str) -> None:
    assert code == 2 and out == "" and "Traceback" not in err
    assert len(err.splitlines()) == 1 and words in err, err


def test_an_action_the_rules_fail_on_is_refused_as_bad_action_and_the_replay_goes_on(
    race: FragileRace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    actions = [
        {"do": "roll", "player": "ann", "roll": 3},
        {"do": "roll", "player": "bob", "roll": "three"},  # ValueError: int("three")
        {"do": "roll", "player": "bob", "roll": [3]},  # TypeError: int([3])
        {"do": "note", "text": "hello"},  # KeyError: no player
        {"do": "note", "player": "bob"},  # KeyError: no text
        {"do": "note", "player": "bob", "text": 7},  # AttributeError: (7).strip
        {"do": "roll", "player": "bob", "roll": 4},
        {"do": "roll", "player": "ann"},  # the chance outcome of the second applied action
    ]
    code, out, err = run(capsys, race_file(tmp_path, actions=actions, seed=5))
    assert code == 0, err
    output = json.loads(out)
    assert [(r["index"], r["error"]) for r in output["rejected"]] == [(i, "bad_action") for i in range(1, 6)]
    kinds = [r["message"] for r in output["rejected"]]
    for kind, message in zip(
        ["ValueError", "TypeError", "KeyError", "KeyError", "AttributeError"], kinds, strict=True
    ):
        assert kind in message and "\n" not in message
    assert [h["roll"] for h in output["history"]][:2] == [3, 4]
    # Refused actions do not count: the last roll is the one live play would draw as the third action.
    alone = run_scenario(
        {"game": "race", "players": ["ann", "bob"], "options": {"target": 50}, "seed": 5,
         "actions": [actions[0], actions[6], actions[7]]}
    )  # fmt: skip
    assert alone["history"] == output["history"] and alone["rejected"] == []


def test_rules_failing_on_the_setup_mean_the_file_is_not_understood(
    race: FragileRace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, race_file(tmp_path, setup={"first_player": "zed"}))  # ValueError: list.index
    assert_one_line(code, out, err, "cannot start the game")
    assert "ValueError" in err


def test_rules_refusing_the_options_mean_the_file_is_not_understood(
    race: FragileRace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, race_file(tmp_path, options={"target": "far"}))
    assert_one_line(code, out, err, "cannot start the game: target must be a positive number")


def test_rules_failing_on_their_output_give_one_line(
    race: FragileRace, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(state: RaceState) -> dict[str, Any]:
        raise KeyError("history\nwith a second line")

    monkeypatch.setattr(race, "replay_output", broken)
    code, out, err = run(capsys, race_file(tmp_path))
    assert_one_line(code, out, err, "internal error: KeyError")


def test_output_the_rules_cannot_write_as_json_gives_one_line(
    race: FragileRace, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(race, "replay_output", lambda state: {"scores": float("nan"), "history": {1, 2}})
    code, out, err = run(capsys, race_file(tmp_path))
    assert_one_line(code, out, err, "internal error")


def test_rules_missing_part_of_the_contract_are_named(
    race: FragileRace, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(race, "freshness", None)
    code, out, err = run(capsys, race_file(tmp_path, actions=[{"do": "roll", "player": "ann"}]))
    assert_one_line(code, out, err, "do not implement freshness")


def test_check_names_a_fault_on_the_file_line_and_goes_on(
    race: FragileRace, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(state: RaceState) -> dict[str, Any]:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(race, "replay_output", broken)
    path = race_file(tmp_path, expect={"finished": False})
    code, out, err = run(capsys, "--check", path, path)
    assert code == 1 and err == ""
    assert out.splitlines() == [
        f"FAIL {path}",
        "     not understood: internal error: RecursionError: maximum recursion depth exceeded",
    ] * 2 + ["0/2 scenarios match"]
