"""Issue 30, item 13: the writing form says what the Level in force asks, in its title and in each input's
hint (Level III: exactly three letters; Level IV: four or more; Level VII: the category), in every language;
and the first spin's lines read alike (item 15's "ann: T" beside "cat : en attente")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bot.i18n import LANGUAGES, t
from bot.ui import components
from cogs.topstop.table import writing_form

from .test_topstop_advanced_table import advanced
from .test_topstop_cog import Table

BASE_HINT = "topstop.modal.placeholder"


@pytest.fixture(autouse=True)
def _forget_handlers() -> Iterator[None]:
    yield
    components.unregister_game("topstop")


def form_under(level: str, letter: str = "M", **spin: Any) -> tuple[str, list[str]]:
    """Ann's writing form in English once Bob has drawn `level` and spun `letter`: its title and hints."""
    table = advanced([level], ["mabrouk_3"])
    table.act("bob", do="draw", level=True)
    table.act("bob", do="spin", letter=letter, **spin)
    form = writing_form(7, table.view("ann"), "ann", "en")
    return form.title, [child.placeholder for child in form.children]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("level", "title", "hint"),
    [
        ("III", "Three-letter words on M", "a three-letter word starting with M"),
        ("IV", "Words of 4+ letters on M", "a word of four letters or more, starting with M"),
        ("V", "Your words without M", "a word without M"),
        ("VI", "Your words ending in M", "a word ending with M"),
    ],
)
def test_item13_the_writing_form_says_what_the_level_in_force_asks(level: str, title: str, hint: str) -> None:
    shown_title, hints = form_under(level)
    assert shown_title == title
    assert hints == [hint] * 5
    assert t(BASE_HINT, "en", letter="M") not in hints  # not "a word starting with M" under another rule


@pytest.mark.parametrize(
    ("category", "title", "hint"),
    [
        ("brands", "Your brands on B", "a brand or model starting with B"),
        ("countries", "Your countries on B", "a country starting with B"),
        ("first_names", "Your first names on B", "a first name starting with B"),
        ("verbs", "Your verbs on B", "a verb starting with B"),
    ],
)
def test_item13_under_level_vii_the_writing_form_names_the_category(
    category: str, title: str, hint: str
) -> None:
    shown_title, hints = form_under("VII", "B", category=category)
    assert (shown_title, hints[0]) == (title, hint)


def test_item13_the_base_game_and_level_ii_ask_for_words_beginning_with_the_letters() -> None:
    base = Table(["ann", "bob", "cat"])
    base.act("ann", do="spin", letter="P")
    form = writing_form(7, base.view("ann"), "ann", "en")
    assert form.title == "Your words on P"
    assert form.children[0].placeholder == "a word starting with P"  # type: ignore[attr-defined]
    table = advanced(["II"], ["mabrouk_3"])
    table.act("bob", do="draw", level=True)
    table.act("bob", do="spin", letter="P")
    choice = table.view("bob")["cards"]["choice"]
    table.act("bob", do="choose", letter=choice["options"][0], round=2, choice=choice["number"])
    form = writing_form(7, table.view("ann"), "ann", "en")
    start = "P" + choice["options"][0]
    assert form.title == f"Your words on {start}"
    assert form.children[0].placeholder == f"a word starting with {start}"  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("level", ["III", "IV", "V", "VI", "VII", "X"])
def test_item13_every_languages_form_follows_the_level_and_fits_discords_limits(
    lang: str, level: str
) -> None:
    table = advanced([level], ["ten_vs_six"])  # ten words for the spinner: two pages
    table.act("bob", do="draw", level=True)
    table.act("bob", do="spin", letter="M")
    view = table.view("bob")
    base_title = t("topstop.modal.title", lang, letter="M")
    base_hint = t(BASE_HINT, lang, letter="M")
    for page in (1, 2):
        form = writing_form(7, view, "bob", lang, page)
        assert 0 < len(form.title) <= 45 and f"({page}/2)" in form.title
        # The title names the Level's rule, not only the letter.
        assert form.title != t("topstop.modal.title_page", lang, title=base_title, page=page, pages=2)
        for child in form.children:
            assert child.placeholder != base_hint  # type: ignore[attr-defined]
            assert len(child.placeholder or "") <= 100  # type: ignore[attr-defined]
        labels = [row["components"][0]["label"] for row in form.to_dict()["components"]]
        assert all(0 < len(label) <= 45 for label in labels)


def test_item13_the_german_level_v_form_says_without_the_letter_in_its_title_too() -> None:
    table = advanced(["V"], ["mabrouk_3"])
    table.act("bob", do="draw", level=True)
    table.act("bob", do="spin", letter="C")
    form = writing_form(7, table.view("ann"), "ann", "de")
    assert form.title == "Deine Wörter ohne C"
    assert "mit C" not in form.title
    assert form.children[0].placeholder == "ein Wort ohne C"  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_item15_the_first_spins_lines_read_alike_a_letter_spun_as_a_player_awaited(lang: str) -> None:
    table = Table(["ann", "bob", "cat"], first_spin=True)
    table.act("ann", do="spin", letter="T")
    drawn = table.cog.drawing(lang).first_spin_embed(table.record, table.view()).description or ""
    spun = t("topstop.table.spun", lang, name="Ann", letter="T")
    waiting = t("topstop.table.waiting", lang, name="Cat")
    assert spun in drawn.splitlines() and waiting in drawn.splitlines()
    # The name and its colon are spaced alike in both lines (French: a non-breaking space before it).
    after_name = spun[len("Ann") :].split("**")[0]
    assert waiting[len("Cat") :].startswith(after_name)
    assert after_name == ("\u00a0: " if lang == "fr" else ": ")
