"""The extraction method pyproject.toml names (bot/i18n/extract.py): only calls of a marking name count.

The whole code base's extraction is checked in test_catalogue.py (every msgid found is a key); these
tests pin down why, on sources of their own, with the installed Babel and pyproject's keyword list.
"""

from __future__ import annotations

import io
import tomllib
from pathlib import Path

from babel.messages.extract import extract
from babel.messages.frontend import parse_keywords

from bot.i18n import KEY

ROOT = Path(__file__).resolve().parents[2]
MAPPING = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["babel"]["mappings"][0]
KEYWORDS = parse_keywords(MAPPING["keywords"])


def _extracted(source: str) -> list[str]:
    found = extract(MAPPING["method"], io.BytesIO(source.encode()), KEYWORDS)
    return [message for _, message, _, _ in found]


def test_the_project_extracts_with_its_own_method():
    assert MAPPING["method"] == "bot.i18n.extract:extract_calls"


def test_a_variable_named_like_a_marking_function_is_not_a_message():
    source = (
        "times = [t['at'] for key, t in timers.items()]\n"
        "t = (1, 2)\n"
        "first = t[0]\n"
        "Text = 'a sentence'\n"
        "print(N_, Text)\n"
        "refusal = {'why': 'x'}\n"
        "shown = t('engine.stale', lang)\n"
    )
    assert _extracted(source) == ["engine.stale"]


def test_every_marking_call_is_found_in_source_order():
    source = (
        "from bot import i18n\n"
        "raise errors.GameError('engine.stale')\n"
        "x = i18n.t('ui.first', lang, reason=Text('ui.nested', n=1))\n"
        "KEYS = (N_('ui.marked'),)\n"
        "description = command_text('general.cmd.help')\n"
    )
    assert _extracted(source) == [
        "engine.stale",
        "ui.first",
        "ui.nested",
        "ui.marked",
        "general.cmd.help",
    ]


def test_a_keyword_spec_reads_its_own_argument():
    # `refusal:2`: the key is the second argument (the first is the error being refused).
    assert _extracted("await refusal(interaction, 'engine.stale', lang)\n") == ["engine.stale"]


def test_a_computed_key_is_not_extracted_but_a_sentence_is():
    # A key built at run time must be marked where it is written (N_); a literal sentence is extracted
    # so that test_catalogue reports it.
    source = "t(f'topwords.{kind}', lang)\nt(key, lang)\nt('Hello, world!', lang)\n"
    found = _extracted(source)
    assert found == ["Hello, world!"]
    assert not any(KEY.match(message) for message in found)
