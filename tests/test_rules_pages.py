"""`/rules` serves pages that ship with the package: a non-editable install has them too. The pages name only
what is in the project: the rulebooks and our rulings by name, never by a path outside it."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

from bot import rules
from bot.games import GAME_TITLES, game_info

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs" / "rules").glob("*.md"))

# What a page may name as a path: a word in backticks, a link's target, or bare text from a project folder.
CODE = re.compile(r"`([^`\s]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
BARE = re.compile(
    r"(?<![\w./~-])(?:\.\.?/|~/)[\w./*-]+"
    r"|(?<![\w./-])(?:bot|cogs|tests|docs|bench|dictionaries)/[\w./*-]*"
)
# A path, not a fraction or a slash command ("3/4/5", "/rules"): from the root, home or a parent folder, or
# ending in a folder's slash or a file's extension.
PATH = re.compile(
    r"(?:\.\.?/|~/)(?:[\w.*-]+/)*[\w.*-]*|/(?:[\w.*-]+/)+[\w.*-]*|(?:[\w.*-]+/)+(?:[\w*-]*\.\w+)?"
)


def _outside(path: str, base: Path) -> bool:
    """Whether `path` (read from `base`; `*` a wildcard) leaves the project or names nothing in it."""
    if path.startswith("~"):
        return True
    fixed = (base / path.split("*")[0]).resolve()
    if not fixed.is_relative_to(ROOT):
        return True
    return not (any(base.glob(path)) if "*" in path else fixed.exists())


def paths_outside(text: str) -> list[str]:
    """Every path `text` names that is not in the project: paths are the project's (from its root), a
    link's target is the page's own (from docs/rules)."""
    prose = LINK.sub("]", CODE.sub("", text))
    named = [word for word in CODE.findall(text) if PATH.fullmatch(word)] + BARE.findall(prose)
    outside = [path for path in named if _outside(path.rstrip(".,;:"), ROOT)]
    links = [target for target in LINK.findall(text) if not re.match(r"[a-z]+:|#", target)]
    return outside + [link for link in links if _outside(link.split("#")[0], ROOT / "docs" / "rules")]


def test_every_game_with_a_rules_page_in_docs_is_served_from_the_package() -> None:
    for page in PAGES:
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
            "--no-build-isolation",  # the lock's setuptools, as `make setup` builds: nothing fetched
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


def test_no_rules_page_names_a_path_outside_the_project() -> None:
    for page in PAGES:
        assert paths_outside(page.read_text(encoding="utf-8")) == [], page.name


def test_the_path_check_sees_what_a_page_must_not_name() -> None:
    text = (
        "Sources: the rulebook (`../shared/seeds/demogame-rules.txt`) and our rulings (`../shared/RULES-NOTES.md`); "
        "see ../shared/DESIGN.md, `/work/shared/seeds/`, `/work/shared/*.md`, `~/notes.md`, [the notes](../../../shared/x.md) and "
        "`bot/games/nothing.py`."
    )
    assert paths_outside(text) == [
        "../shared/seeds/demogame-rules.txt",
        "../shared/RULES-NOTES.md",
        "/work/shared/seeds/",
        "/work/shared/*.md",
        "~/notes.md",
        "bot/games/nothing.py",
        "../shared/DESIGN.md",
        "../../../shared/x.md",
    ]
    fine = "`bot/games/`, `tests/scenarios/*/illustration-*.json`, `/rules`, `3/4/5`, [up](#setup)"
    assert paths_outside(fine + ", docs/rules/ and [the commands](../commands.md).") == []


def test_every_rules_page_names_its_rulebook_and_our_rulings_not_the_files_they_came_from() -> None:
    for page in PAGES:
        text = " ".join(page.read_text(encoding="utf-8").split())
        assert "RULES-NOTES" not in text and "seeds/" not in text, page.name
        if game_info(page.stem).listed:  # a template game, not offered to servers, has no rulebook
            assert re.search(r" Sources: the [^.]*\*[^*]+\*", text), page.name
            assert "our rulings, written on this page" in text, page.name


def test_every_page_of_a_game_with_bots_tells_how_to_play_against_them() -> None:
    for page in PAGES:
        info = game_info(page.stem)
        if info.bots is None:
            continue
        section = page.read_text(encoding="utf-8").partition("## Playing against bots\n")[2]
        assert "**Add a bot…**" in section and "**Remove a bot…**" in section, page.name
        assert f"`/{page.stem} new bots:<n> level:<level>`" in section, page.name
