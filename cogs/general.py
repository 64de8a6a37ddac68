"""Commands for every game: /help and /rules (/leaderboard: cogs/leaderboard.py; the server settings:
cogs/settings.py; the player's profile: cogs/profile.py)."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import rules
from bot.engine.errors import BadAction
from bot.games import GAME_TITLES, every_game, game_info, listed_games
from bot.i18n import N_, language_of, t
from bot.store.repositories import GuildSettings
from bot.ui.lobby import bots_how
from bot.ui.replies import reply_private
from bot.ui.translator import command_text

if TYPE_CHECKING:
    from bot.app import TopBot

# The games offered to servers (bot/games/registry.py); an unlisted game is reached by its own commands.
GAME_CHOICES = [app_commands.Choice(name=info.title, value=info.name) for info in listed_games()]
LANGUAGE_CHOICES = [
    app_commands.Choice(name="English", value="en"),
    app_commands.Choice(name="Français", value="fr"),
    app_commands.Choice(name="Deutsch", value="de"),
]
# A language as said in the reader's language ("seront en allemand").
LANGUAGE_NAMES = {
    "en": N_("general.language.en"),
    "fr": N_("general.language.fr"),
    "de": N_("general.language.de"),
}


def rules_text(game: str) -> str:
    """The game's rules page as shipped with the package (bot/rules, from docs/rules)."""
    text = rules.page(game)
    if text is None:
        raise BadAction("general.rules.missing", game=GAME_TITLES.get(game, game))
    return text


# A short account of each game's rules in the catalogue (every language); the pages themselves are English.
RULES_SUMMARIES = {info.name: info.rules_summary for info in every_game()}


def rules_summary(text: str, limit: int = 4000, lang: str = "en") -> str:
    """The start of the rules, cut at a paragraph so that an embed can hold it."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n\n", 0, limit)
    return text[: cut if cut > 0 else limit].rstrip() + "\n\n" + t("general.rules.attached", lang)


async def answer_language(settings: GuildSettings, guild_id: int, locale: object) -> str:
    """The language of an answer about the server (its leaderboard, its dictionary): the server's own
    (`/settings language`), else the caller's Discord language — never the bot's default over the caller's."""
    return await settings.language(guild_id, language_of(locale))


class General(commands.Cog):
    """/help and /rules: what every game shares.

    Private answers speak the user's Discord language; an answer about the server, the server's (else the
    caller's: `answer_language`).
    """

    def __init__(self, bot: TopBot) -> None:
        self.bot = bot

    @app_commands.command(name="help", description=command_text("general.cmd.help"))
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        lang = language_of(interaction.locale)
        embed = discord.Embed(
            title=t("general.help.title", lang),
            colour=discord.Colour.blurple(),
            description=t("general.help.intro", lang),
        )
        for info in self.bot.game_infos:
            group = self.bot.tree.get_command(info.name)
            if isinstance(group, app_commands.Group):
                commands_text = " ".join(f"`/{info.name} {sub.name}`" for sub in group.commands)
                embed.add_field(name=info.title, value=commands_text[:1024], inline=False)
        embed.add_field(
            name=t("general.help.more_title", lang), value=t("general.help.more", lang), inline=False
        )
        await reply_private(interaction, embed=embed)

    @app_commands.command(name="rules", description=command_text("general.cmd.rules"))
    @app_commands.describe(game=command_text("general.cmd.game"))
    @app_commands.choices(game=GAME_CHOICES)
    async def rules(self, interaction: discord.Interaction[Any], game: app_commands.Choice[str]) -> None:
        lang = language_of(interaction.locale)
        text = rules_text(game.value)
        summary = RULES_SUMMARIES.get(game.value)
        # The summary in the reader's language; the full page (English, every ruling) as a file.
        if summary:
            attached = t("general.rules.full_attached", lang)
            description = f"{t(summary, lang)}\n\n{attached}"
        else:
            description = rules_summary(text, lang=lang)
        if game_info(game.value).bots is not None:
            description = f"{description}\n\n{bots_how(game.value, lang)}"
        embed = discord.Embed(
            title=t("general.rules.title", lang, game=game.name),
            description=description[:4096],
            colour=discord.Colour.blurple(),
        )
        files = [discord.File(io.BytesIO(text.encode()), filename=f"{game.value}-rules.md")]
        await reply_private(interaction, embed=embed, files=files)


async def setup(bot: TopBot) -> None:
    await bot.add_cog(General(bot))
