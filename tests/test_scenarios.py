"""Every game's scenarios (tests/scenarios/<game>/*.json) replay through `python -m bot.replay` to their
`expect`, with the real words service: one test for every declared game, so a new game's scenarios run as
soon as its folder exists (docs/scenarios.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.games import every_game
from bot.replay import check_file

FOLDER = Path(__file__).resolve().parent / "scenarios"
GAMES = [info.name for info in every_game()]
SCENARIOS = sorted(path for game in GAMES for path in (FOLDER / game).glob("*.json"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[f"{p.parent.name}/{p.stem}" for p in SCENARIOS])
def test_scenario_matches_its_expectation(path: Path) -> None:
    assert check_file(str(path)) == []


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_scenarios(game: str) -> None:
    assert list((FOLDER / game).glob("*.json")), f"no scenario under tests/scenarios/{game}/"


def test_every_scenario_folder_is_a_declared_game() -> None:
    folders = {path.name for path in FOLDER.iterdir() if path.is_dir()}
    assert folders <= set(GAMES), sorted(folders - set(GAMES))
