"""The precomputed word tables answer exactly as the live checker and lemmatizers do, for the forms they
hold; any other word still goes to the live checker; a table built for other dictionaries is not used."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.words import WordService, checkers, lemmas, precomputed, service
from bot.words.lemmas import simplemma_entries, simplemma_with_table
from bot.words.service import SPELLERS

FORMS = {
    "en": ["went", "go", "going", "paris", "etc", "china", "peter", "cats", "better", "ozquaxe"],
    "fr": ["écrit", "écrire", "folle", "fou", "blanche", "maison", "paris", "etc", "allé", "ozquaxe"],
    "de": ["häuser", "haus", "gespielt", "spielen", "masse", "kiel", "nix", "berlin", "ozquaxe", "ging"],
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> WordService:
    return WordService(tables=tmp_path_factory.mktemp("no-tables"))


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_a_table_answers_as_the_live_service(live: WordService, tmp_path: Path, lang: str) -> None:
    def judge(form: str) -> tuple[str | None, str, frozenset[str]]:
        return live.check(form, lang).reason, live.lemma_key(form, lang), live.lemmas(form, lang)

    stamp = precomputed.fingerprint(SPELLERS[lang], live.root)
    assert precomputed.build(tmp_path / f"{lang}.sqlite", FORMS[lang], judge, stamp) == len(FORMS[lang])
    tabled = WordService(tables=tmp_path)
    assert tabled.table(lang) is not None
    for form in FORMS[lang]:
        assert tabled.check(form, lang) == live.check(form, lang), form
        assert tabled.lemmas(form, lang) == live.lemmas(form, lang), form
        assert tabled.lemma_key(form, lang) == live.lemma_key(form, lang), form
    # Not in the table: the live checker answers (a capitalised word, a word the table was not built with).
    for other in ("Paris", "zebra", "Haus"):
        assert tabled.check(other, lang) == live.check(other, lang)
    if lang == "de":
        # This table holds no copy of simplemma's dictionary: simplemma uses the one it ships (sangen is
        # known as a form of singen only from that dictionary).
        assert tabled.lemmas("sangen", lang) == live.lemmas("sangen", lang)
        assert "singen" in live.lemmas("sangen", lang)


def test_simplemma_reads_its_dictionary_from_the_table_and_answers_the_same(
    live: WordService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Words the table lacks still get simplemma's lemmas, from the table's copy of its dictionary: the
    shipped one is never decoded at play time (that held the interpreter 0.3–1.5 s a language)."""
    lang, words = "en", ["geese", "running", "mice", "zebras", "better"]
    expected = {word: live.lemmas(word, lang) for word in words}
    stamp = precomputed.fingerprint(SPELLERS[lang], live.root)
    precomputed.build(
        tmp_path / f"{lang}.sqlite", [], lambda f: (None, f, frozenset()), stamp, simplemma_entries(lang)
    )

    def decode_shipped(word: str, lang: str) -> str:
        raise AssertionError("simplemma's shipped dictionary was used")

    monkeypatch.setattr(lemmas, "_simplemma", decode_shipped)
    tabled = WordService(tables=tmp_path)
    assert {word: tabled.lemmas(word, lang) for word in words} == expected


def test_simplemma_with_the_tables_copy_lemmatises_as_the_shipped_dictionary(tmp_path: Path) -> None:
    import simplemma

    words = ["chevaux", "écrites", "allions", "yeux", "Allées", "porte-clés", "l'arbre", "xyzzy"]
    precomputed.build(
        tmp_path / "fr.sqlite", [], lambda f: (None, f, frozenset()), "x", simplemma_entries("fr")
    )
    table = precomputed.Table(tmp_path / "fr.sqlite")
    from_table = simplemma_with_table("fr", table)
    assert [from_table(word) for word in words] == [simplemma.lemmatize(word, lang="fr") for word in words]


def test_the_checkers_take_what_they_derive_from_every_hunspell_entry_from_the_table(
    live: WordService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dotted abbreviations and German name-like entries come from the table, not from scanning the
    hunspell files at start-up (which paused the event loop), and judge words as the live scan does."""
    dotted = checkers.dotted_abbreviations(SPELLERS["de"])
    name_like = checkers.GermanData(live.root / "de", SPELLERS["de"][0]).name_like
    assert dotted and name_like
    stamp = precomputed.fingerprint(SPELLERS["de"], live.root)
    sets = {service.DOTTED: dotted, service.NAME_LIKE: name_like}
    precomputed.build(tmp_path / "de.sqlite", [], lambda f: (None, f, frozenset()), stamp, (), sets)
    words = ["bzw", "Nr", "usw", "Merkel", "Schmidt", "Haus", "Tisch", "ozquaxe"]
    expected = {word: live.check(word, "de") for word in words}

    def scan(tag: str) -> Iterator[tuple[str, str, str]]:
        raise AssertionError("the hunspell entries were scanned")

    monkeypatch.setattr(checkers, "hunspell_entries", scan)
    tabled = WordService(tables=tmp_path)
    assert {word: tabled.check(word, "de") for word in words} == expected


def test_an_empty_set_the_build_stored_is_taken_as_it_is(
    live: WordService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """French has no dotted abbreviation: the table says so, and start-up does not scan every entry again."""
    assert checkers.dotted_abbreviations(SPELLERS["fr"]) == frozenset()
    stamp = precomputed.fingerprint(SPELLERS["fr"], live.root)
    sets = {service.DOTTED: frozenset(), service.FIRST_PAIRS: frozenset({"ab"})}
    precomputed.build(tmp_path / "fr.sqlite", [], lambda f: (None, f, frozenset()), stamp, (), sets)
    table = WordService(tables=tmp_path).table("fr")
    assert table is not None
    assert table.entries(service.DOTTED) == frozenset() and table.entries("never built") is None
    expected = live.check("maison", "fr")

    def scan(tag: str) -> Iterator[tuple[str, str, str]]:
        raise AssertionError("the hunspell entries were scanned")

    monkeypatch.setattr(checkers, "hunspell_entries", scan)
    tabled = WordService(tables=tmp_path)
    assert tabled.check("maison", "fr") == expected


def test_a_table_of_other_dictionaries_is_not_used(live: WordService, tmp_path: Path) -> None:
    precomputed.build(
        tmp_path / "en.sqlite", ["ozquaxe"], lambda form: (None, form, frozenset({form})), "old"
    )
    stale = WordService(tables=tmp_path)
    assert stale.table("en") is None
    assert stale.check("ozquaxe", "en").reason == "not_a_word"  # the live checker, not the stale table


def test_the_french_expansion_knows_each_forms_stems() -> None:
    # Three stems, not the whole dictionary (8–15 s): the build expands it all, and the tables are checked
    # against the live service below.
    forms = precomputed.expand("fr", stems={"écrire", "fou", "blanc"})
    assert "écrire" in forms["écrit"] and "fou" in forms["folle"] and "blanc" in forms["blanche"]
    assert all(form.isalpha() and form == form.lower() for form in forms)
    assert set().union(*forms.values()) == {"écrire", "fou", "blanc"}
