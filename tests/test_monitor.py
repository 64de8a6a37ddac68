"""No pause a player can feel: long-lived objects out of the collector's way, and stalls logged."""

from __future__ import annotations

import asyncio
import gc
import logging
import random
import re
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import monitor
from bot.games import make_game
from bot.words import WordService


@pytest.fixture
def frozen() -> Iterator[None]:
    yield
    gc.unfreeze()


def test_a_full_collection_during_play_stays_under_20_ms_once_the_dictionaries_are_frozen(
    frozen: None,
) -> None:
    words = WordService()
    with monitor.loading_long_lived():  # what the bot loads at start-up, frozen once loaded
        for language in words.languages:
            words.warm(language)
    assert gc.get_freeze_count() > 100_000  # the dictionaries' objects, now out of the way
    assert gc.isenabled()
    game = make_game("topstop", words)
    state = game.new_game({"language": "en"}, ["ann", "bob"], {"first_player": "ann"}, random.Random(1))
    for action in ({"do": "spin", "player": "ann", "letter": "P"},
                   {"do": "submit", "player": "ann", "words": ["pear", "plum", "pip"]},
                   {"do": "submit", "player": "bob", "words": ["pea", "peach"]},
                   {"do": "stop", "player": "ann"}, {"do": "end_writing"}):  # fmt: skip
        state = game.apply(state, action).state
    started = time.perf_counter()
    gc.collect()
    assert time.perf_counter() - started < 0.020
    assert len(gc.get_objects()) < 100_000


class _Node:
    other: _Node | None = None


def test_the_engine_paces_young_collections_and_freezes_their_survivors(frozen: None) -> None:
    """Actions keep the allocation counter near zero, so the engine starts the young collections itself:
    cyclic garbage goes at the pace's step, survivors are frozen (out of every later collection)."""
    collections = monitor.YoungCollections(every=3)
    was_enabled = gc.isenabled()
    gc.disable()  # no automatic collection may interfere
    try:
        node = _Node()
        node.other = node  # a cycle: reference counting alone never frees it
        probe = weakref.ref(node)
        survivor = _Node()
        del node
        frozen_before = gc.get_freeze_count()
        collections.applied()
        collections.applied()
        assert probe() is not None  # not the third action yet
        collections.applied()
        assert probe() is None
        assert gc.get_freeze_count() > frozen_before
        assert survivor not in gc.get_objects(generation=0)
    finally:
        if was_enabled:
            gc.enable()


def test_a_thread_lets_the_interpreter_go_after_half_a_millisecond() -> None:
    default = sys.getswitchinterval()
    try:
        monitor.share_the_interpreter()  # the bot's first step
        assert sys.getswitchinterval() == pytest.approx(0.0005)
    finally:
        sys.setswitchinterval(default)


def _block_the_loop() -> None:
    time.sleep(0.3)  # what a slow step on the event loop would do


async def test_an_event_loop_stall_is_logged_with_what_ran(caplog: pytest.LogCaptureFixture) -> None:
    watchdog = monitor.StallWatchdog(asyncio.get_running_loop(), threshold=0.1)
    watchdog.start()
    try:
        with caplog.at_level(logging.WARNING, logger="bot.monitor"):
            await asyncio.sleep(0.05)
            _block_the_loop()
            await asyncio.sleep(0.1)
    finally:
        watchdog.stop()
    messages = [r.getMessage() for r in caplog.records]
    assert any("blocked for" in m and "_block_the_loop" in m for m in messages), messages
    # When it ends, where the loop was while it lasted (looked at every interval).
    assert any("in all" in m and "× test_monitor.py" in m and "_block_the_loop" in m for m in messages)
    assert len(watchdog.stalls) == 1 and 0.15 < watchdog.stalls[0] < 1.0


async def test_stalls_back_to_back_are_each_logged_with_their_end(caplog: pytest.LogCaptureFixture) -> None:
    # The loop runs its heartbeat between two blocks, but the watchdog looks again only once the second is
    # past the threshold (its own thread kept from a CPU on a busy machine; here its first look meanwhile is
    # slow): the first still ends in the log (its length and where it ran), the second is a stall of its own.
    watchdog = monitor.StallWatchdog(asyncio.get_running_loop(), threshold=0.1)
    where, looks = watchdog._loop_where, []

    def slow_first_look() -> str:
        if not looks:
            looks.append(where)
            time.sleep(0.35)  # past the first block's end and the next one's threshold
        return where()

    watchdog._loop_where = slow_first_look  # type: ignore[method-assign]
    watchdog.start()
    try:
        with caplog.at_level(logging.WARNING, logger="bot.monitor"):
            await asyncio.sleep(0.05)
            _block_the_loop()
            await asyncio.sleep(0.001)  # the overdue heartbeat runs, then the loop blocks again at once
            _block_the_loop()
            await asyncio.sleep(0.1)
    finally:
        watchdog.stop()
    messages = [r.getMessage() for r in caplog.records]
    began = [m for m in messages if "has been blocked" in m]
    ended = [m for m in messages if "in all" in m]
    assert len(began) == len(ended) == 2, messages
    assert len(watchdog.stalls) == 2 and all(0.15 < stall < 1.0 for stall in watchdog.stalls)


def _compute_on_the_loop(seconds: float) -> None:
    end = time.thread_time() + seconds  # this thread's own CPU time, whatever else runs
    while time.thread_time() < end:
        pass


@pytest.mark.skipif(not Path("/proc/self/schedstat").exists(), reason="Linux's schedstat")
async def test_a_stall_says_whether_the_loop_computed_or_slept(caplog: pytest.LogCaptureFixture) -> None:
    # A stall where the loop's thread computed is the bot's; one where it slept or waited for a CPU is not
    # (the interpreter lock held by another thread, or the machine busy).
    watchdog = monitor.StallWatchdog(asyncio.get_running_loop(), threshold=0.1)
    watchdog.start()
    try:
        with caplog.at_level(logging.WARNING, logger="bot.monitor"):
            for block in (lambda: _compute_on_the_loop(0.3), _block_the_loop):
                await asyncio.sleep(0.05)
                block()
                await asyncio.sleep(0.1)
    finally:
        watchdog.stop()
    accounts = [
        re.search(r"its thread ran (\d+) ms and waited for a CPU (\d+) ms", r.getMessage())
        for r in caplog.records
        if "in all" in r.getMessage()
    ]
    assert len(accounts) == 2 and all(accounts), [r.getMessage() for r in caplog.records]
    computed, slept = (int(found.group(1)) for found in accounts if found)
    assert computed >= 200 and slept < 50


def _cpu_times(steal: tuple[int, int]) -> str:
    """/proc/stat's CPU lines: user nice system idle iowait irq softirq steal guest guest_nice."""
    lines = [f"cpu  10 0 10 100 0 0 0 {sum(steal)} 0 0"]
    lines += [f"cpu{n} 5 0 5 50 0 0 0 {ticks} 0 0" for n, ticks in enumerate(steal)]
    return "\n".join(lines + ["intr 1 0 0", "ctxt 42"]) + "\n"


@pytest.mark.skipif(not Path("/proc/self/schedstat").exists(), reason="Linux's schedstat")
async def test_a_stall_says_how_much_the_host_took_from_a_cpu(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    # On a virtual machine the host can take a CPU away: the loop's thread then neither runs nor waits in the
    # guest's accounts. The stall says the most the host took from one CPU meanwhile (its "steal").
    cpu_times = tmp_path / "stat"
    cpu_times.write_text(_cpu_times((100, 40)))
    watchdog = monitor.StallWatchdog(asyncio.get_running_loop(), threshold=0.1, cpu_times=cpu_times)
    watchdog.start()
    host_takes = threading.Timer(0.1, lambda: cpu_times.write_text(_cpu_times((103, 52))))
    try:
        with caplog.at_level(logging.WARNING, logger="bot.monitor"):
            await asyncio.sleep(0.05)
            host_takes.start()
            _block_the_loop()
            await asyncio.sleep(0.1)
    finally:
        host_takes.cancel()
        watchdog.stop()
    ended = [r.getMessage() for r in caplog.records if "in all" in r.getMessage()]
    assert (
        len(ended) == 1 and f"the host took up to {12 * 1000 // monitor.CLOCK_TICKS} ms of a CPU" in ended[0]
    )


async def test_a_loop_that_keeps_running_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    watchdog = monitor.StallWatchdog(asyncio.get_running_loop(), threshold=0.5)  # room for a busy machine
    watchdog.start()
    try:
        with caplog.at_level(logging.WARNING, logger="bot.monitor"):
            for _ in range(10):
                await asyncio.sleep(0.02)
    finally:
        watchdog.stop()
    assert watchdog.stalls == [] and not caplog.records


def test_a_slow_garbage_collection_is_logged_with_its_generation(caplog: pytest.LogCaptureFixture) -> None:
    """A collection started by any thread stops the loop too: it is named, not left as a silent pause."""
    collections = monitor.SlowCollections(threshold=0.0)  # every collection counts as slow here
    collections.start()
    try:
        with caplog.at_level(logging.WARNING, logger="bot.monitor"):
            gc.collect()
    finally:
        collections.stop()
    assert (2, collections.slow[-1][1]) == collections.slow[-1]
    assert any("garbage collection of generation 2 took" in r.getMessage() for r in caplog.records)
    gc.collect()
    assert len(collections.slow) == 1  # stopped: no longer called


async def test_a_stall_while_starting_is_info_and_a_warning_once_settled(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A healthy start logs no WARNING: its stalls (imports, opening the word tables) are expected."""
    watchdog = monitor.StallWatchdog(asyncio.get_running_loop(), threshold=0.1, starting=True)
    watchdog.start()
    try:
        with caplog.at_level(logging.INFO, logger="bot.monitor"):
            await asyncio.sleep(0.05)
            _block_the_loop()
            await asyncio.sleep(0.1)
            starting = [r.levelno for r in caplog.records if "blocked for" in r.getMessage()]
            caplog.clear()
            watchdog.settled()
            _block_the_loop()
            await asyncio.sleep(0.1)
            settled = [r.levelno for r in caplog.records if "blocked for" in r.getMessage()]
    finally:
        watchdog.stop()
    assert starting and set(starting) == {logging.INFO}
    assert settled and set(settled) == {logging.WARNING}


def test_a_slow_collection_while_starting_is_info(caplog: pytest.LogCaptureFixture) -> None:
    collections = monitor.SlowCollections(threshold=0.0, starting=True)
    collections.start()
    try:
        with caplog.at_level(logging.INFO, logger="bot.monitor"):
            gc.collect()
            collections.settled()
            gc.collect()
    finally:
        collections.stop()
    levels = [r.levelno for r in caplog.records if "garbage collection" in r.getMessage()]
    assert levels[0] == logging.INFO and levels[-1] == logging.WARNING


def test_a_stack_torn_down_while_it_is_read_gives_no_frames_and_never_stops_the_watchdog(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Seen once a run: another thread's frame, left as it was read, made the traceback module raise.
    import sys
    import traceback

    from bot import monitor

    def torn(frame: object, limit: int | None = None) -> traceback.StackSummary:
        raise AttributeError("'dict' object has no attribute 'f_lineno'")

    monkeypatch.setattr(traceback, "extract_stack", torn)
    assert list(monitor._extract(sys._getframe(), 8)) == []
