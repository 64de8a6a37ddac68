"""python -m bot.replay: exit codes, expectations, and exporting a stored session."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bot.replay import differences

ROOT = Path(__file__).resolve().parent.parent


def run(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "bot.replay", *args], cwd=ROOT, input=stdin, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip


def test_differences_compare_subsets():
    actual = {
        "scores": {"ann": 3, "bob": 1},
        "history": [{"letter": "P"}, {"letter": "B"}],
        "finished": False,
    }
    assert differences({"scores": {"ann": 3}}, actual) == []
    assert differences({"history": [None, {"letter": "B"}]}, actual) == []
    assert differences({"history": [{"letter": "P"}]}, actual) != []  # lists compare item by item
    assert differences({"finished": 0}, actual) != []  # false is not 0
    assert differences({"scores": {"cat": 0}}, actual) == [".scores.cat: missing"]


def test_not_understood_exits_2_with_one_line():
    for text in ("not json", '{"game": "chess", "players": ["a", "b"]}', '{"game": "topstop", "players": 3}'):
        result = run("-", stdin=text)
        assert result.returncode == 2, text
        assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""


def test_unknown_action_exits_2():
    scenario = {"game": "topstop", "players": ["ann", "bob"], "actions": [{"do": "fly", "player": "ann"}]}
    result = run("-", stdin=json.dumps(scenario))
    assert result.returncode == 2 and "fly" in result.stderr


def test_check_reports_a_mismatch_and_exits_1(tmp_path):
    scenario = {"game": "topstop", "players": ["ann", "bob"], "actions": [], "expect": {"finished": True}}
    path = tmp_path / "wrong.json"
    path.write_text(json.dumps(scenario))
    result = run("--check", str(path))
    assert result.returncode == 1
    assert "FAIL" in result.stdout and ".finished: expected true, got false" in result.stdout
