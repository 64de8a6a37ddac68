"""Topple's table drawn without Discord: Roll while a roll is awaited, then a 5×5 grid whose allowed squares
are pressable with the rules' risks; the private prompt shows a square's risk and points from the view's
`choices` (both colours with two players); placements, topples and bonuses are announced; the picture is a
PNG of the public view."""

from __future__ import annotations

import random
from typing import Any

import pytest
from PIL import ImageDraw

from bot.engine.game import step
from bot.games import make_game
from bot.i18n import t
from bot.render.topple_board import render_board
from bot.ui import codec
from cogs.topple import table

A, B, C = "ann", "bob", "cat"
SESSION = 7


def names(player: str) -> str:
    return player.title()


@pytest.fixture
def game() -> Any:
    return make_game("topple", None)


def started(game: Any, players: list[str], **setup: Any) -> Any:
    return game.new_game(
        game.validate_options({}), players, {"first_player": players[0], **setup}, random.Random(0)
    )


def rolled(game: Any, state: Any, roll: int) -> Any:
    _, applied = step(game, state, 1, 0, {"do": "roll", "player": state.current, "roll": roll})
    return applied.state


def actions(items: list[Any]) -> list[tuple[str, dict[str, Any], str, bool]]:
    """(action, arguments, label, disabled) of each button."""
    out = []
    for item in items:
        parsed = codec.parse(item.item.custom_id)
        spec = {"roll": table.ROLL, "square": table.SQUARE, "place": table.PLACE}[parsed.action]
        out.append((parsed.action, spec.decode(parsed.arg), item.item.label, item.item.disabled))
    return out


def test_the_roll_off_and_a_turn_start_offer_roll_alone(game: Any) -> None:
    opening = game.new_game(game.validate_options({}), [A, B], {}, random.Random(0))
    for state in (opening, started(game, [A, B])):
        view = game.view_for(state, None)
        [(action, args, label, disabled)] = actions(table.table_items(SESSION, view, "fr"))
        assert (action, args, label, disabled) == (
            "roll",
            view["freshness"],
            t("topple.button.roll", "fr"),
            False,
        )


def test_once_rolled_the_grid_fills_25_buttons_and_only_the_allowed_squares_are_pressable(game: Any) -> None:
    state = rolled(game, started(game, [A, B, C]), 2)  # level 2: the four squares next to the centre
    view = game.view_for(state, None)
    buttons = actions(table.table_items(SESSION, view, "en"))
    assert len(buttons) == 25 and {action for action, *_ in buttons} == {"square"}
    pressable = [(args["row"], args["col"]) for _, args, _, disabled in buttons if not disabled]
    assert sorted(pressable) == [(1, 2), (2, 1), (2, 3), (3, 2)]
    risks = {tuple(c["square"]): c["risk"] for c in view["choices"]}
    labels = {(args["row"], args["col"]): label for _, args, label, _ in buttons}
    assert labels[(1, 2)] == f"C2 · {table.percent(risks[(1, 2)], 'en')}%" and labels[(0, 0)] == "A1"
    rows = [item.item.row for item in table.table_items(SESSION, view, "en")]
    assert rows == [row for row in range(5) for _ in range(5)]


def test_the_prompt_shows_the_views_risk_and_points_and_places_the_one_colour(game: Any) -> None:
    board = [[[] for _ in range(5)] for _ in range(5)]
    board[2] = [["red"], ["red"], [], ["yellow"], ["green"]]  # C3 completes row 3
    state = rolled(game, started(game, [A, B, C], board=board), 1)
    view = game.view_for(state, A)
    [choice] = view["choices"]
    text, items = table.confirm_prompt(SESSION, view, 2, 2, "en")
    assert f"{table.percent(choice['risk'], 'en')}%" in text and choice["points"] == {"red": 6}
    assert "you would score **6**" in text
    assert actions(items) == [("place", {"turn": view["turn"], "row": 2, "col": 2}, "Place on C3", False)]


def test_with_two_players_the_prompt_offers_each_colour_with_its_points(game: Any) -> None:
    state = rolled(game, started(game, [A, B]), 6)
    view = game.view_for(state, A)
    text, items = table.confirm_prompt(SESSION, view, 0, 0, "de")
    placed = actions(items)
    assert [args.get("colour") for _, args, _, _ in placed] == ["red", "yellow"]
    assert "Rot" in text and "Gelb" in text


def test_a_placement_and_a_topple_are_announced_with_points_and_bonus(game: Any) -> None:
    state = rolled(game, started(game, [A, B, C]), 1)
    _, first = step(
        game, state, 1, 0, {"do": "place", "player": A, "turn": state.turn, "square": [2, 2], "topple": False}
    )
    lines = table.event_lines(first.events, "en", names, young=False)
    assert "**Ann** placed 🔴 red on **C3**: **0**." in lines
    state = rolled(game, first.state, 6)
    _, toppled = step(
        game, state, 1, 0, {"do": "place", "player": B, "turn": state.turn, "square": [0, 0], "topple": True}
    )
    lines = table.event_lines(toppled.events, "en", names, young=False)
    assert "💥 **Bob** toppled the board on **A1**: **−10**." in lines
    assert "**Ann**, who placed just before, scores **+3**." in lines
    assert "Round 1 ends with the topple." in lines


def test_the_table_shows_scores_tilt_and_at_the_end_the_winners(game: Any) -> None:
    state = rolled(game, started(game, [A, B, C]), 6)
    _, placed = step(
        game, state, 1, 0, {"do": "place", "player": A, "turn": state.turn, "square": [0, 4], "topple": False}
    )
    embed = table.table_embed(game.view_for(placed.state, None), [], "fr", names, None)
    assert t("topple.table.tilt", "fr", amount="2,83", towards=t("topple.compass.ne", "fr")) in (
        embed.description or ""
    )
    assert "**Ann**\u00a0: **0** · 11 pièces restantes" in embed.fields[0].value
    _, ended = step(game, placed.state, 1, 0, {"do": "end", "by": "host"})
    final = table.table_embed(game.view_for(ended.state, None), [], "en", names, None)
    assert final.title == "Topple — game over" and "🏆 **Ann**, **Bob**, **Cat** won." in (
        final.description or ""
    )
    assert table.table_items(SESSION, game.view_for(ended.state, None), "en") == []


def placed(game: Any, state: Any, roll: int, square: list[int], topple: bool) -> Any:
    state = rolled(game, state, roll)
    action = {"do": "place", "player": state.current, "turn": state.turn, "square": square, "topple": topple}
    _, applied = step(game, state, 1, 0, action)
    return applied.state


def final_description(game: Any, state: Any, lang: str) -> str:
    return table.table_embed(game.view_for(state, None), [], lang, names, None).description or ""


def test_the_final_table_says_the_target_was_reached_at_the_end_of_the_round(game: Any) -> None:
    """A target of 1: Ann places safely, Bob topples; Ann's +3 bonus reaches it as the round ends."""
    options = game.validate_options({"target": 1})
    start = game.new_game(options, [A, B, C], {"first_player": A}, random.Random(0))
    state = placed(game, placed(game, start, 1, [2, 2], False), 6, [0, 0], True)
    assert state.end_reason == "target_reached"
    description = final_description(game, state, "en")
    assert "The game ends with round 1: a score reached the target of 1.\n🏆 **Ann** won." in description


@pytest.mark.parametrize(("by", "key"), [("host", "ended_by_host"), ("vote", "ended_by_vote")])
def test_the_final_table_says_the_game_was_ended_early_and_by_whom(game: Any, by: str, key: str) -> None:
    _, ended = step(game, started(game, [A, B, C]), 1, 0, {"do": "end", "by": by})
    for lang in ("en", "fr", "de"):
        assert t(f"topple.table.end.{key}", lang) in final_description(game, ended.state, lang)


def test_the_young_versions_final_table_says_one_player_is_left(game: Any) -> None:
    options = game.validate_options({"variant": "young"})
    start = game.new_game(options, [A, B, C], {"first_player": A}, random.Random(0))
    state = placed(game, start, 6, [0, 0], True)  # Ann topples: out; Bob and Cat play on
    assert state.phase != "over" and final_description(game, state, "en").count("game ends") == 0
    state = placed(game, state, 6, [4, 4], True)  # Bob topples too: Cat is the last player left
    assert "The game ends: only one player is left in it.\n🏆 **Cat** won." in final_description(
        game, state, "en"
    )


def test_the_board_picture_is_a_png_of_the_public_view(game: Any) -> None:
    state = rolled(game, started(game, [A, B, C]), 6)
    png = render_board(game.view_for(state, None), "en")
    assert png.startswith(b"\x89PNG") and len(png) > 1000


@pytest.mark.parametrize(("lang", "figure"), [("en", "10.30"), ("fr", "10,30"), ("de", "10,30")])
def test_the_picture_writes_the_tilt_as_the_tables_text_does(
    game: Any, monkeypatch: pytest.MonkeyPatch, lang: str, figure: str
) -> None:
    view = game.view_for(started(game, [A, B, C]), None)
    view["tilt"] = {"east": 3, "south": -3, "amount": 10.3, "towards": "ne"}
    drawn: list[str] = []
    write = ImageDraw.ImageDraw.text

    def text(self: ImageDraw.ImageDraw, xy: Any, text: str, *args: Any, **kwargs: Any) -> None:
        drawn.append(text)
        write(self, xy, text, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", text)
    render_board(view, lang)
    assert figure in drawn and f"**{figure}**" in table.tilt_text(view, lang)


@pytest.mark.parametrize(
    ("lang", "empty", "stack"),
    [
        ("en", "**A1**: level 5, empty.", "**B1**: level 4, a stack of 2."),
        ("fr", "**A1**\u00a0: niveau 5, case vide.", "**B1**\u00a0: niveau 4, une pile de 2."),
        ("de", "**A1**: Ebene 5, leeres Feld.", "**B1**: Ebene 4, ein Stapel von 2."),
    ],
)
def test_the_prompt_says_an_empty_square_is_empty(game: Any, lang: str, empty: str, stack: str) -> None:
    board = [[[] for _ in range(5)] for _ in range(5)]
    board[0][1] = ["red", "yellow"]
    view = game.view_for(rolled(game, started(game, [A, B, C], board=board), 6), A)
    assert table.confirm_prompt(SESSION, view, 0, 0, lang)[0].splitlines()[0] == empty
    assert table.confirm_prompt(SESSION, view, 0, 1, lang)[0].splitlines()[0] == stack


def test_the_table_says_a_roll_once_and_only_on_its_own_turn(game: Any) -> None:
    """Turn by turn: the roll in the prompt while it stands, once; gone once its piece is placed, also when
    the roll and the placement share one redraw or the timer played the turn."""
    state = started(game, [A, B, C])
    descriptions = []

    def act(action: dict[str, Any], shown: list[Any]) -> list[Any]:
        nonlocal state
        _, applied = step(game, state, 1, 0, {**action, "turn": state.turn})
        state = applied.state
        events = [*shown, *applied.events]
        descriptions.append(
            table.table_embed(game.view_for(state, None), events, "en", names, None).description
        )
        return events

    act({"do": "roll", "player": A, "roll": 2}, [])
    act({"do": "place", "player": A, "square": [1, 2], "topple": False}, [])
    roll = act({"do": "roll", "player": B, "roll": 6}, [])
    act({"do": "place", "player": B, "square": [0, 0], "topple": False}, roll)  # one redraw for both
    act({"do": "timeout", "roll": 3, "topple": False}, [])
    assert [(d or "").count("rolled **") for d in descriptions] == [1, 0, 1, 0, 0]
    assert "**Ann** rolled **2**: pick a square below" in (descriptions[0] or "")
