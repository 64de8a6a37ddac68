"""A player's rating over time as an SVG drawn on the server: a polyline per game, figures and dates written
by Babel in the reader's language. No script: the picture is inline markup the page's policy allows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from babel.dates import format_date
from babel.numbers import format_decimal
from markupsafe import Markup, escape

from bot.render.stats_chart import Axes

WIDTH, HEIGHT = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 16, 40
GRID_LINES = 4


@dataclass(frozen=True)
class Series:
    """One game's points: (when, rating), oldest first, drawn in the game's colour (0xRRGGBB)."""

    label: str
    colour: int
    points: Sequence[tuple[float, float]]


def rating_chart(series: Sequence[Series], lang: str, title: str) -> Markup:
    """The chart as SVG markup (empty when there is nothing to draw)."""
    points = [point for line in series for point in line.points]
    if not points:
        return Markup("")
    axes = Axes.fit(points, (WIDTH, HEIGHT), (LEFT, RIGHT, TOP, BOTTOM))
    first, last = axes.first, axes.last

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img"'
        f' aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
    ]
    for value, y in axes.grid(GRID_LINES):
        parts.append(f'<line class="grid" x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}"/>')
        figure = escape(format_decimal(round(value, 1), format="#,##0.0", locale=lang))
        parts.append(f'<text class="figure" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{figure}</text>')
    for at, anchor in ((first, "start"), (last, "end")) if last != first else ((first, "middle"),):
        x = LEFT if anchor == "start" else WIDTH - RIGHT if anchor == "end" else LEFT + axes.span_x / 2
        day = escape(format_date(datetime.fromtimestamp(at, UTC), format="medium", locale=lang))
        parts.append(f'<text class="day" x="{x}" y="{HEIGHT - 12}" text-anchor="{anchor}">{day}</text>')
    for line in series:
        colour = f"#{line.colour & 0xFFFFFF:06x}"
        drawn = " ".join(f"{axes.x(at):.1f},{axes.y(value):.1f}" for at, value in line.points)
        parts.append(f'<g class="series"><title>{escape(line.label)}</title>')
        if len(line.points) > 1:
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="3" points="{drawn}"/>')
        for at, value in line.points:
            parts.append(f'<circle cx="{axes.x(at):.1f}" cy="{axes.y(value):.1f}" r="4" fill="{colour}"/>')
        parts.append("</g>")
    parts.append("</svg>")
    return Markup("".join(parts))
