"""The TopWords board picture: a PNG of the right size with the board of a mid-game view."""

from __future__ import annotations

import io
import random
import time
from pathlib import Path

from PIL import Image

from bot.games.topwords import make
from bot.render.topwords_board import CELL, GAP, HEIGHT, MARGIN, WIDTH, panel_lines, render_board

SIEB = [[4, 2, "S"], [4, 3, "I"], [4, 4, "E"], [4, 5, "B"]]
MOVES = [
    ("ann", SIEB),
    ("bob", [[5, 5, "A"], [6, 5, "U"], [7, 5, "M"]]),
    ("ann", [[5, 4, "R"], [5, 6, "T"]]),
    ("bob", [[4, 2, "L"]]),
    ("ann", [[4, 5, "S"]]),
    ("bob", [[7, 3, "N"], [7, 4, "A"], [7, 5, "G"], [7, 6, "E"], [7, 7, "L"]]),
]


def mid_game_view() -> dict:
    game = make(None)
    setup = {"first_player": "ann", "racks": {"ann": "SIEBRTS", "bob": "AUMLNAG"}, "bag": "FERNELOEHDK"}
    state = game.new_game({"check_words": False}, ["ann", "bob"], setup, random.Random(0))
    for player, tiles in MOVES:
        state = game.apply(state, {"do": "place", "player": player, "tiles": tiles}).state
    view = game.view_for(state, None)
    view["board"][2][8] = "Ü"  # an umlaut tile, drawn with composed dots
    return view


def test_mid_game_board_renders_as_png():
    view = mid_game_view()
    png = render_board(view, last_move=[(7, c) for c in range(3, 8)], names={"ann": "Jörg", "bob": "Bob"})
    path = Path("/tmp") / "topwords_board_test.png"
    path.write_bytes(png)
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.size == (WIDTH, HEIGHT)
    assert 500 < WIDTH < 1200 and 400 < HEIGHT < 1000
    # The last move is outlined in red: a pixel on the outline of H8 (row 7, col 7) is red.
    assert any(image.getpixel((x, y))[0] > 200 and image.getpixel((x, y))[1] < 100 for x, y in _outline(7, 7))


def test_defaults_come_from_the_view_and_no_secret_is_needed():
    view = mid_game_view()
    assert "rack" not in view
    png = render_board(view)
    assert png.startswith(b"\x89PNG")


def test_empty_board_and_finished_game_render():
    game = make(None)
    state = game.new_game({"check_words": False}, ["ann", "bob", "cat", "dan"], {}, random.Random(1))
    for player in state.players[state.turn :] + state.players[: state.turn]:
        state = game.apply(state, {"do": "pass", "player": player}).state
    assert state.phase == "over"
    png = render_board(game.view_for(state, "ann"), last_move=[])
    assert Image.open(io.BytesIO(png)).size == (WIDTH, HEIGHT)


def test_rendering_is_fast():
    view = mid_game_view()
    render_board(view)  # fonts and glyph checks are cached after the first picture
    timings = []
    for _ in range(5):
        start = time.perf_counter()
        render_board(view)
        timings.append(time.perf_counter() - start)
    assert min(timings) < 0.05


def _outline(row: int, col: int) -> list[tuple[int, int]]:
    from bot.render.topwords_board import CELL, GAP, MARGIN

    x0 = MARGIN + col * CELL + GAP // 2
    y0 = MARGIN + row * CELL + GAP // 2
    return [(x0 + CELL // 2, y0 + d) for d in range(0, 3)]


def finished_view_with_extras() -> dict:
    view = mid_game_view()
    view["history"][-1] = {**view["history"][-1], "bonus": 2, "doubled": True}
    view["finished"], view["winners"] = True, ["ann"]
    return view


ENGLISH_WORDS = ("Bag", "tiles", "Last move", "doubled", "Game over", "Winner")  # "bonus" is French too


def test_the_german_picture_uses_german_labels():
    """The table's language reaches the picture: cog.py passes it as `lang`."""
    view = finished_view_with_extras()
    german = panel_lines(view, {"ann": "Jörg"}, "de")
    assert german == {
        "bag": [f"Im Beutel: {view['bag_count']}"],
        "last_move": ["Letzter Zug: bob", "= 12 Punkte", "verdoppelt +2 Bonus"],
        "end": ["Spielende", "Gewinner: Jörg"],
    }
    english = panel_lines(view, {"ann": "Jörg"}, "en")
    assert (
        english["last_move"][1:] == ["= 12 points", "doubled +2 bonus"] and english["end"][0] == "Game over"
    )
    shown = " ".join(line for lines in german.values() for line in lines)
    for word in (*ENGLISH_WORDS, "bonus", "points"):
        assert word not in shown
    png = render_board(view, names={"ann": "Jörg"}, lang="de")
    assert png != render_board(view, names={"ann": "Jörg"}, lang="en")


def test_a_french_table_gets_a_french_picture():
    view = finished_view_with_extras()
    french = panel_lines(view, {"ann": "Zoé"}, "fr")
    assert french == {
        "bag": [f"Lettres dans le sac : {view['bag_count']}"],
        "last_move": ["Dernier coup : bob", "= 12 points", "x2 +2 de bonus"],
        "end": ["Fin de la partie", "Victoire : Zoé"],
    }
    shown = " ".join(line for lines in french.values() for line in lines)
    for word in ENGLISH_WORDS:
        assert word not in shown
    png = render_board(view, names={"ann": "Zoé"}, lang="fr")
    assert png not in (render_board(view, names={"ann": "Zoé"}, lang=lang) for lang in ("en", "de"))


def test_every_label_of_the_picture_is_drawable_by_the_bundled_font():
    """The bundled font has ASCII only: umlauts are composed and other accents dropped, so a catalogue
    text with a character that is neither (a non-breaking space, a typographic quote) would vanish."""
    from bot.i18n import LANGUAGES, keys, t

    board_keys = [key for key in keys() if key.startswith("topwords.board.")]
    assert len(board_keys) >= 7
    for lang in LANGUAGES:
        for key in board_keys:
            text = t(key, lang)
            assert all(ch.isascii() or ch in "ÄÖÜäöüßéèêàâçîôûÉ" for ch in text), (lang, key, text)


def test_squares_drawn_once_and_pasted_look_as_if_drawn_in_place():
    # The empty board and each kind of square are cached images: a picture pastes them onto a copy, so
    # the cache is never drawn on, and a square looks the same wherever and whenever it is pasted.
    view = mid_game_view()
    empty = dict(view, board=[[""] * 10 for _ in range(10)], last_move=[], history=[])
    before = Image.open(io.BytesIO(render_board(empty))).convert("RGB")
    full = Image.open(io.BytesIO(render_board(view, last_move=[(4, 4), (0, 0)]))).convert("RGB")
    after = Image.open(io.BytesIO(render_board(empty))).convert("RGB")
    assert before.tobytes() == after.tobytes()
    # The highlighted empty square A1 has the red outline; the unchanged square J10 is as on the empty board.
    assert any(full.getpixel((x, y))[0] > 200 and full.getpixel((x, y))[1] < 100 for x, y in _outline(0, 0))
    j10 = (MARGIN + 9 * CELL + 10, MARGIN + 9 * CELL + 10)
    assert full.getpixel(j10) == before.getpixel(j10)
    # Two tiles with the same letter and height, on different squares, have the same pixels.
    assert view["board"][4][3] == "I" and view["board"][7][4] == "A"
    assert _cell(full, 4, 3) != _cell(full, 7, 4)
    same = dict(view, board=[row[:] for row in view["board"]])
    same["board"][0][9] = "I"
    picture = Image.open(io.BytesIO(render_board(same, last_move=[]))).convert("RGB")
    assert _cell(picture, 0, 9) == _cell(picture, 4, 3)


def _cell(image: Image.Image, row: int, col: int) -> bytes:
    x, y = MARGIN + col * CELL + GAP // 2, MARGIN + row * CELL + GAP // 2
    return image.crop((x, y, x + CELL - GAP + 1, y + CELL - GAP + 1)).tobytes()


def test_the_picture_ranks_a_player_who_left_last_and_marks_them():
    """RULES-NOTES: a player who left comes after every player who stayed, whatever their score, marked."""
    from bot.render.topwords_board import score_rows

    game = make(None)
    setup = {"first_player": "cat", "racks": {"cat": "SIEBRTS"}}
    state = game.new_game({"check_words": False}, ["ann", "bob", "cat"], setup, random.Random(0))
    state = game.apply(state, {"do": "place", "player": "cat", "tiles": SIEB}).state
    leave = game.resolve_chance(state, {"do": "leave", "player": "cat"}, random.Random(0))
    state = game.apply(state, leave).state
    playing = game.view_for(state, None)
    assert [(r.player, r.left_mark) for r in score_rows(playing, playing["scores"], "en")] == [
        ("ann", ""),
        ("bob", ""),
        ("cat", "left the game"),
    ]
    for player in ("ann", "bob"):
        state = game.apply(state, {"do": "pass", "player": player}).state
    over = game.view_for(state, None)
    rows = score_rows(over, over["scores"], "de")
    assert over["scores"]["cat"] > over["scores"]["ann"] and rows[-1].player == "cat"
    assert rows[-1].left_mark == "hat das Spiel verlassen" and not rows[-1].highlighted
    assert render_board(over, lang="fr") != render_board({**over, "left": []}, lang="fr")
