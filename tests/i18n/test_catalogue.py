"""The message catalogue against the code: a missing, empty, stale or mismatched text fails here.

The keys the code uses are found the way `make i18n` finds them: `pybabel extract` with the keywords of
pyproject.toml's [tool.babel].
"""

from __future__ import annotations

import ast
import string
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from bot.i18n import KEY, LANGUAGES, PLURAL, po_file

ROOT = Path(__file__).resolve().parents[2]
# Files whose refusals still carry English sentences, being moved onto the catalogue elsewhere: their
# sentences are shown as they are. Remove an entry once its file uses keys (the test says when it has gone).
PENDING: set[str] = set()


def _catalogue(lang: str) -> dict[str, str]:
    with po_file(lang).open("rb") as source:
        catalog = read_po(source)
    fuzzy = [m.id for m in catalog if m.id and m.fuzzy]
    assert not fuzzy, f"{lang}: fuzzy entries are not used by gettext: {fuzzy}"
    return {str(m.id): str(m.string) for m in catalog if m.id}


CATALOGUES = {lang: _catalogue(lang) for lang in LANGUAGES}


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> dict[str, list[str]]:
    """Every msgid the code marks, with the files it is in."""
    pot = tmp_path_factory.mktemp("i18n") / "messages.pot"
    subprocess.run(
        [sys.executable, "-c", "from babel.messages.frontend import main; main()", "-q", "extract",
         "-F", "pyproject.toml", "-o", str(pot), "bot", "cogs"],
        cwd=ROOT, check=True,
    )  # fmt: skip
    with pot.open("rb") as source:
        return {str(m.id): [path for path, _ in m.locations] for m in read_po(source) if m.id}


def _fields(text: str) -> set[str]:
    """The text's parameters, those its plural choices count by included."""
    counted = {choice.group(1) for choice in PLURAL.finditer(text)}
    plain = PLURAL.sub("", text)
    return counted | {name for _, name, _, _ in string.Formatter().parse(plain) if name is not None}


def test_every_key_in_the_code_has_a_text_in_every_language(extracted):
    keys = [k for k in extracted if KEY.match(k)]
    assert len(keys) > 250  # the extraction found the code's keys
    for lang, catalogue in CATALOGUES.items():
        missing = [k for k in keys if not catalogue.get(k, "").strip()]
        assert not missing, f"{lang}: no text for {missing}"


def test_no_catalogue_entry_is_unused(extracted):
    for lang, catalogue in CATALOGUES.items():
        unused = sorted(set(catalogue) - set(extracted))
        assert not unused, f"{lang}: entries no code uses: {unused}"


def test_every_catalogue_entry_is_a_key():
    for lang, catalogue in CATALOGUES.items():
        assert all(KEY.match(key) for key in catalogue), lang


def test_the_code_marks_keys_not_sentences(extracted):
    sentences = {m: paths for m, paths in extracted.items() if not KEY.match(m)}
    outside = {m: paths for m, paths in sentences.items() if not set(paths) <= PENDING}
    assert not outside, f"English sentences where a catalogue key belongs: {outside}"
    for path in PENDING:
        assert (ROOT / path).is_file(), f"{path} is gone: remove it from PENDING"


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_placeholders_match_across_languages(lang):
    english = CATALOGUES["en"]
    for key, text in CATALOGUES[lang].items():
        assert _fields(text) == _fields(english[key]), (lang, key, text)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_text_formats(lang):
    for key, text in CATALOGUES[lang].items():
        try:
            PLURAL.sub("", text).format(**dict.fromkeys(_fields(text), "x"))
        except (ValueError, IndexError, KeyError) as error:  # a stray brace, a positional field
            raise AssertionError(f"{lang} {key}: {text!r} does not format: {error}") from error


# The calls that name a key with its parameters: t(key, lang, **params), Text(key, **params), the errors.
CALLS = {
    "t", "Text", "RuleBroken", "GameError", "NotYourTurn", "WrongPhase", "IllegalMove", "NotAPlayer",
    "GameOver", "StaleAction", "BadAction", "NoSuchSession", "ChannelBusy",
}  # fmt: skip


def _calls_with_keys():
    for path in sorted([*ROOT.glob("bot/**/*.py"), *ROOT.glob("cogs/**/*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else ""
            )
            key = node.args[0]
            literal = isinstance(key, ast.Constant) and isinstance(key.value, str) and KEY.match(key.value)
            # A call passing **params cannot be checked here; a call with a literal key and named ones can.
            if name in CALLS and literal and all(k.arg is not None for k in node.keywords):
                yield path.relative_to(ROOT), node.lineno, key.value, {k.arg for k in node.keywords}


def test_every_call_gives_exactly_the_parameters_of_its_text():
    calls = list(_calls_with_keys())
    assert len(calls) > 150
    for path, line, key, params in calls:
        assert key in CATALOGUES["en"], f"{path}:{line}: unknown key {key}"
        assert params == _fields(CATALOGUES["en"][key]), f"{path}:{line}: {key} takes {params}"
