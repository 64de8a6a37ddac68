"""Skeleton's table drawn without Discord: buttons only for what the rules offer, each carrying its turn; the
hand drawn only from the player's own view; every text in the table's language."""

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
def drawn() -> tuple[Any, Any, str]:
    """Ann (first) has drawn a card: her view holds it, the table does not."""
    game = make_game("skeleton", None)
    state = game.new_game({}, [A, B], {"first_player": A}, random.Random(0))
    complete, applied = step(game, state, 1, 0, {"do": "draw", "player": A})
    return game, applied.state, complete["card"]


def labels(items: list[Any]) -> list[str]:
    return [item.item.label for item in items]


def test_the_table_offers_the_rules_actions_with_their_turn(drawn: tuple[Any, Any, str]) -> None:
    game, state, _ = drawn
    items = table.table_items(SESSION, game.view_for(state, None), "fr")
    assert labels(items) == [t("skeleton.button.play", "fr"), t("skeleton.button.pass", "fr")]
    parsed = codec.parse(items[0].item.custom_id)
    assert (parsed.game, parsed.session_id, parsed.action) == ("skeleton", SESSION, "show_hand")
    assert table.SHOW_HAND.decode(parsed.arg) == {"turn": 1}


def test_the_table_never_shows_a_hand(drawn: tuple[Any, Any, str]) -> None:
    game, state, card = drawn
    embed = table.table_embed(game.view_for(state, None), [], "en", names, None)
    shown = repr(embed.to_dict())
    assert table.card_text(card) not in shown and card not in shown
    assert "Ann: **0** · 1 in hand" in shown


def test_the_hand_is_drawn_from_the_players_own_view_as_buttons(drawn: tuple[Any, Any, str]) -> None:
    game, state, card = drawn
    mine = game.view_for(state, A)
    assert table.cards_text([card]) in table.hand_text(mine, "de")
    assert t("skeleton.panel.your_turn_play", "de") in table.hand_text(mine, "de")
    [button] = table.card_items(SESSION, mine)
    assert table.PLAY.decode(codec.parse(button.item.custom_id).arg) == {"turn": 1, "card": card}
    assert table.card_items(SESSION, game.view_for(state, B)) == []
