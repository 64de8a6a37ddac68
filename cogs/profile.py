"""/profile: what the bot keeps about the caller, and their say over it.

`show` lists it (birthday, language, turn-notice choice, how many results carry their id); `birthday` and
`turn_notices` set it; `delete` forgets the profile and `anonymise` replaces their id in their results by
an anonymous one (the rows stay, so the others' leaderboards keep their games). Both ask first: the answer
is a private message with a button that does it and one that keeps everything.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine.errors import BadAction
from bot.i18n import N_, language_of, t
from bot.store.repositories import Profiles
from bot.ui import codec, components
from bot.ui.components import Click
from bot.ui.replies import reply_private, update_clicked
from bot.ui.translator import command_text

if TYPE_CHECKING:
    from bot.app import TopBot

DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
ROUTE = "profile"  # the buttons' namespace: `profile::confirm:<what>`, `profile::keep`
# What each destructive command asks, and what its button says.
ASKED = {
    "delete": (N_("general.profile.delete_ask"), N_("general.profile.delete_button")),
    "anonymise": (N_("general.profile.anonymise_ask"), N_("general.profile.anonymise_button")),
}


class Profile(commands.Cog):
    """/profile show | birthday | turn_notices | delete | anonymise; private answers in the caller's
    Discord language."""

    profile = app_commands.Group(name="profile", description=command_text("general.cmd.profile"))

    def __init__(self, bot: TopBot) -> None:
        self.bot = bot
        self.confirm_spec = components.register(
            ROUTE, "confirm", self._confirmed, codec.choice("what", *ASKED), sessionless=True
        )
        self.keep_spec = components.register(ROUTE, "keep", self._kept, sessionless=True)

    async def cog_unload(self) -> None:
        components.unregister_game(ROUTE)

    @profile.command(name="show", description=command_text("general.cmd.profile_show"))
    async def show(self, interaction: discord.Interaction[Any]) -> None:
        lang = language_of(interaction.locale)
        user_id = str(interaction.user.id)
        kept = await self.bot.store.profiles.get(user_id)
        results = await self.bot.store.profiles.result_count(user_id)
        unset = t("general.profile.unset", lang)
        birthday = (
            f"{kept.birth_day:02d}/{kept.birth_month:02d}"
            if kept is not None and kept.birth_day and kept.birth_month
            else unset
        )
        notices = kept.turn_notices if kept is not None else True
        embed = discord.Embed(title=t("general.profile.title", lang), colour=discord.Colour.blurple())
        embed.add_field(name=t("general.profile.birthday", lang), value=birthday, inline=True)
        embed.add_field(
            name=t("general.profile.language", lang),
            value=kept.language if kept is not None and kept.language else unset,
            inline=True,
        )
        embed.add_field(
            name=t("general.profile.turn_notices", lang),
            value=t(N_("general.profile.on") if notices else N_("general.profile.off"), lang),
            inline=True,
        )
        embed.add_field(
            name=t("general.profile.results", lang),
            value=str(results),
            inline=False,
        )
        embed.set_footer(text=t("general.profile.footer", lang))
        await reply_private(interaction, embed=embed)

    @profile.command(name="birthday", description=command_text("general.cmd.birthday"))
    @app_commands.describe(month="1–12", day="1–31")
    async def birthday(
        self,
        interaction: discord.Interaction[Any],
        month: app_commands.Range[int, 1, 12],
        day: app_commands.Range[int, 1, 31],
    ) -> None:
        if day > DAYS_IN_MONTH[month - 1]:
            raise BadAction("general.birthday.bad_day", month=month, day=day)
        async with self.bot.store.transaction() as tx:
            await self.bot.store.profiles.set_birthday(tx, str(interaction.user.id), month, day, time.time())
        date = f"{day:02d}/{month:02d}"
        await reply_private(
            interaction, t("general.birthday.saved", language_of(interaction.locale), date=date)
        )

    @profile.command(name="turn_notices", description=command_text("general.cmd.turn_notices"))
    @app_commands.describe(wanted=command_text("general.cmd.turn_notices.wanted"))
    async def turn_notices(self, interaction: discord.Interaction[Any], wanted: bool) -> None:
        """Whether a game mentions the player in a short message when it awaits them."""
        async with self.bot.store.transaction() as tx:
            await self.bot.store.profiles.set_turn_notices(tx, str(interaction.user.id), wanted, time.time())
        said = N_("general.turn_notices.on") if wanted else N_("general.turn_notices.off")
        await reply_private(interaction, t(said, language_of(interaction.locale)))

    @profile.command(name="delete", description=command_text("general.cmd.profile_delete"))
    async def delete(self, interaction: discord.Interaction[Any]) -> None:
        await self._ask(interaction, "delete")

    @profile.command(name="anonymise", description=command_text("general.cmd.profile_anonymise"))
    async def anonymise(self, interaction: discord.Interaction[Any]) -> None:
        await self._ask(interaction, "anonymise")

    async def _ask(self, interaction: discord.Interaction[Any], what: str) -> None:
        """Nothing is changed yet: the caller confirms with the button, or keeps everything."""
        lang = language_of(interaction.locale)
        question, button = ASKED[what]
        view = components.view_of(
            components.button(
                self.confirm_spec.encode(None, what=what), t(button, lang), style=discord.ButtonStyle.danger
            ),
            components.button(self.keep_spec.encode(None), t("general.profile.keep_button", lang)),
        )
        await reply_private(interaction, t(question, lang), view=view)

    async def _confirmed(self, click: Click) -> None:
        """The button acts on whoever presses it, never on anyone else: the id names no player."""
        interaction = click.interaction
        lang = language_of(interaction.locale)
        user_id = click.player
        async with self.bot.store.transaction() as tx:
            if click.args["what"] == "delete":
                deleted = await Profiles.delete(tx, user_id)
                told = N_("general.profile.deleted") if deleted else N_("general.profile.nothing_to_delete")
                said = t(told, lang)
            else:
                _, count = await Profiles.anonymise_results(tx, user_id)
                said = t("general.profile.anonymised", lang, n=count)
        await update_clicked(interaction, content=said, view=None)

    async def _kept(self, click: Click) -> None:
        lang = language_of(click.interaction.locale)
        await update_clicked(click.interaction, content=t("general.profile.kept", lang), view=None)


async def setup(bot: TopBot) -> None:
    await bot.add_cog(Profile(bot))
