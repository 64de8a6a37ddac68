"""The database writer: a child process that commits the group-commit batches of a file database (and, through
the same pipe, of a PostgreSQL server: `bot.store.postgres.serve`).

Why a process: SQLite releases the interpreter lock while it steps, but Python's sqlite3 takes it back at
every row. On a thread, each of those waits for the event loop to give the lock up (up to the switch
interval) whenever the loop is busy, so commits stretched while the loop computed and the loop sat idle
while they ran. In a process of its own, SQLite works on the second core while the loop serves players.

The parent sends a batch (a pickled list of units: statement lists, or partials of module-level
functions) as one frame on the child's input pipe; the child commits it with `commit_batch` — the same code the
thread path runs — and answers one frame: ("ok", the outcome of every unit) or ("failed", the error that
undid the whole batch). A frame is a 4-byte length and a pickle. Nothing is acknowledged before COMMIT.

`serve_batches` is the child's loop for both databases; each database's `serve` opens its connection and
hands it a function that commits one batch.

SQLite's child also keeps the write-ahead log short (`Checkpoints`), so that the parent's process spends none of
its time copying pages.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import pickle
import select
import signal
import sqlite3
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

HEADER = struct.Struct("!I")
READY = b"ready"
# Past this many frames (4 KB pages: 16 MB) in the log, the writer finishes a checkpoint itself between two
# batches, so that its next commit starts the log again from its beginning; the file is cut back to it.
# It does so only just after one of the thread's checkpoints began, so that little is left to copy (see
# Checkpoints): under full load it holds the commits for a few milliseconds, several times a second; at
# 200 actions/s the log starts again on its own, in the pauses between commits, and this never happens.
LOG_RESTART_FRAMES = 4_096
# What "just after" means: the frames appended since the thread's last checkpoint began are what the
# catch-up copies (a commit waits for it), so it copies at most this much of the log's growth.
CATCH_UP_WINDOW_SECONDS = 0.005
# A log this many times the restart length is caught up whatever the thread's timing (a disk so slow that
# the thread never keeps up): the log stays bounded, at the cost of one longer hold.
LOG_LIMIT_FACTOR = 4
# How a commit reaches the disk (`SYNCHRONOUS`): FULL, the default, syncs the log at every commit, so an
# acknowledged action survives a power cut; NORMAL syncs only at checkpoints (faster, and the last second
# of actions players saw applied can be lost with the machine, never with the bot alone).
SYNCHRONOUS_MODES = ("FULL", "NORMAL")
DEFAULT_SYNCHRONOUS = "FULL"
PRAGMAS = (
    "PRAGMA busy_timeout=5000",
    "PRAGMA foreign_keys=ON",
    "PRAGMA wal_autocheckpoint=0",  # checkpoints run beside the commits (Checkpoints)
    f"PRAGMA journal_size_limit={LOG_RESTART_FRAMES * 4096}",
)

# How long a closed writer may take to finish before it is killed.
CLOSE_WAIT_SECONDS = 10.0

# What the database gets back for a batch: the outcome of each unit, or the error of the whole batch (and,
# from the writer process, how long the batch kept the writer and how much of it was the log's catch-up
# before it: `Database.longest_commit`, `Database.longest_catch_up`).
Reply = tuple[str, Any] | tuple[str, Any, float, float]


class WriterStopped(RuntimeError):
    """The writer process ended: the batch it held is not known to be committed."""


def frame(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload


class WriterProcess:
    """The parent's side: send a batch without blocking, hear the reply on the event loop (or earlier,
    when `poll` finds it already there)."""

    def __init__(
        self, target: str, on_reply: Callable[[Reply], None], synchronous: str, entry: str = __name__
    ) -> None:
        self._target = target  # the database file, or the server's URL
        self._synchronous = synchronous
        self._entry = entry  # the module whose `serve` the child runs
        self._on_reply = on_reply
        self._pid: int | None = None  # the child's, while we listen to it
        self._requests: int | None = None  # our end of the child's input
        self._replies: int | None = None  # our end of its output
        self._inbox = bytearray()
        self._outbox = bytearray()
        self._ready = False
        self._starting: asyncio.Future[None] | None = None
        self._waiting_to_write = False

    @classmethod
    def start(
        cls,
        target: str,
        on_reply: Callable[[Reply], None],
        synchronous: str = DEFAULT_SYNCHRONOUS,
        entry: str = __name__,
    ) -> WriterProcess:
        """Start the child, which opens its connection while the caller goes on (OSError if it cannot be
        started at all); `ready()` waits for it."""
        writer = cls(target, on_reply, synchronous, entry)
        writer._spawn(asyncio.get_running_loop().create_future())
        return writer

    async def ready(self) -> None:
        """Wait until the child's connection is open; WriterStopped when it ended instead."""
        if self._starting is not None:
            await self._starting

    @property
    def pid(self) -> int | None:
        return self._pid

    def _spawn(self, ready: asyncio.Future[None] | None = None) -> None:
        from bot.store.forks import FORKS

        their_requests, requests = os.pipe()
        replies, their_replies = os.pipe()
        try:
            self._pid = FORKS.fork(
                self._entry, self._target, self._synchronous, their_requests, their_replies
            )
        except OSError:
            os.close(requests)
            os.close(replies)
            raise
        finally:
            os.close(their_requests)
            os.close(their_replies)
        self._requests, self._replies = requests, replies
        os.set_blocking(requests, False)
        os.set_blocking(replies, False)
        self._inbox.clear()
        self._outbox.clear()
        self._waiting_to_write = False
        self._ready = False
        self._starting = ready
        asyncio.get_running_loop().add_reader(replies, self.poll)

    def send(self, units: list[Any]) -> None:
        """Queue one batch for the child; the reply comes through `on_reply`. (A writer that stopped is
        started again first: its last batch was answered with WriterStopped.)"""
        if self._pid is None:
            self._spawn()
        # Statements cross as plain tuples: pickle copies those in C, a NamedTuple through a Python call each.
        plain = [unit if callable(unit) else [tuple(statement) for statement in unit] for unit in units]
        self._outbox += frame(pickle.dumps(plain, protocol=pickle.HIGHEST_PROTOCOL))
        self._flush_outbox()

    def _flush_outbox(self) -> None:
        """Write what the pipe takes now; the rest when it can take more (a batch larger than its buffer)."""
        assert self._requests is not None
        fd = self._requests
        try:
            written = os.write(fd, self._outbox)
        except BlockingIOError:
            written = 0
        except BrokenPipeError:
            return  # the child is gone: its stdout's end of file reports it
        del self._outbox[:written]
        if self._outbox and not self._waiting_to_write:
            asyncio.get_running_loop().add_writer(fd, self._flush_outbox)
            self._waiting_to_write = True
        elif not self._outbox and self._waiting_to_write:
            asyncio.get_running_loop().remove_writer(fd)
            self._waiting_to_write = False

    def poll(self) -> None:
        """Read what the child wrote, without waiting; hand on every complete reply."""
        if self._replies is None:
            return
        while True:
            try:
                chunk = os.read(self._replies, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                self._stopped()
                return
            self._inbox += chunk
        while len(self._inbox) >= HEADER.size:
            (size,) = HEADER.unpack_from(self._inbox)
            if len(self._inbox) < HEADER.size + size:
                break
            payload = bytes(self._inbox[HEADER.size : HEADER.size + size])
            del self._inbox[: HEADER.size + size]
            if not self._ready:
                self._ready = payload == READY
                if self._starting is not None and not self._starting.done():
                    self._starting.set_result(None)
                continue
            self._on_reply(pickle.loads(payload))

    def _detach(self) -> int | None:
        """Stop listening to the child and close our end of its input: it exits once it has read it all. Its
        pid, or None when it was already detached."""
        pid, self._pid = self._pid, None
        if pid is not None:
            assert self._requests is not None and self._replies is not None
            loop = asyncio.get_running_loop()
            loop.remove_reader(self._replies)
            loop.remove_writer(self._requests)
            os.close(self._requests)
            self._requests = None
        return pid

    def _close_replies(self) -> None:
        if self._replies is not None:
            os.close(self._replies)
            self._replies = None

    def _stopped(self) -> None:
        """The child ended: a start-up that waited fails, and a batch in flight is answered with an error."""
        self._detach()
        self._close_replies()
        error = WriterStopped("the database writer stopped")
        if self._starting is not None and not self._starting.done():
            self._starting.set_exception(error)
            return
        log.error("%s; it is started again for the next write", error)
        self._on_reply(("failed", error))

    async def close(self) -> None:
        """End of input: the child closes its connection and exits (its output's end of file says so)."""
        pid = self._detach()
        if pid is None:
            return
        assert self._replies is not None
        if not await asyncio.to_thread(_ended, self._replies, CLOSE_WAIT_SECONDS):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self._close_replies()


def _ended(replies: int, within: float) -> bool:
    """Whether the child's output reaches its end of file within `within` seconds (what it still says is
    dropped: nobody awaits it)."""
    deadline = time.monotonic() + within
    while (left := deadline - time.monotonic()) > 0:
        readable, _, _ = select.select([replies], [], [], left)
        if readable:
            try:
                if not os.read(replies, 1 << 16):
                    return True
            except BlockingIOError:
                continue
    return False


# -- the child --------------------------------------------------------------------------------------


def _read_exactly(fd: int, size: int) -> bytes | None:
    data = bytearray()
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _reply_frame(reply: tuple[str, Any], took: float, caught_up: float = 0.0) -> bytes:
    """The reply and how long the batch took (and the catch-up within it), as one frame; a value that cannot
    cross the pipe as itself (an error of a library's own type, say) crosses as a RuntimeError that names it."""
    kind, value = reply
    try:
        return frame(pickle.dumps((kind, value, took, caught_up), protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:
        values = value if kind == "ok" else [(False, value)]
        safe = [(ok, _crossable(item)) for ok, item in values]
        return frame(pickle.dumps((kind, safe if kind == "ok" else safe[0][1], took, caught_up)))


def _crossable(value: Any) -> Any:
    try:
        pickle.dumps(value)
    except Exception:
        return RuntimeError(f"{type(value).__name__}: {value}")
    return value


class Checkpoints:
    """Copies the write-ahead log into the database file, on a thread and connection of their own.

    A PASSIVE checkpoint never blocks the writer, so commits go on while pages are copied; but under steady
    writes it never copies the frames appended meanwhile, and SQLite starts the log again only once every
    frame has been copied: the log would grow without end (1.7 GB in 12 s at 5,000 actions/s), and every
    page lookup with it. So once the log is long, `catch_up` copies what is left on the writer's connection
    between two batches, and the next commit starts the log from its beginning.

    What is left must be little, since commits wait meanwhile: checkpoints follow one another while writes
    come (no pause between them); once the log is long, the thread stops after its checkpoint and hands over
    to the writer, whose next catch-up copies only what was appended since that checkpoint began — if it
    began at most `CATCH_UP_WINDOW_SECONDS` ago; otherwise the thread checkpoints again, which leaves less
    (at full load, 30–50 frames are left: 1–5 ms). A catch-up right after a long checkpoint (20–80 ms when
    the disk is busy) held the writer 20–50 ms; with a pause of 50 ms between checkpoints, 60 ms on a 900 MB
    database. Past `LOG_LIMIT_FACTOR` times the restart length, the writer catches up whatever is left.
    """

    def __init__(self, path: str, interval: float = 0.0, restart_frames: int = LOG_RESTART_FRAMES) -> None:
        self._path = path
        self._interval = interval
        self._restart_frames = restart_frames
        self._wrote = threading.Event()
        self._stopping = threading.Event()
        self._handed_over = threading.Event()  # the thread waits for the writer's catch-up
        self._resume = threading.Event()
        self.log_frames = 0  # the log's length at the last checkpoint
        self.began = 0.0  # when the last checkpoint that ran (not refused as busy) began, monotonic seconds
        self._thread = threading.Thread(target=self._run, name="checkpoints", daemon=True)
        self._thread.start()

    def wrote(self) -> None:
        self._wrote.set()

    def _run(self) -> None:
        with contextlib.closing(
            sqlite3.connect(self._path, timeout=5, check_same_thread=False)
        ) as connection:
            while True:
                self._wrote.wait()
                if self._stopping.is_set():
                    return
                self._wrote.clear()
                try:
                    began = time.monotonic()
                    busy, frames, _ = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    if not busy:  # busy: a reader or the writer held the log; this one copied nothing
                        self.began, self.log_frames = began, frames
                except sqlite3.Error as exc:
                    log.warning("checkpoint failed (the next one retries): %s", exc)
                if self.log_frames >= self._restart_frames:
                    self._resume.clear()
                    self._handed_over.set()
                    if not self._stopping.is_set():  # stop() sets it before it resumes the thread
                        self._resume.wait()
                self._stopping.wait(self._interval)

    def catch_up(self, connection: sqlite3.Connection) -> None:
        """On the writer's connection between two batches, once the thread has handed over: no frame is
        appended while it copies."""
        if not self._handed_over.is_set():
            return
        self._handed_over.clear()
        recent = time.monotonic() - self.began <= CATCH_UP_WINDOW_SECONDS
        if recent or self.log_frames >= self._restart_frames * LOG_LIMIT_FACTOR:
            self.log_frames = 0
            try:
                connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error as exc:  # the batches are committed: the next catch-up retries
                log.warning("checkpoint failed (the next one retries): %s", exc)
        self._resume.set()

    def stop(self) -> None:
        self._stopping.set()
        self._wrote.set()
        self._resume.set()
        self._thread.join()


def serve_batches(
    requests: int,
    replies: int,
    commit: Callable[[list[Any]], list[tuple[bool, Any]]],
    between: Callable[[], None] = lambda: None,
) -> int:
    """Say ready, then commit each batch read from `requests` and answer it on `replies`, until the parent
    closes our input; the exit code. `between` runs after each reply (SQLite's log catch-up): the time it
    took is counted in the next batch's, which waited for it."""
    caught_up = 0.0
    try:
        _write_all(replies, frame(READY))
        while (header := _read_exactly(requests, HEADER.size)) is not None:
            payload = _read_exactly(requests, HEADER.unpack(header)[0])
            if payload is None:
                break
            started = time.perf_counter()
            reply: tuple[str, Any]
            try:
                reply = ("ok", commit(pickle.loads(payload)))
            except Exception as exc:
                reply = ("failed", exc)
            # How long this batch waited for the writer: its commit, and what ran between before it.
            took = time.perf_counter() - started + caught_up
            _write_all(replies, _reply_frame(reply, took, caught_up))
            started = time.perf_counter()
            between()
            caught_up = time.perf_counter() - started
    except BrokenPipeError:
        return 1  # the parent is gone
    return 0


def serve(path: str, requests: int, replies: int, synchronous: str = DEFAULT_SYNCHRONOUS) -> int:
    """Commit batches to the database file `path` until the parent closes our input; the exit code."""
    from bot.store.database import commit_batch

    if synchronous not in SYNCHRONOUS_MODES:
        return 2
    try:
        connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        for pragma in (*PRAGMAS, f"PRAGMA synchronous={synchronous}"):
            connection.execute(pragma)
    except sqlite3.Error:
        return 2  # the parent's own check of the file says what is wrong with it, in one line
    checkpoints = Checkpoints(path)

    def between() -> None:
        checkpoints.wrote()
        checkpoints.catch_up(connection)

    try:
        return serve_batches(requests, replies, lambda units: commit_batch(connection, units), between)
    finally:
        checkpoints.stop()
        connection.close()


def yield_to_the_bot() -> None:
    """SCHED_BATCH for this process and the threads it starts: woken by a batch, it never preempts the bot's
    event loop on its core; it takes the other core, or the next tick. As an ordinary process it did: each
    write of a batch to the pipe held the loop 300–500 µs on average (up to 16 ms) while the writer ran in
    its place, against 28–69 µs now (bench_engine_real.py at 10,000 sessions)."""
    if hasattr(os, "sched_setscheduler"):
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))


def run_child(entry: str, target: str, synchronous: str, requests: int, replies: int) -> int:
    """A writer child (forked by bot.store.forks): the `serve(target, requests, replies, synchronous)` of the
    module `entry` until its input ends; the exit code."""
    yield_to_the_bot()
    serve: Callable[[str, int, int, str], int] = importlib.import_module(entry).serve
    return serve(target, requests, replies, synchronous)
