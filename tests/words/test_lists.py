"""The hand-written lists under data/: at least 97% right on each, per language and kind."""

from __future__ import annotations

import pytest

from bot.words import WordService
from tests.words.conftest import FIGURES, pairs, rows

TARGET = 0.97
LANGS = ("en", "fr", "de")
KINDS = {"valid": None, "proper": "proper_noun", "abbrev": "abbreviation"}
LABELS = {"valid": "common words", "proper": "proper nouns", "abbrev": "abbreviations"}


def _report(label: str, right: int, total: int, misses: list[str]) -> None:
    line = f"{label}: {100 * right / total:.1f}% right ({right}/{total})"
    FIGURES.append(line + (f"  misses: {', '.join(misses)}" if misses else ""))
    print(line)
    assert total >= 100, f"{label}: the list needs at least 100 entries"
    assert right / total >= TARGET, f"{line}; misses: {misses}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind", list(KINDS))
def test_check_lists(ws: WordService, lang: str, kind: str) -> None:
    """Top Stop identity and invalid-word reasons: each entry gets the verdict the list says."""
    expected = KINDS[kind]
    words = rows(f"{lang}_{kind}.txt")
    misses = [f"{w}→{v.reason}" for w in words if (v := ws.check(w, lang)).reason != expected]
    _report(f"{lang} {LABELS[kind]}", len(words) - len(misses), len(words), misses)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind", ["same", "different"])
def test_variant_lists(ws: WordService, lang: str, kind: str) -> None:
    """Rules 7-8: variant pairs share a lemma, look-alike pairs do not."""
    expected = kind == "same"
    items = pairs(f"{lang}_{kind}.csv")
    misses = [f"{a}/{b}" for a, b in items if ws.same_word(a, b, lang) != expected]
    label = f"{lang} {'variant pairs' if expected else 'look-alike pairs'}"
    _report(label, len(items) - len(misses), len(items), misses)
