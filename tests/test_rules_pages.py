"""`/rules` serves pages that ship with the package: a non-editable install has them too."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from bot import rules
from bot.games import GAME_TITLES

ROOT = Path(__file__).resolve().parent.parent


def test_every_game_with_a_rules_page_in_docs_is_served_from_the_package() -> None:
    for page in sorted((ROOT / "docs" / "rules").glob("*.md")):
        assert rules.page(page.stem) == page.read_text(encoding="utf-8"), page.name
    assert rules.page("../README") is None and rules.page("nothing") is None


def test_a_built_wheel_carries_the_rules_pages_themselves(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    [wheel] = tmp_path.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        for game in GAME_TITLES:
            source = ROOT / "docs" / "rules" / f"{game}.md"
            if source.is_file():
                assert archive.read(f"bot/rules/{game}.md").decode() == source.read_text(encoding="utf-8")
