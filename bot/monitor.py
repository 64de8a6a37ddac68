"""Keeping the event loop free of pauses a player could feel, and telling when one happens anyway.

- `freeze_long_lived()`: once the dictionaries and word lists are loaded, the process tracks ~700,000
  long-lived objects, and every full garbage collection walked all of them (0.3–0.6 s with everything
  stopped). Moved to the permanent generation, they are never scanned again; what play creates stays
  collectable as usual.
- `YoungCollections`: every action replaces objects of a live state by new ones, which keeps CPython's
  allocation counter near zero, so automatic collections stop while the young generation grows with every
  new live state; the collection that finally comes walked all of them (130–150 ms at 10,000 sessions).
  Paced by the engine instead: a young collection every few hundred actions, then its survivors frozen.
- `share_the_interpreter()`: a thread that holds the interpreter lets it go after 0.5 ms, not 5, when the
  event loop asks for it back (after each of its system calls).
- `StallWatchdog`: a thread that notices when the loop has not run its heartbeat for `threshold` seconds
  and logs what the loop's thread was running then (its stack), and when the stall ends how long it
  lasted and where the loop's thread was at each look meanwhile (a long stall is rarely one step).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

log = logging.getLogger(__name__)

# A stall or slow collection while the bot starts (imports, opening the word tables) is expected: INFO.
STARTING_LEVEL = logging.INFO
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100  # /proc/stat's unit, per second


# The event loop lets the interpreter go at each of its system calls (a socket read or write, select). A
# worker thread computing in Python then holds it, and the loop gets it back only when that thread is made
# to let go: after the switch interval, 5 ms by default, so a loop turn with a dozen socket calls stalled
# for 50–150 ms while the dictionaries loaded; any worker computing in Python does the same (a round judged
# in the slow steps' thread). Ten system calls beside a busy thread, measured here: 5.2 ms (max 21) at
# 5 ms, 0.6 ms (max 2) at 0.5 ms. A thread alone never switches, so a short interval costs only when two
# want the interpreter, and then the loop is the one that must not wait.
SWITCH_INTERVAL = 0.0005


def share_the_interpreter() -> None:
    """Make any thread that holds the interpreter let it go after SWITCH_INTERVAL when another asks for it."""
    sys.setswitchinterval(SWITCH_INTERVAL)


@contextlib.contextmanager
def loading_long_lived() -> Iterator[None]:
    """While loading what lives as long as the process (dictionaries, lists): no automatic collection.

    A load allocates hundreds of thousands of objects, each batch of which would start a collection that
    walks everything loaded so far while holding the GIL, stopping the event loop for 0.1–0.5 s. After the
    load every object alive is frozen (kept out of collections) and collecting resumes.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        freeze_long_lived()
        if was_enabled:
            gc.enable()


def freeze_long_lived() -> None:
    """Keep every object alive now out of future collections.

    No collection first: walking ~700,000 objects would itself stop the event loop for 0.3 s or more, and
    what little garbage exists at start-up costs less kept than collected. Nor a count of what is frozen:
    `gc.get_freeze_count()` walks them all (30 ms on the loop).
    """
    gc.freeze()
    log.info("the objects loaded so far are kept out of garbage collection")


class YoungCollections:
    """A young-generation collection every `every` applied actions, its survivors then frozen.

    Each pause is bounded by what `every` actions created (about 10–15 µs an action's worth at 10,000 live
    sessions, against 130–150 ms for an unpaced collection). Garbage with reference cycles is collected
    before anything is frozen; what is frozen and later dropped is freed by reference counting, so an
    object frozen while in use and later left in a cycle is never freed: game states hold none (the
    conformance suite checks it), and the cycles asyncio and discord.py make are short-lived.
    """

    def __init__(self, every: int = 500) -> None:
        self.every = every
        self._since = 0

    def applied(self) -> None:
        self._since += 1
        if self._since >= self.every:
            self._since = 0
            gc.collect(0)
            gc.freeze()


class SlowCollections:
    """Logs every garbage collection that stops the process for longer than `threshold` seconds.

    A collection started by any thread holds the interpreter: the event loop waits for it, and the watchdog
    sees only a loop waiting in `select`. This names the pause.
    """

    def __init__(self, threshold: float = 0.1, *, starting: bool = False) -> None:
        self.threshold = threshold
        self.slow: list[tuple[int, float]] = []  # (generation, seconds), for tests and benchmarks
        self._started = 0.0
        # While `starting` (until `settled`), a collection is expected, not a fault: INFO.
        self.level = STARTING_LEVEL if starting else logging.WARNING

    def settled(self) -> None:
        """The start-up is over: a slow collection from now on is something to act on (WARNING)."""
        self.level = logging.WARNING

    def start(self) -> None:
        gc.callbacks.append(self._on_collection)

    def stop(self) -> None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._on_collection)

    def _on_collection(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        took = time.perf_counter() - self._started
        if took > self.threshold:
            generation = info["generation"]
            self.slow.append((generation, took))
            log.log(
                self.level,
                "a garbage collection of generation %d took %.0f ms (%d objects freed)",
                generation,
                took * 1000,
                info["collected"],
            )


class StallWatchdog:
    """Logs every event-loop stall longer than `threshold` seconds with the stack that was running."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        threshold: float = 0.1,
        interval: float | None = None,
        cpu_times: Path = Path("/proc/stat"),
        *,
        starting: bool = False,
    ) -> None:
        self.loop = loop
        self.cpu_times = cpu_times  # Linux's per-CPU times, with the time a virtual machine's host took
        self.threshold = threshold
        self.interval = interval if interval is not None else min(0.02, threshold / 2)
        self.stalls: list[float] = []  # durations in seconds, for tests and benchmarks
        self._beat = time.monotonic()
        self._loop_thread: int | None = None
        self._loop_native: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._handle: asyncio.TimerHandle | None = None
        # While `starting` (until `settled`): the start-up imports modules and opens the word tables on the
        # loop's thread, so its stalls are expected and logged at INFO; a WARNING means something to act on.
        self.level = STARTING_LEVEL if starting else logging.WARNING

    def settled(self) -> None:
        """The start-up is over: every stall from now on is logged as a WARNING."""
        self.level = logging.WARNING

    def start(self) -> None:
        self._loop_thread = threading.get_ident()  # called on the loop's thread
        self._loop_native = threading.get_native_id()
        self._beat = time.monotonic()
        self._handle = self.loop.call_later(self.interval, self._heartbeat)
        self._thread = threading.Thread(target=self._watch, name="stall-watchdog", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._handle is not None:
            self._handle.cancel()
        if self._thread is not None:
            self._thread.join(timeout=1)

    def _heartbeat(self) -> None:
        self._beat = time.monotonic()
        if not self._stop.is_set():
            self._handle = self.loop.call_later(self.interval, self._heartbeat)

    def _watch(self) -> None:
        stalled_since: float | None = None
        seen: Counter[str] = Counter()  # where the loop's thread was at each look during the stall
        calm = self._loop_schedule()  # the loop thread's CPU accounts at the last look before a stall
        while not self._stop.wait(self.interval):
            beat = self._beat
            late = time.monotonic() - beat - self.interval
            # The loop ran its heartbeat since the stall began: that stall is over, even when the loop is
            # already blocked again (a busy loop's stalls come back to back; each is logged with its end).
            if stalled_since is not None and beat != stalled_since:
                duration = beat - stalled_since - self.interval
                self.stalls.append(duration)
                looks = "".join(f"\n  {count}× {where}" for where, count in seen.most_common(3))
                log.log(
                    self.level,
                    "the event loop was blocked for %.0f ms in all%s%s",
                    duration * 1000,
                    self._schedule_since(calm),
                    looks,
                )
                stalled_since = None
                calm = self._loop_schedule()
            if stalled_since is None and late <= self.interval:  # the loop ran its heartbeat lately
                calm = self._loop_schedule()
            if stalled_since is None and late > self.threshold:
                stalled_since = beat
                seen.clear()
                log.log(
                    self.level,
                    "the event loop has been blocked for %.0f ms; it is running:\n%s",
                    late * 1000,
                    self._loop_stack(),
                )
            elif stalled_since is not None:
                seen[self._loop_where()] += 1

    def _loop_schedule(self) -> tuple[int, int, list[int]] | None:
        """The loop thread's nanoseconds on a CPU and waiting for one (Linux's schedstat), and each CPU's
        time taken by a virtual machine's host (its "steal", in clock ticks), if readable."""
        try:
            with open(f"/proc/self/task/{self._loop_native}/schedstat") as file:
                ran, waited, _ = file.read().split()
            with open(self.cpu_times) as file:
                stolen = [int(line.split()[8]) for line in file if line[:3] == "cpu" and line[3].isdigit()]
            return int(ran), int(waited), stolen
        except (OSError, ValueError, IndexError):
            return None

    def _schedule_since(self, calm: tuple[int, int, list[int]] | None) -> str:
        """How the loop thread spent a stall: on a CPU, or runnable and waiting for one (the machine busy);
        the rest it slept (waiting for the interpreter lock, or its virtual CPU taken by the host). And the
        most the host took from any one CPU meanwhile, to the clock tick (10 ms, usually)."""
        now = self._loop_schedule()
        if calm is None or now is None:
            return ""
        ran, waited = ((b - a) / 1e6 for a, b in zip(calm[:2], now[:2], strict=True))
        account = f" (its thread ran {ran:.0f} ms and waited for a CPU {waited:.0f} ms"
        stolen = max((b - a for a, b in zip(calm[2], now[2], strict=False)), default=0)
        if stolen > 0:
            account += f"; the host took up to {stolen * 1000 // CLOCK_TICKS} ms of a CPU"
        return account + ")"

    def _loop_where(self) -> str:
        """The loop thread's innermost frames, on one line: sampled while a stall lasts."""
        frame = sys._current_frames().get(self._loop_thread or 0)
        if frame is None:
            return "(unknown)"
        where = _extract(frame, 4)
        return " < ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(where))

    def _loop_stack(self) -> str:
        """The loop thread's stack, then where every other thread is: a loop waiting in a system call
        is often kept from the interpreter by another thread of the process."""
        frames = sys._current_frames()
        frame = frames.get(self._loop_thread or 0)
        text = "".join(traceback.format_list(_extract(frame, 8))) if frame is not None else "  (unknown)\n"
        names = {thread.ident: thread.name for thread in threading.enumerate()}
        for ident, other in frames.items():
            if ident in (self._loop_thread, threading.get_ident()):
                continue
            where = _extract(other, 2)
            text += (
                f"  [thread {names.get(ident, ident)}] "
                + " < ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(where))
                + "\n"
            )
        return text.rstrip("\n")


def _extract(frame: FrameType, limit: int) -> traceback.StackSummary:
    """A running thread's innermost frames. The thread goes on meanwhile, and a frame it leaves as it is read
    may be half torn down (seen: an AttributeError from inside the traceback module): then none."""
    try:
        return traceback.extract_stack(frame, limit=limit)
    except Exception:
        return traceback.StackSummary.from_list([])
