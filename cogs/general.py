"""Commands for every game: /help, /rules, /leaderboard, server settings and player profiles."""

from __future__ import annotations

import io
import time
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import rules
from bot.config import LANGUAGES
from bot.engine.errors import BadAction, NotAPlayer
from bot.games import GAME_TITLES
from bot.ui.embeds import mention
from bot.ui.replies import reply_private

if TYPE_CHECKING:
    from bot.app import TopBot

GAME_CHOICES = [app_commands.Choice(name=title, value=name) for name, title in GAME_TITLES.items()]
LANGUAGE_CHOICES = [
    app_commands.Choice(name="English", value="en"),
    app_commands.Choice(name="Français", value="fr"),
    app_commands.Choice(name="Deutsch", value="de"),
]
DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def rules_text(game: str) -> str:
    """The game's rules page as shipped with the package (bot/rules, from docs/rules)."""
    text = rules.page(game)
    if text is None:
        raise BadAction(f"The rules of {GAME_TITLES.get(game, game)} are not written yet.")
    return text


def rules_summary(text: str, limit: int = 4000) -> str:
    """The start of the rules, cut at a paragraph so that an embed can hold it."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n\n", 0, limit)
    return text[: cut if cut > 0 else limit].rstrip() + "\n\n*…the full rules are attached.*"


class General(commands.Cog):
    """/help, /rules, /leaderboard, /settings and /profile: what every game shares."""

    command_translations = {
        "de": {
            "What this bot does and how to play": "Was dieser Bot kann und wie man spielt",
            "The rules of a game as this bot plays them": "Die Regeln eines Spiels, wie dieser Bot sie spielt",
            "Which game": "Welches Spiel",
            "The best players of a game in this server": "Die besten Spieler eines Spiels auf diesem Server",
            "Server settings for the games": "Servereinstellungen für die Spiele",
            "The default language of new word games here": "Die Standardsprache neuer Wortspiele hier",
            "Your player profile": "Dein Spielerprofil",
            "Your birthday (month and day), for birthday cards": "Dein Geburtstag (Monat und Tag) für Geburtstagskarten",
        },
        "fr": {
            "What this bot does and how to play": "Ce que fait ce bot et comment jouer",
            "The rules of a game as this bot plays them": "Les règles d'un jeu, telles que ce bot les applique",
            "Which game": "Quel jeu",
            "The best players of a game in this server": "Les meilleurs joueurs d'un jeu sur ce serveur",
            "Server settings for the games": "Réglages du serveur pour les jeux",
            "The default language of new word games here": "La langue par défaut des nouveaux jeux de mots ici",
            "Your player profile": "Votre profil de joueur",
            "Your birthday (month and day), for birthday cards": "Votre anniversaire (mois et jour), pour les cartes d'anniversaire",
        },
    }

    def __init__(self, bot: TopBot) -> None:
        self.bot = bot

    @app_commands.command(name="help", description="What this bot does and how to play")
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        embed = discord.Embed(
            title="Top games",
            colour=discord.Colour.blurple(),
            description=(
                "Tabletop games for this channel, played with slash commands and buttons.\n"
                "Start a game with `/<game> new`: a lobby opens, players press **Join**, the host presses "
                "**Start**. One game at a time per channel. Private things (your words, your rack) are only "
                "ever shown to you."
            ),
        )
        for name, title in GAME_TITLES.items():
            group = self.bot.tree.get_command(name)
            if isinstance(group, app_commands.Group):
                commands_text = " ".join(f"`/{name} {sub.name}`" for sub in group.commands)
                embed.add_field(name=title, value=commands_text[:1024], inline=False)
        embed.add_field(
            name="Everything else",
            value="`/rules` the rules of a game · `/leaderboard` the best players here · "
            "`/profile birthday` · `/settings language` (Manage Server)",
            inline=False,
        )
        await reply_private(interaction, embed=embed)

    @app_commands.command(name="rules", description="The rules of a game as this bot plays them")
    @app_commands.describe(game="Which game")
    @app_commands.choices(game=GAME_CHOICES)
    async def rules(self, interaction: discord.Interaction[Any], game: app_commands.Choice[str]) -> None:
        text = rules_text(game.value)
        embed = discord.Embed(
            title=f"Rules — {game.name}", description=rules_summary(text), colour=discord.Colour.blurple()
        )
        files = []
        if len(text) > 4000:
            files.append(discord.File(io.BytesIO(text.encode()), filename=f"{game.value}-rules.md"))
        await reply_private(interaction, embed=embed, files=files)

    @app_commands.command(name="leaderboard", description="The best players of a game in this server")
    @app_commands.describe(game="Which game")
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.guild_only()
    async def leaderboard(
        self, interaction: discord.Interaction[Any], game: app_commands.Choice[str]
    ) -> None:
        assert interaction.guild_id is not None
        rows = await self.bot.store.results.leaderboard(interaction.guild_id, game.value)
        embed = discord.Embed(title=f"Leaderboard — {game.name}", colour=discord.Colour.gold())
        if not rows:
            embed.description = "No finished games here yet."
        else:
            embed.description = "\n".join(
                f"**{i}.** {mention(r.user_id)} — {r.wins} win(s) in {r.games} game(s), best {r.best}"
                for i, r in enumerate(rows, 1)
            )
        await interaction.response.send_message(embed=embed)

    settings = app_commands.Group(
        name="settings",
        description="Server settings for the games",
        guild_only=True,
        default_permissions=discord.Permissions(manage_guild=True),
    )

    @settings.command(name="language", description="The default language of new word games here")
    @app_commands.choices(language=LANGUAGE_CHOICES)
    async def settings_language(
        self, interaction: discord.Interaction[Any], language: app_commands.Choice[str]
    ) -> None:
        assert interaction.guild_id is not None
        # Discord hides the command from others by default, but a server may change that: check here too.
        permissions = getattr(interaction.user, "guild_permissions", None)
        if not (permissions and permissions.manage_guild):
            raise NotAPlayer("Only members with Manage Server can change the server's settings.")
        if language.value not in LANGUAGES:
            raise BadAction("Choose English, French or German.")
        async with self.bot.store.transaction() as tx:
            await self.bot.store.guild_settings.set_language(
                tx, interaction.guild_id, language.value, time.time()
            )
        await reply_private(interaction, f"New word games here will be in {language.name}.")

    profile = app_commands.Group(name="profile", description="Your player profile")

    @profile.command(name="birthday", description="Your birthday (month and day), for birthday cards")
    @app_commands.describe(month="1–12", day="1–31")
    async def profile_birthday(
        self,
        interaction: discord.Interaction[Any],
        month: app_commands.Range[int, 1, 12],
        day: app_commands.Range[int, 1, 31],
    ) -> None:
        if day > DAYS_IN_MONTH[month - 1]:
            raise BadAction(f"Month {month} has no day {day}.")
        async with self.bot.store.transaction() as tx:
            await self.bot.store.profiles.set_birthday(tx, str(interaction.user.id), month, day, time.time())
        await reply_private(interaction, f"Saved: your birthday is {day:02d}/{month:02d} (day/month).")


async def setup(bot: TopBot) -> None:
    await bot.add_cog(General(bot))
