"""Every player-facing text of the bot, by symbolic key, in English, French and German.

The catalogues are gettext files, `locale/<lang>/LC_MESSAGES/messages.po`, managed with Babel (how to add a
text: docs/architecture.md). Their msgids are keys such as `engine.stale`, never English sentences: the
English catalogue holds the English text like any other language, so wording changes touch no code.

A word that follows a count takes the form the number asks for in the reader's language, written in the text
as a choice by CLDR plural category (Babel's rules): `{n} {n|one:card|other:cards}` says "1 card", "2 cards";
French `{n|one:carte|other:cartes}` says "0 carte", "1 carte", "2 cartes". A category the text leaves out
falls back to `other`.

No discord import: the rules (bot/games) raise errors with keys from here.
"""

from __future__ import annotations

import contextlib
import functools
import gettext
import io
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path

from babel.core import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LANGUAGES = ("en", "fr", "de")
DEFAULT_LANGUAGE = "en"
DOMAIN = "messages"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
# A key: its namespace, then dotted snake_case parts (`engine.stale`, `topwords.rule.gap`).
KEY = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$")  # "game.what.detail": never a sentence


def N_(key: str) -> str:
    """Mark a key for extraction where it is stored or passed on and translated later."""
    return key


class Text:
    """A key with its parameters, said later in the reader's language (e.g. a reason inside a refusal)."""

    __slots__ = ("key", "params")

    def __init__(self, key: str, /, **params: object) -> None:
        self.key = key
        self.params = params

    def render(self, lang: str = DEFAULT_LANGUAGE) -> str:
        return t(self.key, lang, **self.params)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Text) and (self.key, self.params) == (other.key, other.params)

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"Text({self.key!r}, **{self.params!r})"


def po_file(lang: str, locale_dir: Path = LOCALE_DIR) -> Path:
    return locale_dir / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def compile_po(po: Path, lang: str) -> bytes:
    """The .mo bytes of a .po file, as `pybabel compile` writes them (fuzzy entries left out)."""
    with po.open("rb") as source:
        catalog = read_po(source, locale=lang, domain=DOMAIN)
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def load(locale_dir: Path = LOCALE_DIR) -> dict[str, gettext.NullTranslations]:
    """Each language's catalogue, English behind every other one.

    A .mo missing or older than its .po is compiled from it first, so that a fresh clone or an edited .po
    needs no manual step; where the package is read-only the compiled catalogue stays in memory.
    """
    catalogues: dict[str, gettext.NullTranslations] = {}
    for lang in LANGUAGES:
        po = po_file(lang, locale_dir)
        mo_file = po.with_suffix(".mo")
        if mo_file.is_file() and mo_file.stat().st_mtime >= po.stat().st_mtime:
            with mo_file.open("rb") as source:
                catalogues[lang] = gettext.GNUTranslations(source)
            continue
        data = compile_po(po, lang)
        with contextlib.suppress(OSError):  # read-only: keep it in memory
            _write_atomically(mo_file, data)
        catalogues[lang] = gettext.GNUTranslations(io.BytesIO(data))
    for lang, catalogue in catalogues.items():
        if lang != DEFAULT_LANGUAGE:
            catalogue.add_fallback(catalogues[DEFAULT_LANGUAGE])
    return catalogues


def _write_atomically(path: Path, data: bytes) -> None:
    # Test workers may import at once: each writes its own file and renames it over the target.
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temp, path)
    except OSError:
        os.unlink(temp)
        raise


_CATALOGUES = load()


def language_of(locale: object) -> str:
    """The bot's language for a Discord locale ("fr", "de", "en-US", a discord.Locale…): English unless
    French or German."""
    if locale is None:
        return DEFAULT_LANGUAGE
    lang = str(locale).split("-")[0].lower()
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


def t(key: str, lang: str = DEFAULT_LANGUAGE, /, **params: object) -> str:
    """The text of `key` in `lang` (English where that language lacks it), formatted with `params`.

    A `Text` parameter is said in the same language. A key no catalogue knows comes back as it is.
    """
    catalogue = _CATALOGUES.get(lang) or _CATALOGUES[DEFAULT_LANGUAGE]
    text = catalogue.gettext(key)
    if not params:
        return text
    if "|" in text:
        text = PLURAL.sub(lambda choice: _form(choice, params, lang), text)
    return text.format(**_rendered(params, lang))


# `{name|one:form|other:form}`: the form of a word for the count in parameter `name`.
PLURAL = re.compile(r"\{(\w+)\|((?:\w+:[^{}|]*)(?:\|\w+:[^{}|]*)*)\}")


def plural_forms(choice: str) -> dict[str, str]:
    """The forms of a choice's body ("one:card|other:cards") by category."""
    return dict(form.split(":", 1) for form in choice.split("|"))


def _form(choice: re.Match[str], params: Mapping[str, object], lang: str) -> str:
    forms = plural_forms(choice.group(2))
    category = plural_category(params.get(choice.group(1)), lang)
    return forms.get(category, forms.get("other", ""))


def plural_category(count: object, lang: str) -> str:
    """CLDR's plural category of a count in `lang` ("one", "other", French "many"…); "other" for what is no
    number."""
    if isinstance(count, str) and count.isdigit():
        count = int(count)
    if isinstance(count, bool) or not isinstance(count, int | float):
        return "other"
    return str(_locale(lang).plural_form(abs(count)))


@functools.cache
def _locale(lang: str) -> Locale:
    return Locale.parse(lang)


def _rendered(params: Mapping[str, object], lang: str) -> dict[str, object]:
    return {name: value.render(lang) if isinstance(value, Text) else value for name, value in params.items()}


@functools.cache
def keys() -> tuple[str, ...]:
    """Every key of the English catalogue, in its order."""
    with po_file(DEFAULT_LANGUAGE).open("rb") as source:
        return tuple(str(message.id) for message in read_po(source) if message.id)


def has(key: str) -> bool:
    """Whether the English catalogue holds `key`."""
    return _CATALOGUES[DEFAULT_LANGUAGE].gettext(key) != key
