"""python -m bot.replay: run a scenario file through the real rules engine and print the outcome as JSON.

See docs/scenarios.md. `--check FILE…` compares each file's "expect"; `--session ID --db PATH` exports a
stored game as a scenario.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from pathlib import Path
from typing import Any

from bot.engine.errors import GameError
from bot.engine.game import Game, step
from bot.games import GAME_PACKAGES, make_game


class ScenarioError(Exception):
    """The scenario itself cannot be understood (exit 2)."""


_words_service: Any = None


def words_service() -> Any:
    """One shared words service for every scenario in this process."""
    global _words_service
    if _words_service is None:
        from bot.words import WordService

        _words_service = WordService()
    return _words_service


def run_scenario(scenario: dict[str, Any]) -> dict[str, Any]:
    """Play a scenario and return its output object."""
    if not isinstance(scenario, dict):
        raise ScenarioError("a scenario is a JSON object")
    name = scenario.get("game")
    if name not in GAME_PACKAGES:
        raise ScenarioError(f"unknown game {name!r}; known: {', '.join(sorted(GAME_PACKAGES))}")
    players = scenario.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise ScenarioError("'players' must be a list of names")
    actions = scenario.get("actions", [])
    if not isinstance(actions, list) or not all(isinstance(a, dict) and "do" in a for a in actions):
        raise ScenarioError("'actions' must be a list of objects with a 'do' key")
    seed = int(scenario.get("seed", 0))
    game: Game = make_game(name, words_service())
    try:
        state = game.new_game(
            scenario.get("options", {}), players, scenario.get("setup", {}), random.Random(seed)
        )
    except GameError as exc:
        raise ScenarioError(f"cannot start the game: {exc.message}") from exc
    known = _action_names(game)
    rejected = []
    version = 0  # applied actions so far, as in live play: it seeds the chance outcomes
    for index, action in enumerate(actions):
        if known is not None and action["do"] not in known:
            raise ScenarioError(f"action {index}: unknown action {action['do']!r}")
        try:
            _, applied = step(game, state, seed, version, action)
        except GameError as exc:
            rejected.append({"index": index, "error": exc.code, "message": exc.message})
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


def load_scenario(path: str) -> dict[str, Any]:
    """Read a scenario from a file, or from stdin for '-'."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: a scenario is a JSON object")
    return data


def check_file(path: str) -> list[str]:
    """Run one scenario file and list how its output differs from its "expect" (empty: it matches)."""
    scenario = load_scenario(path)
    if "expect" not in scenario:
        return ["the scenario has no 'expect'"]
    return differences(scenario["expect"], run_scenario(scenario))


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
    parser = argparse.ArgumentParser(prog="python -m bot.replay", description=__doc__)
    parser.add_argument("files", nargs="*", help="scenario files ('-' for stdin)")
    parser.add_argument("--check", action="store_true", help="compare each file's 'expect'")
    parser.add_argument("--session", type=int, help="export the stored session with this id")
    parser.add_argument("--db", help="the SQLite file holding --session")
    args = parser.parse_args(argv)
    try:
        if args.session is not None:
            if not args.db:
                raise ScenarioError("--session needs --db PATH")
            if not Path(args.db).is_file():  # opening it would create an empty database there
                raise ScenarioError(f"no database at {args.db}")
            print(json.dumps(asyncio.run(export_session(args.session, args.db)), ensure_ascii=False))
            return 0
        if not args.files:
            raise ScenarioError("give a scenario file, '-' for stdin, or --session ID --db PATH")
        if args.check:
            failed = 0
            for path in args.files:
                try:
                    diffs = check_file(path)
                except ScenarioError as exc:
                    diffs = [f"not understood: {exc}"]
                print(f"{'ok  ' if not diffs else 'FAIL'} {path}")
                for line in diffs:
                    print(f"     {line}")
                failed += bool(diffs)
            print(f"{len(args.files) - failed}/{len(args.files)} scenarios match")
            return 1 if failed else 0
        if len(args.files) != 1:
            raise ScenarioError("give exactly one scenario file (or use --check)")
        print(json.dumps(run_scenario(load_scenario(args.files[0])), ensure_ascii=False))
        return 0
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
