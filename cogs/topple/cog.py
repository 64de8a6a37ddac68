"""Topple in a channel: `/topple new` (and the table layer's status, leave and end), the public table with
the board picture, Roll, and once rolled the 5×5 grid of squares; a square opens a private prompt with its risk
and the points it would score, and Place.

Thin, as every game's cog: the rules (bot/games/topple) decide, roll the die, draw the topple and publish the
risks and points; the table layer (bot/ui/table.py) opens the lobby, acts, redraws, mentions whose turn it is
and runs the turn timer; this module turns presses into actions and draws through table.py.
Nothing in Topple is secret, so the layer's private panel button is off: the grid needs all 25 components.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.engine.game import Event
from bot.games.topple import GAME
from bot.games.topple.state import NUMBERS, VARIANT_NAMES
from bot.i18n import t
from bot.render.topple_board import render_board
from bot.store import SessionRecord
from bot.ui import components
from bot.ui.components import Click
from bot.ui.replies import reply_private, update_clicked
from bot.ui.table import Table, TableCog, button
from bot.ui.translator import command_text
from cogs.topple import table
from cogs.topple.table import COL, COLOUR, ROW, TURN

TARGET_LOW, TARGET_HIGH = NUMBERS["target"][1:]
SECONDS_LOW, SECONDS_HIGH = NUMBERS["turn_seconds"][1:]
VARIANT_CHOICES = [
    app_commands.Choice(name=command_text(key), value=variant) for variant, key in VARIANT_NAMES.items()
]


class ToppleCog(TableCog, name="Topple"):
    game_name = GAME.name  # the title and colour come from the declaration (bot/games/topple)
    panel_action = "mine"

    group = app_commands.Group(name=GAME.name, description=command_text("topple.cmd.group"), guild_only=True)

    @group.command(name="new", description=command_text("topple.cmd.new"))
    @app_commands.describe(
        target=command_text("topple.cmd.new.target"),
        variant=command_text("topple.cmd.new.variant"),
        turn_seconds=command_text("topple.cmd.new.turn_seconds"),
    )
    @app_commands.choices(variant=VARIANT_CHOICES)
    async def new(
        self,
        interaction: discord.Interaction[Any],
        target: app_commands.Range[int, TARGET_LOW, TARGET_HIGH] | None = None,
        variant: app_commands.Choice[str] | None = None,
        turn_seconds: app_commands.Range[int, SECONDS_LOW, SECONDS_HIGH] | None = None,
    ) -> None:
        """A value out of bounds (Discord's client keeps to them, but an API call need not) is refused
        privately by the rules' own check, naming the option."""
        options: dict[str, Any] = {}
        if turn_seconds is not None:
            options["turn_seconds"] = turn_seconds
        if target is not None:
            options["target"] = target
        if variant is not None:
            options["variant"] = variant.value
        await self.open_lobby(interaction, options)

    def describe_options(self, options: dict[str, Any], lang: str) -> str:
        checked = self.bot.sessions.games[GAME.name].validate_options(options)
        return table.options_text(checked, lang)

    # -- the table -----------------------------------------------------------------------------------------

    async def render(
        self, record: SessionRecord, view: dict[str, Any], events: list[Event], lang: str
    ) -> Table:
        name = table.namer(record.name)
        turn_ends = view.get("deadlines", {}).get("turn")
        embed = table.table_embed(view, events, lang, name, turn_ends)
        png = await self.bot.pictures.draw(render_board, _picture_view(view), lang)
        return Table(embed, table.table_items(record.id, view, lang), table.board_file(png, lang))

    def offers_panel(self, view: dict[str, Any]) -> bool:
        """Nothing is secret, and the grid of squares fills all 25 components: no private panel button."""
        return False

    async def private_panel(self, record: SessionRecord, view: dict[str, Any], lang: str) -> Table | str:
        """`/topple status`'s private part: the player's colours, pieces left and score."""
        return table.console_text(view, lang, table.namer(record.name))

    def awaiting(self, view: dict[str, Any]) -> list[str]:
        """The roll-off: everyone still to roll; then the player on turn."""
        if view["finished"]:
            return []
        if view["phase"] == "opening":
            return [player for player, roll in view["opening"].items() if roll is None]
        return [view["current"]] if view.get("current") else []

    # -- buttons ---------------------------------------------------------------------------------------------

    @button("roll", TURN)
    async def on_roll(self, click: Click) -> None:
        """The die is the engine's to roll: the action names only the turn it was pressed on."""
        await self.seated(click.interaction, click.session_id)
        await self.act(click.interaction, click.session_id, {"do": "roll", **click.args})

    @button("square", TURN, ROW, COL, opens="place")
    async def on_square(self, click: Click) -> None:
        """A square of the grid: the player on turn (the layer refused anyone else, or an older turn's grid)
        gets a private prompt with its risk and points, from the view's `choices`."""
        view = await self.bot.sessions.view(click.session_id, click.player)
        lang = self.user_lang(click.interaction)
        row, col = click.args["row"], click.args["col"]
        if not any(tuple(choice["square"]) == (row, col) for choice in view["choices"]):
            await reply_private(
                click.interaction, "⚠️ " + t("topple.refusal.not_allowed", lang, roll=view["roll"])
            )
            return
        text, items = table.confirm_prompt(click.session_id, view, row, col, lang)
        await reply_private(click.interaction, text, view=components.view_of(*items))

    @button("place", TURN, ROW, COL, COLOUR)
    async def on_place(self, click: Click) -> None:
        """The prompt's Place: the engine draws whether the board topples; the prompt then says what came of
        it, and the table announces it to everyone."""
        await self.seated(click.interaction, click.session_id)
        args = click.args
        action: dict[str, Any] = {"do": "place", "turn": args["turn"], "square": [args["row"], args["col"]]}
        if args.get("colour") is not None:
            action["colour"] = args["colour"]
        result = await self.act(click.interaction, click.session_id, action, private=True)
        record = result.session
        lang = self.user_lang(click.interaction)
        placed = [event for event in result.events if event.get("type") == "placed"]
        young = record.options.get("variant") == "young"
        lines = table.event_lines(placed, lang, table.namer(record.name), young)
        await update_clicked(click.interaction, content="\n".join(lines) or None, view=None)


def _picture_view(view: dict[str, Any]) -> dict[str, Any]:
    """What the picture is drawn from (and kept by): the board, levels, tilt, allowed squares and last
    placement, not the deadlines or texts that change nothing in it."""
    return {key: view[key] for key in ("board", "levels", "tilt", "allowed", "last")}
