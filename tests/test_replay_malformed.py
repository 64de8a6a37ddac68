"""python -m bot.replay on malformed files: exit 2 and one line on stderr, never a traceback.

Each case runs the real command in a subprocess; the cases run side by side (one module fixture) so the
file stays fast. Actions the rules cannot read are not a malformed file: they are refused as bad_action.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from bot.games import GAME_PACKAGES
from bot.replay import main

ROOT = Path(__file__).resolve().parent.parent
GAME = sorted(GAME_PACKAGES)[0]  # the file-level checks come before any rule: any game will do
SEED_LIMIT = 2**128


def scenario(**changes: Any) -> bytes:
    """A well-formed scenario with some keys replaced (a value of ... removes the key)."""
    base: dict[str, Any] = {"game": GAME, "players": ["ann", "bob"], "options": {}, "seed": 1, "actions": []}
    base.update(changes)
    return json.dumps({k: v for k, v in base.items() if v is not ...}).encode()


def nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


MALFORMED: dict[str, bytes] = {
    "empty file": b"",
    "not json": b"not json",
    "truncated": scenario()[:-5],
    "top level is a list": b"[]",
    "top level is a string": b'"topstop"',
    "top level is null": b"null",
    "not utf-8": b'{"game": "\xff\xfe", "players": []}',
    "latin-1 text": '{"game": "topstop", "players": ["Zoë", "bob"]}'.encode("latin-1"),
    "deep nesting beyond the json parser": b"[" * 100_000 + b"]" * 100_000,
    "deep nesting the parser reads": scenario(expect=nested(900)),
    "deep nesting in an action": scenario(actions=[{"do": "x", "player": "ann", "words": nested(300)}]),
    "nan literal": scenario()[:-1] + b', "x": NaN}',
    "infinity literal": scenario()[:-1] + b', "x": -Infinity}',
    "float beyond double": scenario()[:-1] + b', "options": {"target": 1e999}}',
    "int with 10000 digits": scenario()[:-1] + b', "x": ' + b"9" * 10_000 + b"}",
    "lone surrogate": scenario(players=["ann", "\ud800"]),
    "game missing": scenario(game=...),
    "game unknown": scenario(game="chess"),
    "game is a list": scenario(game=["topstop"]),
    "game is an object": scenario(game={"name": "topstop"}),
    "game is a number": scenario(game=1),
    "players missing": scenario(players=...),
    "players is a string": scenario(players="ann"),
    "players are numbers": scenario(players=[1, 2]),
    "players are lists": scenario(players=[["ann"], ["bob"]]),
    "players repeat": scenario(players=["ann", "ann"]),
    "options is a list": scenario(options=["language", "en"]),
    "options is a string": scenario(options="en"),
    "options is null": scenario(options=None),
    "setup is a list": scenario(setup=[1]),
    "setup is a number": scenario(setup=3),
    "seed is a string": scenario(seed="1"),
    "seed is a bool": scenario(seed=True),
    "seed is a float": scenario(seed=1.5),
    "seed is a whole float": scenario(seed=1.0),
    "seed is negative": scenario(seed=-1),
    "seed beyond 128 bits": scenario(seed=SEED_LIMIT),
    "seed is huge": scenario(seed=10**1000),
    "seed is a list": scenario(seed=[1]),
    "seed is null": scenario(seed=None),
    "actions is an object": scenario(actions={"do": "spin"}),
    "actions is a string": scenario(actions="spin"),
    "action is a string": scenario(actions=["spin"]),
    "action is a number": scenario(actions=[1]),
    "action is a list": scenario(actions=[["spin", "ann"]]),
    "action without do": scenario(actions=[{"player": "ann"}]),
    "do is a list": scenario(actions=[{"do": ["spin"], "player": "ann"}]),
    "do is an object": scenario(actions=[{"do": {"spin": 1}, "player": "ann"}]),
    "do is null": scenario(actions=[{"do": None}]),
    "do unknown": scenario(actions=[{"do": "fly", "player": "ann"}]),
}


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.replay", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=120,
    )


# Through the real command, one case of each kind (every case also runs in-process below).
CLI_CASES = [
    "empty file",
    "top level is a list",
    "not utf-8",
    "deep nesting beyond the json parser",
    "deep nesting the parser reads",
    "nan literal",
    "float beyond double",
    "int with 10000 digits",
    "lone surrogate",
    "game is a list",
    "players is a string",
    "players are numbers",
    "players repeat",
    "options is a list",
    "setup is a list",
    "seed is a string",
    "seed is a bool",
    "seed is a float",
    "seed is negative",
    "seed beyond 128 bits",
    "action is a string",
    "do is an object",
    "do unknown",
]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, subprocess.CompletedProcess[str]]:
    folder = tmp_path_factory.mktemp("malformed")
    paths = {}
    for number, name in enumerate(CLI_CASES):
        paths[name] = folder / f"case{number}.json"
        paths[name].write_bytes(MALFORMED[name])
    with ThreadPoolExecutor(max_workers=4) as pool:
        done = {name: pool.submit(run_cli, str(path)) for name, path in paths.items()}
        return {name: future.result() for name, future in done.items()}


def assert_one_line(code: int, out: str, err: str) -> None:
    assert code == 2, (out, err)
    assert "Traceback" not in err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("replay: "), err
    assert "internal error" not in lines[0]  # named by the schema check, not caught as a fault


@pytest.mark.parametrize("case", CLI_CASES)
def test_a_malformed_file_exits_2_with_one_line(
    results: dict[str, subprocess.CompletedProcess[str]], case: str
) -> None:
    result = results[case]
    assert_one_line(result.returncode, result.stdout, result.stderr)


@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_file_exits_2_with_one_line_in_process(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "case.json"
    path.write_bytes(MALFORMED[case])
    code = main([str(path)])
    captured = capsys.readouterr()
    assert_one_line(code, captured.out, captured.err)


@pytest.mark.parametrize(
    ("case", "words"),
    [
        ("options is a list", "`options` must be an object"),
        ("setup is a list", "`setup` must be an object"),
        ("seed is a string", "`seed` must be an integer"),
        ("seed beyond 128 bits", "`seed` must be an integer"),
        ("players repeat", "`players`"),
        ("game is a list", "`game`"),
        ("do is an object", "action 0: `do`"),
        ("action is a string", "action 0"),
        ("do unknown", "fly"),
        ("not utf-8", "UTF-8"),
        ("deep nesting beyond the json parser", "nested"),
        ("int with 10000 digits", "digits"),
    ],
)
def test_the_line_says_what_is_wrong(
    results: dict[str, subprocess.CompletedProcess[str]], case: str, words: str
) -> None:
    assert words in results[case].stderr


def test_check_reports_a_malformed_file_on_its_line_and_goes_on(tmp_path: Path) -> None:
    bad, deep = tmp_path / "bad.json", tmp_path / "deep.json"
    bad.write_bytes(scenario(seed="one", expect={}))
    deep.write_bytes(b"[" * 100_000)
    result = run_cli("--check", str(bad), str(deep))
    assert result.returncode == 1 and "Traceback" not in result.stdout + result.stderr
    assert result.stdout.splitlines()[0] == f"FAIL {bad}"
    assert "not understood: `seed` must be an integer" in result.stdout
    assert f"FAIL {deep}" in result.stdout and "0/2 scenarios match" in result.stdout


def test_a_player_that_is_not_a_name_is_a_refused_action(tmp_path: Path) -> None:
    path = tmp_path / "player.json"
    actions = [{"do": "pass", "player": 7}, {"do": "pass", "player": ["ann"]}, {"do": "pass", "player": {}}]
    path.write_bytes(
        json.dumps(
            {
                "game": "topwords",
                "players": ["ann", "bob"],
                "options": {"check_words": False},
                "actions": actions,
            }
        ).encode()
    )
    result = run_cli(str(path))
    assert result.returncode == 0, result.stderr
    rejected = json.loads(result.stdout)["rejected"]
    assert [(r["index"], r["error"]) for r in rejected] == [
        (0, "bad_action"),
        (1, "bad_action"),
        (2, "bad_action"),
    ]


def test_seeds_up_to_128_bits_are_understood(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for seed in (0, 2**64, SEED_LIMIT - 1):
        path = tmp_path / "seed.json"
        path.write_bytes(scenario(game="topwords", options={"check_words": False}, seed=seed))
        assert main([str(path)]) == 0, capsys.readouterr().err
        assert json.loads(capsys.readouterr().out)["game"] == "topwords"
