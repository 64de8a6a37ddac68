"""Skeleton in a channel: `/skeleton new` (and the table layer's status, leave and end), the public table,
and each player's console — their hand as buttons, Draw and Pass — which only ever reaches its owner.

Thin, as every game's cog: the rules (bot/games/skeleton) decide; the table layer (bot/ui/table.py) opens the
lobby, finds the game, acts, redraws at its pace, keeps consoles live, delivers news and mentions whose turn
it is; this module turns presses into actions and draws through table.py.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.engine.game import Event
from bot.games.skeleton import GAME
from bot.i18n import t
from bot.store import SessionRecord
from bot.ui.components import Click
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

    # -- the table: public, with only the layer's "My hand" (the console is where players act) -----------

    async def render(
        self, record: SessionRecord, view: dict[str, Any], events: list[Event], lang: str
    ) -> Table:
        turn_ends = view.get("deadlines", {}).get("turn")
        return Table(table.table_embed(view, events, lang, record.name, turn_ends))

    def awaiting(self, view: dict[str, Any]) -> list[str]:
        """The player on turn: the layer mentions them in a short message, replaced each turn."""
        return [view["current"]] if view.get("current") else []

    # -- the console: the player's hand as buttons, kept live by the layer -----------------------------

    def panel_text(self, lang: str) -> str:
        return t("skeleton.button.hand", lang)

    async def private_panel(self, record: SessionRecord, view: dict[str, Any], lang: str) -> Table:
        return table.console(record.id, view, lang, record.name)

    async def news_lines(self, session_id: int, events: list[Event], lang: str) -> list[str]:
        """The card the bot drew for an idle player: told to them alone, in their console or next answer."""
        return table.news_lines(events, lang)

    # Each press acts, then the layer redraws the console in place (a refusal shown inside it).

    @button("draw", TURN)
    async def on_draw(self, click: Click) -> None:
        await self.console_press(click, {"do": "draw", **click.args})

    @button("play", TURN, CARD)
    async def on_play(self, click: Click) -> None:
        await self.console_press(click, {"do": "play", **click.args})

    @button("pass", TURN)
    async def on_pass(self, click: Click) -> None:
        await self.console_press(click, {"do": "pass", **click.args})
