"""The Topple board picture: each stack's height badge stays clear of its pieces, however tall the stack."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

from bot.games.topple.board import LEVELS, empty_board
from bot.games.topple.state import COLOURS, PIECES_PER_COLOUR
from bot.render.topple_board import CELL, MARGIN, PIECES, SIZE, badge_box, render_board

TALLEST = PIECES_PER_COLOUR * len(COLOURS)  # every piece on one square


def view_of(heights: list[int]) -> dict[str, Any]:
    """A board whose squares, row by row, hold stacks of these heights (colours in turn)."""
    board = empty_board()
    for index, height in enumerate(heights):
        board[index // SIZE][index % SIZE] = [COLOURS[i % len(COLOURS)] for i in range(height)]
    return {"board": board, "levels": LEVELS, "tilt": {"east": 0, "south": 0, "amount": 0.0}}


@pytest.mark.parametrize("lowest", [1, TALLEST - SIZE * SIZE + 1])
def test_no_stack_reaches_under_its_height_badge(lowest: int) -> None:
    heights = list(range(lowest, lowest + SIZE * SIZE))
    image = Image.open(io.BytesIO(render_board(view_of(heights), "en"))).convert("RGB")
    pieces = set(PIECES.values())
    for index, height in enumerate(heights):
        left, top = MARGIN + (index % SIZE) * CELL, MARGIN + (index // SIZE) * CELL
        x0, y0, x1, y1 = badge_box(left, top)
        under = [
            (x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1) if image.getpixel((x, y)) in pieces
        ]
        assert under == [], f"a stack of {height} shows under its badge"
