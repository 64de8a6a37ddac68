"""python -m bot.replay: exit codes, expectations, and exporting a stored session."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bot.replay import differences

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.replay", *args], cwd=ROOT, input=stdin, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip


def test_differences_compare_subsets() -> None:
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


def test_not_understood_exits_2_with_one_line() -> None:
    for text in ("not json", '{"game": "chess", "players": ["a", "b"]}', '{"game": "topstop", "players": 3}'):
        result = run("-", stdin=text)
        assert result.returncode == 2, text
        assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""


def test_unknown_action_exits_2() -> None:
    scenario = {"game": "topstop", "players": ["ann", "bob"], "actions": [{"do": "fly", "player": "ann"}]}
    result = run("-", stdin=json.dumps(scenario))
    assert result.returncode == 2 and "fly" in result.stderr


def test_check_reports_a_mismatch_and_exits_1(tmp_path: Path) -> None:
    scenario = {"game": "topstop", "players": ["ann", "bob"], "actions": [], "expect": {"finished": True}}
    path = tmp_path / "wrong.json"
    path.write_text(json.dumps(scenario))
    result = run("--check", str(path))
    assert result.returncode == 1
    assert "FAIL" in result.stdout and ".finished: expected true, got false" in result.stdout


async def test_a_stored_game_exported_as_a_scenario_replays_to_the_stored_state(tmp_path: Path) -> None:
    from bot.engine.sessions import SessionManager
    from bot.games import make_game
    from bot.replay import run_scenario, words_service
    from bot.store import Store

    path = tmp_path / "bot.db"
    store = await Store.open(path)
    game = make_game("topstop", words_service())
    manager = SessionManager(store, {"topstop": game})
    record = await manager.open_lobby(1, 10, "topstop", "ann", {"language": "en"})
    await manager.join(record.id, "bob")
    await manager.start_game(record.id, "ann")
    try:
        # Chance: the first spin's letters come from the session's seed; the seed also settles a tie.
        await manager.act(record.id, "ann", {"do": "spin"})
        await manager.act(record.id, "bob", {"do": "spin"})
        while (await manager.view(record.id, None))["phase"] != "writing":
            await manager.act(record.id, None, {"do": "auto_spin"})  # whoever is awaited (tie or spinner)
        await manager.act(record.id, "ann", {"do": "submit", "words": ["pear", "plum"]})
        stored = await store.sessions.get(record.id)
        assert stored is not None and stored.snapshot is not None
        # The game as stored: its last snapshot and the actions logged since (a snapshot is not written at
        # every action: how many follow it depends on the sizes of the log and of the state).
        state = await manager.state(record.id)
    finally:  # the game armed its timers: stop them
        await manager.close()
        await store.close()

    result = run("--session", str(record.id), "--db", str(path))
    assert result.returncode == 0, result.stderr
    scenario = json.loads(result.stdout)
    assert scenario["game"] == "topstop" and scenario["players"] == ["ann", "bob"]
    assert all("letter" in a or "letters" in a for a in scenario["actions"] if "spin" in a["do"])
    output = run_scenario(scenario)
    assert output["rejected"] == []
    expected = game.replay_output(state)
    assert {k: v for k, v in output.items() if k != "rejected"} == expected


def test_exporting_from_a_missing_database_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "typo" / "bot.db"
    result = run("--session", "1", "--db", str(missing))
    assert result.returncode != 0 and "no database at" in result.stderr
    assert not missing.parent.exists()


async def test_a_128_bit_seed_is_exported_as_a_json_integer_and_replays(tmp_path: Path) -> None:
    from bot.engine.game import SEED_BITS
    from bot.store import SessionRecord, Store

    path = tmp_path / "bot.db"
    seed = 2**SEED_BITS - 1
    store = await Store.open(path)
    try:
        record = SessionRecord(
            id=0, guild_id=1, channel_id=2, game="topwords", status="active", host_id="ann",
            players=["ann", "bob"], options={"check_words": False}, seed=seed, created_at=1.0, updated_at=1.0,
        )  # fmt: skip
        async with store.transaction() as tx:
            session_id = await store.sessions.create(tx, record)
    finally:
        await store.close()

    exported = run("--session", str(session_id), "--db", str(path))
    assert exported.returncode == 0, exported.stderr
    assert f'"seed": {seed}' in exported.stdout  # a JSON integer, all 128 bits of it
    assert json.loads(exported.stdout)["seed"] == seed
    replayed = run("-", stdin=exported.stdout)
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["players"] == ["ann", "bob"]
