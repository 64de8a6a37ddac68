"""Shared fixtures for the word service tests: one WordService for the whole run (it loads lazily)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.words import WordService

DATA = Path(__file__).parent / "data"


def rows(name: str) -> list[str]:
    """Entries of a test list under data/: one per line, `#` comments skipped."""
    lines = (line.strip() for line in (DATA / name).read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def pairs(name: str) -> list[tuple[str, str]]:
    """Word pairs of a CSV test list under data/."""
    out = []
    for line in rows(name):
        a, b = line.split(",")
        out.append((a.strip(), b.strip()))
    return out


@pytest.fixture(scope="session")
def ws() -> Iterator[WordService]:
    """One service for every test, as in the bot (one per process)."""
    yield WordService()


# Accuracy figures of the hand-written lists, shown in pytest's terminal summary.
FIGURES: list[str] = []


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the per-list accuracy figures after the run."""
    if FIGURES:
        terminalreporter.section("word lists")
        for line in FIGURES:
            terminalreporter.write_line(line)
