"""The table layer without Discord: coalesced redraws, and the commands every game gets."""

from __future__ import annotations

import asyncio
from typing import Any

from discord import app_commands

from bot.ui import components
from bot.ui.table import TableCog


class Demo(TableCog):
    game_name = "demo"
    title = "Demo"
    group = app_commands.Group(name="demo", description="A demo game")
    redraw_interval = 0.0

    def __init__(self) -> None:
        super().__init__(None)  # type: ignore[arg-type]
        self.draws: list[list[str]] = []
        self.drawn_at: list[float] = []

    async def _draw(self, session_id: int, events: list[dict[str, Any]]) -> None:
        self.draws.append([event["type"] for event in events])
        self.drawn_at.append(asyncio.get_running_loop().time())
        await asyncio.sleep(0.01)  # an edit on its way to Discord

    async def _tell_turn(self, session_id: int) -> None:
        """No store here: nobody is awaited."""


class PacedDemo(Demo):
    redraw_interval = 0.2


async def test_a_burst_of_clicks_costs_one_redraw_and_each_click_waits_for_one_with_its_events() -> None:
    cog = Demo()
    try:
        await asyncio.gather(*(cog.refresh(1, [{"type": f"click{n}"}]) for n in range(8)))
        assert cog.draws == [[f"click{n}" for n in range(8)]]
        # Clicks that arrive while a redraw is under way share the next one.
        first = asyncio.create_task(cog.refresh(1, [{"type": "first"}]))
        await asyncio.sleep(0.002)  # its redraw has started
        await asyncio.gather(*(cog.refresh(1, [{"type": f"more{n}"}]) for n in range(5)), first)
        assert cog.draws[-2:] == [["first"], [f"more{n}" for n in range(5)]]
        await cog.refresh(1, [{"type": "later"}])
        assert cog.draws[-1] == ["later"]
        await asyncio.gather(cog.refresh(1, [{"type": "a"}]), cog.refresh(2, [{"type": "b"}]))
        assert ["a"] in cog.draws and ["b"] in cog.draws  # tables redraw independently
        assert cog._redraws == {}  # nothing kept once drawn
    finally:
        components.unregister_game("demo")


def test_every_game_gets_status_leave_and_end_in_its_own_group() -> None:
    names = {command.name for command in Demo.group.commands}
    assert {"status", "leave", "end"} <= names
    try:
        Demo()
        # and the lobby's buttons and the private panel are routed for it
        for action in ("join", "leave", "start", "cancel", "mine"):
            assert components.spec("demo", action).encode(5) == f"demo:5:{action}"
    finally:
        components.unregister_game("demo")


async def test_a_paced_table_is_edited_at_most_once_per_interval_and_shows_the_last_click_within_one() -> (
    None
):
    cog = PacedDemo()
    try:
        loop = asyncio.get_running_loop()
        clicks = [asyncio.create_task(cog.refresh(1, [{"type": "c0"}]))]
        started = loop.time()
        for n in range(1, 20):  # a click every 30 ms for 0.6 s
            await asyncio.sleep(0.03)
            clicks.append(asyncio.create_task(cog.refresh(1, [{"type": f"c{n}"}])))
        last_click = loop.time()
        await asyncio.gather(*clicks)
        assert cog.draws[0] == ["c0"]  # a quiet table is drawn at once
        assert cog.drawn_at[0] - started < 0.05
        gaps = [b - a for a, b in zip(cog.drawn_at, cog.drawn_at[1:], strict=False)]
        assert all(gap >= 0.2 - 0.01 for gap in gaps), gaps
        assert [event for draw in cog.draws for event in draw] == [f"c{n}" for n in range(20)]
        assert len(cog.draws) <= 1 + 0.6 / 0.2 + 1
        assert cog.drawn_at[-1] - last_click <= 0.2 + 0.05  # the last state within one interval
    finally:
        components.unregister_game("demo")
