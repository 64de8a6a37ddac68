"""Pictures drawn in a process of their own, and kept per state.

A picture is a pure function's work: a view in, PNG bytes out. Drawn in a thread of the bot's process, it
held the interpreter lock in bursts (Pillow's Python side, and between the chunks its PNG encoder writes).
The event loop gives the lock up at each of its system calls and then waited up to the interpreter's
switch interval (5 ms) to get it back, several times a turn: stalls of 20–30 ms while a TopWords board was
drawn. A process has a lock of its own, so the loop only waits for the bytes.

The same state asked for again (`/topwords status`, eight players asking at once, a redraw that changed
only the embed) gets the picture already drawn, or the one being drawn.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any

log = logging.getLogger(__name__)

Draw = Callable[..., bytes]


def _start(modules: tuple[str, ...], parent: int) -> None:
    """In the picture process, before the first picture: it ends with the bot; its modules (Pillow, fonts)
    imported."""
    threading.Thread(target=_end_with, args=(parent,), name="end-with-the-bot", daemon=True).start()
    for module in modules:
        importlib.import_module(module)


def _end_with(parent: int) -> None:
    """A bot killed outright never closes the worker's queue (the worker holds its writing end too), so the
    worker looks for its parent instead: it ends within a second of the bot's end."""
    while os.getppid() == parent:
        time.sleep(1)
    os._exit(0)


def _ready() -> None:
    """Nothing: submitted once so that the process starts now rather than at the first picture."""


class Pictures:
    """Draws pictures in one worker process; keeps the last `kept` pictures by what they were drawn from."""

    def __init__(self, kept: int = 64, modules: Iterable[str] = ()) -> None:
        self.kept_at_most = kept
        self.modules = tuple(modules)
        self.drawn = 0  # pictures the worker drew (not found kept): for tests and benchmarks
        self._kept: OrderedDict[str, bytes] = OrderedDict()
        self._drawing: dict[str, asyncio.Future[bytes]] = {}
        self._pool: ProcessPoolExecutor | None = None

    def start(self) -> None:
        """Start the worker now (it imports `modules`), so that the first picture does not wait for it."""
        self._worker().submit(_ready)

    async def draw(self, draw: Draw, *args: Any, **kwargs: Any) -> bytes:
        """`draw(*args, **kwargs)`, computed in the worker process, or kept from the same arguments before.

        `draw` is a module-level function (it is sent to the worker by name); the arguments are plain data
        (JSON-like), which is also how a picture is recognised.
        """
        key = json.dumps([draw.__module__, draw.__qualname__, args, kwargs], sort_keys=True, default=str)
        kept = self._kept.get(key)
        if kept is not None:
            self._kept.move_to_end(key)
            return kept
        drawing = self._drawing.get(key)
        if drawing is None:
            drawing = asyncio.ensure_future(self._draw_in_worker(partial(draw, *args, **kwargs)))
            self._drawing[key] = drawing
            drawing.add_done_callback(partial(self._done, key))
        return await asyncio.shield(drawing)

    def close(self) -> None:
        """Stop the worker (waits for the picture under way, if any)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _done(self, key: str, drawing: asyncio.Future[bytes]) -> None:
        del self._drawing[key]
        if drawing.cancelled() or drawing.exception() is not None:
            return
        self.drawn += 1
        self._kept[key] = drawing.result()
        while len(self._kept) > self.kept_at_most:
            self._kept.popitem(last=False)

    async def _draw_in_worker(self, call: Callable[[], bytes]) -> bytes:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._worker(), call)
        except BrokenProcessPool:
            # The worker died (killed, out of memory): one more try in a new one.
            log.warning("the picture process ended unexpectedly; starting another")
            self._pool = None
            return await loop.run_in_executor(self._worker(), call)

    def _worker(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # A fresh interpreter, not a fork of this one: the bot's threads and its hundreds of thousands of
            # objects stay here.
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start,
                initargs=(self.modules, os.getpid()),
            )
        return self._pool
