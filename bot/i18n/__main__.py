"""`python -m bot.i18n` (or `make i18n`): bring the catalogues up to date with the code.
`python -m bot.i18n commands`: write docs/commands.md from the command tree in the three languages.

Extracts every key the code marks (pyproject.toml's [tool.babel]), adds the new ones, empty, to each
language's .po file and drops the ones no code uses; then compiles the .mo files. Fill in the new texts
afterwards: tests/i18n fails until every language has them.
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.frontend import main as pybabel
from babel.messages.pofile import read_po, write_po

from bot.i18n import DOMAIN, KEY, LOCALE_DIR

ROOT = LOCALE_DIR.parents[2]


def run() -> None:
    pot = LOCALE_DIR / f"{DOMAIN}.pot"
    _pybabel(
        "extract", "-F", "pyproject.toml", "--no-location", "--sort-output", "-o", str(pot), "bot", "cogs"
    )
    # Only keys go into the catalogues: an English sentence in the code is reported, not translated.
    with pot.open("rb") as source:
        template = read_po(source)
    for message in list(template):
        if message.id and not KEY.match(str(message.id)):
            print(f"not a catalogue key, left out: {message.id!r}", file=sys.stderr)
            template.delete(message.id)
    with pot.open("wb") as out:
        write_po(out, template, omit_header=False)
    _pybabel(
        "update", "-i", str(pot), "-d", str(LOCALE_DIR), "-D", DOMAIN,
        "--no-fuzzy-matching", "--ignore-obsolete", "--width", "100",
    )  # fmt: skip
    pot.unlink()
    _pybabel("compile", "-d", str(LOCALE_DIR), "-D", DOMAIN, "--statistics")


def _pybabel(*args: str) -> None:
    argv = sys.argv
    sys.argv = ["pybabel", "-q", *args]
    try:
        pybabel()  # type: ignore[no-untyped-call]
    finally:
        sys.argv = argv


if __name__ == "__main__":
    import os

    os.chdir(Path(ROOT))
    if sys.argv[1:] == ["commands"]:
        from bot.ui.command_docs import write  # the command tree needs discord; the catalogue does not

        print(f"wrote {write()}")
    else:
        run()
