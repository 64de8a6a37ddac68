"""The /stats chart: one line per game in its colour, over one time axis."""

from __future__ import annotations

import io

from PIL import Image

from bot.render.stats_chart import HEIGHT, WIDTH, render_chart


def colours_in(png: bytes) -> set[tuple[int, int, int]]:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.size == (WIDTH, HEIGHT)
    return {colour for _, colour in image.getcolors(maxcolors=WIDTH * HEIGHT) or []}


def test_each_game_is_drawn_in_its_own_colour() -> None:
    png = render_chart(
        [
            {"label": "Topple", "colour": 0xFF0000, "points": [[100, 3], [200, 9], [300, 4]]},
            {"label": "Toppo", "colour": 0x00FF00, "points": [[150, -2]]},
        ]
    )
    found = colours_in(png)
    assert (255, 0, 0) in found and (0, 255, 0) in found


def test_one_game_or_none_still_draws_a_chart() -> None:
    assert (0, 0, 255) in colours_in(
        render_chart([{"label": "Top Stop", "colour": 0x0000FF, "points": [[5, 7]]}])
    )
    assert colours_in(render_chart([]))
