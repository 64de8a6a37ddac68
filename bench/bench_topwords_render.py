"""TopWords board picture: time to render a mid-game board to PNG (target < 50 ms)."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

from bot.games.topwords import make
from bot.render.topwords_board import render_board

TARGET_MS = 50.0


def view() -> dict:
    game = make(None)
    setup = {"first_player": "ann", "racks": {"ann": "SIEBRTS", "bob": "AUMLNAG"}, "bag": "FERNELOEHDK"}
    state = game.new_game({"check_words": False}, ["ann", "bob"], setup, random.Random(0))
    moves = [
        ("ann", [[4, 2, "S"], [4, 3, "I"], [4, 4, "E"], [4, 5, "B"]]),
        ("bob", [[5, 5, "A"], [6, 5, "U"], [7, 5, "M"]]),
        ("ann", [[5, 4, "R"], [5, 6, "T"]]),
        ("bob", [[4, 2, "L"]]),
        ("ann", [[4, 5, "S"]]),
        ("bob", [[7, 3, "N"], [7, 4, "A"], [7, 5, "G"], [7, 6, "E"], [7, 7, "L"]]),
        ("ann", [[4, 7, "F"], [5, 7, "E"], [6, 7, "R"], [7, 7, "N"], [8, 7, "E"]]),
    ]
    for player, tiles in moves:
        state = game.apply(state, {"do": "place", "player": player, "tiles": tiles}).state
    return game.view_for(state, None)


def main() -> int:
    board = view()
    names = {"ann": "Jörg", "bob": "Bob"}
    start = time.perf_counter()
    png = render_board(board, names=names)
    first_ms = (time.perf_counter() - start) * 1000
    runs = 50
    start = time.perf_counter()
    for _ in range(runs):
        png = render_board(board, names=names)
    mean_ms = (time.perf_counter() - start) * 1000 / runs
    Path("/tmp/topwords_board.png").write_bytes(png)
    ok = mean_ms < TARGET_MS
    print(
        f"topwords board render: first {first_ms:.1f} ms (fonts loaded), mean {mean_ms:.1f} ms over {runs},"
        f" {len(png) / 1024:.0f} KiB PNG; target < {TARGET_MS:.0f} ms: {'ok' if ok else 'TOO SLOW'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
