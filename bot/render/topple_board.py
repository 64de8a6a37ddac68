"""The Topple board as a PNG: the 5×5 squares shaded by level, each stack's colours from the bottom up, the
squares the roll allows, the last placement, and the board's tilt as an arrow on a level.

Input is `Topple.view_for(...)` (any viewer: Topple has no secret). Columns are letters A–E left to right,
rows numbers 1–5 top to bottom, as the table's buttons name them ("C3" is the centre). The picture holds no
words, only coordinates and figures; the tilt's figure is written as the table's texts write it (`decimal`).
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from babel.numbers import get_decimal_symbol
from PIL import Image, ImageDraw, ImageFont

SIZE = 5
CELL = 96
MARGIN = 28  # room for the coordinates
PANEL = 190  # the tilt gauge, right of the board
BOARD_PX = SIZE * CELL
WIDTH = MARGIN + BOARD_PX + MARGIN // 2 + PANEL
HEIGHT = MARGIN + BOARD_PX + MARGIN

BACKGROUND = (38, 50, 56)
LABEL = (236, 239, 241)
# Level 1 (the centre) the lightest: the board reads as a dome around its spindle.
LEVEL_SHADES = {
    1: (238, 226, 196),
    2: (222, 206, 170),
    3: (204, 184, 144),
    4: (184, 162, 120),
    5: (160, 138, 98),
}
ALLOWED = (46, 204, 113)
LAST = (229, 57, 53)
PIECES = {
    "red": (211, 47, 47),
    "yellow": (251, 192, 45),
    "green": (56, 142, 60),
    "blue": (30, 136, 229),
}
PIECE_EDGE = (33, 33, 33)
LEVEL_MARK = (110, 90, 60)
GAUGE = (84, 110, 122)
ARROW = (255, 112, 67)
BADGE = 24  # the height badge's diameter, in the square's top right corner
STACK_TOP = 4 + BADGE + 4  # pieces are piled below the badge: no stack, however tall, reaches under it
# The tilt at which the arrow reaches the gauge's rim (a board this far off level is very likely to topple).
FULL_TILT = 24.0

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@lru_cache(maxsize=8)
def _font(size: int) -> Font:
    """Pillow's bundled font (Pillow ≥ 10.1): no system font is assumed."""
    return ImageFont.load_default(size=size)


def square_name(row: int, col: int) -> str:
    """ "A1" for the top left square, "C3" for the centre (the table's buttons use the same names)."""
    return f"{'ABCDE'[col]}{row + 1}"


def decimal(value: float, places: int, lang: str) -> str:
    """`value` with `places` decimals and the language's decimal mark (10.30, 10,30): the table's texts and
    the picture write their figures alike."""
    return f"{value:.{places}f}".replace(".", get_decimal_symbol(lang))


def _centre_text(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int, fill: Any) -> None:
    draw.text(xy, text, font=_font(size), fill=fill, anchor="mm")


def _stack(draw: ImageDraw.ImageDraw, left: int, top: int, stack: Sequence[str]) -> None:
    """A stack as pieces piled from the bottom of the square up, each a band of its colour, below its height
    in figures; a stack too tall for the square shows its top pieces."""
    if not stack:
        return
    bottom = top + CELL - 8
    inner = bottom - (top + STACK_TOP)
    band = max(6, min(16, inner // len(stack)))
    shown = list(stack)[-(inner // band) :]
    for index, colour in enumerate(shown):
        y1 = bottom - index * band
        draw.rectangle(
            (left + 18, y1 - band + 1, left + CELL - 18, y1),
            fill=PIECES.get(colour, (158, 158, 158)),
            outline=PIECE_EDGE,
        )
    draw.ellipse(badge_box(left, top), fill=(255, 255, 255), outline=PIECE_EDGE)
    _centre_text(draw, (left + CELL - 6 - BADGE / 2, top + 4 + BADGE / 2), str(len(stack)), 15, PIECE_EDGE)


def badge_box(left: int, top: int) -> tuple[int, int, int, int]:
    """Where the height badge of the square at (left, top) is drawn."""
    return (left + CELL - 6 - BADGE, top + 4, left + CELL - 6, top + 4 + BADGE)


def _gauge(draw: ImageDraw.ImageDraw, tilt: Mapping[str, Any], lang: str) -> None:
    """The tilt: a disc seen from above (north up) with an arrow from its centre towards where the board
    leans, as long as the tilt (full length at FULL_TILT), and the tilt's amount below it."""
    radius = 70
    cx = MARGIN + BOARD_PX + MARGIN // 2 + PANEL // 2
    cy = MARGIN + 20 + radius
    draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), outline=GAUGE, width=3)
    for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
        draw.line(
            (cx + dx * (radius - 8), cy + dy * (radius - 8), cx + dx * radius, cy + dy * radius),
            fill=GAUGE,
            width=3,
        )
    _centre_text(draw, (cx, cy - radius - 12), "N", 16, LABEL)
    east, south = int(tilt.get("east", 0)), int(tilt.get("south", 0))
    amount = float(tilt.get("amount", 0.0))
    if amount > 0:
        length = max(30.0, radius * min(1.0, amount / FULL_TILT))
        x, y = cx + east / math.hypot(east, south) * length, cy + south / math.hypot(east, south) * length
        draw.line((cx, cy, x, y), fill=ARROW, width=6)
        angle = math.atan2(y - cy, x - cx)
        for turn in (2.6, -2.6):
            draw.line(
                (x, y, x + 14 * math.cos(angle + turn), y + 14 * math.sin(angle + turn)), fill=ARROW, width=6
            )
    draw.ellipse((cx - 6, cy - 6, cx + 6, cy + 6), fill=LABEL)
    _centre_text(draw, (cx, cy + radius + 24), decimal(amount, 2, lang), 22, LABEL)


def render_board(view: Mapping[str, Any], lang: str) -> bytes:
    """A PNG of the board in `view`: stacks, the allowed squares (outlined green), the last placement (red)
    and the tilt, its figure as the table's language `lang` writes it."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    board: Sequence[Sequence[Sequence[str]]] = view["board"]
    levels: Sequence[Sequence[int]] = view["levels"]
    allowed = {(int(sq[0]), int(sq[1])) for sq in view.get("allowed") or []}
    last = view.get("last") or {}
    latest = tuple(last["square"]) if last.get("square") and not last.get("toppled") else None
    for index in range(SIZE):
        _centre_text(draw, (MARGIN + index * CELL + CELL / 2, MARGIN / 2), "ABCDE"[index], 18, LABEL)
        _centre_text(draw, (MARGIN / 2, MARGIN + index * CELL + CELL / 2), str(index + 1), 18, LABEL)
    for row in range(SIZE):
        for col in range(SIZE):
            left, top = MARGIN + col * CELL, MARGIN + row * CELL
            level = int(levels[row][col])
            draw.rectangle((left + 2, top + 2, left + CELL - 2, top + CELL - 2), fill=LEVEL_SHADES[level])
            _centre_text(draw, (left + 12, top + 12), str(level), 13, LEVEL_MARK)
            _stack(draw, left, top, board[row][col])
            if (row, col) == latest:
                draw.rectangle((left + 2, top + 2, left + CELL - 2, top + CELL - 2), outline=LAST, width=5)
            elif (row, col) in allowed:
                draw.rectangle((left + 2, top + 2, left + CELL - 2, top + CELL - 2), outline=ALLOWED, width=5)
    _gauge(draw, view.get("tilt") or {}, lang)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()
