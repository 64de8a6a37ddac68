"""The bot as a separate process, started through launcher.py and killed however the test likes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bot.store.postgres import is_postgresql_url

from .fake_discord import FakeDiscord
from .launcher import BUSY_VARIABLE

SpawnBot = Callable[..., Awaitable["BotProcess"]]
LAUNCHER = Path(__file__).resolve().parent / "launcher.py"
REPO_ROOT = LAUNCHER.parents[2]
START_WITHIN = 20.0  # seconds for a bot process to connect


class BotProcess:
    """One run of the bot: its environment points at the fake; its output goes to a log file."""

    def __init__(
        self,
        fake: FakeDiscord,
        *,
        workdir: Path,
        entry: str,
        database: Path | str,
        name: str = "bot",
        env: dict[str, str] | None = None,
    ) -> None:
        self.fake = fake
        self.extra_env = dict(env or {})  # settings of this process (e.g. SHARD_IDS), over the defaults
        self.entry = entry
        self.database = database
        self.log_path = workdir / f"{name}.log"
        self.process: asyncio.subprocess.Process | None = None
        # What the process last said of its work under way (launcher.py's report_busy): settle() waits for it.
        self.busy = False
        self._busy_pipe: int | None = None

    def environment(self) -> dict[str, str]:
        # The database is the test's: an SQLite file, or a PostgreSQL URL (never one from the environment).
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("DISCORD_", "FAKE_DISCORD_")) and k not in ("DATABASE_PATH", "DATABASE_URL")
        }
        env["DATABASE_URL" if is_postgresql_url(str(self.database)) else "DATABASE_PATH"] = str(self.database)
        env.update(
            DISCORD_TOKEN=self.fake.token,
            DEV_GUILD_ID=str(self.fake.guild_id),
            LOG_LEVEL="INFO",
            FAKE_DISCORD_API=self.fake.api_base,
            FAKE_DISCORD_GATEWAY=str(self.fake.gateway_url),
            E2E_BOT_MAIN=self.entry,
            PYTHONUNBUFFERED="1",
            PYTHONPATH=os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p),
        )
        env.update(self.extra_env)
        return env

    async def start(self) -> None:
        readable, writable = os.pipe()
        try:
            with self.log_path.open("ab") as log:
                self.process = await asyncio.create_subprocess_exec(
                    sys.executable,
                    str(LAUNCHER),
                    cwd=str(self.log_path.parent),  # not the repo: a developer's .env stays out of the test
                    env={**self.environment(), BUSY_VARIABLE: str(writable)},
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=log,
                    stderr=asyncio.subprocess.STDOUT,
                    pass_fds=(writable,),
                )
        except BaseException:
            os.close(readable)
            raise
        finally:
            os.close(writable)
        os.set_blocking(readable, False)
        self._busy_pipe = readable
        self.busy = False
        asyncio.get_running_loop().add_reader(readable, self._hear_busy)

    def _hear_busy(self) -> None:
        assert self._busy_pipe is not None
        try:
            said = os.read(self._busy_pipe, 4096)
        except BlockingIOError:
            return
        if said:
            self.busy = said.endswith(b"1")
        else:  # the process has ended
            self._close_busy_pipe()
        self.fake.changed()

    def _close_busy_pipe(self) -> None:
        if self._busy_pipe is not None:
            asyncio.get_running_loop().remove_reader(self._busy_pipe)
            os.close(self._busy_pipe)
            self._busy_pipe = None
        self.busy = False

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    async def kill(self) -> None:
        """SIGKILL: no clean-up at all, as when the machine dies."""
        if self.running:
            assert self.process is not None
            self.process.kill()
            await asyncio.wait_for(self.process.wait(), 10)
        self._close_busy_pipe()

    async def stop(self, sig: int = signal.SIGTERM, within: float = 10.0) -> int:
        """Asks the bot to stop; kills it if it has not exited within `within` seconds."""
        assert self.process is not None
        if self.running:
            self.process.send_signal(sig)
            try:
                await asyncio.wait_for(self.process.wait(), within)
            except TimeoutError:
                await self.kill()
                raise AssertionError(
                    f"the bot ignored signal {sig} for {within:.0f}s" + self.tail()
                ) from None
        assert self.process.returncode is not None
        self._close_busy_pipe()
        return self.process.returncode

    def tail(self, lines: int = 30) -> str:
        with contextlib.suppress(OSError):
            text = self.log_path.read_text(errors="replace").splitlines()[-lines:]
            return f"\nlast lines of {self.log_path.name}:\n" + "\n".join(f"  {line}" for line in text)
        return ""

    def log_text(self) -> str:
        with contextlib.suppress(OSError):
            return self.log_path.read_text(errors="replace")
        return ""


async def wait_for_new_session(fake: FakeDiscord, process: BotProcess, previous: Any = None) -> None:
    """Until `process` has identified with a session other than `previous` (fails fast if it exits)."""

    def ready() -> bool:
        session = fake.gateway.current
        return (not process.running) or (fake.gateway.connected and session is not previous)

    await fake.wait_until(ready, within=START_WITHIN, what="the bot process to connect")
    if not process.running:
        raise AssertionError(
            f"the bot process exited with code {process.process.returncode}" + process.tail()
        )
