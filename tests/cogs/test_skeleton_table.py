"""Skeleton's table and console drawn without Discord: the table never shows a hand; the console shows the
player's own, with buttons only for what the rules offer them, each carrying its turn; news name the card
the bot drew for an idle player; every text in the reader's language."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.engine.game import step
from bot.games import make_game
from bot.i18n import t
from bot.ui import codec
from cogs.skeleton import table

A, B = "ann", "bob"
SESSION = 42


def names(player: str) -> str:
    return player.title()


@pytest.fixture
def game() -> Any:
    return make_game("skeleton", None)


@pytest.fixture
def drawn(game: Any) -> tuple[Any, str]:
    """Ann (first) has drawn a card: her view holds it, the table does not."""
    state = game.new_game({}, [A, B], {"first_player": A}, random.Random(0))
    complete, applied = step(game, state, 1, 0, {"do": "draw", "player": A})
    return applied.state, complete["card"]


def buttons(console: Any) -> list[tuple[str, str, bool]]:
    """(action, label, disabled) of each button of a console."""
    return [
        (codec.parse(item.item.custom_id).action, item.item.label, item.item.disabled)
        for item in console.items
    ]


def test_the_table_never_shows_a_hand(game: Any, drawn: tuple[Any, str]) -> None:
    state, card = drawn
    embed = table.table_embed(game.view_for(state, None), [], "en", names, None)
    shown = repr(embed.to_dict())
    assert table.card_text(card) not in shown and card not in shown
    assert "Ann: **0** · 1 in hand" in shown


def test_on_turn_the_console_offers_draw_only_before_the_draw(game: Any) -> None:
    state = game.new_game({}, [A, B], {"first_player": A}, random.Random(0))
    console = table.console(SESSION, game.view_for(state, A), "fr", names)
    assert buttons(console) == [("draw", t("skeleton.button.draw", "fr"), False)]
    assert t("skeleton.panel.your_turn_draw", "fr") in (console.embed.description or "")
    parsed = codec.parse(console.items[0].item.custom_id)
    assert parsed.session_id == SESSION and table.DRAW.decode(parsed.arg) == {"turn": 1}


def test_after_the_draw_each_card_is_a_button_that_plays_it_and_pass_follows(
    game: Any, drawn: tuple[Any, str]
) -> None:
    state, card = drawn
    console = table.console(SESSION, game.view_for(state, A), "de", names)
    label = f"{table.card_text(card)} (+{card[0]})"
    assert buttons(console) == [("play", label, False), ("pass", t("skeleton.button.pass", "de"), False)]
    assert table.PLAY.decode(codec.parse(console.items[0].item.custom_id).arg) == {"turn": 1, "card": card}
    description = console.embed.description or ""
    assert table.cards_text([card]) in description and t("skeleton.panel.your_turn_play", "de") in description


def test_off_turn_the_console_shows_the_hand_disabled_and_whose_turn_it_is(game: Any) -> None:
    state = game.new_game({}, [A, B], {"first_player": A}, random.Random(0))
    _, drew = step(game, state, 1, 0, {"do": "draw", "player": A})
    complete, passed = step(game, drew.state, 2, 0, {"do": "pass", "player": A, "turn": 1})
    console = table.console(SESSION, game.view_for(passed.state, A), "en", names)
    [(action, _, disabled)] = buttons(console)
    assert action == "play" and disabled
    assert t("skeleton.console.turn_of", "en", name="Bob") in (console.embed.description or "")


def test_the_console_is_drawn_from_its_owners_view_only(game: Any, drawn: tuple[Any, str]) -> None:
    state, card = drawn
    theirs = table.console(SESSION, game.view_for(state, B), "en", names)
    assert buttons(theirs) == [] and table.card_text(card) not in repr(theirs.embed.to_dict())
    assert t("skeleton.panel.empty", "en") in (theirs.embed.description or "")


def test_news_name_the_card_the_bot_drew_for_an_idle_player() -> None:
    events = [{"type": "card_drawn", "card": "3h"}, {"type": "something_else"}]
    assert table.news_lines(events, "fr") == [t("skeleton.news.drawn_for_you", "fr", card="3♥")]
