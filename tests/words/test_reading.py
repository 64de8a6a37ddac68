"""Reading the list and hunspell files."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.words import lists


@pytest.mark.parametrize("block", [1, 2, 3, 5, 64])
def test_files_read_block_by_block_give_the_lines_a_whole_read_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """The words load beside the event loop in blocks (each holds the interpreter briefly); a line, or the
    two characters of a Windows line end, cut by a block's end is read whole all the same."""
    monkeypatch.setattr(lists, "BLOCK_CHARS", block)
    text = "# comment\r\nÄpfel\r\n\r\nbzw.\nlast line"
    path = tmp_path / "list.txt"
    path.write_bytes(text.encode("utf-8"))
    assert list(lists.file_lines(path)) == text.splitlines()
    assert list(lists.read_lines(path)) == ["Äpfel", "bzw.", "last line"]
