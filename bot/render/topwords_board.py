"""The TopWords board as a PNG: squares A–J × 1–10, top letters, stack heights, the last move, the scores.

Input is `TopWords.view_for(...)` (any viewer: the picture shows nothing secret). Columns are letters
A–J left to right, rows numbers 1–10 top to bottom, as in bot/games/topwords/commands.py ("E5" = row 4,
col 4, a centre square).
"""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from PIL import Image, ImageDraw, ImageFont

from bot.i18n import t

SIZE = 10
CELL = 50
GAP = 3
MARGIN = 30  # room for the coordinates
PANEL = 230  # the score panel right of the board
BOARD_PX = SIZE * CELL
WIDTH = MARGIN + BOARD_PX + MARGIN // 2 + PANEL
HEIGHT = MARGIN + BOARD_PX + MARGIN
CENTRE = {(4, 4), (4, 5), (5, 4), (5, 5)}

BACKGROUND = (38, 50, 56)
SQUARE = (224, 218, 200)
CENTRE_SQUARE = (214, 184, 110)
LABEL = (236, 239, 241)
LETTER = (33, 33, 33)
HIGHLIGHT = (229, 57, 53)
GONE = (144, 164, 174)  # a player who left: dimmed
# Tiles darken with the height of their stack, so tall stacks stand out at a glance.
TILE_BY_HEIGHT = {
    1: (255, 248, 225),
    2: (255, 210, 140),
    3: (255, 183, 77),
    4: (245, 124, 0),
    5: (191, 54, 12),
}
LETTER_ON_DARK = (255, 255, 255)

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont
Colour = tuple[int, int, int]


@lru_cache(maxsize=8)
def _font(size: int) -> Font:
    """Pillow's bundled font (Pillow ≥ 10.1): no system font is assumed."""
    return ImageFont.load_default(size=size)


@lru_cache(maxsize=1024)
def _has_glyph(size: int, char: str) -> bool:
    """Whether the bundled font draws `char` (it covers ASCII only: Ä, Ö, Ü are composed here)."""
    font = _font(size)
    return char == " " or bytes(font.getmask(char)) != bytes(font.getmask("\uffff"))


def _glyphs(size: int, text: str) -> list[tuple[str, bool]]:
    """`text` as drawable characters, each with whether it needs two dots on top (an umlaut)."""
    out: list[tuple[str, bool]] = []
    for char in text:
        if _has_glyph(size, char):
            out.append((char, False))
            continue
        base = unicodedata.normalize("NFD", char)
        if char in "ÄÖÜäöü":
            out.append((base[0], True))
        elif char in "ßẞ":
            out.extend([("s", False), ("s", False)] if char == "ß" else [("S", False), ("S", False)])
        elif _has_glyph(size, base[0]):
            out.append((base[0], False))  # other accents dropped: é → e
        else:
            out.append(("?", False))
    return out


def _dots(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], size: int, fill: Colour) -> None:
    """A diaeresis over the glyph in `box`, drawn since the bundled font has no umlauts."""
    x0, y0, x1, _ = box
    radius = max(1.2, size * 0.06)
    y = y0 - radius * 2.2
    centre = (x0 + x1) / 2
    for dx in (-0.2, 0.2):
        x = centre + dx * (x1 - x0 + radius * 2)
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=fill)


def _text(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int, fill: Colour) -> float:
    """Draw `text` left-aligned at `xy` (top left), umlauts composed; returns the width drawn."""
    font = _font(size)
    x, y = xy
    for char, umlaut in _glyphs(size, text):
        draw.text((x, y), char, fill=fill, font=font)
        if umlaut:
            _dots(draw, draw.textbbox((x, y), char, font=font), size, fill)
        x += font.getlength(char)
    return x - xy[0]


def render_board(
    view: Mapping[str, Any],
    *,
    last_move: Iterable[Sequence[int]] | None = None,
    scores: Mapping[str, int] | None = None,
    names: Mapping[str, str] | None = None,
    lang: str = "en",
) -> bytes:
    """A PNG of the board in `view`; `last_move` squares (default: the view's) are outlined in red.

    `scores` default to the view's; `names` map player ids to display names (default: the ids); the
    panel's words are in `lang` (the catalogue's `topwords.board.*`, drawn without accents but umlauts).
    """
    # The empty board and each kind of square are drawn once and pasted: drawing them all (a hundred
    # rounded squares, glyph after glyph) cost ~10 ms of every picture.
    image = _empty_board().copy()
    board: Sequence[Sequence[str]] = view["board"]
    moved = {
        (int(sq[0]), int(sq[1])) for sq in (view.get("last_move", []) if last_move is None else last_move)
    }
    for row in range(SIZE):
        for col in range(SIZE):
            stack, highlighted = board[row][col], (row, col) in moved
            if stack or highlighted:
                square = _square(stack[-1:], len(stack), highlighted, (row, col) in CENTRE)
                image.paste(square, (MARGIN + col * CELL + GAP // 2, MARGIN + row * CELL + GAP // 2))
    draw = ImageDraw.Draw(image)
    _panel(draw, view, dict(view.get("scores", {}) if scores is None else scores), names or {}, lang)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def _coordinates(draw: ImageDraw.ImageDraw) -> None:
    font = _font(16)
    for i in range(SIZE):
        centre = MARGIN + i * CELL + CELL // 2
        draw.text((centre, MARGIN // 2), chr(ord("A") + i), fill=LABEL, font=font, anchor="mm")
        draw.text(
            (centre, MARGIN + BOARD_PX + MARGIN // 2), chr(ord("A") + i), fill=LABEL, font=font, anchor="mm"
        )
        draw.text((MARGIN // 2, centre), str(i + 1), fill=LABEL, font=font, anchor="mm")


@lru_cache(maxsize=1)
def _empty_board() -> Image.Image:
    """The background, the coordinates and every square empty (never changed: pictures copy it)."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    _coordinates(draw)
    for row in range(SIZE):
        for col in range(SIZE):
            image.paste(
                _square("", 0, False, (row, col) in CENTRE),
                (MARGIN + col * CELL + GAP // 2, MARGIN + row * CELL + GAP // 2),
            )
    return image


@lru_cache(maxsize=1024)
def _square(top: str, height: int, highlighted: bool, on_centre: bool) -> Image.Image:
    """One square with its background corners: `top` is the stack's top letter ("" when empty)."""
    side = CELL - GAP + 1
    image = Image.new("RGB", (side, side), BACKGROUND)
    draw = ImageDraw.Draw(image)
    x0, y0, x1, y1 = 0, 0, side - 1, side - 1
    fill = TILE_BY_HEIGHT[min(height, 5)] if height else CENTRE_SQUARE if on_centre else SQUARE
    draw.rounded_rectangle((x0, y0, x1, y1), radius=5, fill=fill)
    if highlighted:
        draw.rounded_rectangle((x0, y0, x1, y1), radius=5, outline=HIGHLIGHT, width=3)
    if not height:
        return image
    ink = LETTER_ON_DARK if height >= 4 else LETTER
    ((letter, umlaut),) = _glyphs(28, top)
    centre = ((x0 + x1) / 2, (y0 + y1) / 2 + (2 if umlaut else -1))
    draw.text(centre, letter, fill=ink, font=_font(28), anchor="mm")
    if umlaut:
        _dots(draw, draw.textbbox(centre, letter, font=_font(28), anchor="mm"), 28, ink)
    # The stack height, small, in the bottom right corner.
    draw.text((x1 - 5, y1 - 3), str(height), fill=ink, font=_font(12), anchor="rd")
    return image


def panel_lines(view: Mapping[str, Any], names: Mapping[str, str], lang: str) -> dict[str, list[str]]:
    """The panel's texts below the scores, in the table's language (the renderer knows no cog: the caller
    passes `lang`): the bag, the last move, the end."""

    def name(player: str, limit: int) -> str:
        return _short(names.get(player, player), limit)

    out: dict[str, list[str]] = {"bag": [], "last_move": [], "end": []}
    if "bag_count" in view:
        out["bag"].append(t("topwords.board.bag", lang, count=view["bag_count"]))
    history = view.get("history") or []
    if history:
        last = history[-1]
        extras = [t("topwords.board.doubled", lang)] if last.get("doubled") else []
        if last.get("bonus"):
            extras.append(t("topwords.board.bonus", lang, bonus=last["bonus"]))
        # The heading, the total, and what made it (on a line of its own: German needs the room).
        out["last_move"] = [
            t("topwords.board.last_move", lang, name=name(last["player"], 13)),
            t("topwords.board.points", lang, points=last["points"]),
        ]
        if extras:
            out["last_move"].append(" ".join(extras))
    if view.get("finished"):
        out["end"] = [t("topwords.board.game_over", lang)]
        out["end"] += [t("topwords.board.winner", lang, name=name(p, 13)) for p in view.get("winners", [])]
    return out


class ScoreRow(NamedTuple):
    player: str
    score: int
    highlighted: bool  # the player to move, or a winner
    left_mark: str  # "" for a player still seated; else the word that says they left


def score_rows(view: Mapping[str, Any], scores: Mapping[str, int], lang: str) -> list[ScoreRow]:
    """The panel's scores: in seat order while playing, in order of rank once the game is over; a player
    who left comes after every player who stayed and is marked (RULES-NOTES), whatever their score."""
    left = set(view.get("left", []))
    seats = list(view.get("players", list(scores)))
    if view.get("finished"):
        order = sorted(seats, key=lambda player: (player in left, -scores.get(player, 0)))
    else:
        order = [p for p in seats if p not in left] + [p for p in seats if p in left]
    turn, winners = view.get("turn"), set(view.get("winners", []))
    mark = t("topwords.board.left", lang)
    return [
        ScoreRow(
            player,
            scores.get(player, 0),
            player not in left and (player == turn or player in winners),
            mark if player in left else "",
        )
        for player in order
    ]


def _panel(
    draw: ImageDraw.ImageDraw,
    view: Mapping[str, Any],
    scores: Mapping[str, int],
    names: Mapping[str, str],
    lang: str,
) -> None:
    x = MARGIN + BOARD_PX + MARGIN // 2
    y = MARGIN
    _text(draw, (x, y), "TopWords", 24, LABEL)
    y += 40
    for row in score_rows(view, scores, lang):
        name = _short(names.get(row.player, row.player), 15)
        colour = HIGHLIGHT if row.highlighted else GONE if row.left_mark else LABEL
        if row.highlighted:
            # The player to move (or a winner): a small triangle, since the font has no arrows.
            draw.polygon([(x, y + 5), (x + 10, y + 11), (x, y + 17)], fill=HIGHLIGHT)
        _text(draw, (x + 16, y), name, 18, colour)
        draw.text((x + PANEL - 12, y), str(row.score), fill=colour, font=_font(18), anchor="ra")
        y += 28
        if row.left_mark:  # under the name, so that a long name is never cut for it
            _text(draw, (x + 16, y - 6), row.left_mark, 13, GONE)
            y += 16
    y += 12
    lines = panel_lines(view, names, lang)
    for line in lines["bag"]:
        _text(draw, (x, y), line, 15, LABEL)
        y += 24
    if lines["last_move"]:
        heading, *totals = lines["last_move"]
        _text(draw, (x, y), heading, 15, LABEL)
        y += 22
        for word in view["history"][-1]["words"][:6]:
            _text(draw, (x + 10, y), word["word"], 15, LABEL)
            draw.text((x + 150, y), str(word["points"]), fill=LABEL, font=_font(15), anchor="ra")
            y += 20
        for total in totals:
            _text(draw, (x + 10, y), total, 15, LABEL)
            y += 20
        y += 8
    if lines["end"]:
        over, *winner_lines = lines["end"]
        _text(draw, (x, y), over, 18, HIGHLIGHT)
        y += 26
        for line in winner_lines:
            _text(draw, (x, y), line, 15, HIGHLIGHT)
            y += 22


def _short(name: str, limit: int) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "..."
