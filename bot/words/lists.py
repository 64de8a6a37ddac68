"""Reading the plain-text lists under dictionaries/ and the hunspell files the service uses."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path

log = logging.getLogger(__name__)

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "dictionaries"

# Where enchant's hunspell provider looks for <tag>.dic/.aff, in its own order of preference.
_HUNSPELL_DIRS = ("/usr/share/hunspell", "/usr/share/myspell", "/usr/share/myspell/dicts")


# The files are read in blocks this large. The words load in a thread while the event loop serves players:
# iterating an open file line by line kept the loop from the interpreter for 0.1 s at a time, and splitting
# a whole 3 MB file is one call that holds the interpreter for 20–40 ms; a block takes 1–2 ms.
BLOCK_CHARS = 1 << 17


def file_lines(path: Path, encoding: str = "utf-8", errors: str = "strict") -> Iterator[str]:
    """The lines of a text file, read block by block (see BLOCK_CHARS)."""
    with path.open(encoding=encoding, errors=errors, newline="") as file:
        rest = ""
        while block := file.read(BLOCK_CHARS):
            lines = (rest + block).splitlines(keepends=True)
            rest = lines.pop()  # held back: the next block may continue it (even a "\r" of a "\r\n")
            for line in lines:
                yield line.splitlines()[0]
        if rest:
            yield rest.splitlines()[0]


def read_lines(path: Path) -> Iterator[str]:
    """Entries of a list file: one per line, UTF-8, blank lines and `#` comments skipped."""
    if not path.exists():
        log.warning("word list %s is missing", path)
        return
    for raw in file_lines(path):
        line = raw.strip()
        if line and not line.startswith("#"):
            yield line


def hunspell_file(tag: str, suffix: str = ".dic") -> Path | None:
    """The hunspell file enchant would load for a tag (ENCHANT_CONFIG_DIR first), or None."""
    dirs: list[Path] = []
    config = os.environ.get("ENCHANT_CONFIG_DIR")
    if config:
        dirs.append(Path(config) / "hunspell")
    dirs.append(Path.home() / ".config" / "enchant" / "hunspell")
    dirs.extend(Path(d) for d in _HUNSPELL_DIRS)
    for d in dirs:
        candidate = d / f"{tag}{suffix}"
        if candidate.exists():
            return candidate
    return None


def hunspell_entries(tag: str) -> Iterator[tuple[str, str, str]]:
    """(stem, flags, morphology) of each entry of a hunspell .dic, decoded with the .aff's SET."""
    dic = hunspell_file(tag)
    aff = hunspell_file(tag, ".aff")
    if dic is None or aff is None:
        log.warning("no hunspell files for %s", tag)
        return
    encoding = "utf-8"
    with aff.open(encoding="latin-1") as f:
        for line in f:
            if line.startswith("SET "):
                encoding = line.split()[1].strip()
                break
    lines = file_lines(dic, encoding, errors="replace")
    next(lines, None)  # the first line is the entry count
    for line in lines:
        if not line or line.startswith(("#", "\t")):
            continue
        entry, _, morph = line.partition("\t")
        if " " in entry:
            entry, _, rest = entry.partition(" ")
            morph = f"{rest} {morph}".strip()
        stem, _, flags = entry.partition("/")
        yield stem.replace("\\/", "/"), flags.split(" ")[0], morph
