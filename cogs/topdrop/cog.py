"""Top Drop in a channel: `/topdrop new` (and the table layer's status, leave and end), the public table with
the pile's picture, who starts, and the wait vote's ballots; each player's console — their hand as buttons,
the action cards they may use first, Play, and the hints — which only ever reaches its owner.

Thin, as every game's cog: the rules (bot/games/topdrop) decide, refill the hands and run the idle flow; the
table layer (bot/ui/table.py) opens the lobby, acts, redraws, keeps consoles live, mentions whose turn it is
(and reminds them) and runs the timers; this module turns presses into actions and draws through table.py.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.engine.errors import StaleAction
from bot.engine.game import STALE_MESSAGE, Event
from bot.games.topdrop import GAME
from bot.games.topdrop.cards import DIFFICULTIES, DIFFICULTY_NAMES
from bot.i18n import t
from bot.render.topdrop_cards import render_pile
from bot.store import SessionRecord
from bot.ui.components import Click
from bot.ui.table import Table, TableCog, button
from bot.ui.translator import command_text
from cogs.topdrop import table
from cogs.topdrop.table import (
    ACTION,
    CARD,
    FIRST,
    MODE,
    PHRASE,
    PICKED_MODE,
    SECOND,
    TURN,
    VOTE,
    WAIT,
    WILD,
    Pick,
)

DIFFICULTY_CHOICES = [
    app_commands.Choice(name=command_text(DIFFICULTY_NAMES[difficulty]), value=difficulty)
    for difficulty in DIFFICULTIES
]


class TopDropCog(TableCog, name="TopDrop"):
    game_name = GAME.name  # the title and colour come from the declaration (bot/games/topdrop)
    panel_action = "hand"
    panel_emoji = "🂠"

    group = app_commands.Group(name=GAME.name, description=command_text("topdrop.cmd.group"), guild_only=True)

    def __init__(self, bot: Any) -> None:
        super().__init__(bot)
        # Each player's turn in the making on their console (an action card, the cards chosen so far), for
        # redrawing it; the buttons carry it too (`table.pick_so_far`), so a restart between presses loses nothing.
        self.picks: dict[tuple[int, str], Pick] = {}

    @group.command(name="new", description=command_text("topdrop.cmd.new"))
    @app_commands.describe(difficulty=command_text("topdrop.cmd.new.difficulty"))
    @app_commands.choices(difficulty=DIFFICULTY_CHOICES)
    async def new(
        self, interaction: discord.Interaction[Any], difficulty: app_commands.Choice[str] | None = None
    ) -> None:
        await self.open_lobby(interaction, {} if difficulty is None else {"difficulty": difficulty.value})

    def describe_options(self, options: dict[str, Any], lang: str) -> str:
        checked = self.bot.sessions.games[GAME.name].validate_options(options)
        return table.options_text(checked, lang)

    # -- the table: the pile, the direction, the middle and the card counts; never a hand ---------------------

    async def render(
        self, record: SessionRecord, view: dict[str, Any], events: list[Event], lang: str
    ) -> Table:
        name = table.namer(record.name)
        embed = table.table_embed(view, events, lang, name, view.get("deadlines", {}))
        png = await self.bot.pictures.draw(render_pile, view["pile"], view["direction"])
        return Table(embed, table.table_items(record.id, view, lang, name), table.pile_file(png, lang))

    def awaiting(self, view: dict[str, Any]) -> list[str]:
        """The player on turn, and while the table is asked, the voters who have not voted; in the opening
        nobody in particular (the team decides together)."""
        if view["finished"] or view["phase"] != "play" or not view.get("current"):
            return []
        awaited = [view["current"]]
        vote = view.get("vote")
        if vote is not None:
            awaited += [voter for voter in vote["voters"] if voter not in vote["ballots"]]
        return awaited

    def reminder(self, view: dict[str, Any]) -> str:
        """An idle turn's reminder mentions the player on turn again."""
        idle = view.get("idle")
        return f"{view['turn']}" if idle and idle.get("stage") == "reminded" else ""

    # -- the console -------------------------------------------------------------------------------------------

    def panel_text(self, lang: str) -> str:
        return t("topdrop.button.hand", lang)

    async def private_panel(self, record: SessionRecord, view: dict[str, Any], lang: str) -> Table:
        pick = self.picks.get((record.id, str(view.get("you"))))
        return table.console(record.id, view, lang, table.namer(record.name), pick)

    async def news_lines(self, session_id: int, events: list[Event], lang: str) -> list[str]:
        return table.news_lines(events, lang)

    async def own_lines(self, session_id: int, events: list[Event], lang: str) -> list[str]:
        """The cards the player's turn drew: the hand is kept sorted, so the console says which are new."""
        return table.news_lines(events, lang)

    async def _choose(self, click: Click, change: Any, so_far: Pick | None = None) -> None:
        """A press that only shapes the turn in the making (`so_far`: as the button carried it, else as
        remembered): the console is redrawn in place with it."""

        async def work() -> None:
            await self.seated(click.interaction, click.session_id)
            view = await self.bot.sessions.view(click.session_id, click.player)
            if view["freshness"]["turn"] != click.args["turn"] or view.get("choices") is None:
                raise StaleAction(STALE_MESSAGE)
            key = (click.session_id, click.player)
            current = so_far or self.picks.get(key)
            if current is None or current.turn != click.args["turn"]:
                current = Pick(click.args["turn"])
            chosen = change(current)
            if chosen is None:
                self.picks.pop(key, None)
            else:
                self.picks[key] = chosen

        await self.consoles.press(click.interaction, click.session_id, click.player, work)

    @button("use", TURN, ACTION)
    async def on_use(self, click: Click) -> None:
        await self._choose(click, lambda pick: Pick(pick.turn, click.args["action"]))

    @button("pick", TURN, CARD, PICKED_MODE, FIRST)
    async def on_pick(self, click: Click) -> None:
        """A card added to the turn in the making (the console enables only those the rules allow; Play is
        checked by the rules all the same)."""
        card = click.args["card"]

        def added(pick: Pick) -> Pick:
            return Pick(pick.turn, pick.mode, (*pick.cards, card)[:2])

        await self._choose(click, added, table.pick_so_far(click.args))

    @button("back", TURN)
    async def on_back(self, click: Click) -> None:
        await self._choose(click, lambda pick: None)

    @button("play", TURN, MODE, WILD, FIRST, SECOND)
    async def on_play(self, click: Click) -> None:
        """The turn as the button says it: the rules apply it (or refuse it, inside the console)."""
        self.picks.pop((click.session_id, click.player), None)
        await self.console_press(click, table.turn_action(click.args))

    @button("hint", TURN, PHRASE)
    async def on_hint(self, click: Click) -> None:
        await self.console_press(click, {"do": "hint", **click.args})

    # -- the table's controls ------------------------------------------------------------------------------------

    @button("begin", TURN)
    async def on_begin(self, click: Click) -> None:
        """The host starts, the Direction Card as it lies (the rules' defaults)."""
        await self.seated(click.interaction, click.session_id)
        await self.act(click.interaction, click.session_id, {"do": "start", **click.args})

    @button("choose", TURN)
    async def on_choose(self, click: Click) -> None:
        """The menu: who starts and which way, as `<player>-<direction>` (the rules check both)."""
        await self.seated(click.interaction, click.session_id)
        first, _, direction = (click.selected or [""])[0].rpartition("-")
        action = {"do": "start", **click.args, "first": first, "direction": direction}
        await self.act(click.interaction, click.session_id, action)

    @button("ballot", VOTE, WAIT)
    async def on_ballot(self, click: Click) -> None:
        await self.seated(click.interaction, click.session_id)
        action = {"do": "vote", "vote": click.args["vote"], "wait": click.args["wait"] == "yes"}
        await self.act(click.interaction, click.session_id, action)
