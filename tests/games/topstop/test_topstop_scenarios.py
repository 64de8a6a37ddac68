"""Every Top Stop scenario replays through bot.replay, with the real words service, to its expectation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.games.topstop.state import REASONS
from bot.replay import check_file

SCENARIOS = sorted((Path(__file__).parents[2] / "scenarios" / "topstop").glob("*.json"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_matches_its_expectation(path: Path) -> None:
    assert check_file(str(path)) == []


def test_scenarios_cover_every_base_game_reason() -> None:
    assert len(SCENARIOS) >= 25
    expected = json.dumps([json.loads(p.read_text(encoding="utf-8"))["expect"] for p in SCENARIOS])
    # level and category belong to the Advanced game's Level cards.
    for reason in REASONS:
        if reason not in ("level", "category"):
            assert f'"reason": "{reason}"' in expected, reason
