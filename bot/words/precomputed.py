"""Precomputed word tables: every form a language's dictionary makes, judged once, looked up at play time.

Checking a new word costs several spellchecker calls, and French lemmas need hunspell's affix rules run
backwards (pure Python, ~5 ms a word). Instead, `build` expands each dictionary's affix rules once (hunspell's
`unmunch`, in C), asks the live checker and lemmatizer about every lower-case form of letters, and stores
the answers in one SQLite file per language. At play time a word in the table costs one indexed lookup, made
without holding the GIL; any other word (a typo, a compound, a name) still goes to the live checker. The
answers are the live checker's own, so accuracy does not change.

A table is rebuilt when its fingerprint changes: the hunspell files, the curated lists under dictionaries/,
and BUILD_VERSION (raise it when the checker or lemmatizers change what they answer).
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import sqlite3
import subprocess
import tempfile
import threading
import time
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

from bot.words.lists import hunspell_file

log = logging.getLogger(__name__)

BUILD_VERSION = "5"
SENTINEL = "qqzzsentinelzzqq"  # between dictionary entries, so that each expansion names its stem
BATCH = 5_000


class Row(NamedTuple):
    reason: str | None  # None: valid
    lemma_key: str
    lemmas: str  # the lemma set, space-separated (made a set only when asked for)


def default_dir() -> Path:
    """Where the tables live: WORDS_CACHE_DIR, else .cache/words in the project (a source checkout), else
    the user's cache directory (an installed package)."""
    configured = os.environ.get("WORDS_CACHE_DIR")
    if configured:
        return Path(configured)
    project = Path(__file__).resolve().parents[2]
    if (project / "pyproject.toml").exists():
        return project / ".cache" / "words"
    return Path.home() / ".cache" / "top-games-bot" / "words"


def fingerprint(tags: Iterable[str], lists_dir: Path) -> str:
    """What the answers depend on: the hunspell files, the curated lists and the code's BUILD_VERSION."""
    digest = hashlib.sha256(BUILD_VERSION.encode())
    for tag in tags:
        for suffix in (".dic", ".aff"):
            path = hunspell_file(tag, suffix)
            digest.update(f"{tag}{suffix}:".encode())
            if path is not None:
                digest.update(path.read_bytes())
    for path in sorted(p for p in lists_dir.rglob("*") if p.is_file() and p.suffix != ".md"):
        digest.update(str(path.relative_to(lists_dir)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def expand(tag: str, stems: Collection[str] | None = None) -> dict[str, set[str]]:
    """Every lower-case form of letters the dictionary's affix rules make, with the stems it comes from (of
    the given stems only, when named: a whole dictionary takes seconds)."""
    dic, aff = hunspell_file(tag), hunspell_file(tag, ".aff")
    unmunch = shutil.which("unmunch")
    if dic is None or aff is None or unmunch is None:
        raise FileNotFoundError(f"cannot expand {tag}: hunspell files or unmunch (hunspell-tools) missing")
    encoding = _encoding(aff)  # the .aff's SET: the German files are ISO 8859-1
    entries = [e for e in dic.read_text(encoding=encoding, errors="replace").splitlines()[1:] if e.split()]
    if stems is not None:
        entries = [e for e in entries if _word(e) in stems]
    forms: dict[str, set[str]] = {}
    with tempfile.TemporaryDirectory() as work:
        marked = Path(work) / f"{tag}.dic"
        lines = [line for entry in entries for line in (entry, SENTINEL)]
        text = f"{len(lines)}\n" + "\n".join(lines) + "\n"
        marked.write_bytes(text.encode(encoding, errors="replace"))
        out = subprocess.run(
            [unmunch, str(marked), str(aff)], capture_output=True, check=False, timeout=600
        ).stdout.decode(encoding, errors="replace")
    for entry, group in zip(entries, out.split(SENTINEL + "\n"), strict=False):
        stem = _word(entry)
        for line in group.splitlines():
            form = _word(line)
            if form.isalpha():
                forms.setdefault(form.lower(), set()).add(stem)
    return forms


def _word(line: str) -> str:
    """The word of a .dic or unmunch line (`word/flags morphology`), NFC."""
    head = line.split("/", 1)[0].split()
    return unicodedata.normalize("NFC", head[0]) if head else ""


def _encoding(aff: Path) -> str:
    with aff.open(encoding="latin-1") as lines:
        for line in lines:
            if line.startswith("SET "):
                return line.split()[1].strip()
    return "utf-8"


class Table:
    """One language's table, read from any thread (SQLite releases the GIL while it looks a word up)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # Read-only, and SQLite serialises its own use (threadsafety 3): one connection for every thread,
        # a cursor for each (reusing a cursor saves a sixth of a lookup). `immutable`: a build never
        # changes the file, it replaces it, so SQLite may skip locking it on every lookup (3× faster).
        uri = f"file:{path}?mode=ro&immutable=1"
        self._connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
        self._connection.execute("PRAGMA mmap_size = 268435456")  # pages straight from the file cache
        self._local = threading.local()

    def _cursor(self) -> sqlite3.Cursor:
        cursor: sqlite3.Cursor | None = getattr(self._local, "cursor", None)
        if cursor is None:
            cursor = self._local.cursor = self._connection.cursor()
        return cursor

    def get(self, word: str) -> Row | None:
        found = (
            self._cursor()
            .execute("SELECT reason, lemma_key, lemmas FROM forms WHERE form = ?", (word,))
            .fetchone()
        )
        return Row(*found) if found is not None else None

    def simplemma(self, form: str) -> str | None:
        """simplemma's lemma of the form, from its dictionary as the build copied it."""
        found = self._cursor().execute("SELECT lemma FROM simplemma WHERE form = ?", (form,)).fetchone()
        return found[0] if found is not None else None

    def entries(self, kind: str) -> frozenset[str] | None:
        """A named set the build stored (e.g. the dictionaries' dotted abbreviations), empty ones included;
        None if the build stored none of that kind (then the caller derives it as without a table)."""
        rows = self._connection.execute("SELECT item FROM entries WHERE kind = ?", (kind,)).fetchall()
        if rows:
            return frozenset(item for (item,) in rows)
        built = self._connection.execute("SELECT 1 FROM meta WHERE key = ?", (f"entries:{kind}",)).fetchone()
        return frozenset() if built is not None else None

    def has_simplemma(self) -> bool:
        """Whether the build copied simplemma's dictionary here (a table built for tests may not)."""
        return self._connection.execute("SELECT 1 FROM simplemma LIMIT 1").fetchone() is not None

    def simplemma_forms(self) -> Iterator[str]:
        for (form,) in self._connection.execute("SELECT form FROM simplemma"):
            yield form

    def simplemma_count(self) -> int:
        return int(self._connection.execute("SELECT COUNT(*) FROM simplemma").fetchone()[0])

    def get_many(self, words: list[str]) -> dict[str, Row]:
        """The rows of these words (those the table holds), in one query per hundred words."""
        found: dict[str, Row] = {}
        for start in range(0, len(words), 100):
            chunk = words[start : start + 100]
            marks = ",".join("?" * len(chunk))
            query = f"SELECT form, reason, lemma_key, lemmas FROM forms WHERE form IN ({marks})"
            for form, reason, lemma_key, lemmas in self._cursor().execute(query, chunk):
                found[form] = Row(reason, lemma_key, lemmas)
        return found

    @staticmethod
    def open(path: Path, expected: str) -> Table | None:
        """The table at path if it was built for this fingerprint, else None."""
        if not path.exists():
            return None
        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as connection:
                found = connection.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        except sqlite3.Error:
            return None
        return Table(path) if found is not None and found[0] == expected else None


Judge = Callable[[str], tuple[str | None, str, frozenset[str]]]


def build(
    path: Path,
    forms: Iterable[str],
    judge: Judge,
    stamp: str,
    simplemma: Iterable[tuple[str, str]] = (),
    entries: Mapping[str, Iterable[str]] | None = None,
) -> int:
    """Write the table of `forms`, each judged by `judge` (the live checker and lemmatizer), atomically;
    with simplemma's dictionary (form, lemma), read from here at play time instead of decoded at start, and
    named sets of entries the checkers would otherwise derive from the hunspell files at start."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".building")
    partial.unlink(missing_ok=True)
    started = time.perf_counter()
    count = 0
    with sqlite3.connect(partial) as connection:
        connection.execute(
            "CREATE TABLE forms (form TEXT PRIMARY KEY, reason TEXT, lemma_key TEXT NOT NULL,"
            " lemmas TEXT NOT NULL) WITHOUT ROWID"
        )
        connection.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        connection.execute(
            "CREATE TABLE simplemma (form TEXT PRIMARY KEY, lemma TEXT NOT NULL) WITHOUT ROWID"
        )
        connection.executemany("INSERT OR REPLACE INTO simplemma VALUES (?, ?)", simplemma)
        connection.execute(
            "CREATE TABLE entries (kind TEXT, item TEXT, PRIMARY KEY (kind, item)) WITHOUT ROWID"
        )
        for kind, items in (entries or {}).items():
            connection.executemany("INSERT OR IGNORE INTO entries VALUES (?, ?)", ((kind, i) for i in items))
            # Stored even when empty (French has no dotted abbreviations): an empty set is still an answer,
            # which start-up would otherwise derive again from every hunspell entry (1.3 s).
            connection.execute("INSERT INTO meta VALUES (?, 'built')", (f"entries:{kind}",))
        batch: list[tuple[str, str | None, str, str]] = []
        for form in forms:
            reason, lemma_key, lemmas = judge(form)
            batch.append((form, reason, lemma_key, " ".join(sorted(lemmas))))
            if len(batch) >= BATCH:
                connection.executemany("INSERT OR REPLACE INTO forms VALUES (?, ?, ?, ?)", batch)
                count += len(batch)
                batch = []
        connection.executemany("INSERT OR REPLACE INTO forms VALUES (?, ?, ?, ?)", batch)
        count += len(batch)
        connection.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (stamp,))
    partial.replace(path)
    log.info("built %s: %d forms in %.1f s", path.name, count, time.perf_counter() - started)
    return count
