"""Slash-command descriptions and choice names in the user's Discord language, from the message catalogue.

A decorator names its text with `command_text("general.cmd.help")`: the English text comes from the
catalogue and the key travels with it. A plain English string is looked up among the catalogue's command
texts (keys with a `.cmd.` part) by its English wording. Command, group and option names stay untranslated:
they are what people type and what the help pages name.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.i18n import DEFAULT_LANGUAGE, LANGUAGES, keys, language_of, t

_NAMES = {
    app_commands.TranslationContextLocation.command_name,
    app_commands.TranslationContextLocation.group_name,
    app_commands.TranslationContextLocation.parameter_name,
}


def command_text(key: str) -> app_commands.locale_str:
    """A command's description or choice name: the English text of `key`, carrying the key."""
    return app_commands.locale_str(t(key), key=key)


class CommandTranslator(app_commands.Translator):
    """Reads the catalogue: by the key a `command_text` carries, else by the English wording."""

    def __init__(self) -> None:
        self.by_english = {t(key): key for key in keys() if ".cmd." in key}

    def lookup(self, text: str, language: str, key: str | None = None) -> str | None:
        """The text in `language` (fr, de); None where English serves (Discord then shows the default)."""
        if language == DEFAULT_LANGUAGE or language not in LANGUAGES:
            return None
        key = key or self.by_english.get(text)
        return t(key, language) if key is not None else None

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if context.location in _NAMES:
            return None
        key = string.extras.get("key")
        return self.lookup(string.message, language_of(locale), key if isinstance(key, str) else None)
