"""Top Drop's table and console drawn without Discord: the table never shows a card of a hand (only the pile,
the direction, the middle and the card counts); the console shows only its owner's cards, with those the rules
do not allow now disabled, the action cards usable first, the turn chosen so far and Play; the hints; the
result and the rating announced; the pile's picture a PNG of the public view."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from bot.engine.game import step
from bot.games import make_game
from bot.games.topdrop.cards import COLOUR_OF, HINTS, NUMBERS
from bot.i18n import t
from bot.render.topdrop_cards import render_pile
from bot.ui import codec
from cogs.topdrop import table
from cogs.topdrop.table import Pick

A, B, C = "ann", "bob", "cat"
SESSION = 7
SPECS = {
    spec.action: spec
    for spec in (
        table.BEGIN,
        table.CHOOSE,
        table.BALLOT,
        table.PICK,
        table.USE,
        table.BACK,
        table.PLAY,
        table.HINT,
    )
}
# The pile's top is 20, UP; the other cards not in hands are on the pile or in the draw pile.
HANDS = {A: [25, 31, 9, 14], B: [33, 44, 56, 59], C: [35, 47, 52, 57]}


def names(player: str) -> str:
    return player.title()


@pytest.fixture
def game() -> Any:
    return make_game("topdrop", None)


def dealt(game: Any, **setup: Any) -> Any:
    held = {card for cards in HANDS.values() for card in cards}
    rest = [card for card in NUMBERS if card not in held and card != 20]
    setup = {"hands": HANDS, "deck": rest[:6], "pile": [*rest[6:], 20], **setup}
    return game.new_game(game.validate_options({}), [A, B, C], setup, random.Random(0))


def started(game: Any, **setup: Any) -> Any:
    return dealt(game, first_player=A, **setup)


def buttons(items: list[Any]) -> list[tuple[str, dict[str, Any], str, bool]]:
    """(action, arguments, label, disabled) of each button (and select) of ours."""
    out = []
    for item in items:
        parsed = codec.parse(item.item.custom_id)
        out.append(
            (
                parsed.action,
                SPECS[parsed.action].decode(parsed.arg),
                getattr(item.item, "label", None) or "",
                bool(getattr(item.item, "disabled", False)),
            )
        )
    return out


def embed_text(embed: Any) -> str:
    data = embed.to_dict()
    parts = [data.get("title", ""), data.get("description", ""), data.get("footer", {}).get("text", "")]
    for item in data.get("fields", []):
        parts += [item["name"], item["value"]]
    return "\n".join(parts)


def hand_cards_shown(text: str, cards: list[int]) -> list[int]:
    return [card for card in cards if table.card_text({"card": card, "colour": _colour(card)}) in text]


def _colour(card: int) -> str:
    return COLOUR_OF[card]


def test_the_table_never_shows_a_card_of_a_hand_only_the_counts(game: Any) -> None:
    state = started(game)
    _, applied = step(game, state, 1, 0, {"do": "turn", "player": A, "turn": 1, "cards": [25, 31]})
    for current, events in ((state, []), (applied.state, applied.events)):
        view = game.view_for(current, None)
        for lang in ("en", "fr", "de"):
            embed = table.table_embed(view, events, lang, names, {})
            text = embed_text(embed)
            held = [card for cards in current.hands.values() for card in cards]
            assert hand_cards_shown(text, held) == []
            assert all(str(len(current.hands[p])) in text for p in (A, B, C))
            labels = " ".join(
                label for *_, label, _ in buttons(table.table_items(SESSION, view, lang, names))
            )
            assert hand_cards_shown(labels, held) == []
    text = embed_text(table.table_embed(game.view_for(applied.state, None), applied.events, "en", names, {}))
    assert "**Ann** placed **🟪25** **🟦31**." in text
    assert "Top card: **🟦31** (blue)" in text and "Skip ×3 · Flip ×3 · Color ×3 · Wild card ×4" in text


def test_the_console_shows_only_its_owners_cards_and_disables_those_the_rules_do_not_allow(game: Any) -> None:
    state = started(game)
    view = game.view_for(state, A)  # the pile is at 20, UP: 25 and 31 follow; 9 and 14 only after a Flip
    console = table.console(SESSION, view, "en", names, None)
    text = embed_text(console.embed)
    assert hand_cards_shown(text, HANDS[A]) == HANDS[A]
    assert hand_cards_shown(text, HANDS[B] + HANDS[C]) == []
    cards = {
        args["card"]: disabled for action, args, _, disabled in buttons(console.items) if action == "pick"
    }
    assert cards == {9: True, 14: True, 25: False, 31: False}
    used = [args["action"] for action, args, _, _ in buttons(console.items) if action == "use"]
    assert used == ["skip", "flip"]  # Color: no card of the top card's colour (20 is red)

    # Off turn: Bob's cards are all disabled, and no action is offered.
    his = table.console(SESSION, game.view_for(state, B), "en", names, None)
    assert hand_cards_shown(embed_text(his.embed), HANDS[A] + HANDS[C]) == []
    assert [(action, disabled) for action, _, _, disabled in buttons(his.items) if action != "hint"] == [
        ("pick", True)
    ] * 4
    assert "It is **Ann**'s turn." in embed_text(his.embed)


def test_a_flip_enables_the_cards_that_follow_the_other_way_and_play_carries_the_whole_turn(
    game: Any,
) -> None:
    state = started(game)
    view = game.view_for(state, A)
    flip = table.console(SESSION, view, "en", names, Pick(1, "flip"))
    enabled = [
        args["card"] for action, args, _, disabled in buttons(flip.items) if action == "pick" and not disabled
    ]
    assert enabled == [9, 14]  # DOWN from 20
    first = table.console(SESSION, view, "en", names, Pick(1, "flip", (14,)))
    enabled = [
        args["card"]
        for action, args, _, disabled in buttons(first.items)
        if action == "pick" and not disabled
    ]
    assert enabled == [9]
    assert [label for action, _, label, _ in buttons(first.items) if action in ("play", "back")] == [
        "Play 14",
        "Back",
    ]
    both = table.console(SESSION, view, "en", names, Pick(1, "flip", (14, 9)))
    [(_, args, label, _)] = [b for b in buttons(both.items) if b[0] == "play"]
    assert label == "Play 14, then 9"
    action = table.turn_action(args)
    assert action == {"do": "turn", "turn": 1, "action": "flip", "cards": [14, 9]}
    _, applied = step(game, state, 1, 0, {**action, "player": A})
    assert applied.state.pile[-2:] == [14, 9] and applied.state.direction == "down"


def test_an_action_card_without_its_own_card_left_is_played_as_a_wild_card(game: Any) -> None:
    state = started(game, action_cards={"skip": 0})
    view = game.view_for(state, A)
    console = table.console(SESSION, view, "en", names, None)
    labels = [label for action, _, label, _ in buttons(console.items) if action == "use"]
    assert labels == ["Skip (wild card)", "Flip"]
    skip = table.console(SESSION, view, "en", names, Pick(1, "skip"))
    [(_, args, label, _)] = [b for b in buttons(skip.items) if b[0] == "play"]
    assert table.turn_action(args) == {"do": "turn", "turn": 1, "action": "skip", "wild": True, "cards": []}


def test_a_pick_from_an_older_turn_is_forgotten(game: Any) -> None:
    view = game.view_for(started(game), A)
    console = table.console(SESSION, view, "en", names, Pick(0, "flip", (14,)))
    assert [b[0] for b in buttons(console.items) if b[0] in ("play", "back")] == []
    assert "Your turn:" in embed_text(console.embed)


def test_hints_are_buttons_of_the_rulebooks_phrases_given_once_a_turn_and_shown_on_the_table(
    game: Any,
) -> None:
    state = started(game)
    console = table.console(SESSION, game.view_for(state, B), "fr", names, None)
    hints = [
        (args["phrase"], label, disabled)
        for action, args, label, disabled in buttons(console.items)
        if action == "hint"
    ]
    assert hints == [(phrase, t(key, "fr"), False) for phrase, key in HINTS.items()]
    _, applied = step(game, state, 1, 0, {"do": "hint", "player": B, "turn": 1, "phrase": "only_low_cards"})
    after = table.console(SESSION, game.view_for(applied.state, B), "fr", names, None)
    assert all(disabled for action, _, _, disabled in buttons(after.items) if action == "hint")
    text = embed_text(table.table_embed(game.view_for(applied.state, None), applied.events, "en", names, {}))
    assert "💬 **Bob**: “I only have low cards.”" in text


def test_the_opening_offers_start_and_a_menu_of_who_starts_and_which_way(game: Any) -> None:
    view = game.view_for(dealt(game), None)
    items = buttons(table.table_items(SESSION, view, "en", names))
    assert [(action, args) for action, args, _, _ in items] == [
        ("begin", {"turn": 0}),
        ("choose", {"turn": 0}),
    ]
    menu = table.table_items(SESSION, view, "en", names)[1].item
    assert [option.value for option in menu.options] == [
        f"{p}-{d}" for p in (A, B, C) for d in ("up", "down")
    ]
    assert menu.options[3].label == "Bob starts · DOWN"


def test_the_wait_vote_offers_its_ballots_and_shows_its_count(game: Any) -> None:
    state = started(game)
    for action in ({"do": "remind", "turn": 1}, {"do": "ask_wait", "turn": 1}):
        _, applied = step(game, state, 1, 0, action)
        state = applied.state
    view = game.view_for(state, None)
    items = buttons(table.table_items(SESSION, view, "en", names))
    assert [(action, args["wait"], label) for action, args, label, _ in items] == [
        ("ballot", "yes", "Wait"),
        ("ballot", "no", "Don't wait"),
    ]
    text = embed_text(table.table_embed(view, applied.events, "en", names, {"vote": 1000.0}))
    assert "Wait for **Ann**? The others vote" in text and "Wait: 0 · Don't wait: 0 · voters: 2" in text


def test_the_result_and_the_rating_are_announced(game: Any) -> None:
    state = started(game)
    for action in (
        {"do": "remind", "turn": 1},
        {"do": "ask_wait", "turn": 1},
        {"do": "vote", "player": B, "vote": 1, "wait": False},
        {"do": "vote", "player": C, "vote": 1, "wait": False},
    ):
        _, applied = step(game, state, 1, 0, action)
        state = applied.state
    view = game.view_for(state, None)
    text = embed_text(table.table_embed(view, applied.events, "en", names, {}))
    assert "Top Drop — game over" in text
    assert "The team did not wait for **Ann**: the game is lost by abandonment." in text
    assert (
        t("topdrop.rating.keep_trying", "en") in text and table.table_items(SESSION, view, "en", names) == []
    )


def test_a_defeat_by_a_player_who_cannot_play_is_told_once(game: Any) -> None:
    """Ann places 50 on 40 UP; Bob holds 10 to 13 and no action or wild card is left."""
    held = [50, 51, 52, 53, 10, 11, 12, 13]
    setup = {
        "first_player": A,
        "hands": {A: held[:4], B: held[4:]},
        "pile": [40],
        "deck": [card for card in NUMBERS if card not in held and card != 40],
        "action_cards": {"skip": 0, "flip": 0, "color": 0},
        "wild_cards": 0,
    }
    state = game.new_game(game.validate_options({}), [A, B], setup, random.Random(0))
    _, applied = step(game, state, 1, 0, {"do": "turn", "player": A, "turn": 1, "cards": [50]})
    view = game.view_for(applied.state, None)
    for events in (applied.events, []):  # the redraw of the action, and any later one
        told = table.table_embed(view, events, "en", names, {}).description or ""
        assert told.count("**Bob**") == 1, told
        assert "**Bob** could not place any card on the pile." in told


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_a_solo_games_end_speaks_to_its_one_player(game: Any, lang: str) -> None:
    """No team, no hands, no communication: Ann alone places 41 on 40 UP, draws 1 and is stuck; alone
    again, she places the last two cards and wins."""
    team = {"en": r"\bteam\b|hands|communicat", "fr": r"équipe|mains|communiquer", "de": r"Team|\bihr\b"}
    stuck = {
        "first_player": A,
        "hands": {A: [41, 10, 11, 12]},
        "pile": [40],
        "deck": [card for card in NUMBERS if card not in (41, 10, 11, 12, 40)],
        "action_cards": {"skip": 0, "flip": 0, "color": 0},
        "wild_cards": 0,
    }
    won = {"first_player": A, "hands": {A: [59, 60]}, "pile": list(range(1, 59)), "deck": []}
    for setup, turn, said in ((stuck, [41], "keep_trying_solo"), (won, [59, 60], "top_tier_solo")):
        state = game.new_game(game.validate_options({}), [A], setup, random.Random(0))
        _, applied = step(game, state, 1, 0, {"do": "turn", "player": A, "turn": 1, "cards": turn})
        view = game.view_for(applied.state, None)
        told = table.table_embed(view, applied.events, lang, names, {}).description or ""
        assert t(f"topdrop.rating.{said}", lang) in told
        assert re.search(team[lang], told) is None, told
    assert t("topdrop.table.won_solo", lang) in told
    # She leaves: the game is lost, and the table says she left (nobody else to have been stuck).
    state = game.new_game(game.validate_options({}), [A], {"first_player": A}, random.Random(0))
    _, applied = step(game, state, 1, 0, {"do": "leave", "player": A})
    told = table.table_embed(game.view_for(applied.state, None), [], lang, names, {}).description or ""
    assert t("topdrop.table.end.left", lang, name="Ann") in told and "—" not in told


def test_the_pile_picture_is_a_png_of_the_public_pile() -> None:
    png = render_pile([{"card": 3, "colour": "red"}, {"card": 22, "colour": "purple"}], "down")
    assert png.startswith(b"\x89PNG") and render_pile([], "up").startswith(b"\x89PNG")


def test_a_cards_button_carries_the_turn_chosen_so_far_so_a_restart_between_presses_loses_nothing(
    game: Any,
) -> None:
    state = started(game)
    view = game.view_for(state, A)
    first = table.console(SESSION, view, "en", names, Pick(1, "flip", (14,)))
    [nine] = [args for action, args, _, _ in buttons(first.items) if action == "pick" and args["card"] == 9]
    assert table.pick_so_far(nine) == Pick(1, "flip", (14,))
    fresh = table.console(SESSION, view, "en", names, None)
    [nine] = [args for action, args, _, _ in buttons(fresh.items) if action == "pick" and args["card"] == 9]
    assert table.pick_so_far(nine) is None  # nothing chosen yet: the press starts the turn's choice
    plain = table.console(SESSION, view, "en", names, Pick(1))
    [nine] = [args for action, args, _, _ in buttons(plain.items) if action == "pick" and args["card"] == 9]
    assert table.pick_so_far(nine) == Pick(1)
