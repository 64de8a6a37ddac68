"""Interactions' work spread over the event loop's turns: one handler starts per turn.

Eight players pressing at once are eight acknowledgements sent at once, and then eight handlers whose
acknowledgements come back together: asyncio runs everything that became ready in one turn back to back,
so eight `/status` answers (each a table drawn into an embed) made one turn of 27 ms, during which nothing
else ran — not a timer, not another channel's click. Each handler now waits for its turn after the
acknowledgement: the first of a turn goes on at once, the others one per following turn. The answers a
player feels first are not delayed (the acknowledgement comes before), and a lone click waits for nothing.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import deque


class Turns:
    """Admits one waiter per turn of its event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._taken = False  # a waiter went on in this turn

    async def wait(self) -> None:
        if not self._taken:
            self._take()
            return
        admitted = self.loop.create_future()
        self._waiting.append(admitted)
        await admitted

    def _take(self) -> None:
        self._taken = True
        # A callback scheduled now runs in the loop's next turn, whatever else this turn still runs.
        self.loop.call_soon(self._next_turn)

    def _next_turn(self) -> None:
        self._taken = False
        while self._waiting:
            admitted = self._waiting.popleft()
            if not admitted.done():  # not cancelled meanwhile
                admitted.set_result(None)
                self._take()
                return


_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Turns] = weakref.WeakKeyDictionary()


async def my_turn() -> None:
    """Wait until no other handler has started in this turn of the running loop."""
    loop = asyncio.get_running_loop()
    turns = _by_loop.get(loop)
    if turns is None:
        turns = _by_loop[loop] = Turns(loop)
    await turns.wait()
