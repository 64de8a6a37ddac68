"""/settings: what a server's admins choose for its games — the language, each game's defaults (timers and
modes), the channels where games may start and the most games open at once. Stored per server
(`guild_settings`); read where they apply: the lobby (bot/ui/lobby.py) and the session manager's cap.

Only members with Manage Server: Discord hides the commands from the others by default, and since a server
may show them to anyone, every command checks again and refuses privately.
"""

from __future__ import annotations

import secrets
import time
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.config import LANGUAGES
from bot.engine.errors import BadAction, NotAPlayer
from bot.games import game_info, listed_games
from bot.games.defaults import check_default, choice_name, declared, parse_default, server_defaults
from bot.i18n import N_, Text, language_of, t
from bot.store import ServerSettings
from bot.ui.access import manages_server
from bot.ui.replies import reply_private
from bot.ui.translator import command_text
from cogs.general import LANGUAGE_CHOICES, LANGUAGE_NAMES

if TYPE_CHECKING:
    from bot.app import TopBot

# The games whose declaration offers server defaults (bot/games/registry.py: GameInfo.server_defaults).
DEFAULT_GAME_CHOICES = [
    app_commands.Choice(name=info.title, value=info.name) for info in listed_games() if info.server_defaults
]
MOST_GAMES = 1000  # the highest cap a server may type; the bot's own (MAX_GAMES_PER_SERVER) bounds it too
WEB_ACTIONS = {
    "on": N_("general.settings.web_choice_on"),
    "off": N_("general.settings.web_choice_off"),
    "new_link": N_("general.settings.web_choice_new_link"),
}
WEB_CHOICES = [app_commands.Choice(name=command_text(key), value=value) for value, key in WEB_ACTIONS.items()]


def web_token_after(action: str, current: str | None, fresh: str) -> str | None:
    """The server's link token after `/settings web <action>`: on keeps a token already there (the link
    people have goes on working), a new link replaces it, off removes it."""
    if action == "off":
        return None
    if action == "new_link" or current is None:
        return fresh
    return current


def web_link(base_url: str, token: str) -> str:
    """The server's pages: their leaderboard, under the link token."""
    return f"{base_url.rstrip('/')}/s/{token}/"


def require_manager(interaction: discord.Interaction[Any]) -> None:
    if not manages_server(interaction):
        raise NotAPlayer("general.settings.not_allowed")


class Settings(commands.Cog):
    """/settings show | language | default | max_games | channels add|remove|anywhere | web."""

    settings = app_commands.Group(
        name="settings",
        description=command_text("general.cmd.settings"),
        guild_only=True,
        default_permissions=discord.Permissions(manage_guild=True),
    )
    channels = app_commands.Group(
        name="channels", description=command_text("general.cmd.settings_channels"), parent=settings
    )

    def __init__(self, bot: TopBot) -> None:
        self.bot = bot

    async def _change(self, interaction: discord.Interaction[Any], change: Any) -> ServerSettings:
        assert interaction.guild_id is not None
        async with self.bot.store.transaction() as tx:
            return await self.bot.store.guild_settings.update(tx, interaction.guild_id, change, time.time())

    # -- show -------------------------------------------------------------------------------------------

    @settings.command(name="show", description=command_text("general.cmd.settings_show"))
    async def show(self, interaction: discord.Interaction[Any]) -> None:
        require_manager(interaction)
        assert interaction.guild_id is not None
        lang = language_of(interaction.locale)
        store = self.bot.store.guild_settings
        server = await store.settings(interaction.guild_id)
        language = await store.chosen_language(interaction.guild_id)
        embed = discord.Embed(title=t("general.settings.show_title", lang), colour=discord.Colour.blurple())
        embed.add_field(
            name=t("general.settings.language_title", lang),
            value=t(LANGUAGE_NAMES[language], lang)
            if language in LANGUAGE_NAMES
            else t("general.settings.language_unset", lang),
            inline=True,
        )
        bot_cap = self.bot.settings.max_games_per_server
        embed.add_field(
            name=t("general.settings.max_games_title", lang),
            value=str(min(server.max_games, bot_cap))
            if server.max_games is not None
            else t("general.settings.max_games_bot", lang, limit=bot_cap),
            inline=True,
        )
        embed.add_field(
            name=t("general.settings.channels_title", lang),
            value=" ".join(f"<#{channel}>" for channel in server.channels)[:1024]
            if server.channels
            else t("general.settings.channels_anywhere", lang),
            inline=False,
        )
        for info in self.bot.game_infos:
            if not info.server_defaults:
                continue
            chosen = server_defaults(info, server.defaults.get(info.name, {}))
            lines = []
            for default in info.server_defaults:
                if default.option in chosen:
                    value = f"**{choice_name(default, chosen[default.option], lang)}**"
                else:
                    value = t("general.settings.game_default", lang)
                lines.append(f"`{default.option}` {t(default.label, lang)}: {value}")
            embed.add_field(name=info.title, value="\n".join(lines)[:1024], inline=False)
        embed.add_field(
            name=t("general.settings.web_title", lang),
            value=web_link(self.bot.settings.web_base_url, server.web_token)
            if server.web_token
            else t("general.settings.web_none", lang),
            inline=False,
        )
        embed.set_footer(text=t("general.settings.show_footer", lang))
        await reply_private(interaction, embed=embed)

    # -- language ---------------------------------------------------------------------------------------

    @settings.command(name="language", description=command_text("general.cmd.settings_language"))
    @app_commands.describe(language=command_text("general.cmd.settings_language.language"))
    @app_commands.choices(language=LANGUAGE_CHOICES)
    async def language(
        self, interaction: discord.Interaction[Any], language: app_commands.Choice[str]
    ) -> None:
        require_manager(interaction)
        assert interaction.guild_id is not None
        if language.value not in LANGUAGES:
            raise BadAction("general.settings.bad_language")
        async with self.bot.store.transaction() as tx:
            await self.bot.store.guild_settings.set_language(
                tx, interaction.guild_id, language.value, time.time()
            )
        await reply_private(
            interaction,
            t(
                "general.settings.language_set",
                language_of(interaction.locale),
                language=Text(LANGUAGE_NAMES[language.value]),
            ),
        )

    # -- a game's defaults ------------------------------------------------------------------------------

    @settings.command(name="default", description=command_text("general.cmd.settings_default"))
    @app_commands.describe(
        game=command_text("general.cmd.game"),
        setting=command_text("general.cmd.settings_default.setting"),
        value=command_text("general.cmd.settings_default.value"),
    )
    @app_commands.choices(game=DEFAULT_GAME_CHOICES)
    async def default(
        self,
        interaction: discord.Interaction[Any],
        game: app_commands.Choice[str],
        setting: app_commands.Range[str, 1, 40],
        value: app_commands.Range[str, 1, 100] | None = None,
    ) -> None:
        """A value: the server's default for the option; none: back to the game's own."""
        require_manager(interaction)
        lang = language_of(interaction.locale)
        info = game_info(game.value)
        option = setting.strip()
        default = declared(info, option)
        label = Text(default.label)
        if value is None:

            def forget(settings: ServerSettings) -> None:
                settings.defaults.get(info.name, {}).pop(option, None)

            await self._change(interaction, forget)
            said = t("general.settings.default_cleared", lang, game=info.title, option=label)
            await reply_private(interaction, said)
            return
        parsed = parse_default(info, option, value)
        rules = self.bot.sessions.games.get(info.name)
        if rules is not None:
            check_default(rules, option, parsed)

        def keep(settings: ServerSettings) -> None:
            settings.defaults.setdefault(info.name, {})[option] = parsed

        await self._change(interaction, keep)
        shown = choice_name(default, parsed, lang)
        said = t("general.settings.default_set", lang, game=info.title, option=label, value=shown)
        await reply_private(interaction, said)

    @default.autocomplete("setting")
    async def _options_of_game(
        self, interaction: discord.Interaction[Any], typed: str
    ) -> list[app_commands.Choice[str]]:
        info = self._game_of(interaction)
        if info is None:
            return []
        lang = language_of(interaction.locale)
        return [
            app_commands.Choice(name=f"{d.option} — {t(d.label, lang)}"[:100], value=d.option)
            for d in info.server_defaults
            if typed.strip().casefold() in d.option.casefold()
        ][:25]

    @default.autocomplete("value")
    async def _values_of_option(
        self, interaction: discord.Interaction[Any], typed: str
    ) -> list[app_commands.Choice[str]]:
        info = self._game_of(interaction)
        option = getattr(interaction.namespace, "setting", None)
        found = info.server_default(str(option)) if info is not None and option else None
        if found is None:
            return []
        lang = language_of(interaction.locale)
        if not found.choices:
            return [app_commands.Choice(name=typed, value=typed)] if typed.strip().isdigit() else []
        return [
            app_commands.Choice(name=choice_name(found, value, lang)[:100], value=str(value))
            for value, _ in found.choices
            if typed.strip().casefold() in choice_name(found, value, lang).casefold()
            or typed.strip().casefold() in str(value).casefold()
        ][:25]

    @staticmethod
    def _game_of(interaction: discord.Interaction[Any]) -> Any:
        name = getattr(interaction.namespace, "game", None)
        try:
            return game_info(str(name)) if name else None
        except KeyError:
            return None

    # -- how many games, where --------------------------------------------------------------------------

    @settings.command(name="max_games", description=command_text("general.cmd.settings_max_games"))
    @app_commands.describe(number=command_text("general.cmd.settings_max_games.number"))
    async def max_games(
        self,
        interaction: discord.Interaction[Any],
        number: app_commands.Range[int, 1, MOST_GAMES] | None = None,
    ) -> None:
        """A server may lower the bot's limit of games open at once, never raise it; none: the bot's."""
        require_manager(interaction)
        lang = language_of(interaction.locale)
        bot_cap = self.bot.settings.max_games_per_server
        if number is not None and not 1 <= number <= bot_cap:
            raise BadAction("general.settings.max_games_bounds", most=bot_cap)

        def cap(settings: ServerSettings) -> None:
            settings.max_games = number

        await self._change(interaction, cap)
        if number is None:
            said = t("general.settings.max_games_cleared", lang, limit=bot_cap)
        else:
            said = t("general.settings.max_games_set", lang, limit=number)
        await reply_private(interaction, said)

    @channels.command(name="add", description=command_text("general.cmd.settings_channels_add"))
    @app_commands.describe(channel=command_text("general.cmd.settings_channels.channel"))
    async def channels_add(self, interaction: discord.Interaction[Any], channel: discord.TextChannel) -> None:
        require_manager(interaction)

        def add(settings: ServerSettings) -> None:
            if channel.id not in settings.channels:
                settings.channels.append(channel.id)

        server = await self._change(interaction, add)
        await self._say_channels(interaction, server)

    @channels.command(name="remove", description=command_text("general.cmd.settings_channels_remove"))
    @app_commands.describe(channel=command_text("general.cmd.settings_channels.channel"))
    async def channels_remove(
        self, interaction: discord.Interaction[Any], channel: discord.TextChannel
    ) -> None:
        require_manager(interaction)

        def remove(settings: ServerSettings) -> None:
            settings.channels = [c for c in settings.channels if c != channel.id]

        server = await self._change(interaction, remove)
        await self._say_channels(interaction, server)

    @channels.command(name="anywhere", description=command_text("general.cmd.settings_channels_anywhere"))
    async def channels_anywhere(self, interaction: discord.Interaction[Any]) -> None:
        require_manager(interaction)

        def anywhere(settings: ServerSettings) -> None:
            settings.channels = []

        server = await self._change(interaction, anywhere)
        await self._say_channels(interaction, server)

    # -- the web pages ----------------------------------------------------------------------------------

    @settings.command(name="web", description=command_text("general.cmd.settings_web"))
    @app_commands.describe(action=command_text("general.cmd.settings_web.action"))
    @app_commands.choices(action=WEB_CHOICES)
    async def web(self, interaction: discord.Interaction[Any], action: app_commands.Choice[str]) -> None:
        """On: the pages under a new random link token (kept when already on); off: no pages; a new link:
        another token, the old link then shows nothing."""
        require_manager(interaction)
        lang = language_of(interaction.locale)
        if action.value not in WEB_ACTIONS:
            raise BadAction("general.settings.web_bad_action")
        fresh = secrets.token_urlsafe(24)

        def choose(settings: ServerSettings) -> None:
            settings.web_token = web_token_after(action.value, settings.web_token, fresh)

        server = await self._change(interaction, choose)
        if server.web_token is None:
            said = t("general.settings.web_off", lang)
        else:
            link = web_link(self.bot.settings.web_base_url, server.web_token)
            key = (
                N_("general.settings.web_new_link")
                if action.value == "new_link"
                else N_("general.settings.web_on")
            )
            said = t(key, lang, link=link)
            if not self.bot.settings.web_enabled:
                said += "\n" + t("general.settings.web_not_served", lang)
        await reply_private(interaction, said)

    @staticmethod
    async def _say_channels(interaction: discord.Interaction[Any], server: ServerSettings) -> None:
        lang = language_of(interaction.locale)
        if server.channels:
            listed = " ".join(f"<#{channel}>" for channel in server.channels)
            said = t("general.settings.channels_set", lang, channels=listed)
        else:
            said = t("general.settings.channels_anywhere_set", lang)
        await reply_private(interaction, said)


async def setup(bot: TopBot) -> None:
    await bot.add_cog(Settings(bot))
