"""Toppo's table and consoles drawn without Discord, from the rules' own views: the console offers what the
rules offer the player (Begin to the awaited player, an early Reveal to the others, the line's cards, Top,
Renew and Match once the line is full, the ballot during a vote, 3 / 4 / 5 to the chooser), every button
carries the freshness its action needs, a Top carries the order set card by card, Match offers every card on
every position (no hint), and the table tells tops, penalties, the interruption and the series."""

from __future__ import annotations

import random
from io import BytesIO
from typing import Any

import pytest
from PIL import Image

from bot.engine.errors import StaleAction
from bot.engine.game import step
from bot.games import make_game
from bot.games.toppo.cards import full_sets, shown
from bot.render.toppo_cards import CARD_W, GAP, render_display
from bot.ui import codec
from bot.ui.table import Table
from cogs.toppo import table

A, B = "ann", "bob"
SESSION = 7
DISPLAY = [["red", "circle"], ["yellow", "square"], ["white", "plus"]]
# Ann's first line tops the display only in the order [1, 2, 0]; Bob's first line tops nothing.
ANN = [["white", "h"], ["red", "waves"], ["yellow", "waves"]] + [["blue", "h"]] * 6
BOB = [["green", "h"], ["blue", "waves"], ["green", "circle"]] + [["blue", "plus"], ["green", "square"]] * 6


def names(player: str) -> str:
    return player.title()


@pytest.fixture
def game() -> Any:
    return make_game("toppo", None)


def started(game: Any, **options: Any) -> Any:
    setup = {"first_player": A, "display": DISPLAY, "decks": {A: ANN, B: BOB}}
    return game.new_game(game.validate_options(options), [A, B], setup, random.Random(0))


def act(game: Any, state: Any, player: str | None, **action: Any) -> tuple[Any, list[dict[str, Any]]]:
    """One action through the engine's path; the new state and its public events."""
    full = {**action} if player is None else {**action, "player": player}
    _, applied = step(game, state, 1, 0, full)
    return applied.state, applied.events


def full_lines(game: Any) -> Any:
    state = started(game)
    state, _ = act(game, state, A, do="restart")
    for _ in range(2):
        state, _ = act(game, state, A, do="reveal")
    for _ in range(3):
        state, _ = act(game, state, B, do="reveal")
    return state


def ids(console: Table, action: str) -> list[dict[str, Any]]:
    """The typed arguments of the console's `action` components."""
    found = []
    for item in console.items:
        custom_id = item.to_component_dict()["custom_id"]
        parsed = codec.parse(custom_id)
        if parsed.action == action:
            spec = {
                "reveal": table.REVEAL,
                "restart": table.RESTART,
                "pick": table.PICK,
                "top": table.TOP,
                "match": table.MATCH,
                "renew": table.RENEW,
                "toppo": table.TOPPO,
                "replace": table.REPLACE,
                "ballot": table.BALLOT,
                "choose": table.CHOOSE,
            }[action]
            found.append(spec.decode(parsed.arg))
    return found


def actions(console: Table) -> list[str]:
    return [codec.parse(item.to_component_dict()["custom_id"]).action for item in console.items]


def test_the_awaited_player_is_offered_begin_and_the_others_an_early_reveal(game: Any) -> None:
    state = started(game)
    mine = table.console(SESSION, game.view_for(state, A), "en", names)
    his = table.console(SESSION, game.view_for(state, B), "en", names)
    assert "Everyone waits for you" in (mine.embed.description or "")
    assert actions(mine) == ["restart", "toppo", "replace"]
    assert "Play waits for **Ann** to begin" in (his.embed.description or "")
    assert actions(his) == ["reveal", "toppo", "replace"]


def test_every_button_carries_the_freshness_the_rules_ask_of_it(game: Any) -> None:
    state = full_lines(game)
    view = game.view_for(state, A)
    fresh = view["freshness"]
    console = table.console(SESSION, view, "en", names)
    seen_and_play = {"seen": fresh["seen"], "play": fresh["play"]}
    [top] = ids(console, "top")
    assert {k: top[k] for k in ("seen", "play")} == seen_and_play
    assert ids(console, "renew") == [seen_and_play]
    assert ids(console, "match") == [seen_and_play]
    assert ids(console, "replace") == [seen_and_play]
    assert ids(console, "toppo") == [{}]  # a count of one's own cards, which nobody else changes
    assert [pick["play"] for pick in ids(console, "pick")] == [fresh["play"]] * 3
    before = game.view_for(started(game), B)
    waiting = table.console(SESSION, before, "en", names)
    assert ids(waiting, "reveal") == [{"play": before["freshness"]["play"]}]


def test_a_press_of_a_previous_display_or_stretch_of_play_is_stale(game: Any) -> None:
    """What the buttons carry is what the engine checks: after Ann's top, Bob's Top is refused."""
    state = full_lines(game)
    his = table.console(SESSION, game.view_for(state, B), "en", names)
    [bobs_top] = ids(his, "top")
    state, _ = act(game, state, A, do="top", order=[1, 2, 0])
    with pytest.raises(StaleAction):
        act(game, state, B, do="top", seen=bobs_top["seen"], play=bobs_top["play"], order=[0, 1, 2])


def test_the_top_carries_the_order_set_card_by_card(game: Any) -> None:
    assert table.top_order([], 3) == [0, 1, 2]
    assert table.top_order([1, 2], 3) == [1, 2, 0]
    assert table.toggled([1, 2], 1) == [2] and table.toggled([2], 0) == [2, 0]
    view = game.view_for(full_lines(game), A)
    console = table.console(SESSION, view, "en", names, picks=[1, 2])
    [top] = ids(console, "top")
    assert top["order"] == "120"
    assert "**1** ← 🟥≈ · **2** ← 🟨≈ · **3** ← ⬜H" in (console.embed.description or "")
    # Each card of the line says which display position it goes on.
    labels = [
        item.to_component_dict().get("label")
        for item in console.items
        if ":pick:" in item.to_component_dict()["custom_id"]
    ]
    assert labels == ["H → 3", "≈ → 1", "≈ → 2"]


def test_each_line_card_carries_the_picks_so_far_so_a_restart_between_presses_loses_none(game: Any) -> None:
    view = game.view_for(full_lines(game), A)
    picked = table.console(SESSION, view, "en", names, picks=[1, 2])
    assert [table.picked_so_far(args) for args in ids(picked, "pick")] == [[1, 2]] * 3
    # Nothing picked yet: the buttons carry nothing, and the press starts from no pick.
    fresh = table.console(SESSION, view, "en", names)
    assert [table.picked_so_far(args) for args in ids(fresh, "pick")] == [None] * 3


def test_match_offers_every_card_on_every_position_and_hints_at_nothing(game: Any) -> None:
    view = game.view_for(
        full_lines(game), B
    )  # Bob's line matches nothing: every pair is offered all the same
    console = table.console(SESSION, view, "en", names)
    [select] = [item for item in console.items if ":match:" in item.to_component_dict()["custom_id"]]
    values = [option["value"] for option in select.to_component_dict()["options"]]
    assert values == [f"{card}-{slot}" for card in range(3) for slot in range(3)]
    assert table.parse_match(["2-1"]) == (2, 1)
    assert table.parse_match(["9-1"]) is None and table.parse_match(["1-1", "0-0"]) is None
    assert table.parse_match(["1"]) is None


def test_a_top_stops_play_for_everyone_and_the_table_says_so(game: Any) -> None:
    state = full_lines(game)
    state, events = act(game, state, A, do="top", order=[1, 2, 0])
    view = game.view_for(state, None)
    embed = table.table_embed(view, events, "en", names, {})
    text = embed.description or ""
    assert "**Ann** topped the display: 🟥≈ 🟨≈ ⬜H" in text
    assert "Play stops: every line goes under its deck. **Ann** begins again." in text
    assert "Play waits for **Ann** to begin." in text
    assert "last top: Ann" in (embed.footer.text or "")
    players = embed.fields[1].value or ""
    assert "**Ann** · deck 6 · line — · penalty cards 0" in players
    assert "**Bob** · deck 15 · line —" in players


def test_a_wrong_top_is_announced_with_its_penalty(game: Any) -> None:
    state = full_lines(game)
    state, events = act(game, state, B, do="top", order=[0, 1, 2])
    text = table.table_embed(game.view_for(state, None), events, "en", names, {}).description or ""
    assert "**Bob** topped wrongly: penalty cards +5." in text
    assert "**Bob** begins again." in text
    console = table.console(SESSION, game.view_for(state, B), "en", names)
    assert "Last: **Bob** took 5 penalty cards." in (console.embed.description or "")


def ann_tops_out_the_first_game(game: Any) -> tuple[Any, list[Any]]:
    """A series of two: Ann reveals twice, tops, and calls toppo rightly: the first game is over."""
    state = started(game, games=2)
    state, _ = act(game, state, A, do="restart")
    for _ in range(2):
        state, _ = act(game, state, A, do="reveal")
    state, _ = act(game, state, A, do="top", order=[1, 2, 0])
    return act(game, state, A, do="toppo")


def test_between_games_the_console_says_the_right_toppo_as_a_toppo_not_a_penalty(game: Any) -> None:
    state, _ = ann_tops_out_the_first_game(game)
    for player in (A, B):
        said = table.console(SESSION, game.view_for(state, player), "en", names).embed.description or ""
        assert "Last: **Ann** called toppo rightly." in said
        assert "penalty" not in said


def test_a_penalty_with_no_card_left_to_take_is_said_without_a_count(game: Any) -> None:
    """Every card in a deck or on the display: the stack and the topped cards are empty, so a wrong top
    takes no penalty card, and nothing says "0 penalty cards"."""
    rest = full_sets(1)
    for card in ("red/circle", "yellow/square", "white/plus"):
        rest.remove(card)
    for card in ("white/h", "red/waves", "yellow/waves", "green/h", "blue/waves", "green/circle"):
        rest.remove(card)
    setup = {
        "first_player": A,
        "display": DISPLAY,
        "decks": {A: ANN[:3] + shown(rest[:70]), B: BOB[:3] + shown(rest[70:])},
        "stack": [],
    }
    state = game.new_game(game.validate_options({}), [A, B], setup, random.Random(0))
    state, _ = act(game, state, A, do="restart")
    for _ in range(3):
        state, _ = act(game, state, B, do="reveal")
    state, events = act(game, state, B, do="top", order=[0, 1, 2])
    assert state.penalty_cards[B] == 0
    text = table.table_embed(game.view_for(state, None), events, "en", names, {}).description or ""
    assert "**Bob** topped wrongly: no penalty card is left to take." in text and "+0" not in text
    said = table.console(SESSION, game.view_for(state, B), "en", names).embed.description or ""
    assert "Last: **Bob** was penalised, but no penalty card was left to take." in said
    assert "0 penalty" not in said


def test_the_series_shows_each_game_and_the_running_totals_and_the_chooser_picks_the_size(game: Any) -> None:
    state, events = ann_tops_out_the_first_game(game)
    view = game.view_for(state, None)
    text = table.table_embed(view, events, "en", names, {})
    described = text.description or ""
    assert "**Ann** calls toppo: 6 cards left in deck and line!" in described
    assert "Game 1 is over. Penalty points: Ann **+0** · Bob **+15**" in described
    assert "**Bob** (the highest total) chooses the next display: 3 / 4 cards." in described
    series = text.fields[-1].value or ""
    assert "Game 1 (3 cards, toppo by Ann): Ann 0 · Bob 15" in series and "**Ann** 0 · **Bob** 15" in series
    chooser = table.console(SESSION, game.view_for(state, B), "en", names)
    assert [choice["size"] for choice in ids(chooser, "choose")] == [3, 4]  # two players: never 5
    assert table.console(SESSION, game.view_for(state, A), "en", names).items == []


def test_a_vote_on_the_display_offers_yes_and_no_with_the_vote_it_belongs_to(game: Any) -> None:
    state = started(game)
    state, events = act(game, state, B, do="propose_replace")
    view = game.view_for(state, A)
    console = table.console(SESSION, view, "en", names)
    ballots = ids(console, "ballot")
    assert ballots == [{"vote": 1, "accept": "yes"}, {"vote": 1, "accept": "no"}]
    assert "**Bob** proposes replacing the display: you have not voted." in (console.embed.description or "")
    text = table.table_embed(game.view_for(state, None), events, "en", names, {}).description or ""
    # Announced once, by the table's status, which stays while the vote is open.
    assert text.count("proposes replacing the display") == 1
    assert (
        "**Bob** proposes replacing the display (vote in your console): yes 1, no 0, still to vote 1." in text
    )
    later = table.table_embed(game.view_for(state, None), [], "en", names, {}).description or ""
    assert later.count("proposes replacing the display") == 1
    # Opened and decided between two redraws: the event names the proposer, the result follows.
    state, more = act(game, state, A, do="vote", vote=1, accept=True)
    text = table.table_embed(game.view_for(state, None), events + more, "en", names, {}).description or ""
    assert text.count("proposes replacing the display") == 1
    assert "**Bob** proposes replacing the display: vote in your console." in text
    assert "The display is replaced with new cards (yes 2, no 0)." in text


def test_the_display_picture_is_a_png_with_a_card_per_position() -> None:
    small, large = render_display(DISPLAY), render_display([*DISPLAY, ["green", "h"], ["blue", "waves"]])
    assert small.startswith(b"\x89PNG") and large.startswith(b"\x89PNG")
    width = Image.open(BytesIO(large)).width - Image.open(BytesIO(small)).width
    assert width == 2 * (CARD_W + GAP)


def test_the_final_table_says_why_the_game_ended_when_redrawn_without_its_events(game: Any) -> None:
    state = full_lines(game)
    state, events = act(game, state, None, do="end", by="host")
    view = game.view_for(state, None)
    said = "The host ended the series"
    assert said in (table.table_embed(view, events, "en", names, {}).description or "")
    assert said in (table.table_embed(view, [], "en", names, {}).description or "")
