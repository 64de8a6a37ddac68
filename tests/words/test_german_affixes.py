"""TopWords (RULES-NOTES): affixes that do not stand alone are refused; short words that look like
affixes but are words of their own are allowed. Checked with `check_tiles`, the function the TopWords
rules call for every word (bot/games/topwords/game.py, `_judge`), on ALL-CAPS tile strings."""

from __future__ import annotations

import pytest

from bot.words import WordService

LONE_AFFIXES = ["UNG", "HEIT", "KEIT", "VER", "ZER", "ENT", "GE", "TUM", "NIS", "ISMUS"]
# UR (the aurochs; Ur-), BAR (the bar; -bar), ERZ (ore; Erz-): nouns of their own.
LOOK_ALIKES = ["UR", "BAR", "ERZ"]


@pytest.mark.parametrize("tiles", LONE_AFFIXES)
def test_a_lone_affix_is_refused(ws: WordService, tiles: str) -> None:
    verdict = ws.check_tiles(tiles, "de")
    assert not verdict.valid and verdict.reason == "not_a_word", verdict


@pytest.mark.parametrize("tiles", LOOK_ALIKES)
def test_a_word_that_looks_like_an_affix_is_allowed(ws: WordService, tiles: str) -> None:
    verdict = ws.check_tiles(tiles, "de")
    assert verdict.valid and verdict.reason is None, verdict


@pytest.mark.parametrize("tiles", ["AZUBI", "AZUBIS"])
def test_azubi_is_a_common_noun_not_a_name(ws: WordService, tiles: str) -> None:
    """Der Azubi (Auszubildender): dictionaries/de/allow.txt keeps it from being read as a proper noun."""
    verdict = ws.check_tiles(tiles, "de")
    assert verdict.valid and verdict.reason is None, verdict
