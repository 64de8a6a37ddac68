"""`/dictionary list|add|remove`: the server's own dictionary, for members who may manage the server.

A table's vote on a word's verdict enters it by itself (the engine stores it with the vote); here an admin
reads it, adds a word (accepted or refused) or removes one so that the spellchecker judges it again. Later
games of Top Stop and TopWords in that language take it along.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.config import LANGUAGES
from bot.engine.errors import BadAction, NotAPlayer
from bot.i18n import N_, Text, language_of, t
from bot.store import ServerWord, ServerWords
from bot.ui.access import manages_server
from bot.ui.embeds import mention
from bot.ui.replies import reply_private
from bot.ui.translator import command_text
from bot.words.text import normalise
from cogs.general import LANGUAGE_CHOICES, LANGUAGE_NAMES, answer_language

if TYPE_CHECKING:
    from bot.app import TopBot

PAGE_SIZE = 20  # entries a page of /dictionary list shows
MAX_WORD_LENGTH = 40  # as the games' words
MAX_WORDS = ServerWords.SNAPSHOT_LIMIT  # entries per server and language: what a game takes along


def checked_word(text: str) -> str:
    """A word as the games compare it (trimmed, case-folded); letters only, as the games accept."""
    word = normalise(text)
    if not word or not word.isalpha() or len(word) > MAX_WORD_LENGTH:
        raise BadAction("dictionary.bad_word", limit=MAX_WORD_LENGTH)
    return word


def entry_line(entry: ServerWord, lang: str) -> str:
    """`word` — accepted or refused, by a vote (in game #n) or by an admin, and the day."""
    verdict = t(N_("dictionary.entry.accepted") if entry.valid else N_("dictionary.entry.refused"), lang)
    if entry.source == "vote":
        how = t("dictionary.entry.by_vote", lang, day=entry.day, game=entry.session_id or "?")
    else:
        how = t("dictionary.entry.by_admin", lang, day=entry.day, who=mention(entry.decided_by or "?"))
    return f"**{discord.utils.escape_markdown(entry.word)}** — {verdict} · {how}"


class Dictionary(commands.Cog):
    """The server dictionary's commands; every answer is private (it speaks the user's language)."""

    def __init__(self, bot: TopBot) -> None:
        self.bot = bot

    group = app_commands.Group(
        name="dictionary",
        description=command_text("dictionary.cmd.group"),
        guild_only=True,
        default_permissions=discord.Permissions(manage_guild=True),
    )

    async def _allowed(self, interaction: discord.Interaction[Any], language: str | None) -> tuple[int, str]:
        """The server and language, if the user may manage the server (checked here, not only by Discord)."""
        if interaction.guild_id is None or not manages_server(interaction):
            raise NotAPlayer("dictionary.not_allowed")
        if language is not None and language not in LANGUAGES:
            raise BadAction("general.settings.bad_language")
        return interaction.guild_id, await self._language(interaction, language)

    async def _language(self, interaction: discord.Interaction[Any], chosen: str | None) -> str:
        """The dictionary's language: the one chosen, else the server's own, else the caller's."""
        if chosen in LANGUAGES:
            return str(chosen)
        assert interaction.guild_id is not None
        return await answer_language(self.bot.store.guild_settings, interaction.guild_id, interaction.locale)

    @group.command(name="list", description=command_text("dictionary.cmd.list"))
    @app_commands.describe(
        language=command_text("dictionary.cmd.language"), page=command_text("dictionary.cmd.page")
    )
    @app_commands.choices(language=LANGUAGE_CHOICES)
    async def list_words(
        self,
        interaction: discord.Interaction[Any],
        language: app_commands.Choice[str] | None = None,
        page: app_commands.Range[int, 1, 10_000] = 1,
    ) -> None:
        guild, lang = await self._allowed(interaction, language.value if language else None)
        # A list of the server's words is about the server: said in its language, else the caller's.
        reader = await answer_language(self.bot.store.guild_settings, guild, interaction.locale)
        total = await self.bot.store.server_words.count(guild, lang)
        pages = max(1, -(-total // PAGE_SIZE))
        if not 1 <= page <= pages:
            raise BadAction("dictionary.no_page", page=page, pages=pages)
        entries = await self.bot.store.server_words.list(
            guild, lang, offset=(page - 1) * PAGE_SIZE, limit=PAGE_SIZE
        )
        title = t("dictionary.list.title", reader, language=Text(LANGUAGE_NAMES[lang]), n=total)
        embed = discord.Embed(title=title, colour=discord.Colour.dark_teal())
        embed.description = "\n".join(entry_line(e, reader) for e in entries) or t(
            "dictionary.list.empty", reader
        )
        if pages > 1:
            embed.set_footer(text=t("dictionary.list.page", reader, page=page, pages=pages))
        await reply_private(interaction, embed=embed)

    @group.command(name="add", description=command_text("dictionary.cmd.add"))
    @app_commands.describe(
        word=command_text("dictionary.cmd.word"),
        valid=command_text("dictionary.cmd.valid"),
        language=command_text("dictionary.cmd.language"),
    )
    @app_commands.choices(language=LANGUAGE_CHOICES)
    async def add(
        self,
        interaction: discord.Interaction[Any],
        word: app_commands.Range[str, 1, 100],
        valid: bool = True,
        language: app_commands.Choice[str] | None = None,
    ) -> None:
        guild, lang = await self._allowed(interaction, language.value if language else None)
        key = checked_word(word)
        store = self.bot.store
        full = await store.server_words.count(guild, lang) >= MAX_WORDS
        if full and await store.server_words.get(guild, lang, key) is None:
            raise BadAction("dictionary.full", limit=MAX_WORDS)
        async with store.transaction() as tx:
            await store.server_words.set(tx, guild, lang, key, valid, str(interaction.user.id), time.time())
        said = N_("dictionary.added.accepted") if valid else N_("dictionary.added.refused")
        reader = language_of(interaction.locale)
        await reply_private(interaction, t(said, reader, word=key, language=Text(LANGUAGE_NAMES[lang])))

    @group.command(name="remove", description=command_text("dictionary.cmd.remove"))
    @app_commands.describe(
        word=command_text("dictionary.cmd.word"), language=command_text("dictionary.cmd.language")
    )
    @app_commands.choices(language=LANGUAGE_CHOICES)
    async def remove(
        self,
        interaction: discord.Interaction[Any],
        word: app_commands.Range[str, 1, 100],
        language: app_commands.Choice[str] | None = None,
    ) -> None:
        guild, lang = await self._allowed(interaction, language.value if language else None)
        key = checked_word(word)
        async with self.bot.store.transaction() as tx:
            removed = await self.bot.store.server_words.remove(tx, guild, lang, key)
        if not removed:
            raise BadAction("dictionary.unknown_word", word=key)
        reader = language_of(interaction.locale)
        await reply_private(
            interaction, t("dictionary.removed", reader, word=key, language=Text(LANGUAGE_NAMES[lang]))
        )

    @remove.autocomplete("word")
    async def remove_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """The server's words starting with what is typed (in the language chosen, or the server's)."""
        if interaction.guild_id is None or not manages_server(interaction):
            return []
        lang = await self._language(interaction, getattr(interaction.namespace, "language", None))
        entries = await self.bot.store.server_words.list(
            interaction.guild_id, lang, prefix=normalise(current), limit=25
        )
        return [app_commands.Choice(name=e.word[:100], value=e.word[:100]) for e in entries]


async def setup(bot: TopBot) -> None:
    await bot.add_cog(Dictionary(bot))
