"""Property: whatever file it is given, `python -m bot.replay` exits 0 with a JSON object or 2 with one line.

Inputs: documents built key by key from valid and invalid values, the real scenarios under
tests/scenarios/*/ with keys and values replaced, removed or retyped, and random bytes. The entry point
runs in-process (`main(argv)` on a temporary file) so that many examples stay fast. The checks are the
same for every game: no rule of one game is assumed.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bot.games import GAME_PACKAGES, make_game
from bot.replay import main, words_service

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "tests" / "scenarios").glob("*/*.json"))
KEYS = ["game", "players", "options", "seed", "setup", "actions", "expect", "do", "player", "first_player"]
OUTPUT_KEYS = {"game", "players", "phase", "finished", "winners", "scores", "history", "rejected"}
NAMES = ["ann", "bob", "cat", "dan"]
ACTION_NAMES = sorted(
    {name for game in GAME_PACKAGES for name in make_game(game, words_service()).action_names}
)
# More examples, e.g. before a release: REPLAY_FUZZ_EXAMPLES=2000 .venv/bin/python -m pytest tests/test_replay_fuzz.py
FUZZ = settings(
    max_examples=int(os.environ.get("REPLAY_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def strict_json(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} in the output")

    return json.loads(text, parse_constant=refuse)


@contextlib.contextmanager
def scenario_file() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder) / "scenario.json"


def replay(data: bytes, *options: str) -> tuple[int, str, str]:
    """`python -m bot.replay [options] FILE` in this process: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with scenario_file() as path:
        path.write_bytes(data)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([*options, str(path)])
            except SystemExit as exc:  # not expected: main returns its exit code
                code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def assert_answered(data: bytes) -> None:
    code, out, err = replay(data)
    event(f"exit {code}")  # see --hypothesis-show-statistics
    assert code in (0, 2), (code, out, err)
    assert "Traceback" not in out + err
    if code == 2:
        assert out == ""
        assert len(err.splitlines()) == 1 and err.startswith("replay: "), err
        return
    assert err == ""
    output = strict_json(out)
    assert isinstance(output, dict) and set(output) >= OUTPUT_KEYS, sorted(output)
    assert isinstance(output["rejected"], list)
    for refusal in output["rejected"]:
        assert set(refusal) >= {"index", "error", "message"} and isinstance(refusal["error"], str)


def assert_checked(data: bytes) -> None:
    """--check on one file: its ok/FAIL line, then the summary; exit 0 or 1, nothing on stderr."""
    code, out, err = replay(data, "--check")
    assert code in (0, 1) and err == "" and "Traceback" not in out, (code, out, err)
    lines = out.splitlines()
    assert lines[0].startswith("ok   " if code == 0 else "FAIL ")
    assert lines[-1] == f"{1 - code}/1 scenarios match"


# -- generated documents -------------------------------------------------------------------------------

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**200), max_value=2**200)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(NAMES + ACTION_NAMES + sorted(GAME_PACKAGES))
)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)  # fmt: skip


def mostly(valid: st.SearchStrategy[Any], invalid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Three times in four a valid value, else an invalid one (or a valid one by chance)."""
    return st.integers(0, 3).flatmap(lambda n: invalid if n == 0 else valid)


players = mostly(st.lists(st.sampled_from(NAMES), min_size=2, max_size=4, unique=True), values)
arguments = st.dictionaries(
    st.sampled_from(["letter", "words", "word", "of", "accept", "tiles", "swap", "round", "at", "square"])
    | st.text(max_size=6),
    values,
    max_size=3,
)
actions = st.builds(
    lambda do, player, args: {**args, "do": do, **({} if player is ... else {"player": player})},
    mostly(st.sampled_from(ACTION_NAMES), values),
    mostly(st.just(...) | st.sampled_from(NAMES), values),
    arguments,
)
documents = st.fixed_dictionaries(
    {"game": mostly(st.sampled_from(sorted(GAME_PACKAGES)), values), "players": players},
    optional={
        "options": mostly(
            st.dictionaries(st.sampled_from(["language", "mode", "check_words", "words", "target"]), values),
            values,
        ),
        "seed": mostly(st.integers(min_value=0, max_value=2**128 - 1), st.integers() | values),
        "setup": mostly(
            st.fixed_dictionaries({}, optional={"first_player": st.sampled_from(NAMES) | values}), values
        ),
        "actions": mostly(st.lists(mostly(actions, values), max_size=6), values),
        "expect": values,
    },
)


@FUZZ
@given(documents)
def test_generated_documents(document: dict[str, Any]) -> None:
    if isinstance(document.get("options"), dict):
        document["options"].setdefault("check_words", False)  # the dictionaries are not what is tested here
    assert_answered(json.dumps(document).encode())


# -- mutated real scenarios ----------------------------------------------------------------------------


def paths_in(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON document: object keys and list indices, the root excluded."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, inner in items:
        yield (*prefix, key)
        yield from paths_in(inner, (*prefix, key))


def retyped(value: Any) -> list[Any]:
    """The same value in other JSON types."""
    return [[value], {"value": value}, json.dumps(value), None, True, 0, 1.5, -1, 2**128, ""]


@FUZZ
@given(st.sampled_from(SCENARIOS), st.data())
def test_mutated_scenarios(path: Path, data: st.DataObject) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        places = list(paths_in(document))
        if not places:
            break
        place = data.draw(st.sampled_from(places), label="place")
        parent = document
        for key in place[:-1]:
            parent = parent[key]
        key = place[-1]
        how = data.draw(st.sampled_from(["remove", "replace", "retype", "rename"]), label="how")
        if how == "remove":
            del parent[key]
        elif how == "rename" and isinstance(parent, dict):  # a key misspelt, or another key's name
            name = data.draw(st.sampled_from(KEYS) | st.text(max_size=8), label="key")
            parent[name] = parent.pop(key)
        elif how == "replace":
            parent[key] = data.draw(values, label="value")
        else:
            parent[key] = data.draw(st.sampled_from(retyped(parent[key])), label="retyped")
    text = json.dumps(document).encode()
    assert_answered(text)
    if isinstance(document, dict) and "expect" in document:
        assert_checked(text)


# -- bytes -----------------------------------------------------------------------------------------------


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes(data: bytes) -> None:
    assert_answered(data)


@FUZZ
@given(st.sampled_from(SCENARIOS), st.data())
def test_damaged_scenario_files(path: Path, data: st.DataObject) -> None:
    raw = bytearray(path.read_bytes())
    for _ in range(data.draw(st.integers(1, 4), label="damage")):
        at = data.draw(st.integers(0, len(raw) - 1), label="at")
        raw[at] = data.draw(st.integers(0, 255), label="byte")
    cut = data.draw(st.integers(0, len(raw)), label="cut")
    assert_answered(bytes(raw[: max(cut, len(raw) // 2)]))
