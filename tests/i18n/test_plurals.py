"""Every text with a count says the word after it in the form the number asks for, in every language:
"1 piece left", "1 pièce restante", "noch 1 Stein" (the choices of bot/i18n: `{n|one:…|other:…}`)."""

from __future__ import annotations

import re

import pytest
from babel.core import Locale

from bot.i18n import LANGUAGES, PLURAL, plural_forms, t
from tests.i18n.test_catalogue import CATALOGUES

# The parameters that carry a count wherever they are followed by a word.
COUNTS = {
    "n", "count", "limit", "size", "sizes", "most", "high", "pieces", "points", "target", "bonus", "display",
    "games", "deck", "turns", "wins", "voted", "voters", "total", "cards", "penalty", "tiles", "letters",
    "players", "length", "seconds", "minutes",
}  # fmt: skip
# Where a count parameter's name holds something else: a deck's name, the letters of a rack, a list.
NOT_COUNTS = {
    ("topdrop.event.played", "cards"), ("topdrop.event.played_action", "cards"), ("topdrop.news.drawn", "cards"),
    ("topstop.adv.deck_extra", "deck"), ("topstop.adv.deck_unknown", "deck"), ("topstop.adv.deck_not_list", "deck"),
    ("topstop.cards.held", "cards"),
    ("skeleton.table.scores", "target"),  # "wer zuerst 5 hat": the verb agrees with "wer"
    ("topwords.rule.not_on_rack", "letters"),
}  # fmt: skip
# Words that follow a count without being counted: units, prepositions, verbs of "N of M".
NOT_COUNTED = {
    "en": {"s", "min", "to", "of", "in", "and", "or", "more", "until", "towards", "on", "long", "voted", "won", "bonus"},
    "fr": {"s", "min", "à", "de", "du", "des", "sur", "et", "ou", "en", "au", "pour"},
    "de": {"s", "min", "bis", "von", "vom", "und", "oder", "in", "im", "mehr", "auf", "zu", "lang", "sein",
           "gelegt", "gezogen", "erreicht", "gewonnen", "insgesamt", "nicht", "bonus"},
}  # fmt: skip
AFTER_A_COUNT = re.compile(r"\{(\w+)\}\**\s+([^\W\d_]+)")


def counted_words(key: str, text: str, lang: str) -> list[str]:
    """The counts of a text followed by a word that agrees with them, in a text with no choice by that count
    ("{n} penalty {n|one:card|other:cards}" makes its choice a word later)."""
    return [
        f"{{{name}}} {word}"
        for name, word in AFTER_A_COUNT.findall(text)
        if name in COUNTS
        and (key, name) not in NOT_COUNTS
        and word.lower() not in NOT_COUNTED[lang]
        and f"{{{name}|" not in text
    ]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_word_after_a_count_takes_the_form_of_the_number(lang):
    fixed = {
        key: found for key, text in CATALOGUES[lang].items() if (found := counted_words(key, text, lang))
    }
    assert not fixed, f"{lang}: counts followed by a word in one form: {fixed}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_choice_gives_the_forms_its_language_uses(lang):
    rule = Locale.parse(lang).plural_form
    categories = set(rule.tags) | {"other"}
    choices = 0
    for key, text in CATALOGUES[lang].items():
        for choice in PLURAL.finditer(text):
            choices += 1
            forms = plural_forms(choice.group(2))
            assert {"one", "other"} <= set(forms) <= categories, f"{lang} {key}: {choice.group(0)}"
            assert f"{{{choice.group(1)}}}" in text, (
                f"{lang} {key}: a choice by a count the text does not say"
            )
    assert choices >= 40


@pytest.mark.parametrize(
    ("lang", "count", "said"),
    [
        ("en", 1, "1 piece left"), ("en", 2, "2 pieces left"), ("en", 0, "0 pieces left"),
        ("fr", 0, "0 pièce restante"), ("fr", 1, "1 pièce restante"), ("fr", 2, "2 pièces restantes"),
        ("de", 1, "noch 1 Stein"), ("de", 2, "noch 2 Steine"), ("de", 0, "noch 0 Steine"),
    ],
)  # fmt: skip
def test_a_count_says_its_word_in_the_numbers_form(lang, count, said):
    assert said in t("topple.console.young", lang, colours="🔴", pieces=count)


def test_a_choice_counts_by_its_parameter_whatever_the_others():
    assert t("toppo.console.last_penalty", "en", name="cat", n=1).endswith("took 1 penalty card.")
    assert "a pris 2 cartes de pénalité" in t("toppo.console.last_penalty", "fr", name="cat", n=2)
    assert "1 Strafkarte " in t("toppo.console.last_penalty", "de", name="cat", n=1) + " "
