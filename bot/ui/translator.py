"""Slash-command descriptions and choice names in the user's Discord language, from the message catalogue.

A decorator names its text with `command_text("general.cmd.help")`: the English text comes from the
catalogue and the key travels with it, so the other languages are found by key. A plain string carries no
key and stays English (tests/test_meta.py fails on one). Command, group and option names stay untranslated:
they are what people type and what the help pages name.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.i18n import DEFAULT_LANGUAGE, LANGUAGES, language_of, t

_NAMES = {
    app_commands.TranslationContextLocation.command_name,
    app_commands.TranslationContextLocation.group_name,
    app_commands.TranslationContextLocation.parameter_name,
}


def command_text(key: str) -> app_commands.locale_str:
    """A command's description or choice name: the English text of `key`, carrying the key."""
    return app_commands.locale_str(t(key), key=key)


class CommandTranslator(app_commands.Translator):
    """Reads the catalogue by the key a `command_text` carries."""

    def lookup(self, key: str | None, language: str) -> str | None:
        """The text of `key` in `language` (fr, de); None where English serves (Discord then shows the
        default) or where the text carries no key."""
        if key is None or language == DEFAULT_LANGUAGE or language not in LANGUAGES:
            return None
        return t(key, language)

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if context.location in _NAMES:
            return None
        key = string.extras.get("key")
        return self.lookup(key if isinstance(key, str) else None, language_of(locale))
