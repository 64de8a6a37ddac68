"""A burst's handlers start one per turn of the event loop (bot.ui.turns)."""

from __future__ import annotations

import asyncio

from bot.ui.turns import my_turn


class Ticker:
    """Counts the loop's turns: a callback that schedules itself again runs once per turn."""

    def __init__(self) -> None:
        self.turn = 0
        self._loop = asyncio.get_running_loop()
        self._handle = self._loop.call_soon(self._tick)

    def _tick(self) -> None:
        self.turn += 1
        self._handle = self._loop.call_soon(self._tick)

    def stop(self) -> None:
        self._handle.cancel()


async def test_a_lone_handler_goes_on_at_once() -> None:
    await asyncio.sleep(0)  # a fresh turn
    ticker = Ticker()
    await my_turn()
    assert ticker.turn == 0  # no turn passed
    ticker.stop()


async def test_eight_handlers_at_once_start_one_per_turn() -> None:
    await asyncio.sleep(0)
    ticker = Ticker()
    started: list[int] = []

    async def handler() -> None:
        await my_turn()
        started.append(ticker.turn)

    await asyncio.gather(*(handler() for _ in range(8)))
    ticker.stop()
    assert len(started) == 8 and len(set(started)) == 8 and started == sorted(started)


async def test_a_handler_cancelled_while_it_waits_lets_the_next_one_go() -> None:
    await asyncio.sleep(0)
    started: list[str] = []

    async def handler(name: str) -> None:
        await my_turn()
        started.append(name)

    tasks = [asyncio.ensure_future(handler(name)) for name in "abc"]
    await asyncio.sleep(0)  # a has gone on; b and c wait
    tasks[1].cancel()
    await asyncio.wait_for(asyncio.gather(tasks[0], tasks[2]), 1)
    assert started == ["a", "c"] and tasks[1].cancelled()


def test_each_event_loop_has_its_own_turns() -> None:
    for _ in range(2):  # the first loop closes with a turn taken: the second is not held by it
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(asyncio.wait_for(my_turn(), 1))
            loop.run_until_complete(asyncio.wait_for(my_turn(), 1))
        finally:
            loop.close()
