"""A member's points (or rating) over time as a PNG: one line per game, each in its game's colour.

Input is plain data: series of `{"label": title, "colour": 0xRRGGBB, "points": [[finished_at, value], …]}`,
drawn by `bot.pictures` in the picture process. The picture holds figures, dates (YYYY-MM-DD) and the games'
titles only, so it reads the same in every language; whoever's chart it is, it shows results alone.
"""

from __future__ import annotations

import io
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 720, 360
LEFT, RIGHT, TOP, BOTTOM = 64, 24, 40, 44  # room for the figures, the legend and the dates
BACKGROUND = (44, 47, 51)
GRID = (70, 74, 80)
LABEL = (220, 221, 222)
GRID_LINES = 5

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@lru_cache(maxsize=4)
def _font(size: int) -> Font:
    """Pillow's bundled font (Pillow ≥ 10.1): no system font is assumed."""
    return ImageFont.load_default(size=size)


@dataclass(frozen=True)
class Axes:
    """Where a chart's points go in a box: time across (a single moment in the middle), the value up (a flat
    line in the middle). Shared by this picture and the web pages' SVG chart (bot/web/chart.py)."""

    first: float
    last: float
    low: float
    high: float
    left: float
    top: float
    span_x: float
    span_y: float

    @classmethod
    def fit(
        cls, points: Sequence[tuple[float, float]], size: tuple[int, int], margins: tuple[int, int, int, int]
    ) -> Axes:
        """The axes for `points` (not empty) in a box of `size` (width, height) inside `margins` (left,
        right, top, bottom)."""
        (width, height), (left, right, top, bottom) = size, margins
        first, last = min(at for at, _ in points), max(at for at, _ in points)
        low, high = min(value for _, value in points), max(value for _, value in points)
        if high == low:
            low, high = low - 1, high + 1
        return cls(first, last, low, high, left, top, width - left - right, height - top - bottom)

    def x(self, at: float) -> float:
        span = self.last - self.first
        return self.left + (self.span_x / 2 if span == 0 else (at - self.first) / span * self.span_x)

    def y(self, value: float) -> float:
        return self.top + (self.high - value) / (self.high - self.low) * self.span_y

    def grid(self, lines: int) -> list[tuple[float, float]]:
        """The values of `lines` + 1 grid lines from the lowest to the highest, with their heights."""
        values = [self.low + (self.high - self.low) * step / lines for step in range(lines + 1)]
        return [(value, self.y(value)) for value in values]


def _rgb(colour: int) -> tuple[int, int, int]:
    return (colour >> 16) & 0xFF, (colour >> 8) & 0xFF, colour & 0xFF


def _figure(value: float) -> str:
    return str(round(value)) if abs(value) >= 10 or value == int(value) else f"{value:.1f}"


def _day(moment: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(moment))


def render_chart(series: Sequence[Mapping[str, Any]]) -> bytes:
    """The chart of every series' points over one time axis (a single game: its dot in the middle)."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    points = [(float(at), float(value)) for line in series for at, value in line["points"]]
    if not points:
        return _png(image)
    axes = Axes.fit(points, (WIDTH, HEIGHT), (LEFT, RIGHT, TOP, BOTTOM))
    first, last = axes.first, axes.last
    for value, y in axes.grid(GRID_LINES):
        draw.line([(LEFT, y), (WIDTH - RIGHT, y)], fill=GRID, width=1)
        draw.text((LEFT - 8, y), _figure(value), font=_font(14), fill=LABEL, anchor="rm")
    draw.text((LEFT, HEIGHT - BOTTOM + 10), _day(first), font=_font(14), fill=LABEL, anchor="la")
    if last != first:
        draw.text((WIDTH - RIGHT, HEIGHT - BOTTOM + 10), _day(last), font=_font(14), fill=LABEL, anchor="ra")
    legend_x = LEFT
    for line in series:
        colour = _rgb(int(line["colour"]))
        drawn = [(axes.x(float(at)), axes.y(float(value))) for at, value in line["points"]]
        if len(drawn) > 1:
            draw.line(drawn, fill=colour, width=3, joint="curve")
        for x, y in drawn:
            draw.ellipse((x - 4, y - 4, x + 4, y + 4), fill=colour)
        label = str(line["label"])
        draw.rectangle((legend_x, 14, legend_x + 12, 26), fill=colour)
        draw.text((legend_x + 18, 20), label, font=_font(15), fill=LABEL, anchor="lm")
        legend_x += 18 + int(draw.textlength(label, font=_font(15))) + 24
    return _png(image)


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
