"""Slash-command descriptions and choice names in the user's Discord language.

Each cog may carry `command_translations = {"de": {english: german, ...}, "fr": {...}}`, keyed by the exact
English text of its decorators. Command, group and option names stay untranslated: they are what people
type and what the help pages name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import discord
from discord import app_commands

Translations = Mapping[str, Mapping[str, str]]

_NAMES = {
    app_commands.TranslationContextLocation.command_name,
    app_commands.TranslationContextLocation.group_name,
    app_commands.TranslationContextLocation.parameter_name,
}


class CommandTranslator(app_commands.Translator):
    def __init__(self, tables: Iterable[Translations] = ()) -> None:
        self.tables: dict[str, dict[str, str]] = {}
        for table in tables:
            self.add(table)

    def add(self, table: Translations) -> None:
        for language, texts in table.items():
            self.tables.setdefault(language, {}).update(texts)

    def lookup(self, text: str, language: str) -> str | None:
        return self.tables.get(language, {}).get(text)

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if context.location in _NAMES:
            return None
        # Discord's locales are "de", "fr", "en-US"…: the language is the part before the dash.
        return self.lookup(string.message, locale.value.split("-")[0])
