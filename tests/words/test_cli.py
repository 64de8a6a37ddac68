"""The command line `python -m bot.words`, run as a user would with the venv's python."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a fresh process."""
    return subprocess.run(
        [sys.executable, "-m", "bot.words", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def lines(result: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    """The JSON objects printed, one per line."""
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_check_english_acceptance() -> None:
    """Issue 2 acceptance: cat cats paris nasa → valid, valid, proper_noun, abbreviation."""
    out = lines(run("check", "--lang", "en", "cat", "cats", "paris", "nasa"))
    assert out == [
        {"word": "cat", "valid": True, "reason": None},
        {"word": "cats", "valid": True, "reason": None},
        {"word": "paris", "valid": False, "reason": "proper_noun"},
        {"word": "nasa", "valid": False, "reason": "abbreviation"},
    ]


def test_check_german_acceptance() -> None:
    """Issue 2 acceptance: HAUS STRASSE BERLIN BZW → valid, valid, proper_noun, abbreviation."""
    out = lines(run("check", "--lang", "de", "HAUS", "STRASSE", "BERLIN", "BZW"))
    assert [(o["valid"], o["reason"]) for o in out] == [
        (True, None),
        (True, None),
        (False, "proper_noun"),
        (False, "abbreviation"),
    ]


def test_same_pairs() -> None:
    """Issue 2 acceptance: went go → same; one object per pair."""
    out = lines(run("same", "--lang", "en", "went", "go", "hoping", "hop"))
    assert out == [{"a": "went", "b": "go", "same": True}, {"a": "hoping", "b": "hop", "same": False}]


def test_category() -> None:
    """One object per word with its membership."""
    out = lines(run("category", "--lang", "fr", "--category", "countries", "Liban", "Paris"))
    assert out == [
        {"word": "Liban", "category": "countries", "member": True},
        {"word": "Paris", "category": "countries", "member": False},
    ]


def test_unicode_is_printed_as_is() -> None:
    """Words keep their letters in the output."""
    out = lines(run("check", "--lang", "fr", "été"))
    assert out == [{"word": "été", "valid": True, "reason": None}]


def test_bad_arguments_exit_2_with_one_line() -> None:
    """Bad arguments: exit status 2 and a one-line message."""
    for args in (
        ("check", "--lang", "xx", "cat"),
        ("check", "cat"),
        ("same", "--lang", "en", "went"),
        ("category", "--lang", "en", "--category", "cities", "x"),
        ("frobnicate",),
        (),
    ):
        result = run(*args)
        assert result.returncode == 2, args
        assert result.stdout == ""
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
