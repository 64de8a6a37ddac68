"""Toppo in a channel: `/toppo new` (and the table layer's status, leave and end), the public table with the
display's picture, and each player's live console where everyone plays at once.

Thin, as every game's cog: the rules (bot/games/toppo) decide, in the order the bot received the presses
(the session manager applies them one at a time); the table layer (bot/ui) opens the lobby, acts, redraws
the table at its pace, keeps every open console following the display, mentions who must begin and runs
the timers. This module turns presses into actions and draws through table.py.

The one thing kept here is the order a player is setting for a Top (which card of their line goes on which
display position), to redraw their console with it: it is no part of the game until the Top is pressed, and
the buttons carry it (the line's cards what was picked before, the Top's button the whole order), so a
restart between two presses forgets nothing.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.engine.errors import BadAction, StaleAction
from bot.engine.game import STALE_MESSAGE, Event
from bot.games.toppo import GAME
from bot.games.toppo.state import DISPLAY_SIZES, NUMBERS
from bot.i18n import N_, t
from bot.render.toppo_cards import render_display
from bot.store import SessionRecord
from bot.ui.components import Click
from bot.ui.table import Table, TableCog, button
from bot.ui.translator import command_text
from cogs.toppo import table
from cogs.toppo.table import ACCEPT, CARD, ORDER, PICKED, PLAY, SEEN, SIZE, VOTE

GAMES_LOW, GAMES_HIGH = NUMBERS["games"][1:]
DECK_LOW, DECK_HIGH = NUMBERS["deck"][1:]
DISPLAY_CHOICES = [app_commands.Choice(name=str(size), value=size) for size in DISPLAY_SIZES]

Picks = tuple[tuple[int, tuple[tuple[str, ...], ...]], list[int]]  # ((play, line), line indices picked)


class ToppoCog(TableCog, name="Toppo"):
    game_name = GAME.name  # the title and colour come from the declaration (bot/games/toppo)
    panel_action = "console"
    panel_emoji = "🃏"
    # Everyone plays at once: the table follows as often as a channel allows; the consoles, where players
    # act, are redrawn without waiting for it.
    redraw_interval = 1.0

    group = app_commands.Group(name=GAME.name, description=command_text("toppo.cmd.group"), guild_only=True)

    def __init__(self, bot: Any) -> None:
        super().__init__(bot)
        self._picks: dict[tuple[int, str], Picks] = {}

    @group.command(name="new", description=command_text("toppo.cmd.new"))
    @app_commands.describe(
        display=command_text("toppo.cmd.new.display"),
        games=command_text("toppo.cmd.new.games"),
        deck=command_text("toppo.cmd.new.deck"),
    )
    @app_commands.choices(display=DISPLAY_CHOICES)
    async def new(
        self,
        interaction: discord.Interaction[Any],
        display: app_commands.Choice[int] | None = None,
        games: app_commands.Range[int, GAMES_LOW, GAMES_HIGH] | None = None,
        deck: app_commands.Range[int, DECK_LOW, DECK_HIGH] | None = None,
    ) -> None:
        """A display of 5 with two players is refused at the start, by the rules' own check."""
        options: dict[str, Any] = {}
        if display is not None:
            options["display"] = display.value
        if games is not None:
            options["games"] = games
        if deck is not None:
            options["deck"] = deck
        await self.open_lobby(interaction, options)

    def describe_options(self, options: dict[str, Any], lang: str) -> str:
        checked = self.bot.sessions.games[GAME.name].validate_options(options)
        return table.options_text(checked, lang)

    # -- the table ---------------------------------------------------------------------------------------------

    async def render(
        self, record: SessionRecord, view: dict[str, Any], events: list[Event], lang: str
    ) -> Table:
        embed = table.table_embed(view, events, lang, table.namer(record.name), view.get("deadlines", {}))
        if view["finished"]:
            for key in [key for key in self._picks if key[0] == record.id]:
                del self._picks[key]  # the series is over: no Top to set any more
        if view["finished"] or view["phase"] == "choosing":
            return Table(embed)
        png = await self.bot.pictures.draw(render_display, view["display"])
        return Table(embed, [], table.display_file(png, lang))

    def awaiting(self, view: dict[str, Any]) -> list[str]:
        """Who must begin (after the deal or an interruption), or who chooses the next display."""
        if view["finished"]:
            return []
        if view["phase"] == "waiting" and view.get("awaited"):
            return [view["awaited"]]
        if view["phase"] == "choosing" and view.get("chooser"):
            return [view["chooser"]]
        return []

    # -- the console -------------------------------------------------------------------------------------------

    def panel_text(self, lang: str) -> str:
        return t("toppo.button.console", lang)

    async def private_panel(self, record: SessionRecord, view: dict[str, Any], lang: str) -> Table:
        player = view.get("you")
        picks = self._current_picks(record.id, player, view) if player else []
        return table.console(record.id, view, lang, table.namer(record.name), picks)

    def _current_picks(self, session_id: int, player: str, view: dict[str, Any]) -> list[int]:
        """The player's picks for the line they have now (a new line, or a new stretch of play, starts
        from none)."""
        kept = self._picks.get((session_id, player))
        if kept is None or kept[0] != _line_key(view, player):
            return []
        return kept[1]

    # Each press acts, then the layer redraws the console in place (a refusal, a stale press included, is
    # shown inside it); every other open console follows the change.

    @button("reveal", PLAY)
    async def on_reveal(self, click: Click) -> None:
        await self.console_press(click, {"do": "reveal", **click.args})

    @button("restart", PLAY)
    async def on_restart(self, click: Click) -> None:
        await self.console_press(click, {"do": "restart", **click.args})

    @button("pick", PLAY, CARD, PICKED)
    async def on_pick(self, click: Click) -> None:
        """A card of the line picked for the next display position of the Top (or unpicked): nothing is
        played, the console shows the new order."""

        async def work() -> None:
            await self.seated(click.interaction, click.session_id)
            view = await self.bot.sessions.view(click.session_id, click.player)
            if click.args["play"] != view["freshness"]["play"]:
                raise StaleAction(STALE_MESSAGE)
            line = view["lines"].get(click.player) or []
            if "top" not in (view.get("offered_to_you") or []) or click.args["card"] >= len(line):
                raise BadAction("toppo.refusal.line_not_full")
            carried = table.picked_so_far(click.args)
            picks = (
                self._current_picks(click.session_id, click.player, view)
                if carried is None or any(index >= len(line) for index in carried)
                else carried
            )
            chosen = table.toggled(picks, click.args["card"])
            self._picks[(click.session_id, click.player)] = (_line_key(view, click.player), chosen)

        await self.consoles.press(click.interaction, click.session_id, click.player, work)

    @button("top", SEEN, PLAY, ORDER)
    async def on_top(self, click: Click) -> None:
        order = [int(index) for index in click.args["order"]]
        action = {"do": "top", "seen": click.args["seen"], "play": click.args["play"], "order": order}
        await self.console_press(click, action)

    @button("match", SEEN, PLAY)
    async def on_match(self, click: Click) -> None:
        picked = table.parse_match(click.selected)
        if picked is None:
            raise BadAction(N_("ui.damaged"))
        card, slot = picked
        await self.console_press(click, {"do": "match", **click.args, "card": card, "slot": slot})

    @button("renew", SEEN, PLAY)
    async def on_renew(self, click: Click) -> None:
        await self.console_press(click, {"do": "renew", **click.args})

    @button("toppo")
    async def on_toppo(self, click: Click) -> None:
        """A count of one's own cards, which nobody else changes: no freshness."""
        await self.console_press(click, {"do": "toppo"})

    @button("replace", SEEN, PLAY)
    async def on_replace(self, click: Click) -> None:
        await self.console_press(click, {"do": "propose_replace", **click.args})

    @button("ballot", VOTE, ACCEPT)
    async def on_ballot(self, click: Click) -> None:
        accept = click.args["accept"] == "yes"
        await self.console_press(click, {"do": "vote", "vote": click.args["vote"], "accept": accept})

    @button("choose", PLAY, SIZE)
    async def on_choose(self, click: Click) -> None:
        await self.console_press(
            click, {"do": "choose", "play": click.args["play"], "display": click.args["size"]}
        )


def _line_key(view: dict[str, Any], player: str) -> tuple[int, tuple[tuple[str, ...], ...]]:
    """What a Top's picks belong to: this stretch of play and this line."""
    line = view["lines"].get(player) or []
    return view["freshness"]["play"], tuple(tuple(card) for card in line)
