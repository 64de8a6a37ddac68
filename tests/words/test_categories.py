"""Level VII categories and Level II prefixes (RULES-NOTES, Top Stop)."""

from __future__ import annotations

import pytest

from bot.words import WordService


@pytest.mark.parametrize(
    ("word", "lang", "member"),
    [
        ("Lebanon", "en", True),
        ("lebanon", "en", True),
        ("Germany", "en", True),
        ("Turkey", "en", True),
        ("Liban", "fr", True),
        ("Allemagne", "fr", True),
        ("Libanon", "de", True),
        ("Österreich", "de", True),
        ("Paris", "en", False),
        ("Europe", "en", False),
        ("Bavaria", "en", False),
        ("Greenland", "en", False),
        ("Lebanon", "fr", False),
    ],
)
def test_countries(ws: WordService, word: str, lang: str, member: bool) -> None:
    """Countries, not cities, states, continents or dependencies, named in the table's language."""
    assert ws.in_category(word, lang, "countries") is member


def test_first_names_follow_the_table_country(ws: WordService) -> None:
    """First names by the table's country setting; each language has a default country (RULES-NOTES: en →
    common English first names, US and UK; fr → France; de → Germany; `lb` Lebanon on request)."""
    for name in ("Michael", "Mark", "Maria", "michael"):
        assert ws.in_category(name, "en", "first_names")
    assert not ws.in_category("Rami", "en", "first_names")
    assert ws.in_category("Rami", "en", "first_names", country="lb")
    assert ws.in_category("Elie", "fr", "first_names", country="lb")
    assert not ws.in_category("Rami", "fr", "first_names")
    assert ws.in_category("Jürgen", "de", "first_names")
    assert ws.in_category("Élodie", "fr", "first_names")
    assert not ws.in_category("table", "en", "first_names")


@pytest.mark.parametrize(
    "spelling", ["Ahmad", "Ahmed", "Mohamad", "Mohammed", "Charbel", "Georges", "Nour", "Rima"]
)
def test_lebanese_names_in_latin_transliteration(ws: WordService, spelling: str) -> None:
    """The Lebanese list holds the usual Latin spellings of each name."""
    assert ws.in_category(spelling, "en", "first_names", country="lb")


@pytest.mark.parametrize(("country", "least"), [("en", 5000), ("fr", 3000), ("de", 2000)])
def test_first_name_lists_hold_thousands_of_names(ws: WordService, country: str, least: int) -> None:
    """Broad lists: the most common names of each country, thousands of them (dictionaries/README.md)."""
    total = sum(
        ws.category_entries("en", "first_names", letter, country=country)
        for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    )
    assert total >= least


@pytest.mark.parametrize(
    "model",
    [
        "Golf",
        "Polo",
        "Passat",
        "Corolla",
        "Yaris",
        "Prius",
        "Camry",
        "Civic",
        "Accord",
        "Clio",
        "Mégane",
        "Twingo",
        "Corsa",
        "Astra",
        "Punto",
        "Panda",
        "Mustang",
        "Fiesta",
        "Focus",
        "Cayenne",
        "Beetle",
        "iPhone",
        "iPad",
        "Galaxy",
        "Walkman",
        "MacBook",
        "Kindle",
        "PlayStation",
        "Switch",
    ],
)
def test_brands_include_makes_and_models(ws: WordService, model: str) -> None:
    """Level VII Brands: "All brands, makes and models ARE VALID" (cars, phones, consoles, products)."""
    for lang in ("en", "fr", "de"):
        assert ws.in_category(model, lang, "brands")
        assert ws.in_category(model.lower(), lang, "brands")


def test_brands(ws: WordService) -> None:
    """Brands, makes and models, whatever the language."""
    assert ws.in_category("Nike", "en", "brands")
    assert ws.in_category("peugeot", "fr", "brands")
    assert ws.in_category("Volkswagen", "de", "brands")
    assert not ws.in_category("shoe", "en", "brands")


@pytest.mark.parametrize(
    ("word", "lang", "member"),
    [
        ("go", "en", True),
        ("went", "en", True),
        ("swimming", "en", True),
        ("house", "en", True),
        ("happiness", "en", False),
        ("manger", "fr", True),
        ("allions", "fr", True),
        ("écrit", "fr", True),
        ("maison", "fr", False),
        ("gehen", "de", True),
        ("ging", "de", True),
        ("gegessen", "de", True),
        ("Haus", "de", False),
    ],
)
def test_verbs_in_any_form(ws: WordService, word: str, lang: str, member: bool) -> None:
    """Verbs: all forms and tenses are valid (rule 7 still applies)."""
    assert ws.in_category(word, lang, "verbs") is member


def test_category_entries_count_playable_entries_by_letter(ws: WordService) -> None:
    """A letter with fewer than 3 entries in the category list is excluded (spin again)."""
    assert ws.category_entries("en", "countries", "B") >= 10
    assert ws.category_entries("en", "countries", "X") == 0
    assert ws.category_entries("fr", "countries", "E") >= 3  # Égypte, Espagne, États-Unis… accents ignored
    assert ws.category_entries("de", "first_names", "J") >= 3
    assert ws.category_entries("en", "first_names", "J", country="lb") >= 3
    assert ws.category_entries("en", "brands", "Q") >= 3  # Qashqai, Quattroporte, Quechua…
    assert ws.category_entries("de", "verbs", "S") > 100
    # Multi-word names (United States) cannot be written as one word, so they do not count.
    us = ws.category_entries("en", "countries", "U")
    assert us == len(
        [c for c in ("Uganda", "Ukraine", "Uruguay", "Uzbekistan") if ws.in_category(c, "en", "countries")]
    )


def test_unknown_category_or_country(ws: WordService) -> None:
    """Only the four categories and the four name lists exist."""
    with pytest.raises(ValueError, match="unknown category"):
        ws.in_category("x", "en", "cities")
    with pytest.raises(ValueError, match="unknown country"):
        ws.in_category("x", "en", "first_names", country="us")


@pytest.mark.parametrize(
    ("prefix", "lang", "expected"),
    [
        ("SO", "en", True),
        ("IO", "fr", True),
        ("AE", "de", True),
        ("QX", "en", False),
        ("XQ", "de", False),
        ("Ét", "fr", True),
    ],
)
def test_level_two_prefixes(ws: WordService, prefix: str, lang: str, expected: bool) -> None:
    """Level II: if no word of the dictionary starts with either combination, spin again."""
    assert ws.any_word_starts_with(prefix, lang) is expected


def test_a_letters_count_equals_the_entries_that_start_with_it() -> None:
    """Counted once per list for every letter (a Level VII spin asks for all 26), as a scan would count."""
    from bot.words.data import Category
    from bot.words.text import fold

    names = Category(["Émile", "emma", "Ethan", "Eva Maria", "Zoë", "zack", "Örjan"])
    for letter in "eEézZoÖx":
        scanned = sum(1 for e in names.entries if " " not in e and fold(e).startswith(fold(letter)))
        assert names.count_starting(letter) == scanned
    assert names.count_starting("em") == 2
