"""Start-up against a Discord it cannot reach, or that refuses the bot, or on a damaged database whatever
its bytes: one line on stderr, exit 2.

The bot runs as a process (`python -m bot`'s own `main`), its discord.py pointed at a local port the way
tests/e2e/launcher.py points it at the fake: a port that refuses, a host that does not resolve, a socket
that never answers, a tiny server that answers 401 or 503, or the fake Discord with its gateway refused.
LOG_LEVEL=WARNING keeps the start-up's info lines out, so that stderr holds only what went wrong (a
traceback would be logged at ERROR, and still be seen).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import socket
import sqlite3
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import SimpleNamespace

import aiohttp
import discord
import pytest
from aiohttp import web

from bot.__main__ import startup_failure_line
from bot.app import GatewayUnreachable
from bot.store import Store, UnusableDatabase

REPO_ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.bot_process

# Points discord.py at the test's addresses (never Discord's), with short deadlines, then runs the bot.
LAUNCH = """
import os, sys, yarl
import discord.gateway, discord.http
import bot.__main__ as entry
discord.http.Route.BASE = os.environ["TEST_DISCORD_API"]
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["TEST_DISCORD_GATEWAY"])
entry.LOGIN_SECONDS = entry.GATEWAY_SECONDS = float(os.environ["TEST_DEADLINE_SECONDS"])
sys.exit(entry.main())
"""


# Under `make coverage`, what makes a Python process measure itself (coverage.py's `patch = subprocess`).
MEASURED = ("COVERAGE_PROCESS_CONFIG",)


async def run_bot(
    tmp_path: Path,
    api: str,
    gateway: str,
    *,
    token: str = "refused",
    deadline: float = 20.0,
    database: Path | None = None,
    settings: dict[str, str] | None = None,
) -> SimpleNamespace:
    # Only what the process needs: a setting left in this process's environment (a .env read by another
    # test) must not reach the bot.
    env = {
        key: os.environ[key] for key in ("PATH", "HOME", "WORDS_CACHE_DIR", *MEASURED) if key in os.environ
    }
    env.update(
        DISCORD_TOKEN=token,
        DATABASE_PATH=str(database or tmp_path / "bot.db"),
        LOG_LEVEL="WARNING",
        STALL_LOG_MS="60000",  # a busy test machine's stalls (imports, loading words) are not the subject
        TEST_DISCORD_API=api,
        TEST_DISCORD_GATEWAY=gateway,
        TEST_DEADLINE_SECONDS=str(deadline),
        PYTHONPATH=str(REPO_ROOT),
        **(settings or {}),
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        LAUNCH,
        cwd=tmp_path,  # not the repository: a developer's .env stays out
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        _, stderr = await asyncio.wait_for(process.communicate(), 90)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    return SimpleNamespace(returncode=process.returncode, stderr=stderr.decode())


def the_one_line(result: SimpleNamespace) -> str:
    """Exit 2 and exactly one non-empty line on stderr, no traceback: that line."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2 and len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def a_refused_port() -> int:
    """A port nothing listens on: bound, then closed."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def refused_port() -> int:
    return a_refused_port()


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections (the kernel completes them) and never says a word."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield int(listener.getsockname()[1])


@pytest.fixture
async def answering_with() -> AsyncIterator:
    """A local server that answers every request with one HTTP status, as Discord shapes its errors."""
    runners: list[web.AppRunner] = []

    async def start(status: int) -> str:
        async def answer(request: web.Request) -> web.Response:
            return web.json_response({"message": f"{status}: test", "code": 0}, status=status)

        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", answer)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        runners.append(runner)
        port = runner.addresses[0][1]
        return f"http://127.0.0.1:{port}/api/v10"

    yield start
    for runner in runners:
        await runner.cleanup()


# -- a damaged database ---------------------------------------------------------------------------------------

NOT_UTF8 = 0x90  # a continuation byte with no lead byte before it: never part of UTF-8 text there


async def a_database_sqlite_tells_of_in_bytes_not_utf8(path: Path) -> None:
    """The bot's own database, its schema damaged as below."""
    store = await Store.open(path)
    await store.close()
    make_sqlite_quote_a_byte_not_utf8(path)


def make_sqlite_quote_a_byte_not_utf8(path: Path) -> None:
    """The first byte of an index's columns in the schema's SQL made 0x90: SQLite quotes it in its message
    ("malformed database schema (votes_open) - no such column: \\x90…"), which Python's sqlite3 fails to
    decode, raising UnicodeDecodeError in place of the DatabaseError. Flipping bytes of a real database found
    such files; this makes one the same way every time."""
    data = bytearray(path.read_bytes())
    index = re.search(rb"CREATE INDEX \w+ ON \w+ \(", data)
    assert index is not None
    data[index.end()] = NOT_UTF8
    path.write_bytes(bytes(data))
    with pytest.raises(UnicodeDecodeError), contextlib.closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA quick_check")  # what made the check itself fail


def a_database_whose_finding_names_a_table(path: Path, name: bytes) -> None:
    """A database whose table, named `name` (bytes that need not be UTF-8), holds a NULL its schema forbids:
    quick_check's finding names the table ("NULL value in <name>.a")."""
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as connection:
        connection.execute("CREATE TABLE t (a INTEGER)")
        connection.execute("INSERT INTO t VALUES (NULL)")
        connection.execute("PRAGMA writable_schema = ON")
        connection.execute(
            "UPDATE sqlite_schema SET sql = CAST(? AS TEXT), name = CAST(? AS TEXT), tbl_name = CAST(? AS TEXT)",
            (b'CREATE TABLE "' + name + b'" (a INTEGER NOT NULL)', name, name),
        )
        connection.execute("PRAGMA writable_schema = OFF")


async def test_a_damaged_database_whose_message_is_not_utf8_is_refused_in_one_line(tmp_path, refused_port):
    path = tmp_path / "bot.db"
    await a_database_sqlite_tells_of_in_bytes_not_utf8(path)
    result = await run_bot(
        tmp_path, f"http://127.0.0.1:{refused_port}/api/v10", f"ws://127.0.0.1:{refused_port}/", database=path
    )
    line = the_one_line(result)
    assert line.startswith(f"error: the database {path} is damaged (malformed database schema"), line
    assert "\ufffd" in line and "restore it from a backup" in line


async def test_the_refusal_tells_sqlites_finding_with_the_bytes_that_are_not_utf8_marked(tmp_path):
    path = tmp_path / "bot.db"
    await a_database_sqlite_tells_of_in_bytes_not_utf8(path)
    with pytest.raises(UnusableDatabase, match=r"is damaged \(malformed database schema \(\w+\) - .*\ufffd"):
        await Store.open(path)


@pytest.mark.parametrize(
    ("name", "shown"),
    [(b"t\x90", "t\ufffd"), (b"t\x1b[2J\x07", "t\ufffd[2J\ufffd")],
    ids=["not-utf8", "control"],
)
async def test_a_finding_that_names_damaged_bytes_is_told_in_one_printable_line(
    tmp_path: Path, name: bytes, shown: str
) -> None:
    path = tmp_path / "bot.db"
    a_database_whose_finding_names_a_table(path, name)
    with pytest.raises(UnusableDatabase) as refused:
        await Store.open(path)
    assert str(refused.value).startswith(f"the database {path} is damaged (NULL value in {shown}.a): restore")


async def test_a_host_that_does_not_resolve_is_told_in_one_line(tmp_path, refused_port):
    result = await run_bot(tmp_path, "http://nonexistent.invalid/api/v10", f"ws://127.0.0.1:{refused_port}/")
    line = the_one_line(result)
    assert "cannot reach Discord" in line and "nonexistent.invalid does not resolve" in line


async def test_a_refused_connection_is_told_in_one_line(tmp_path, refused_port):
    result = await run_bot(
        tmp_path, f"http://127.0.0.1:{refused_port}/api/v10", f"ws://127.0.0.1:{refused_port}/"
    )
    line = the_one_line(result)
    assert f"cannot reach Discord at 127.0.0.1:{refused_port}: Connection refused" in line


async def test_a_login_nobody_answers_is_told_in_one_line_at_the_deadline(tmp_path, silent_port):
    result = await run_bot(
        tmp_path, f"http://127.0.0.1:{silent_port}/api/v10", f"ws://127.0.0.1:{silent_port}/", deadline=1
    )
    assert "Discord did not answer the login within 1 s" in the_one_line(result)


async def test_a_refused_token_is_told_in_one_line(tmp_path, answering_with, refused_port):
    result = await run_bot(tmp_path, await answering_with(401), f"ws://127.0.0.1:{refused_port}/")
    line = the_one_line(result)
    assert "Discord refused the token in DISCORD_TOKEN" in line and "developers/applications" in line


async def test_a_server_error_at_login_is_told_in_one_line(tmp_path, answering_with, refused_port):
    # 503: discord.py gives up at once (500, 502 and 504 it retries for 25 s first, then fails the same way).
    result = await run_bot(tmp_path, await answering_with(503), f"ws://127.0.0.1:{refused_port}/")
    line = the_one_line(result)
    assert "Discord answered with HTTP 503" in line and "discordstatus.com" in line


@pytest.fixture
async def fake_discord() -> AsyncIterator:
    """The e2e fake Discord (REST and gateway), without the spec: only its login and commands are used."""
    from tests.e2e.fake_discord import FakeDiscord

    fake = FakeDiscord(None)
    await fake.start()
    yield fake
    await fake.close()
    assert not fake.violations, fake.violations


async def test_a_gateway_refused_after_the_login_is_told_in_one_line(tmp_path, fake_discord, refused_port):
    result = await run_bot(
        tmp_path, fake_discord.api_base, f"ws://127.0.0.1:{refused_port}/gateway", token=fake_discord.token
    )
    line = the_one_line(result)
    assert f"cannot reach Discord's gateway at 127.0.0.1:{refused_port}: Connection refused" in line
    assert fake_discord.global_commands  # logged in and set up: the commands were synced first


async def test_a_process_of_several_shards_refused_its_first_gateway_is_told_in_one_line(
    tmp_path, fake_discord, refused_port
):
    # discord.py's AutoShardedBot retries a shard that failed to connect for ever, with a traceback.
    result = await run_bot(
        tmp_path,
        fake_discord.api_base,
        f"ws://127.0.0.1:{refused_port}/gateway",
        token=fake_discord.token,
        settings={"SHARD_COUNT": "2"},
    )
    line = the_one_line(result)
    assert f"cannot reach Discord's gateway at 127.0.0.1:{refused_port}: Connection refused" in line


async def test_a_gateway_that_never_answers_is_told_in_one_line_at_the_deadline(
    tmp_path, fake_discord, silent_port
):
    result = await run_bot(
        tmp_path,
        fake_discord.api_base,
        f"ws://127.0.0.1:{silent_port}/gateway",
        token=fake_discord.token,
        deadline=3,
    )
    assert "Discord did not open a gateway session within 3 s" in the_one_line(result)


# Failures a local server cannot cheaply stage, told by the same function the process uses.


def _http_error(kind: type[discord.HTTPException], status: int, text: str) -> discord.HTTPException:
    response = SimpleNamespace(status=status, reason="Reason")
    return kind(response, text)  # type: ignore[arg-type]


def test_a_server_error_after_discord_py_retried_is_one_line():
    line = startup_failure_line(_http_error(discord.DiscordServerError, 500, "oops"))
    assert line is not None and "HTTP 500" in line and "\n" not in line


def test_an_error_page_is_flattened_into_the_line():
    page = "<html>\n<body>\n" + "blocked " * 100 + "\n</body></html>"
    line = startup_failure_line(_http_error(discord.HTTPException, 429, page))
    assert line is not None and "HTTP 429" in line and "\n" not in line and len(line) < 300


def test_the_gateway_refusing_the_token_is_told_as_a_refused_token():
    closed = discord.ConnectionClosed(SimpleNamespace(close_code=4004), shard_id=None)  # type: ignore[arg-type]
    line = startup_failure_line(closed)
    assert line is not None and "refused the token" in line


def test_privileged_intents_refused_is_one_line():
    line = startup_failure_line(discord.PrivilegedIntentsRequired(None))
    assert line is not None and "privileged intents" in line and "developers/applications" in line


def test_a_gateway_failure_names_the_gateway():
    cause = aiohttp.ClientConnectionError("Server disconnected")
    try:
        raise GatewayUnreachable(str(cause)) from cause
    except GatewayUnreachable as error:
        line = startup_failure_line(error)
    assert line == "cannot reach Discord's gateway: Server disconnected. Check the network, then run again."


def test_an_error_that_is_not_about_discord_keeps_its_traceback():
    # A file the set-up cannot open, a bug: not disguised as a network failure.
    assert startup_failure_line(PermissionError(13, "Permission denied")) is None
    assert startup_failure_line(KeyError("x")) is None
