"""Private consoles without Discord: drawn in place, kept live and coalesced per player, news for every
player, a note on how to reopen before the token dies."""

from __future__ import annotations

import asyncio
from typing import Any

import discord

from bot.engine.errors import BadAction
from bot.engine.game import Event
from bot.ui.consoles import ConsoleDesk, with_news
from bot.ui.news import news_for_answer
from bot.ui.table import Table


class Response:
    def __init__(self) -> None:
        self.deferred: dict[str, Any] | None = None

    def is_done(self) -> bool:
        return self.deferred is not None

    async def defer(self, **kwargs: Any) -> None:
        self.deferred = kwargs


class Interaction:
    """An interaction whose token edits its own message: every edit is recorded."""

    def __init__(self, delay: float = 0.0) -> None:
        self.id = 1
        self.locale = discord.Locale.american_english
        self.response = Response()
        self.extras: dict[str, Any] = {}
        self.edits: list[dict[str, Any]] = []
        self.delay = delay

    async def edit_original_response(self, **kwargs: Any) -> None:
        await asyncio.sleep(self.delay)
        self.edits.append(kwargs)

    @property
    def shown(self) -> str:
        return str(self.edits[-1]["embed"].description)


class Game:
    """A console showing a counter per player; news are the events' texts."""

    def __init__(self) -> None:
        self.count = 0

    async def draw(
        self, session_id: int, player: str, lang: str, news: list[Event], refusal: str | None
    ) -> Table:
        console = Table(discord.Embed(description=f"{player}: {self.count}"))
        return with_news(console, await self.news(session_id, news, lang), refusal, lang)

    async def news(self, session_id: int, events: list[Event], lang: str) -> list[str]:
        return [str(event["text"]) for event in events]


def desk(game: Game, **kwargs: Any) -> ConsoleDesk:
    return ConsoleDesk(game.draw, game.news, lambda lang: "press Mine to reopen", **kwargs)


async def quiet(consoles: ConsoleDesk) -> None:
    for _ in range(400):
        if not consoles.busy:
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the consoles kept editing")


async def test_the_panel_button_answers_with_a_private_console_of_its_own() -> None:
    game, click = Game(), Interaction()
    consoles = desk(game)
    await consoles.open(click, 1, "ann")  # type: ignore[arg-type]
    assert click.response.deferred == {"ephemeral": True, "thinking": True}
    assert click.shown == "ann: 0" and consoles.is_open(1, "ann")


async def test_an_open_console_follows_the_game_with_edits_coalesced_per_player() -> None:
    game, click = Game(), Interaction(delay=0.02)
    consoles = desk(game)
    await consoles.open(click, 1, "ann")  # type: ignore[arg-type]
    for _ in range(10):  # ten changes while the first edit is on its way: two edits in all
        game.count += 1
        consoles.changed(1)
        await asyncio.sleep(0.001)
    await quiet(consoles)
    assert len(click.edits) == 1 + 2 and click.shown == "ann: 10"
    consoles.changed(1)  # nothing changed for her: no edit
    await quiet(consoles)
    assert len(click.edits) == 3
    consoles.changed(2)  # another table
    await quiet(consoles)
    assert len(click.edits) == 3


async def test_a_refused_press_is_shown_inside_the_console_it_was_pressed_on() -> None:
    game, press = Game(), Interaction()
    consoles = desk(game)

    async def refused() -> None:
        raise BadAction("engine.not_started")

    await consoles.press(press, 1, "ann", refused)  # type: ignore[arg-type]
    assert len(press.edits) == 1 and press.shown.startswith("⚠️") and "ann: 0" in press.shown
    assert consoles.is_open(1, "ann")  # the press's token keeps it live


async def test_news_for_a_player_who_did_not_act_reach_their_live_console() -> None:
    game, ann, bob = Game(), Interaction(), Interaction()
    consoles = desk(game)
    await consoles.open(ann, 1, "ann")  # type: ignore[arg-type]
    await consoles.open(bob, 1, "bob")  # type: ignore[arg-type]
    consoles.told(1, {"ann": [{"text": "your own"}], "bob": [{"text": "your card was taken"}]}, actor="ann")
    consoles.changed(1)
    await quiet(consoles)
    assert "your card was taken" in bob.shown
    assert all("your own" not in edit["embed"].description for edit in ann.edits)  # the actor's reply says it


async def test_news_for_a_player_without_a_console_wait_for_their_next_private_answer() -> None:
    game = Game()
    consoles = desk(game)
    consoles.told(1, {"bob": [{"text": "a card drawn for you"}]}, actor=None)
    nothing = Interaction()
    assert await news_for_answer(nothing) == ""  # not attached: no news of theirs
    answer = Interaction()
    consoles.attach_news(answer, 1, "bob")  # type: ignore[arg-type]
    assert consoles.news.waiting(1, "bob")  # still waiting until the answer is written
    assert "a card drawn for you" in await news_for_answer(answer)
    assert not consoles.news.waiting(1, "bob")
    later = Interaction()
    consoles.attach_news(later, 1, "bob")  # type: ignore[arg-type]
    assert await news_for_answer(later) == ""  # told once


async def test_before_its_token_dies_the_console_says_how_to_reopen_it_and_is_edited_no_more() -> None:
    game, click = Game(), Interaction()
    consoles = desk(game, live_seconds=0.05)
    await consoles.open(click, 1, "ann")  # type: ignore[arg-type]
    await asyncio.sleep(0.08)
    await quiet(consoles)
    assert click.edits[-1]["view"] is None and "reopen" in click.edits[-1]["embed"].description
    edits = len(click.edits)
    game.count += 1
    consoles.changed(1)
    await quiet(consoles)
    assert len(click.edits) == edits and not consoles.is_open(1, "ann")


async def test_a_console_whose_clock_ran_past_its_life_is_left_alone() -> None:
    now = [0.0]
    game, click = Game(), Interaction()
    consoles = desk(game, clock=lambda: now[0])
    await consoles.open(click, 1, "ann")  # type: ignore[arg-type]
    now[0] += 15 * 60
    game.count += 1
    consoles.changed(1)
    await quiet(consoles)
    assert len(click.edits) == 1
    consoles.close()
