"""python -m bot.replay: run a scenario file through the real rules engine and print the outcome as JSON.

See docs/scenarios.md. `--check FILE…` compares each file's "expect"; `--session ID --db PATH` exports a
stored game as a scenario.

Exit 0: the file was understood (refused actions are listed in the output's `rejected`); 2: it was not, and
stderr says why in one line, never a traceback. The input schema is checked before anything runs: UTF-8
JSON, finite numbers, nesting at most MAX_DEPTH deep; `game` a known game; `players` distinct names;
`options` and `setup` objects; `seed` an integer from 0 to 2**128 - 1; `actions` a list of objects whose
`do` is an action of the game. An action the rules cannot read (a `player` that is not a name, an argument
of the wrong type the rules fail on instead of refusing it) is refused as `bad_action`, and the replay goes on.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path
from typing import Any

from bot.engine.errors import GameError
from bot.engine.game import SEED_BITS, Game, step
from bot.games import GAME_PACKAGES, make_game


class ScenarioError(Exception):
    """The scenario itself cannot be understood (exit 2)."""


MAX_SEED = 2**SEED_BITS - 1  # sessions draw 128-bit seeds; an exported session must replay
MAX_DEPTH = 100  # nesting of lists and objects: a scenario needs a handful of levels
# What run_scenario calls on the rules object (the last three only for actions): a missing one is the
# game's fault, not the action's, and is named instead of refusing every action as bad_action.
REQUIRED = ("new_game", "replay_output", "resolve_chance", "freshness", "apply")

_words_service: Any = None


def words_service() -> Any:
    """One shared words service for every scenario in this process."""
    global _words_service
    if _words_service is None:
        from bot.words import WordService

        _words_service = WordService()
    return _words_service


def _one_line(text: str) -> str:
    """`text` on one line, whatever line breaks a name or a message carried."""
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def _short(text: str, most: int = 200) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def _exception_text(exc: BaseException) -> str:
    """`TypeError: message`, shortened: what went wrong inside the rules, for one line."""
    return _short(_one_line(f"{type(exc).__name__}: {exc}"))


def _check_values(data: Any) -> None:
    """Only JSON values, nested at most MAX_DEPTH deep, finite numbers and strings that can be written out."""
    todo: list[tuple[Any, int]] = [(data, 1)]
    while todo:
        value, depth = todo.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise ScenarioError(
                    "strings must be valid Unicode (a lone surrogate such as \\ud800)"
                ) from exc
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise ScenarioError(f"numbers must be finite, not {value}")
        elif isinstance(value, (list, dict)):
            if depth > MAX_DEPTH:
                raise ScenarioError(f"lists and objects nested more than {MAX_DEPTH} deep")
            if isinstance(value, dict):
                for key in value:
                    if not isinstance(key, str):
                        raise ScenarioError(f"object keys must be strings, not {key!r}")
                    todo.append((key, depth))
                items: Any = value.values()
            else:
                items = value
            todo.extend((item, depth + 1) for item in items)
        elif value is not None and not isinstance(value, (bool, int)):
            raise ScenarioError(f"{type(value).__name__} is not a JSON value")


def _check_scenario(scenario: Any) -> None:
    """The input schema of docs/scenarios.md, checked before anything runs; ScenarioError names the first
    thing wrong. What a key holds inside `options`, `setup` and an action's arguments is the game's to judge."""
    if not isinstance(scenario, dict):
        raise ScenarioError("a scenario is a JSON object")
    _check_values(scenario)
    name = scenario.get("game")
    if not isinstance(name, str) or name not in GAME_PACKAGES:
        known = ", ".join(sorted(GAME_PACKAGES))
        raise ScenarioError(f"`game` must name a game ({known}), not {_short(json.dumps(name))}")
    players = scenario.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise ScenarioError("`players` must be a list of names (strings)")
    if len(set(players)) != len(players):
        raise ScenarioError("`players` must be distinct names")
    for key in ("options", "setup"):
        if not isinstance(scenario.get(key, {}), dict):
            raise ScenarioError(f"`{key}` must be an object")
    seed = scenario.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise ScenarioError(f"`seed` must be an integer from 0 to 2**{SEED_BITS} - 1")
    actions = scenario.get("actions", [])
    if not isinstance(actions, list):
        raise ScenarioError("`actions` must be a list of objects with a `do` key")
    for index, action in enumerate(actions):
        if not isinstance(action, dict) or "do" not in action:
            raise ScenarioError(f"action {index}: an action is an object with a `do` key")
        if not isinstance(action["do"], str):
            raise ScenarioError(f"action {index}: `do` must be an action name (a string)")


def run_scenario(scenario: dict[str, Any]) -> dict[str, Any]:
    """Play a scenario and return its output object.

    A malformed scenario raises ScenarioError. A malformed action does not: it is refused as `bad_action`
    like any refused action, also when the rules fail on it with something other than a GameError.
    """
    _check_scenario(scenario)
    name: str = scenario["game"]
    players: list[str] = scenario["players"]
    seed: int = scenario.get("seed", 0)
    actions: list[dict[str, Any]] = scenario.get("actions", [])
    game: Game = make_game(name, words_service())
    known = _action_names(game)
    for index, action in enumerate(actions):
        if known is not None and action["do"] not in known:
            raise ScenarioError(f"action {index}: unknown action {_short(repr(action['do']), 60)}")
    required = REQUIRED if actions else REQUIRED[:2]
    missing = [method for method in required if not callable(getattr(game, method, None))]
    if missing:
        raise ScenarioError(f"the {name} rules do not implement {', '.join(missing)}")
    try:
        state = game.new_game(
            scenario.get("options", {}), players, scenario.get("setup", {}), random.Random(seed)
        )
    except GameError as exc:
        raise ScenarioError(f"cannot start the game: {exc.message}") from exc
    except Exception as exc:  # the rules failed on the options or setup instead of refusing them
        raise ScenarioError(f"cannot start the game: bad options or setup ({_exception_text(exc)})") from exc
    rejected = []
    version = 0  # applied actions so far, as in live play: it seeds the chance outcomes
    for index, action in enumerate(actions):
        player = action.get("player")
        if player is not None and not isinstance(player, str):
            rejected.append(
                {"index": index, "error": "bad_action", "message": "`player` must be a player's name."}
            )
            continue
        if "player" in action and player is None:  # as live play sends a system action: no `player`
            action = {key: value for key, value in action.items() if key != "player"}
        try:
            _, applied = step(game, state, seed, version, action)
        except GameError as exc:
            rejected.append({"index": index, "error": exc.code, "message": exc.message})
            continue
        except Exception as exc:  # the rules failed on a malformed argument instead of refusing it
            message = f"The rules could not read this action ({_exception_text(exc)})."
            rejected.append({"index": index, "error": "bad_action", "message": message})
            continue
        state = applied.state
        version += 1
    output = {"game": name, "players": players, **game.replay_output(state)}
    output["rejected"] = rejected
    return output


def _action_names(game: Game) -> frozenset[str] | None:
    names = getattr(game, "action_names", None)
    return frozenset(names) if names is not None else None


def differences(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Where `actual` fails to match the subset `expected` (objects by key, lists item by item, null = any)."""
    if expected is None:
        return []
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path or '.'}: expected an object, got {json.dumps(actual)}"]
        found = []
        for key, value in expected.items():
            if key not in actual:
                found.append(f"{path}.{key}: missing")
            else:
                found += differences(value, actual[key], f"{path}.{key}")
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{path or '.'}: expected a list, got {json.dumps(actual)}"]
        if len(expected) != len(actual):
            return [f"{path or '.'}: expected {len(expected)} items, got {len(actual)}: {json.dumps(actual)}"]
        found = []
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            found += differences(e, a, f"{path}[{i}]")
        return found
    if expected != actual or type(expected) is not type(actual):
        return [f"{path or '.'}: expected {json.dumps(expected)}, got {json.dumps(actual)}"]
    return []


def _json_int(text: str) -> int:
    try:
        return int(text)
    except ValueError as exc:  # beyond Python's limit on digits converted from text
        raise ScenarioError(f"a number with {len(text)} digits is too long") from exc


def _json_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ScenarioError(f"the number {text[:40]} is too large")
    return value


def _json_constant(text: str) -> Any:
    raise ScenarioError(f"{text} is not a JSON number")


def parse_scenario(data: bytes, source: str) -> dict[str, Any]:
    """A scenario from the bytes of a file: UTF-8 JSON text holding one object of plain JSON values."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioError(
            f"{source}: not UTF-8 text (byte 0x{data[exc.start]:02x} at {exc.start})"
        ) from exc
    try:
        scenario = json.loads(
            text, parse_int=_json_int, parse_float=_json_float, parse_constant=_json_constant
        )
    except ScenarioError as exc:
        raise ScenarioError(f"{source}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{source}: not valid JSON ({exc})") from exc
    except RecursionError as exc:
        raise ScenarioError(f"{source}: lists and objects nested too deeply") from exc
    if not isinstance(scenario, dict):
        raise ScenarioError(f"{source}: a scenario is a JSON object")
    return scenario


def load_scenario(path: str) -> dict[str, Any]:
    """Read a scenario from a file, or from stdin for '-'."""
    try:
        if path == "-":
            stdin = getattr(sys.stdin, "buffer", None)
            data = stdin.read() if stdin is not None else sys.stdin.read().encode("utf-8", "surrogatepass")
        else:
            data = Path(path).read_bytes()
    except OSError as exc:
        raise ScenarioError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return parse_scenario(data, path)


def check_file(path: str) -> list[str]:
    """Run one scenario file and list how its output differs from its "expect" (empty: it matches)."""
    scenario = load_scenario(path)
    if "expect" not in scenario:
        return ["the scenario has no 'expect'"]
    return differences(scenario["expect"], run_scenario(scenario))


def output_text(output: dict[str, Any]) -> str:
    """The output as one line of strict JSON (no NaN or Infinity)."""
    return json.dumps(output, ensure_ascii=False, allow_nan=False)


async def export_session(session_id: int, db_path: str) -> dict[str, Any]:
    """A stored game as a scenario: its players, options, seed, setup and action log."""
    from bot.store import Store

    store = await Store.open(db_path)
    try:
        session = await store.sessions.get(session_id)
        if session is None:
            raise ScenarioError(f"no session {session_id} in {db_path}")
        actions = await store.actions.for_session(session_id)
    finally:
        await store.close()
    return {
        "game": session.game,
        "players": session.players,
        "options": session.options,
        "seed": session.seed,
        "setup": session.setup,
        "actions": [record.action for record in actions],
    }


def main(argv: list[str] | None = None) -> int:
    """Exit 0: done (or every --check file matches); 1: a --check file does not match or was not understood;
    2: not understood, with one line on stderr and nothing on stdout."""
    parser = argparse.ArgumentParser(prog="python -m bot.replay", description=__doc__)
    parser.add_argument("files", nargs="*", help="scenario files ('-' for stdin)")
    parser.add_argument("--check", action="store_true", help="compare each file's 'expect'")
    parser.add_argument("--session", type=int, help="export the stored session with this id")
    parser.add_argument("--db", help="the SQLite file (or PostgreSQL URL) holding --session")
    args = parser.parse_args(argv)
    try:
        if args.session is not None:
            if not args.db:
                raise ScenarioError("--session needs --db PATH")
            # Opening a missing file would create an empty database there.
            if not args.db.startswith(("postgresql://", "postgres://")) and not Path(args.db).is_file():
                raise ScenarioError(f"no database at {args.db}")
            import asyncio  # only here: the replay itself starts faster without it

            print(output_text(asyncio.run(export_session(args.session, args.db))))
            return 0
        if not args.files:
            raise ScenarioError("give a scenario file, '-' for stdin, or --session ID --db PATH")
        if args.check:
            return _check(args.files)
        if len(args.files) != 1:
            raise ScenarioError("give exactly one scenario file (or use --check)")
        print(output_text(run_scenario(load_scenario(args.files[0]))))
        return 0
    except ScenarioError as exc:
        print(f"replay: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    except Exception as exc:  # a fault of the rules or the replay: still one line, never a traceback
        print(f"replay: internal error: {_exception_text(exc)}", file=sys.stderr)
        return 2


def _check(paths: list[str]) -> int:
    """--check: one line per file, the differences under it; 1 if any file does not match or is not understood."""
    failed = 0
    for path in paths:
        try:
            diffs = check_file(path)
        except ScenarioError as exc:
            diffs = [f"not understood: {_one_line(str(exc))}"]
        except Exception as exc:  # as in main: one line, the other files still run
            diffs = [f"not understood: internal error: {_exception_text(exc)}"]
        print(f"{'ok  ' if not diffs else 'FAIL'} {path}")
        for line in diffs:
            print(f"     {line}")
        failed += bool(diffs)
    print(f"{len(paths) - failed}/{len(paths)} scenarios match")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
