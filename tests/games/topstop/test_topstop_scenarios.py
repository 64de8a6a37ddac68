"""What Top Stop's scenarios must cover; each one replays to its `expect` in tests/test_scenarios.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.games.topstop.cards import BA_OOSSEE_COUNTS, LEVELS
from bot.games.topstop.state import REASONS

SCENARIOS = sorted((Path(__file__).parents[2] / "scenarios" / "topstop").glob("*.json"))


def test_scenarios_cover_every_base_game_reason() -> None:
    assert len(SCENARIOS) >= 25
    expected = json.dumps([json.loads(p.read_text(encoding="utf-8"))["expect"] for p in SCENARIOS])
    # level and category belong to the Advanced game's Level cards.
    for reason in REASONS:
        if reason not in ("level", "category"):
            assert f'"reason": "{reason}"' in expected, reason


def test_advanced_scenarios_cover_every_level_every_ba_oossee_card_and_their_reasons() -> None:
    advanced = [
        json.loads(p.read_text(encoding="utf-8")) for p in SCENARIOS if p.stem.startswith("advanced-")
    ]
    played = {card for s in advanced for r in s["expect"].get("history", []) for card in _cards(r)}
    forced = {card for s in advanced for card in s["setup"].get("ba_oossee_deck", [])}
    # A card counts as covered when a scenario forces it and states what it did (record or scores).
    assert set(BA_OOSSEE_COUNTS) <= forced
    assert {"force_sit_out", "sit_out", "immunity", "steal_level", "shuffle", "forced_level"} <= played
    levels = {r.get("level") for s in advanced for r in s["expect"].get("history", [])}
    assert set(LEVELS) <= levels
    expected = json.dumps([s["expect"] for s in advanced])
    assert '"reason": "level"' in expected and '"reason": "category"' in expected
    assert {"faq5", "faq6", "faq7", "faq8", "tiebreak"} <= {
        p.stem.split("-")[1] for p in SCENARIOS if p.stem.startswith("advanced-")
    }


def _cards(record: dict[str, Any]) -> list[str]:
    return [played["card"] for played in record.get("ba_oossee", []) if isinstance(played, dict)]
