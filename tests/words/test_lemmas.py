"""Variants (rules 7-8): two words are the same word when their lemma sets intersect."""

from __future__ import annotations

import pytest

from bot.words import WordService


@pytest.mark.parametrize(
    ("a", "b", "lang"),
    [
        ("cat", "cats", "en"),
        ("go", "went", "en"),
        ("goes", "gone", "en"),
        ("Haus", "Häuser", "de"),
        ("HÄUSER", "haus", "de"),
        ("yeux", "œil", "fr"),
        ("écrit", "écrire", "fr"),
    ],
)
def test_variants(ws: WordService, a: str, b: str, lang: str) -> None:
    """Forms of one word are the same word, in either order and any case."""
    assert ws.same_word(a, b, lang) and ws.same_word(b, a, lang)


@pytest.mark.parametrize(
    ("a", "b", "lang"),
    [
        ("hoping", "hop", "en"),
        ("universe", "university", "en"),
        ("chanteur", "chanter", "fr"),
        ("Lehrer", "lehren", "de"),
    ],
)
def test_look_alikes_are_different_words(ws: WordService, a: str, b: str, lang: str) -> None:
    """Look-alikes that are not forms of one another stay different words."""
    assert not ws.same_word(a, b, lang)


def test_lemma_sets_and_keys(ws: WordService) -> None:
    """The set holds the word and its lemmas; the key is one of them, stable across forms."""
    assert {"went", "go"} <= ws.lemmas("went", "en")
    assert ws.lemma_key("went", "en") == ws.lemma_key("goes", "en") == "go"
    assert ws.lemma_key("Häuser", "de") == ws.lemma_key("HAUS", "de") == "haus"
    assert ws.lemma_key("STRASSE", "de") == "straße"
    assert ws.lemma_key("blorptek", "en") == "blorptek"


def test_german_case_picks_the_reading(ws: WordService) -> None:
    """wässern (verb) and Wasser (noun) differ; in capitals both readings are open."""
    assert not ws.same_word("wässern", "Wasser", "de")
    assert ws.same_word("gegessen", "essen", "de")
    assert not ws.same_word("gehören", "hören", "de")
