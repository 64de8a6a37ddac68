"""Top Drop's common pile as a PNG: the top card large in its colour, the cards below it smaller to its left,
and the Direction Card (an arrow up or down) to its right.

Input is the public part of `TopDrop.view_for(...)`: the last cards of the pile and the direction, never a
hand. The picture holds only figures and arrows, so it reads the same in every language.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 560, 240
BACKGROUND = (44, 47, 51)
EDGE = (24, 24, 24)
WHITE = (250, 250, 250)
FADED = (120, 124, 130)
# The five colours of the number cards (bot/games/topdrop/cards.py: COLOUR_TABLE).
COLOURS = {
    "red": (211, 47, 47),
    "yellow": (249, 190, 30),
    "green": (56, 142, 60),
    "blue": (30, 120, 220),
    "purple": (142, 68, 173),
}
DARK_FIGURES = {"yellow"}  # a light card gets dark figures
TOP = (200, 20, 340, 220)  # the top card: left, top, right, bottom
BELOW_W, BELOW_H, BELOW_STEP = 64, 96, 44
ARROW_X = 450

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@lru_cache(maxsize=8)
def _font(size: int) -> Font:
    """Pillow's bundled font (Pillow ≥ 10.1): no system font is assumed."""
    return ImageFont.load_default(size=size)


def _card(
    draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], card: int, colour: str, size: int | None
) -> None:
    """A card in its colour with its figure in the corner and, when `size` is given, large in the middle
    (the cards below the top show only their corner: the next card covers the rest)."""
    fill = COLOURS.get(colour, FADED)
    figures = EDGE if colour in DARK_FIGURES else WHITE
    draw.rounded_rectangle(box, radius=12, fill=fill, outline=EDGE, width=3)
    left, top, right, bottom = box
    if size is not None:
        middle = ((left + right) / 2, (top + bottom) / 2)
        draw.text(middle, str(card), font=_font(size), fill=figures, anchor="mm")
    draw.text(
        (left + 7, top + 6), str(card), font=_font(24 if size is None else 22), fill=figures, anchor="la"
    )


def _arrow(draw: ImageDraw.ImageDraw, direction: str) -> None:
    """The Direction Card: a white arrow pointing up (ascending) or down (descending)."""
    draw.rounded_rectangle((ARROW_X - 60, 40, ARROW_X + 60, 200), radius=14, outline=WHITE, width=3)
    if direction == "up":
        head = [(ARROW_X, 60), (ARROW_X - 40, 110), (ARROW_X + 40, 110)]
        shaft = (ARROW_X - 14, 108, ARROW_X + 14, 180)
    else:
        head = [(ARROW_X, 180), (ARROW_X - 40, 130), (ARROW_X + 40, 130)]
        shaft = (ARROW_X - 14, 60, ARROW_X + 14, 132)
    draw.rectangle(shaft, fill=WHITE)
    draw.polygon(head, fill=WHITE)


def render_pile(pile: Sequence[Mapping[str, Any]], direction: str) -> bytes:
    """A PNG of the pile's last cards (`pile`: [{"card", "colour"}…], top last; empty: an outline where the
    first card goes) and the direction."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    below, top = list(pile)[-5:-1], (pile[-1] if pile else None)
    for index, shown in enumerate(below):
        left = 20 + index * BELOW_STEP
        box = (left, 72, left + BELOW_W, 72 + BELOW_H)
        _card(draw, box, int(shown["card"]), str(shown["colour"]), None)
    if top is None:
        draw.rounded_rectangle(TOP, radius=18, outline=FADED, width=4)
    else:
        _card(draw, TOP, int(top["card"]), str(top["colour"]), 72)
    _arrow(draw, direction)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()
