"""Top Stop: invalid words (rules 1-8, Cases 1-3), their reason codes and their order; used words."""

from __future__ import annotations

import pytest
from topstop_helpers import StubWords, Table

from bot.engine.game import UsedWord
from bot.games.topstop.state import REASONS

# A stand-in vocabulary for the judging logic; the real dictionary is exercised by the scenarios.
VOCABULARY = StubWords(
    lemmas={
        "cat": {"cat"},
        "cats": {"cat"},
        "can": {"can"},
        "cans": {"can"},
        "go": {"go"},
        "gone": {"go"},
        "goes": {"go"},
    },
    proper={"paris", "peter"},
    abbreviations={"pc", "etc"},
    unknown={"pzzt", "glorp"},
)


def test_reason_codes_follow_rules_notes_order() -> None:
    assert REASONS == (
        "not_a_word",
        "wrong_letter",
        "proper_noun",
        "abbreviation",
        "common",
        "duplicate",
        "variant",
        "level",
        "category",
        "voted_out",
    )


def test_rule_1_not_in_the_dictionary_is_not_a_word() -> None:
    table = Table(service=VOCABULARY, check_words=True)
    table.play_round("P", {"ann": ["pear", "pzzt"]})
    assert table.verdicts("ann") == [("pear", None), ("pzzt", "not_a_word")]


@pytest.mark.parametrize("word", ["pre-war", "p2p", "pet shop", "p'tit", "pear."])
def test_rule_only_single_words_of_letters(word: str) -> None:
    table = Table()
    table.play_round("P", {"ann": [word]})
    assert table.verdicts("ann") == [(word, "not_a_word")]


def test_rule_2_wrong_letter() -> None:
    table = Table()
    table.play_round("P", {"ann": ["pear", "apple"]})
    assert table.verdicts("ann") == [("pear", None), ("apple", "wrong_letter")]


def test_rule_2_target_letter_matches_ignoring_accents() -> None:
    table = Table(language="fr")
    table.play_round("E", {"ann": ["école", "Été", "étage"]})
    assert table.verdicts("ann") == [("école", None), ("été", None), ("étage", None)]


def test_rule_3_proper_nouns_and_rule_4_abbreviations() -> None:
    table = Table(service=VOCABULARY, check_words=True)
    table.play_round("P", {"ann": ["Paris", "PC", "Peter", "pear"]})
    assert table.verdicts("ann") == [
        ("paris", "proper_noun"),
        ("pc", "abbreviation"),
        ("peter", "proper_noun"),
        ("pear", None),
    ]


def test_rule_check_words_false_skips_the_dictionary() -> None:
    table = Table(service=VOCABULARY, check_words=False)
    table.play_round("P", {"ann": ["pzzt", "paris"]})
    assert table.verdicts("ann") == [("pzzt", None), ("paris", None)]


def test_rule_5_common_words_are_crossed_out_for_all() -> None:
    table = Table()
    record = table.play_round("P", {"ann": ["pear", "plum"], "bob": ["Pear", "peach"], "cat": ["pear"]})
    assert table.verdicts("ann") == [("pear", "common"), ("plum", None)]
    assert table.verdicts("bob") == [("pear", "common"), ("peach", None)]
    assert table.verdicts("cat") == [("pear", "common")]
    assert record["points"] == {"ann": 1, "bob": 1, "cat": 0}


def test_rule_case_2_variants_by_two_players_are_common() -> None:
    table = Table(service=VOCABULARY)
    table.play_round("C", {"ann": ["cat"], "bob": ["cats", "can"]})
    assert table.verdicts("ann") == [("cat", "common")]
    assert table.verdicts("bob") == [("cats", "common"), ("can", None)]


def test_rule_6_duplicate_of_an_earlier_round() -> None:
    table = Table(("ann", "bob"))
    table.play_round("P", {"ann": ["pear"]})
    table.play_round("P", {"bob": ["pear", "plum"]})
    assert table.verdicts("bob") == [("pear", "duplicate"), ("plum", None)]


def test_rule_6_crossed_out_words_are_used_too() -> None:
    table = Table(("ann", "bob"))
    table.play_round("P", {"ann": ["plum"], "bob": ["plum"]})  # common: scored nothing, still revealed
    table.play_round("P", {"ann": ["plum"]})
    assert table.verdicts("ann") == [("plum", "duplicate")]


def test_rule_case_3_variant_of_an_earlier_word_is_duplicate() -> None:
    table = Table(("ann", "bob"), service=VOCABULARY)
    table.play_round("G", {"ann": ["go"]})
    table.play_round("G", {"bob": ["gone", "goes"]})
    assert table.verdicts("bob") == [("gone", "duplicate"), ("goes", "duplicate")]


def test_rule_case_1_same_players_variants_first_counts() -> None:
    table = Table(service=VOCABULARY)
    record = table.play_round("C", {"ann": ["cats", "can", "cat", "cans", "can"]})
    assert table.verdicts("ann") == [
        ("cats", None),
        ("can", None),
        ("cat", "variant"),
        ("cans", "variant"),
        ("can", "variant"),
    ]
    assert record["points"]["ann"] == 2


def test_rule_first_reason_in_order_wins() -> None:
    table = Table(("ann", "bob"), service=VOCABULARY, check_words=True)
    table.play_round("C", {"ann": ["cat"]})
    # bob: "cats" is both common (with ann's "cats") and a duplicate (of "cat"): common comes first.
    # "apple" is written by both and starts with the wrong letter: wrong_letter comes first.
    table.play_round("C", {"ann": ["cats", "apple"], "bob": ["cats", "apple", "glorp"]})
    assert table.verdicts("bob") == [("cats", "common"), ("apple", "wrong_letter"), ("glorp", "not_a_word")]
    # not_a_word before wrong_letter: the dictionary does not know it, whatever letter it starts with.
    table.play_round("P", {"ann": ["glorp", "pc", "pc"]})
    assert table.verdicts("ann") == [("glorp", "not_a_word"), ("pc", "abbreviation"), ("pc", "abbreviation")]


def test_rule_faq1_crossed_out_words_score_nothing() -> None:
    table = Table(service=VOCABULARY, check_words=True)
    record = table.play_round("P", {"ann": ["pear", "paris", "pc", "pzzt", "apple"]})
    assert record["points"]["ann"] == 1


def test_rule_used_words_are_returned_when_revealed() -> None:
    table = Table(service=VOCABULARY)
    table.do("spin", "ann", letter="C")
    table.do("submit", "ann", words=["cats", "xyz"])
    table.do("submit", "cat", words=["can"])
    table.do("stop", "cat")
    assert table.last is not None and table.last.used_words == []
    applied = table.do("end_writing")
    # Reveal order: from the player who called STOP, clockwise.
    assert applied.used_words == [
        UsedWord(1, "cat", "can", "can"),
        UsedWord(1, "ann", "cats", "cat"),
        UsedWord(1, "ann", "xyz", "xyz"),
    ]
    assert list(table.events("writing_closed")[0]["lists"]) == ["cat", "ann"]
