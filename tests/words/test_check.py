"""WordService.check and check_tiles: characters, case, SS/ß, umlauts, reasons (RULES-NOTES)."""

from __future__ import annotations

import threading

import pytest

from bot.words import Verdict, WordService


def test_construction_is_cheap_and_lazy() -> None:
    """One service per process: constructing it loads no language."""
    ws = WordService()
    assert ws.languages == ("en", "fr", "de")
    assert ws._languages == {}


def test_verdict_shape(ws: WordService) -> None:
    """A verdict names the word as given, validity, and a reason only when invalid."""
    assert ws.check("cat", "en") == Verdict("cat", True, None)
    assert ws.check("Paris", "en") == Verdict("Paris", False, "proper_noun")


@pytest.mark.parametrize(
    "word", ["", "  ", "ice cream", "rock-and-roll", "don't", "aujourd'hui", "abc1", "42", "e.g."]
)
@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_bad_characters_are_not_words(ws: WordService, word: str, lang: str) -> None:
    """Top Stop identity of words: only single words of letters; hyphens, apostrophes, digits, spaces fail."""
    assert ws.check(word, lang) == Verdict(word, False, "not_a_word")


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_unknown_word(ws: WordService, lang: str) -> None:
    """A string of letters that no dictionary knows is not a word."""
    assert ws.check("blorptek", lang).reason == "not_a_word"


def test_acceptance_examples(ws: WordService) -> None:
    """The acceptance lines of issue 2."""
    assert [ws.check(w, "en").reason for w in ("cat", "cats", "paris", "nasa")] == [
        None,
        None,
        "proper_noun",
        "abbreviation",
    ]
    assert [ws.check(w, "de").reason for w in ("HAUS", "STRASSE", "BERLIN", "BZW")] == [
        None,
        None,
        "proper_noun",
        "abbreviation",
    ]


@pytest.mark.parametrize(
    ("word", "lang", "reason"),
    [
        ("CAT", "en", None),
        ("HOUSE", "en", None),
        ("PARIS", "en", "proper_noun"),
        ("MERKEL", "en", "proper_noun"),
        ("NASA", "en", "abbreviation"),
        ("MAISON", "fr", None),
        ("ÉTÉ", "fr", None),
        ("SNCF", "fr", "abbreviation"),
        ("HAUS", "de", None),
        ("MERKEL", "de", "proper_noun"),
        ("BMW", "de", "abbreviation"),
    ],
)
def test_all_caps_is_never_checked_as_typed(
    ws: WordService, word: str, lang: str, reason: str | None
) -> None:
    """Hunspell accepts every ALL-CAPS string of an entry (WORDS-FACTS): the case is fixed first."""
    assert ws.check(word, lang).reason == reason


@pytest.mark.parametrize(
    ("word", "lang"), [("etc", "en"), ("mph", "en"), ("cf", "fr"), ("bzw", "de"), ("Pkw", "de")]
)
def test_abbreviations_that_look_like_words(ws: WordService, word: str, lang: str) -> None:
    """Abbreviations the dictionaries store as words (etc) or that have no vowel (Pkw) are abbreviations."""
    assert ws.check(word, lang).reason == "abbreviation"


@pytest.mark.parametrize(
    ("word", "lang"),
    [("berlin", "en"), ("japan", "en"), ("china", "en"), ("john", "en"), ("google", "en"), ("sally", "en"),
     ("peter", "en"), ("paris", "fr"), ("seine", "fr")],
)  # fmt: skip
def test_a_common_word_that_is_also_a_name_is_valid_typed_lower_case(
    ws: WordService, word: str, lang: str
) -> None:
    """A lower-case dictionary entry is a word in its own right (china: porcelain, japan: to lacquer, peter: to
    peter out, paris: bets, seine: a net); typed Capitalised, the name is meant and it is a proper noun."""
    assert ws.check(word, lang).valid
    assert ws.check(word.capitalize(), lang).reason == "proper_noun"


@pytest.mark.parametrize(("word", "lang"), [("Kiel", "de"), ("Ruhr", "de"), ("NIX", "de"), ("nix", "de")])
def test_german_common_nouns_that_are_also_places_are_valid(ws: WordService, word: str, lang: str) -> None:
    """Der Kiel (a ship's keel), die Ruhr (the illness), nix (Duden: nichts)."""
    assert ws.check(word, lang).valid


@pytest.mark.parametrize(
    ("word", "lang"), [("pxq", "en"), ("cxqzvt", "en"), ("qwrt", "en"), ("oxqzvt", "en")]
)
def test_an_unknown_string_is_not_a_word_before_it_is_an_abbreviation(
    ws: WordService, word: str, lang: str
) -> None:
    """RULES-NOTES: not_a_word first; only a known abbreviation is `abbreviation`, vowels or not."""
    assert ws.check(word, lang).reason == "not_a_word"


@pytest.mark.parametrize(
    ("word", "lang"),
    [("apple", "en"), ("said", "en"), ("island", "en"), ("rose", "fr"), ("main", "fr"), ("Kinder", "de")],
)
def test_common_words_that_are_also_names_stay_valid(ws: WordService, word: str, lang: str) -> None:
    """The allow lists keep everyday words that share their letters with a brand, place or name."""
    assert ws.check(word, lang).valid


@pytest.mark.parametrize(
    ("tiles", "valid"),
    [
        ("STRASSE", True),
        ("MASSE", True),
        ("FUSS", True),
        ("GRUSS", True),
        ("SCHLOSSSTRASSE", True),
        ("HEISS", True),
        ("STRASE", False),
    ],
)
def test_tiles_ss_may_be_sharp_s(ws: WordService, tiles: str, valid: bool) -> None:
    """TopWords: there is no ß tile, SS matches ß (STRASSE = Straße)."""
    assert ws.check_tiles(tiles).valid is valid


def test_masse_reads_as_both_masse_and_masse_with_sharp_s(ws: WordService) -> None:
    """MASSE stands for Masse and Maße: both are words, and they stay different words."""
    assert ws.check("Maße", "de").valid and ws.check("Masse", "de").valid
    assert not ws.same_word("Masse", "Maße", "de")


def test_ss_spelling_typed_by_players(ws: WordService) -> None:
    """A player who types Strasse (no ß key) gets Straße."""
    assert ws.check("Strasse", "de").valid
    assert ws.same_word("Strasse", "Straße", "de")


@pytest.mark.parametrize(
    ("umlaut", "spelled_out"),
    [("ÄPFEL", "AEPFEL"), ("ÖL", "OEL"), ("ÜBUNG", "UEBUNG"), ("MÄDCHEN", "MAEDCHEN"), ("FÜSSE", "FUESSE")],
)
def test_umlauts_are_letters_of_their_own(ws: WordService, umlaut: str, spelled_out: str) -> None:
    """TopWords: Ä, Ö, Ü are tiles of their own and may not be written as AE, OE, UE."""
    assert ws.check_tiles(umlaut).valid
    assert not ws.check_tiles(spelled_out).valid


@pytest.mark.parametrize(
    ("tiles", "reason"),
    [("BERLIN", "proper_noun"), ("GOETHE", "proper_noun"), ("ADAC", "abbreviation"), ("USW", "abbreviation")],
)
def test_tiles_reject_names_and_abbreviations(ws: WordService, tiles: str, reason: str) -> None:
    """TopWords: proper nouns and abbreviations are rejected even in capitals."""
    assert ws.check_tiles(tiles) == Verdict(tiles, False, reason)


def test_german_case_tells_noun_from_verb(ws: WordService) -> None:
    """German capitalises nouns: Google typed so is the company, though google is a form of googeln."""
    assert ws.check("Google", "de").reason == "proper_noun"
    assert ws.check("essen", "de").valid and ws.check("Essen", "de").valid


def test_english_accepts_british_spellings(ws: WordService) -> None:
    """English is en_US or en_GB."""
    assert ws.check("colour", "en").valid and ws.check("color", "en").valid


@pytest.mark.parametrize(
    ("raw", "normal"), [("  Cat ", "cat"), ("ÉTÉ", "été"), ("Cafe\u0301", "café"), ("Straße", "strasse")]
)
def test_normalise(ws: WordService, raw: str, normal: str) -> None:
    """Identity of words: trimmed, case-folded, Unicode NFC."""
    assert ws.normalise(raw) == normal


@pytest.mark.parametrize(
    ("word", "letter", "expected"),
    [
        ("Élodie", "E", True),
        ("école", "e", True),
        ("Ärger", "A", True),
        ("soleil", "SO", True),
        ("Œuvre", "O", True),
        ("cat", "D", False),
        ("sable", "SO", False),
        ("cat", "", False),
    ],
)
def test_starts_with_ignores_accents(ws: WordService, word: str, letter: str, expected: bool) -> None:
    """The target letter matches ignoring accents (É counts as E); Level II passes two letters."""
    assert ws.starts_with(word, letter) is expected


def test_unknown_language_is_an_error(ws: WordService) -> None:
    """Only en, fr and de exist."""
    with pytest.raises(ValueError, match="unknown language"):
        ws.check("cat", "xx")


def test_shared_between_threads(ws: WordService) -> None:
    """One service per bot process: concurrent checks agree with sequential ones."""
    words = ["cat", "Paris", "nasa", "houses", "went", "John"] * 20
    expected = [ws.check(w, "en") for w in words]
    results: list[list[Verdict]] = [[] for _ in range(4)]

    def run(i: int) -> None:
        fresh = WordService() if i % 2 else ws
        results[i] = [fresh.check(w, "en") for w in words]

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == expected for r in results)


def test_german_short_imperative_of_a_known_verb_is_a_word(ws):
    # The rulebook's example 5 plays SAUG: the imperative without -e is standard German.
    for tiles in ("SAUG", "HUST", "BLAS"):
        assert ws.check_tiles(tiles).valid, tiles
    for tiles in ("BERL", "HAUSG", "SAUK"):
        assert not ws.check_tiles(tiles).valid, tiles


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_every_dictionary_comes_from_hunspell(lang: str) -> None:
    from bot.words.service import SPELLERS
    from bot.words.spell import Speller

    speller = Speller(SPELLERS[lang])  # raises when another provider (aspell, …) would answer
    assert [d.provider.name for d in speller._dicts] == ["hunspell"] * len(SPELLERS[lang])


@pytest.mark.parametrize(
    ("word", "lang"),
    [
        ("iv", "en"),
        ("xcvi", "en"),
        ("xxxvii", "en"),
        ("xxxviiiᵉ", "fr"),
        ("xlvᵉˢ", "fr"),
        ("xix", "fr"),
        ("xiv", "de"),
    ],
)
def test_roman_numerals_are_abbreviations(ws: WordService, word: str, lang: str) -> None:
    """Rule 4 (RULES-NOTES): Roman numerals, and French ordinals written with one, are abbreviations."""
    assert ws.check(word, lang).reason == "abbreviation"


@pytest.mark.parametrize(
    ("word", "lang"),
    [
        ("mix", "en"),
        ("civil", "en"),
        ("vivid", "en"),
        ("mild", "en"),
        ("dix", "fr"),
        ("civil", "fr"),
        ("mix", "de"),
    ],
)
def test_words_that_are_also_roman_numerals_stay_valid(ws: WordService, word: str, lang: str) -> None:
    """RULES-NOTES: a word that is also an ordinary word of the dictionary stays valid (mix, dix)."""
    assert ws.check(word, lang).valid


@pytest.mark.parametrize("word", ["rose", "golf", "mark", "polo", "panda", "linde", "iris"])
def test_german_nouns_that_are_also_first_names_or_brands_stay_valid(ws: WordService, word: str) -> None:
    """The first-name and brand lists are long: a German common noun they also hold stays a word."""
    assert ws.check(word, "de").valid
    assert ws.check(word.capitalize(), "de").valid
