"""How the catalogues read to a native reader: one term per thing, counts that read right whatever the number,
French and German typography, and nothing said twice or about the reader in the third person."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from bot.i18n import LANGUAGES, po_file, t


def _texts(lang: str) -> dict[str, str]:
    with po_file(lang).open("rb") as source:
        return {str(m.id): str(m.string) for m in read_po(source) if m.id}


TEXTS = {lang: _texts(lang) for lang in LANGUAGES}
# The board picture's font has ASCII only (bot/render/topwords_board.py): no non-breaking space there.
PICTURE = "topwords.board."


def test_french_calls_the_lobby_a_waiting_room_as_salon_means_a_channel_on_discord():
    salon = [key for key, text in TEXTS["fr"].items() if re.search(r"\bsalons?\b", text, re.IGNORECASE)]
    assert salon == []
    assert "salle d'attente" in t("ui.lobby.title", "fr", game="TopWords")


def test_german_has_one_term_for_the_level_card():
    assert [key for key, text in TEXTS["de"].items() if "Levelkarte" in text] == []
    assert all("Stufenkarte" in t(key, "de") for key in ("topstop.reason.level", "topstop.adv.no_level_card"))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_count_is_written_with_a_bracketed_plural_ending(lang):
    """Not "win(s)", "partie(s)", "Spiel(en)": a count reads right whatever the number, or names no plural."""
    bracketed = re.compile(r"\w\((?:s|e|n|en|es|x)\)")
    assert [key for key, text in TEXTS[lang].items() if bracketed.search(text)] == []
    line = t("general.leaderboard.line", lang, rank=1, player="@ann", wins=1, games=1, best=6)
    assert "(" not in line and "1" in line


def test_french_puts_a_non_breaking_space_before_double_punctuation():
    for key, text in TEXTS["fr"].items():
        if key.startswith(PICTURE):
            assert "\u00a0" not in text, key
            continue
        assert not re.search(r" [:;!?]", text), (key, text)  # a plain space would let the line break there
        assert not re.search(r"[^\u00a0][;!?]", text), (key, text)  # and none is missing (":" also ends code)
        assert "« " not in text and " »" not in text, (key, text)


def test_french_apostrophes_are_all_the_same():
    assert [key for key, text in TEXTS["fr"].items() if "’" in text] == []


def test_german_quotes_are_german():
    # „…“ opens low and closes high: an English “…” opens with “ and closes with ”.
    assert [key for key, text in TEXTS["de"].items() if re.search(r"“\w|”", text)] == []
    assert "„Server verwalten“" in t("topwords.not_manager", "de")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_private_panel_under_only_you_see_this_does_not_say_it_again(lang):
    """/status puts the private panel under the field "Only you see this" (bot/ui/controls.py)."""
    heading = t("ui.only_you", lang).casefold()
    for key in ("topstop.panel.words", "topwords.rack"):
        assert heading not in t(key, lang, words="x", rack="x", bag=1).casefold(), key


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_vote_that_kept_a_word_crossed_out_is_not_said_to_have_crossed_it_out(lang):
    """The result reads right whether the vote changed the verdict or kept it (a tie has its own text)."""
    by_vote = {"en": "by vote", "fr": "par vote", "de": "per abstimmung"}[lang]
    for key in ("topstop.vote_result.crossed_out", "topstop.vote_result.accepted"):
        assert by_vote not in t(key, lang).casefold()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_refusal_that_may_be_about_the_reader_does_not_name_them_as_its_subject(lang):
    """Not "ann chooses first" said to ann: these refusals reach the player they name, so they say it plainly."""
    for key in ("topstop.adv.wait_choice", "topstop.already_stopped"):
        assert not TEXTS[lang][key].startswith("{player}"), (lang, key)


def test_french_speaks_to_the_reader_as_vous_and_german_as_du():
    assert [key for key, text in TEXTS["fr"].items() if re.search(r"\b(tu|ton|ta|tes|toi)\b", text)] == []
    assert [key for key, text in TEXTS["de"].items() if re.search(r"\b(Ihr|Ihre|Ihnen)\b", text)] == []


# Toppo has no hand: each player's own deck (pioche, Stapel) and line; its terms, one per thing (a top is
# "toppé", never "couvert"; a match "une carte identique", never "assortir"; the display "l'étalage"); and a
# player's gender is not guessed ("est parti").
TOPPO_OTHER_TERMS = {
    "en": r"\bhands?\b",
    "fr": r"\bmains?\b|couvr|assort|rangée|\best parti\b",
    "de": r"\bHand\b|\bHänden?\b|überdeck",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_toppo_speaks_of_its_own_deck_and_line_in_its_own_terms(lang):
    other = re.compile(TOPPO_OTHER_TERMS[lang], re.IGNORECASE)
    assert [key for key, text in TEXTS[lang].items() if key.startswith("toppo.") and other.search(text)] == []
    where = {"en": "left in deck and line", "fr": "dans sa pioche et sa ligne", "de": "in Stapel und Reihe"}
    assert where[lang] in t("toppo.event.toppo", lang, name="cat", n=9)
