"""python -m bot: read the settings, then run the bot until SIGTERM or SIGINT.

Whatever stops the start-up from outside the code (a setting, the database, the network, Discord refusing
the token) is told in one line on stderr, and the exit status is 2; a traceback means a bug.
"""

from __future__ import annotations

import asyncio
import logging
import logging.handlers
import os
import signal
import sys
from typing import TYPE_CHECKING

import aiohttp
import discord

from bot.config import Settings, SettingsError
from bot.store import SchemaTooNew, ShardsRefused, Store, UnusableDatabase

if TYPE_CHECKING:
    from bot.app import TopBot

log = logging.getLogger("bot")

NO_TOKEN = (
    "DISCORD_TOKEN is not set: create an application at https://discord.com/developers/applications, "
    "copy its bot token into .env (see .env.example and README.md), then run again."
)
PORTAL = "https://discord.com/developers/applications"
STATUS_PAGE = "https://discordstatus.com"

# How long Discord may take to answer the login, then to open the first gateway session. Without a limit
# a host that accepts the connection and never answers holds the start-up for aiohttp's five minutes (and
# discord.py retries a first gateway connection for ever). The set-up between the two takes what it takes.
LOGIN_SECONDS = 30.0
GATEWAY_SECONDS = 45.0


class StartupFailure(Exception):
    """The bot cannot start for a reason outside the code; its message is the one line to print."""


def startup_failure_line(error: BaseException) -> str | None:
    """The one line that tells an operator why Discord could not be reached or refused the bot, or None
    for an error that is not about reaching Discord (a bug: its traceback is wanted)."""
    from bot.app import GatewayUnreachable

    if isinstance(error, GatewayUnreachable) and error.__cause__ is not None:
        return _unreachable(error.__cause__, "Discord's gateway")
    if isinstance(error, discord.LoginFailure):
        return _refused_token()
    if isinstance(error, discord.PrivilegedIntentsRequired):
        return (
            "Discord refused the privileged intents the bot asks for: enable them for the application in "
            f"the developer portal ({PORTAL}), then run again."
        )
    if isinstance(error, discord.ConnectionClosed):
        if error.code == 4004:  # the gateway's "authentication failed"
            return _refused_token()
        return (
            f"Discord closed the gateway session at start-up (close code {error.code}): run again, and if it "
            f"repeats see {STATUS_PAGE}."
        )
    if isinstance(error, discord.GatewayNotFound):
        return f"Discord's gateway could not be found (an outage?): see {STATUS_PAGE}, then run again."
    if isinstance(error, discord.DiscordServerError):
        return (
            f"Discord answered with HTTP {error.status} (a problem on its side): see {STATUS_PAGE}, "
            "then run again later."
        )
    if isinstance(error, discord.HTTPException):
        return f"Discord refused the bot with HTTP {error.status}: {_one_line(error.text) or error.response.reason}."
    return _unreachable(error, "Discord")


def _unreachable(error: BaseException, what: str) -> str | None:
    if isinstance(error, aiohttp.ClientConnectorDNSError):
        return (
            f"cannot reach {what}: the name {error.host} does not resolve (is this machine online?). "
            "Check the network, then run again."
        )
    if isinstance(error, aiohttp.ClientConnectorError):
        # "Connection refused" rather than aiohttp's "Connect call failed ('127.0.0.1', 443)"
        reason = os.strerror(error.errno) if error.errno else _one_line(str(error.os_error))
        return (
            f"cannot reach {what} at {error.host}:{error.port}: {reason}. Check the network, then run again."
        )
    # Only network errors: an OSError of the set-up (a file, a process) is not Discord's doing.
    if isinstance(error, (aiohttp.ClientError, ConnectionError)):
        detail = _one_line(str(error)) or type(error).__name__
        return f"cannot reach {what}: {detail}. Check the network, then run again."
    return None


def _refused_token() -> str:
    return (
        f"Discord refused the token in DISCORD_TOKEN: reset it in the developer portal ({PORTAL}), "
        "put the new one in .env, then run again."
    )


def _one_line(text: str, limit: int = 200) -> str:
    """An error's text as one short line (an error page can be a whole HTML document)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


async def reach_discord(bot: TopBot, runner: asyncio.Task[None], stop: asyncio.Event) -> None:
    """Wait until Discord took the login and opened the first gateway session (or a stop was asked for);
    StartupFailure if Discord cannot be reached, refuses the bot, or does not answer in time."""
    steps = (
        (bot.logged_in, LOGIN_SECONDS, "answer the login"),
        (bot.set_up, None, ""),
        (bot.connected, GATEWAY_SECONDS, "open a gateway session"),
    )
    stopper = asyncio.create_task(stop.wait())
    try:
        for reached, seconds, what in steps:
            waiter = asyncio.create_task(reached.wait())
            done, _ = await asyncio.wait(
                {runner, stopper, waiter}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED
            )
            waiter.cancel()
            if runner in done:
                error = None if runner.cancelled() else runner.exception()
                line = startup_failure_line(error) if error is not None else None
                if line is not None:
                    raise StartupFailure(line) from error
                return  # a bug (its traceback comes from awaiting the runner), or a stop
            if stopper in done:
                return
            if not done:
                raise StartupFailure(
                    f"Discord did not {what} within {seconds:.0f} s: check the network and {STATUS_PAGE}, "
                    "then run again."
                )
    finally:
        stopper.cancel()


class HeldLog(logging.handlers.MemoryHandler):
    """The log until the bot is online: a start that stops for a reason outside the code says so in one line
    (what was logged meanwhile is dropped), while the dictionaries, loading from the first moment, log as they
    go."""

    def __init__(self, target: logging.Handler) -> None:
        super().__init__(capacity=100_000, flushLevel=logging.CRITICAL + 1, target=target, flushOnClose=False)
        self._dropping = False

    def emit(self, record: logging.LogRecord) -> None:
        if not self._dropping:
            super().emit(record)

    def drop(self) -> None:
        """The start stopped: what was held, and whatever comes until the process ends, is not shown (at exit
        logging flushes every handler)."""
        self._dropping = True
        self.acquire()
        try:
            self.buffer.clear()
        finally:
            self.release()

    def show(self) -> None:
        """From now on the log goes straight to its target, after what was held."""
        root = logging.getLogger()
        if self in root.handlers and self.target is not None:
            root.addHandler(self.target)
            root.removeHandler(self)
            self.flush()


async def run(settings: Settings, held: HeldLog | None = None) -> int:
    from bot.app import invite_url, make_bot

    assert settings.token is not None
    if settings.application_id:
        print(f"Invite the bot: {invite_url(settings.application_id)}", flush=True)
    bot = make_bot(settings)
    # The dictionaries load while the store opens and Discord answers the login (their log is held back).
    bot.start_warming_words()
    try:
        # Opened (and migrated) before logging in, so that an unusable database stops us at once.
        store = await Store.open(settings.database, synchronous=settings.synchronous)
    except (SchemaTooNew, UnusableDatabase) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    bot.store = store
    try:
        # Before logging in: a process refused its shards never reaches Discord.
        await bot.claim_shards()
    except ShardsRefused as exc:
        print(f"error: {exc}", file=sys.stderr)
        await store.close()
        return 2
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    async with bot:
        runner = asyncio.create_task(bot.start(settings.token))
        try:
            await reach_discord(bot, runner, stop)
        except StartupFailure as failure:
            print(f"error: {failure}", file=sys.stderr)
            await bot.close()
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
            return 2
        if held is not None:
            held.show()
        stopper = asyncio.create_task(stop.wait())
        done, _ = await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if stopper in done:
            log.info("stopping: finishing writes and closing")
            await bot.close()
        else:
            stopper.cancel()
        try:
            await runner
        except Exception as exc:
            line = startup_failure_line(exc)
            if line is None:
                raise
            if stop.is_set():  # a stop asked for while logging in: what closing cut short is no failure
                return 0
            # Discord refused the bot later on (the token reset while it ran, a closed session).
            print(f"error: {line}", file=sys.stderr)
            return 2
    log.info("stopped cleanly")
    return 0


def main() -> int:
    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    console = logging.StreamHandler(sys.stderr)
    console.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    held = HeldLog(console)
    logging.basicConfig(level=settings.log_level, handlers=[held])
    if not settings.token:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    try:
        code = asyncio.run(run(settings, held))
    except BaseException:
        held.show()  # a bug, or an interrupt: everything logged before it comes out first
        raise
    if code == 0:
        held.show()
    else:
        held.drop()
    return code


if __name__ == "__main__":
    sys.exit(main())
