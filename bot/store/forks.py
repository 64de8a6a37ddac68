"""The writers' fork server: one small process per bot process that imports the writers' code once and forks a
writer for every database opened, in milliseconds — a fresh interpreter importing the store took a quarter of
a second for each database the bot, a shard or a test opens.

multiprocessing's own fork server does not fit: every child it forks first imports the parent's main module
again (`python -m bot` would import discord.py and the whole bot in each writer).

The parent sends one message per writer on a SOCK_SEQPACKET socket: the pickled (entry, target, synchronous)
with the two pipe ends the writer keeps (its input's read end, its output's write end) attached; the server
forks, closes its copies and answers the writer's pid. The target travels in the message, never in a command
line or an environment another user could read. Children are reaped by the kernel (SIGCHLD ignored): the
parent learns of a writer's end from its output's end of file, and kills one by its pid.
"""

from __future__ import annotations

import os
import pickle
import signal
import socket
import struct
import subprocess
import sys
import threading
import traceback
from pathlib import Path

PID = struct.Struct("!q")
MESSAGE_LIMIT = 1 << 16
# What a writer runs (bot.store.writer, bot.store.postgres) and what its batches name (the repositories'
# functions that pickled units refer to), imported once by the server before it forks any writer.
PRELOAD = ("bot.store.writer", "bot.store.database", "bot.store.postgres", "bot.store.repositories")


class ForkServer:
    """The parent's side: started with the first writer, ended with the parent (its socket's end of file)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner = 0  # the pid of the process that started it: a forked copy of the parent starts its own
        self._process: subprocess.Popen[bytes] | None = None
        self._socket: socket.socket | None = None

    def fork(self, entry: str, target: str, synchronous: str, requests: int, replies: int) -> int:
        """A writer running `entry`'s serve(target, requests, replies, synchronous); its pid. OSError when no
        writer can be started."""
        message = pickle.dumps((entry, target, synchronous))
        with self._lock:
            for _attempt in (1, 2):  # a server that died (killed by an operator) is started again once
                connection = self._running()
                try:
                    socket.send_fds(connection, [message], [requests, replies])
                    answer = connection.recv(PID.size)
                except OSError:
                    answer = b""
                if len(answer) == PID.size:
                    return int(PID.unpack(answer)[0])
                self._stop()
            raise OSError("the database writers' fork server does not answer")

    def _running(self) -> socket.socket:
        if self._socket is not None and self._owner == os.getpid():
            return self._socket
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        root = str(Path(__file__).resolve().parents[2])
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])),
        }
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-c", f"from {__name__} import serve; serve({theirs.fileno()})"],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                env=env,
            )
        finally:
            theirs.close()
        self._socket, self._owner = ours, os.getpid()
        return ours

    def _stop(self) -> None:
        if self._socket is not None:
            self._socket.close()
        if self._process is not None and self._owner == os.getpid():
            self._process.kill()
            self._process.wait()
        self._socket = self._process = None


FORKS = ForkServer()


def serve(fd: int) -> None:
    """The server: fork a writer per message until the parent closes its end."""
    # Ctrl-C reaches the whole process group: the parent decides when the server ends (its socket's end).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # writers are reaped by the kernel
    for module in PRELOAD:
        __import__(module)
    connection = socket.socket(fileno=fd)
    while True:
        message, fds, _, _ = socket.recv_fds(connection, MESSAGE_LIMIT, 2)
        if not message:
            return  # the parent is gone
        entry, target, synchronous = pickle.loads(message)
        pid = os.fork()
        if pid == 0:
            connection.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            os._exit(_writer(entry, target, synchronous, *fds))
        for descriptor in fds:
            os.close(descriptor)
        connection.sendall(PID.pack(pid))


def _writer(entry: str, target: str, synchronous: str, requests: int, replies: int) -> int:
    from bot.store.writer import run_child

    try:
        return run_child(entry, target, synchronous, requests, replies)
    except BaseException:
        traceback.print_exc()
        return 1
    finally:
        sys.stderr.flush()
