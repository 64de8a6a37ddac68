"""The private panel's side of a table: its button opens the player's live console (bot/ui/consoles.py), a
console's buttons act, and every action tells the consoles and news of the table."""

from __future__ import annotations

from typing import Any

import discord

from bot.engine.errors import NotAPlayer
from bot.engine.game import Event
from bot.engine.sessions import ActResult
from bot.i18n import t
from bot.ui.components import Click
from bot.ui.consoles import with_news
from bot.ui.table_base import Table, TableBase


class PrivatePanel(TableBase):
    """The panel button, the console's presses and drawing (a part of `TableCog`)."""

    # -- the private panel ------------------------------------------------------------------------------

    async def _on_panel(self, click: Click) -> None:
        await self.seated(click.interaction, click.session_id)
        await self.consoles.open(click.interaction, click.session_id, click.player)

    async def console_press(self, click: Click, action: dict[str, Any]) -> None:
        """A button of the console that acts: the console is redrawn in place, a refusal shown inside."""

        async def work() -> None:
            await self.seated(click.interaction, click.session_id)
            await self.act(click.interaction, click.session_id, action, private=True)

        await self.consoles.press(click.interaction, click.session_id, click.player, work)

    async def _may_press(self, interaction: discord.Interaction[Any], session_id: int) -> None:
        """A press that redraws a console: the presser plays in the session its id names, a session of
        this game in this channel (any other id is refused before a console is drawn)."""
        await self.seated(interaction, session_id)

    async def _draw_console(
        self, session_id: int, player: str, lang: str, news: list[Event], refusal: str | None
    ) -> Table:
        record = await self.bot.sessions.session(session_id)
        # A console is the view of a seat of this game's session: the keys `private_panel` reads are
        # only there (another game's view, or a spectator's, lacks a hand or a rack).
        if record.game != self.game_name or player not in record.players:
            raise NotAPlayer("ui.not_a_player")
        panel = await self.private_panel(record, await self.bot.sessions.view(session_id, player), lang)
        if isinstance(panel, Table):
            console = panel
        elif isinstance(panel, discord.Embed):
            console = Table(panel)
        else:
            console = Table(discord.Embed(description=panel, colour=self.colour))
        return with_news(console, await self.news_lines(session_id, news, lang), refusal, lang)

    def _reopen_hint(self, lang: str) -> str:
        return t("ui.console.reopen", lang, button=self.panel_text(lang))

    def _after_action(self, result: ActResult) -> None:
        """After any action: the players it stored news for are known to have some, every open console of
        the table is redrawn."""
        self.consoles.told(result.session.id, result.news_for)
        self.consoles.changed(result.session.id)
        if not result.session.is_open:
            self.consoles.news.forget_session(result.session.id)
