"""No English where a table speaks another language: the check every game's language test shares."""

from __future__ import annotations

import re

from bot.i18n import keys, t

from .driver import Message


def english_fragments(lang: str, prefixes: tuple[str, ...]) -> set[str]:
    """The English words of the texts under these key prefixes (between their placeholders) that `lang`
    says otherwise: none of them may show in a table of `lang`."""
    fragments: set[str] = set()
    for key in keys():
        if not key.startswith(prefixes) or t(key, "en") == t(key, lang):
            continue
        for part in re.split(r"\{[^}]*\}|\*\*|[.:·()—“”]", t(key, "en")):
            part = part.strip()
            if len(part) >= 8 and " " in part and part not in t(key, lang):
                fragments.add(part)
    return fragments


def assert_no_english(messages: list[Message], lang: str, prefixes: tuple[str, ...]) -> None:
    """No message shows an English fragment of the game's (`prefixes`) or the table layer's texts."""
    if lang == "en":
        return
    fragments = english_fragments(lang, prefixes)
    for message in messages:
        shown = [fragment for fragment in fragments if fragment in message.text]
        assert not shown, (shown, message.text)
