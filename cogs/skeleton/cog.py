"""Skeleton in a channel: `/skeleton new` (and the table layer's status, leave and end), the table with
Draw, Play a card and Pass, and the hand, which only ever reaches its owner ephemerally.

Thin, as every game's cog: the rules (bot/games/skeleton) decide; the table layer (bot/ui/table.py) opens the
lobby, finds the game, acts, redraws and answers errors; this module turns clicks into actions and draws
through table.py.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.engine.errors import StaleAction, WrongPhase
from bot.engine.game import STALE_MESSAGE, Event
from bot.games.skeleton import GAME, value
from bot.i18n import t
from bot.store import SessionRecord
from bot.ui import components
from bot.ui.components import Click
from bot.ui.replies import reply_private, update_clicked
from bot.ui.table import Table, TableCog, button
from bot.ui.translator import command_text
from cogs.skeleton import table
from cogs.skeleton.table import CARD, TURN


class SkeletonCog(TableCog, name="Skeleton"):
    game_name = GAME.name  # the title and colour come from the declaration too (bot/games/skeleton)
    panel_action = "hand"
    panel_emoji = "🂠"

    group = app_commands.Group(
        name=GAME.name, description=command_text("skeleton.cmd.group"), guild_only=True
    )

    @group.command(name="new", description=command_text("skeleton.cmd.new"))
    @app_commands.describe(target=command_text("skeleton.cmd.new.target"))
    async def new(
        self, interaction: discord.Interaction[Any], target: app_commands.Range[int, 3, 60] | None = None
    ) -> None:
        await self.open_lobby(interaction, {} if target is None else {"target": target})

    def describe_options(self, options: dict[str, Any], lang: str) -> str:
        checked = self.bot.sessions.games[GAME.name].validate_options(options)
        return t("skeleton.lobby.options", lang, target=checked["target"])

    # -- the table ----------------------------------------------------------------------------------------

    async def render(
        self, record: SessionRecord, view: dict[str, Any], events: list[Event], lang: str
    ) -> Table:
        turn_ends = self.bot.sessions.deadline(record, "turn:")
        embed = table.table_embed(view, events, lang, record.name, turn_ends)
        return Table(embed, table.table_items(record.id, view, lang))

    def panel_text(self, lang: str) -> str:
        return t("skeleton.button.hand", lang)

    async def private_panel(self, record: SessionRecord, view: dict[str, Any], lang: str) -> str:
        return table.hand_text(view, lang)

    # -- buttons ------------------------------------------------------------------------------------------

    @button("draw", TURN)
    async def on_draw(self, click: Click) -> None:
        """The drawn card is told to the drawer alone: their answer names it, the table only counts it."""
        await self.seated(click.interaction, click.session_id)
        result = await self.act(click.interaction, click.session_id, {"do": "draw", **click.args})
        lang = self.user_lang(click.interaction)
        drawn = [e["card"] for e in result.private_to(click.player) if e.get("type") == "card_drawn"]
        view = await self.bot.sessions.view(click.session_id, click.player)
        lines = [t("skeleton.panel.drew", lang, card=table.card_text(card)) for card in drawn]
        await reply_private(click.interaction, "\n".join([*lines, table.hand_text(view, lang)]))

    @button("show_hand", TURN)
    async def on_show_hand(self, click: Click) -> None:
        """ "Play a card": the player's hand as buttons, privately, while the rules offer them a play."""
        await self.seated(click.interaction, click.session_id)
        view = await self.bot.sessions.view(click.session_id, click.player)
        if click.args["turn"] != view["freshness"]["turn"]:
            raise StaleAction(STALE_MESSAGE)
        if "play" not in view.get("offered_to_you", []):
            raise WrongPhase("skeleton.refusal.not_now")
        lang = self.user_lang(click.interaction)
        cards = components.view_of(*table.card_items(click.session_id, view))
        await reply_private(click.interaction, t("skeleton.panel.pick", lang), view=cards)

    @button("play", TURN, CARD)
    async def on_play(self, click: Click) -> None:
        """A card of the private hand: played onto the public pile; the private message says so."""
        await self.seated(click.interaction, click.session_id)
        card = click.args["card"]
        await self.act(click.interaction, click.session_id, {"do": "play", **click.args})
        lang = self.user_lang(click.interaction)
        view = await self.bot.sessions.view(click.session_id, click.player)
        played = t("skeleton.panel.played", lang, card=table.card_text(card), points=value(card))
        await update_clicked(click.interaction, content=f"{played}\n{table.hand_text(view, lang)}", view=None)

    @button("pass", TURN)
    async def on_pass(self, click: Click) -> None:
        await self.seated(click.interaction, click.session_id)
        await self.act(click.interaction, click.session_id, {"do": "pass", **click.args})
