"""The advanced game's table without Discord, from real rules states: The Draw's and a choice's buttons, the
Level in force and the cards played in every language, a face-down card never on the table, the private
prompts, `/topstop cards`, and the writing form's pages and Level X labels."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from bot.games.topstop.cards import CARD_TEXTS, LEVEL_TEXTS
from bot.i18n import LANGUAGES, t
from bot.ui import components
from cogs.topstop import cards
from cogs.topstop.table import words_modal

from .test_topstop_cog import Table, dispute_for_the_largest_review, embed_text, field, within_limits

PLAYERS = ["ann", "bob", "cat"]


@pytest.fixture(autouse=True)
def _forget_handlers() -> Iterator[None]:
    yield
    components.unregister_game("topstop")


def advanced(level_deck: list[str], ba_oossee_deck: list[str], **options: Any) -> Table:
    """An advanced game with the decks' top cards forced; round one is played (no cards) and scored."""
    table = Table(PLAYERS, mode="advanced", **options)
    setup = {"first_player": "ann", "level_deck": level_deck, "ba_oossee_deck": ba_oossee_deck}
    table.state = table.rules.new_game(table.record.options, PLAYERS, setup, random.Random(1))
    table.act("ann", do="spin", letter="P")
    table.write({"ann": ["pear"], "bob": ["plum"]})
    table.act(None, do="end_writing")
    table.act(None, do="end_round")
    assert table.view()["phase"] == "draw" and table.view()["round"]["spinner"] == "bob"
    return table


def drawn_in(table: Table, lang: str) -> str:
    return embed_text(table.cog.drawing(lang).table_embed(table.record, table.view()))


def labels_in(table: Table, lang: str) -> list[str]:
    items = table.cog.drawing(lang).table_items(table.record, table.view())
    return [getattr(getattr(item, "item", item), "label", "") for item in items]


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_the_draw_waits_for_the_spinner_and_the_card_played_is_shown_in_the_tables_language(
    lang: str,
) -> None:
    table = advanced(["III"], ["steal_3"])
    assert labels_in(table, lang) == [t("topstop.cards.button.draw", lang, player="Bob")]
    assert t("topstop.cards.no_level", lang) in drawn_in(table, lang)

    table.act("bob", do="draw", level=True)
    shown = drawn_in(table, lang)
    # The Level card lies face down until the Ba Oossee card's choice is made: not on the table.
    assert t(LEVEL_TEXTS["III"], lang) not in shown and "III" not in shown
    assert t("topstop.cards.awaiting", lang, player="Bob", name=t("topstop.card_name.steal_3", lang)) in shown
    assert labels_in(table, lang) == [t("topstop.cards.button.choose", lang, player="Bob")]

    table.act("bob", do="choose", target="ann")
    embed = table.cog.drawing(lang).table_embed(table.record, table.view())
    within_limits(embed)
    played = field(embed, t("topstop.cards.title", lang))
    assert t(LEVEL_TEXTS["III"], lang) in played and t(CARD_TEXTS["steal_3"], lang) in played
    assert "→ Ann" in played and "Bob +" in played
    if lang != "en":  # nothing of the English card texts is left
        assert t(CARD_TEXTS["steal_3"], "en") not in played and t(LEVEL_TEXTS["III"], "en") not in played
    assert "Bob · 🃏 1" in field(embed, t("topstop.table.scores", lang))
    assert labels_in(table, lang) == [t("topstop.button.spin", lang)]


async def test_the_choice_prompts_offer_the_cards_options() -> None:
    table = advanced([], ["steal_3"])
    text, items = cards.draw_prompt(7, table.view("bob"), "en")
    assert "FAQ 6" in text and [i.item.label for i in items] == [  # type: ignore[attr-defined]
        "Draw a Level card, then Ba Oossee",
        "Only the Ba Oossee card",
    ]
    table.act("bob", do="draw", level=False)
    text, [menu] = cards.choice_prompt(table.record, 7, table.view("bob"), "de")
    assert "Stiehl 3" in text
    select = menu.item  # type: ignore[attr-defined]
    assert [(o.label, o.value) for o in select.options] == [("Ann", "ann"), ("Cat", "cat")]
    assert select.custom_id == "topstop:7:choose:2.1.target"


async def test_the_shuffle_asks_yes_or_no_and_a_peek_is_told_privately() -> None:
    table = advanced([], ["shuffle", "mabrouk_5"])
    table.act("bob", do="draw", level=False)
    _, buttons = cards.choice_prompt(table.record, 7, table.view("bob"), "fr")
    assert [b.item.label for b in buttons] == ["Regarder d'abord la carte du dessus", "Mélanger seulement"]  # type: ignore[attr-defined]
    news = cards.private_news([{"type": "peeked", "card": "mabrouk_5"}], table.record, "en")
    assert news == ["👀 The top Ba Oossee card was **Mabrouk 5**; now the deck is shuffled."]


async def test_my_cards_shows_ones_own_level_cards_and_a_face_down_card() -> None:
    table = advanced(["II", "VI"], ["forced_level"])
    table.act("bob", do="draw", level=True)  # II face down, then the forced Level card: VI plays (FAQ 7)
    mine = cards.my_cards(table.view("bob"), "bob", "en")
    assert "Your Level cards (only you see this): Level II, Level VI" in mine
    assert "Level VI** in force" in mine
    assert "no Level card yet" in cards.my_cards(table.view("ann"), "ann", "en")
    assert "Bob · 🃏 2" in drawn_in(table, "en")


async def test_ten_words_make_two_pages_and_level_x_labels_each_slot() -> None:
    Table(PLAYERS)  # the cog registers its forms
    first = words_modal(7, "A", 10, ["apple"], 2, "en", page=1, level="X", respins=0)
    second = words_modal(
        7, "A", 10, ["apple", "", "", "", "", "sixth"], 2, "en", page=2, level="X", respins=0
    )
    assert first.title == "Your staircase of A (1/2)" and second.title == "Your staircase of A (2/2)"
    assert [i.custom_id for i in first.children] == [f"word{n}" for n in range(1, 6)]  # type: ignore[attr-defined]
    assert [i.custom_id for i in second.children] == [f"word{n}" for n in range(6, 11)]  # type: ignore[attr-defined]
    labels = [row["components"][0]["label"] for row in first.to_dict()["components"]]
    assert labels[:2] == ["Word 1: A as letter 1", "Word 2: A as letter 2"]
    assert second.children[0].default == "sixth"  # type: ignore[attr-defined]
    assert first.custom_id == "topstop:7:words:2.0.1" and second.custom_id == "topstop:7:words:2.0.2"
    six = words_modal(7, "E", 5, [], 2, "fr", level="VI", respins=0)
    assert six.custom_id == "topstop:7:words:2.0" and six.title == "Vos mots finissant par E"
    assert six.children[0].placeholder == "un mot finissant par E"  # type: ignore[attr-defined]


async def test_twelve_players_of_the_advanced_game_fit_discords_limits_with_the_cards_field() -> None:
    players = [f"player{i:02d}" for i in range(12)]
    names = {p: f"{'W' * 28}{i:04d}" for i, p in enumerate(players)}
    table = Table(players, names=names, mode="advanced")
    table.act(players[0], do="spin", letter="P")
    table.write({p: [f"p{i}{j}*_~`|" + "*" * 30 for j in range(5)] for i, p in enumerate(players)})
    table.act(None, do="end_writing")
    dispute_for_the_largest_review(table, players)
    embed = table.embed()  # the largest review there is, and the Level in force below it
    within_limits(embed)
    assert t("topstop.cards.no_level", "en") in field(embed, "🃏 Cards")
