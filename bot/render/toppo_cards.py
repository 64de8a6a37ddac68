"""Toppo's display as a PNG: one card per display position, its colour as the card's face and its symbol
(waves, circle, square, H, plus) drawn on it, the position's number under it.

Input is the display as the rules show it (`[[colour, symbol], …]`, left to right). The picture holds no
words, only the positions' numbers, so it reads the same in every language; the console and the table name
the same cards by position.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

CARD_W, CARD_H = 120, 168
GAP = 18
MARGIN = 20
LABEL_H = 34
BACKGROUND = (30, 96, 62)  # a green baize
EDGE = (33, 33, 33)
LABEL = (236, 239, 241)
FACES = {
    "red": (211, 47, 47),
    "yellow": (251, 192, 45),
    "white": (245, 245, 245),
    "green": (56, 142, 60),
    "blue": (30, 136, 229),
}
# The symbol in a tone that stands out on every face: dark on the light faces, white on the others.
INK = {
    "red": (255, 255, 255),
    "yellow": (33, 33, 33),
    "white": (33, 33, 33),
    "green": (255, 255, 255),
    "blue": (255, 255, 255),
}

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@lru_cache(maxsize=4)
def _font(size: int) -> Font:
    """Pillow's bundled font (Pillow ≥ 10.1): no system font is assumed."""
    return ImageFont.load_default(size=size)


def _symbol(draw: ImageDraw.ImageDraw, symbol: str, cx: float, cy: float, ink: tuple[int, int, int]) -> None:
    """The card's symbol, about 64 px across, centred on (cx, cy)."""
    r = 32
    width = 9
    if symbol == "circle":
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=ink, width=width)
    elif symbol == "square":
        draw.rectangle((cx - r + 3, cy - r + 3, cx + r - 3, cy + r - 3), outline=ink, width=width)
    elif symbol == "h":
        draw.line((cx - r + 6, cy - r, cx - r + 6, cy + r), fill=ink, width=width + 2)
        draw.line((cx + r - 6, cy - r, cx + r - 6, cy + r), fill=ink, width=width + 2)
        draw.line((cx - r + 6, cy, cx + r - 6, cy), fill=ink, width=width + 2)
    elif symbol == "plus":
        draw.line((cx, cy - r, cx, cy + r), fill=ink, width=width + 3)
        draw.line((cx - r, cy, cx + r, cy), fill=ink, width=width + 3)
    elif symbol == "waves":
        for dy in (-18, 0, 18):
            draw.line(_wave(cx, cy + dy, r), fill=ink, width=5, joint="curve")
    else:  # an unknown symbol (never dealt): a dot, so the picture still draws
        draw.ellipse((cx - 6, cy - 6, cx + 6, cy + 6), fill=ink)


def _wave(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    """One wavy line across the symbol's width: two periods of a sine."""
    return [
        (cx - r + step, cy + 6 * math.sin(step / (2 * r) * 4 * math.pi))
        for step in range(0, int(2 * r) + 1, 3)
    ]


def _card(draw: ImageDraw.ImageDraw, left: float, top: float, colour: str, symbol: str) -> None:
    face = FACES.get(colour, (158, 158, 158))
    ink = INK.get(colour, (33, 33, 33))
    draw.rounded_rectangle(
        (left, top, left + CARD_W, top + CARD_H), radius=12, fill=face, outline=EDGE, width=3
    )
    draw.rounded_rectangle(
        (left + 8, top + 8, left + CARD_W - 8, top + CARD_H - 8), radius=8, outline=ink, width=2
    )
    _symbol(draw, symbol, left + CARD_W / 2, top + CARD_H / 2, ink)


def render_display(display: Sequence[Sequence[str]]) -> bytes:
    """A PNG of the display: its cards left to right, each numbered from 1 as the buttons name them."""
    count = max(1, len(display))
    width = 2 * MARGIN + count * CARD_W + (count - 1) * GAP
    height = 2 * MARGIN + CARD_H + LABEL_H
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for position, card in enumerate(display):
        left = MARGIN + position * (CARD_W + GAP)
        _card(draw, left, MARGIN, str(card[0]), str(card[1]))
        draw.text(
            (left + CARD_W / 2, MARGIN + CARD_H + LABEL_H / 2 + 2),
            str(position + 1),
            font=_font(24),
            fill=LABEL,
            anchor="mm",
        )
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()
