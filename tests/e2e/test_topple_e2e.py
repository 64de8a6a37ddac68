"""Topple against the loopback Discord: `/topple new`, the lobby, the roll-off by Roll, turns of Roll then a
square of the 5×5 grid and the private prompt with its risk and points, a topple with its penalty and bonus,
an idle player played for by the timer, the turn notices, the board picture (drawn once the click is
answered) and the final table with results stored.

Chance is the engine's: the test rigs the next rolls and topples the way a scenario forces them (wrapping
`resolve_chance`), never through a player's action. Topple is offered to every server: no EXTRA_GAMES here.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import requires_product
from .driver import Message, Player, Table

pytestmark = requires_product

TURN_NOTICE = "your turn in Topple"


class Chance:
    """The engine's next die rolls and topple draws, forced in order (left to the engine once used up)."""

    def __init__(self, bot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.rolls: list[int] = []
        self.topples: list[bool] = []
        game = bot.sessions.games["topple"]
        real = game.resolve_chance

        def resolve(state: Any, action: dict[str, Any], rng: Any) -> dict[str, Any]:
            name = action.get("do")
            forced = dict(action)
            # A player's roll (the roll-off's too); a timer's only where it rolls for the idle player.
            if self.rolls and (name == "roll" or (name == "timeout" and state.phase == "roll")):
                forced["roll"] = self.rolls.pop(0)
            if (
                name in ("place", "timeout")
                and state.phase != "opening"
                and self.topples
                and "topple" not in forced
            ):
                forced["topple"] = self.topples.pop(0)
            resolved: dict[str, Any] = real(state, forced, rng)
            return resolved

        monkeypatch.setattr(game, "resolve_chance", resolve)


def enabled_squares(board: Message) -> list[str]:
    return [b["label"] for b in board.buttons if not b.get("disabled")]


def turn_notices(table: Table) -> list[Message]:
    return [m for m in table.channel_messages() if TURN_NOTICE in m.text and not m.deleted]


async def roll(player: Player, board: Message) -> None:
    await player.click(board, "Roll")


async def place(player: Player, board: Message, square: str, confirm: str) -> Message:
    """Press a square of the grid, then Place in the private prompt: the prompt, edited with the result."""
    [label] = [label for label in enabled_squares(board) if label.startswith(f"{square} · ")]
    asked = await player.click(board, label)
    prompt = asked.private
    assert prompt is not None and prompt.ephemeral
    await player.click(prompt, confirm)
    return prompt


@pytest.mark.both_databases
async def test_a_game_of_rolls_placements_a_topple_an_idle_turn_and_the_end(
    product_bot: Any, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    chance = Chance(product_bot, monkeypatch)
    alice, bob, carol = table.user("alice"), table.user("bob"), table.user("carol")
    lobby = (await alice.slash("topple new", target=40)).linked
    assert lobby is not None and "Topple — lobby" in lobby.text
    assert "First to 40 points at the end of a round" in lobby.text
    await bob.click(lobby, "Join")
    await carol.click(lobby, "Join")
    session = (await product_bot.sessions.open_in_channel(table.channel_id)).id
    await alice.click(lobby, "Start")

    # The roll-off: everyone presses Roll; Bob's 5 is the highest, so he goes first.
    board = await table.wait_for_message(lambda m: "Topple — who goes first?" in m.text, what="the table")
    assert board.button_labels == ["Roll"]  # no private panel: nothing in Topple is secret
    assert "topple.png" in board.files and board.files["topple.png"].startswith(b"\x89PNG")
    chance.rolls += [3, 5, 2]
    for player in (alice, bob, carol):
        await roll(player, board)
    assert "**Bob** rolled the highest, 5, and goes first." in board.text
    assert "Topple — round 1: Bob rolls" in board.text
    [notice] = turn_notices(table)
    assert notice.pinged == [bob.id]

    # Bob rolls a 1: only the centre may take his piece; the grid replaces Roll.
    chance.rolls.append(1)
    await roll(bob, board)
    assert "**Bob** rolled **1**" in board.text and len(board.buttons) == 25
    assert enabled_squares(board) == ["C3 · 0.0%"]

    # Alice, not on turn, cannot open the prompt.
    refused = await alice.click(board, "C3 · 0.0%")
    assert refused.ephemeral and "⚠️" in refused.text

    # Bob's prompt: the square's risk and what it would score; he places and the table announces it.
    chance.topples.append(False)
    asked = await bob.click(board, "C3 · 0.0%")
    prompt = asked.private
    assert prompt is not None and prompt.ephemeral
    assert "**C3**: level 1, empty." in prompt.text and "Risk that the board topples: **0.0%**" in prompt.text
    assert "you would score **0**" in prompt.text and prompt.button_labels == ["Place on C3"]
    await bob.click(prompt, "Place on C3")
    assert "**Bob** placed 🟡 yellow on **C3**: **0**." in prompt.text and prompt.buttons == []
    assert "**Bob** placed 🟡 yellow on **C3**: **0**." in board.text
    assert "Topple — round 1: Carol rolls" in board.text
    [notice] = turn_notices(table)
    assert notice.pinged == [carol.id]

    # Carol rolls a 6 (any square), picks a corner and the board topples: −10 for her, +3 for Bob, and the
    # round ends; the seat after her, Alice, opens the next.
    chance.rolls.append(6)
    await roll(carol, board)
    assert len(enabled_squares(board)) == 25
    chance.topples.append(True)
    prompt = await place(carol, board, "E5", "Place on E5")
    assert "💥 **Carol** toppled the board on **E5**: **−10**." in prompt.text
    assert "💥 **Carol** toppled the board on **E5**: **−10**." in board.text
    assert "**Bob**, who placed just before, scores **+3**." in board.text
    assert "Round 1 ends with the topple." in board.text
    assert "Round 2 begins on a cleared board: **Alice** opens it." in board.text
    assert "**Bob**: **3**" in board.text and "**Carol**: **-10**" in board.text
    [notice] = turn_notices(table)
    assert notice.pinged == [alice.id]

    # Alice lets her turn run out: the bot rolls for her and places on the safest square the roll allows.
    record = await product_bot.sessions.session(session)
    [(key, timer)] = [(key, timer) for key, timer in record.timers.items() if key.startswith("turn:")]
    chance.rolls.append(2)
    chance.topples.append(False)
    table.clock.advance(record.options.get("turn_seconds", 120))
    assert await product_bot.sessions.fire_timer(session, key, timer["at"]) is not None
    await table.settle()
    assert "**Alice** took too long" in board.text and "**Alice** placed 🔴 red on" in board.text
    assert "Topple — round 2: Bob rolls" in board.text

    # The host ends the game: the final table, no buttons, and the results stored for the leaderboard.
    await alice.slash("topple end")
    await table.settle()
    final = await table.wait_for_message(lambda m: "Topple — game over" in m.text, what="the final table")
    assert "The host ended the game early.\n🏆 **Bob** won." in final.text and final.buttons == []
    results = await product_bot.store.results.for_session(session)
    assert {str(row.user_id) for row in results} == {str(p.id) for p in (alice, bob, carol)}
    leaders = await alice.slash("leaderboard", game="topple")  # offered to every server, so it has a board
    assert all(f"<@{p.id}>" in leaders.text for p in (alice, bob, carol)), leaders.text


async def test_roll_is_answered_before_the_board_picture_is_drawn(
    product_bot: Any, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The layer acknowledges a click before its handler runs: the rules, the commit and the picture (drawn
    in the picture process) all come after Discord has its answer, and the table then shows the picture."""
    chance = Chance(product_bot, monkeypatch)
    alice, bob = table.user("alice"), table.user("bob")
    lobby = (await alice.slash("topple new")).linked
    assert lobby is not None
    await bob.click(lobby, "Join")
    await alice.click(lobby, "Start")
    board = await table.wait_for_message(lambda m: "Topple — who goes first?" in m.text, what="the table")
    chance.rolls += [5, 2]
    for player in (alice, bob):
        await roll(player, board)

    answered_at_draw: list[set[int]] = []  # per picture asked for: the interactions answered by then
    draw = product_bot.pictures.draw

    async def drawing(*args: Any, **kwargs: Any) -> bytes:
        answered_at_draw.append({i for i, r in table.fake.interactions.items() if r.acknowledged})
        picture: bytes = await draw(*args, **kwargs)
        return picture

    monkeypatch.setattr(product_bot.pictures, "draw", drawing)
    picture = board.files["topple.png"]
    chance.rolls.append(6)
    pressed = await alice.click(board, "Roll")
    assert pressed.kind == "deferred update" and answered_at_draw
    assert all(pressed.record.id in answered for answered in answered_at_draw)
    assert len(enabled_squares(board)) == 25 and board.files["topple.png"] not in (picture, None)


@pytest.fixture
def turn_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    """The operator's TOPPLE_TURN_SECONDS, set before the bot reads its settings (ask for it first)."""
    monkeypatch.setenv("TOPPLE_TURN_SECONDS", "90")


async def test_the_idle_turn_defaults_to_the_setting_a_host_may_choose_it_within_bounds(
    turn_setting: None, product_bot: Any, table: Table
) -> None:
    """TOPPLE_TURN_SECONDS (read at start-up) is `/topple new`'s default; the host's turn_seconds wins; a
    value the rules do not allow is refused to the host alone, and no lobby opens."""
    alice = table.user("alice")
    refused = await alice.slash("topple new", turn_seconds=5)
    assert (
        refused.ephemeral
        and "The option turn_seconds must be a whole number from 10 to 3600." in refused.text
    )
    assert await product_bot.sessions.open_in_channel(table.channel_id) is None

    lobby = (await alice.slash("topple new")).linked
    assert lobby is not None and "· 90 s per turn" in lobby.text
    record = await product_bot.sessions.open_in_channel(table.channel_id)
    assert record is not None and record.options["turn_seconds"] == 90
    await alice.click(lobby, "Cancel")

    lobby = (await alice.slash("topple new", turn_seconds=30)).linked
    assert lobby is not None and "· 30 s per turn" in lobby.text


async def test_rules_topple_attaches_the_page_with_the_balance_models_formula(
    table: Table, product_bot: Any
) -> None:
    rules = next(c for c in table.fake.all_commands() if c["name"] == "rules")
    assert "topple" in [choice["value"] for choice in rules["options"][0]["choices"]]
    reply = await table.user("alice").slash("rules", game="topple")
    assert reply.answer is not None and reply.ephemeral
    page = reply.answer.files["topple-rules.md"].decode()
    assert "risk = x / (x + HALF_RISK)" in page and "x    = t' × h'" in page
