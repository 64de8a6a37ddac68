"""The private panel's side of a table: its button opens the player's live console (bot/ui/consoles.py), a
console's buttons act, and every action tells the consoles and news of the table. At start, the consoles
open before a restart are found again and follow the table."""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.engine.errors import NotAPlayer
from bot.engine.game import Event
from bot.engine.sessions import ActResult
from bot.i18n import language_of, t
from bot.ui.components import Click
from bot.ui.consoles import TOKEN_SECONDS, StoredToken, with_news
from bot.ui.table_base import Table, TableBase

log = logging.getLogger(__name__)


class PrivatePanel(TableBase):
    """The panel button, the console's presses and drawing (a part of `TableCog`)."""

    # -- the private panel ------------------------------------------------------------------------------

    async def _on_panel(self, click: Click) -> None:
        await self.seated(click.interaction, click.session_id)
        await self.consoles.open(click.interaction, click.session_id, click.player)

    async def console_press(self, click: Click, action: dict[str, Any]) -> None:
        """A button of the console that acts: the console is redrawn in place, a refusal shown inside, and
        what the action told the presser alone (`own_lines`) at its top."""

        async def work() -> str | None:
            await self.seated(click.interaction, click.session_id)
            result = await self.act(click.interaction, click.session_id, action, private=True)
            told = result.private_to(click.player)
            lang = language_of(click.interaction.locale)
            return "\n".join(await self.own_lines(click.session_id, told, lang)) if told else None

        await self.consoles.press(click.interaction, click.session_id, click.player, work)

    async def _may_press(self, interaction: discord.Interaction[Any], session_id: int) -> None:
        """A press that redraws a console: the presser plays in the session its id names, a session of
        this game in this channel (any other id is refused before a console is drawn)."""
        await self.seated(interaction, session_id)

    async def _draw_console(
        self, session_id: int, player: str, lang: str, news: list[Event], note: str | None
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
        return with_news(console, await self.news_lines(session_id, news, lang), note, lang)

    async def restore_consoles(self) -> None:
        """At start: the consoles open before the restart (their tokens still live) follow the table again,
        each redrawn once now (the table may have moved since, a timer at start)."""
        await self.bot.wait_until_ready()
        store = self.bot.store
        wall = self.consoles.wall()
        try:
            await store.db.run(store.consoles.drop_older_statements(wall - TOKEN_SECONDS))
            stored = await store.consoles.live(
                self.game_name, wall - self.consoles.live_seconds, self.bot.sessions.shards
            )
        except Exception:
            log.exception("the consoles of %s could not be read: they stay as they are", self.title)
            return
        sessions = set()
        for console in stored:
            token = StoredToken(self.bot, console.application_id, console.token)
            if self.consoles.restore(console, token):
                sessions.add(console.session_id)
        for session_id in sorted(sessions):
            self.consoles.changed(session_id)
        if stored:
            log.info("%d console(s) of %s follow their table again", len(stored), self.title)

    def _reopen_hint(self, lang: str) -> str:
        return t("ui.console.reopen", lang, button=self.panel_text(lang))

    def _after_action(self, result: ActResult) -> None:
        """After any action: the players it stored news for are known to have some, every open console of
        the table is redrawn."""
        self.consoles.told(result.session.id, result.news_for)
        self.consoles.changed(result.session.id)
        if not result.session.is_open:
            self.consoles.news.forget_session(result.session.id)
