"""Pictures are drawn in a process of their own and kept per state (bot.render.pictures)."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.render.pictures import Pictures
from bot.render.topwords_board import render_board


def where_drawn(state: dict[str, int]) -> bytes:
    """A picture that says which process drew it, and when."""
    return f"{os.getpid()} {time.monotonic()} {state}".encode()


def slow_picture(state: dict[str, int]) -> bytes:
    time.sleep(0.2)
    return where_drawn(state)


@pytest.fixture
async def pictures() -> AsyncIterator[Pictures]:
    pictures = Pictures(kept=2)
    yield pictures
    await asyncio.to_thread(pictures.close)


async def test_a_picture_is_drawn_in_another_process(pictures: Pictures) -> None:
    drawer = int((await pictures.draw(where_drawn, {"turn": 1})).split()[0])
    assert drawer != os.getpid()


async def test_the_same_state_gets_the_picture_already_drawn(pictures: Pictures) -> None:
    first = await pictures.draw(where_drawn, {"turn": 1})
    assert await pictures.draw(where_drawn, {"turn": 1}) == first
    assert pictures.drawn == 1
    assert await pictures.draw(where_drawn, {"turn": 2}) != first  # another state: drawn anew
    assert pictures.drawn == 2


async def test_eight_asking_at_once_wait_for_one_picture(pictures: Pictures) -> None:
    drawn = await asyncio.gather(*(pictures.draw(slow_picture, {"turn": 3}) for _ in range(8)))
    assert len(set(drawn)) == 1 and pictures.drawn == 1


async def test_only_the_latest_pictures_are_kept(pictures: Pictures) -> None:
    first = await pictures.draw(where_drawn, {"turn": 1})
    await pictures.draw(where_drawn, {"turn": 2})
    await pictures.draw(where_drawn, {"turn": 3})  # kept=2: turn 1 is let go
    assert await pictures.draw(where_drawn, {"turn": 1}) != first
    assert pictures.drawn == 4


async def test_a_worker_that_died_is_replaced(pictures: Pictures) -> None:
    first = int((await pictures.draw(where_drawn, {"turn": 1})).split()[0])
    os.kill(first, 9)
    await asyncio.sleep(0.2)  # the pool notices its worker is gone
    second = int((await pictures.draw(where_drawn, {"turn": 2})).split()[0])
    assert second not in (first, os.getpid())


async def test_the_board_drawn_in_the_worker_is_the_board_drawn_here(pictures: Pictures) -> None:
    view = {
        "board": [[""] * 10 for _ in range(10)],
        "players": ["1", "2"],
        "scores": {"1": 12, "2": 7},
        "last_move": [[4, 4], [4, 5]],
    }
    view["board"][4][4], view["board"][4][5] = "AB", "C"
    names = {"1": "Alice", "2": "Bob"}
    assert await pictures.draw(render_board, view, names=names, lang="de") == render_board(
        view, names=names, lang="de"
    )


HERE = Path(__file__).resolve().parent
KILLED_BOT = f"""
import asyncio, os, sys
sys.path[:0] = [{str(HERE.parents[1])!r}, {str(HERE)!r}]
from bot.render.pictures import Pictures
from test_pictures import where_drawn
async def main():
    pictures = Pictures()
    print((await pictures.draw(where_drawn, {{"turn": 1}})).split()[0].decode(), flush=True)
    os.kill(os.getpid(), 9)
asyncio.run(main())
"""


def _ended(pid: int) -> bool:
    """Whether a process has ended (gone, or a zombie waiting for its parent)."""
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().split()[2] == "Z"


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="reads /proc")
async def test_the_worker_ends_with_a_bot_killed_outright() -> None:
    bot = await asyncio.create_subprocess_exec(
        sys.executable, "-c", KILLED_BOT, stdout=asyncio.subprocess.PIPE
    )
    worker = int((await bot.communicate())[0])
    assert bot.returncode == -9
    for _ in range(50):
        if _ended(worker):
            break
        await asyncio.sleep(0.1)
    else:
        pytest.fail(f"the picture worker {worker} outlived its bot")
