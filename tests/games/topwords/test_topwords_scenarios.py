"""What TopWords' scenarios must cover; each one replays to its `expect` in tests/test_scenarios.py."""

from __future__ import annotations

import json
from pathlib import Path

SCENARIOS = sorted((Path(__file__).resolve().parents[2] / "scenarios" / "topwords").glob("*.json"))


def test_there_are_the_rulebook_examples_and_twenty_more():
    names = {path.stem for path in SCENARIOS}
    assert "rulebook_examples" in names
    assert len(names) >= 21


def test_rulebook_examples_give_8_10_5_11_12_17():
    """The six illustrated examples are normative (RULES-NOTES); the scenario's expect must say so exactly."""
    scenario = json.loads((SCENARIOS[0].parent / "rulebook_examples.json").read_text(encoding="utf-8"))
    points = [move["points"] for move in scenario["expect"]["history"][1:]]
    assert points == [8, 10, 5, 11, 12, 17]
