"""The table message's life: redraws one at a time per table at the table's pace (clicks that arrive
meanwhile share the next one), the turn notice, the table drawn with the private panel's button, edited in
place or posted anew (the old message retired), and repaired at start when a restart lost it."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

import discord

from bot.engine.bots import is_bot
from bot.engine.errors import GameOver
from bot.engine.game import Event
from bot.i18n import t
from bot.store import SessionRecord
from bot.ui import components
from bot.ui.replies import NO_MENTIONS
from bot.ui.table_base import Table
from bot.ui.troubles import DISCORD_ERRORS, TableTroubles, _transient

log = logging.getLogger(__name__)

# The layer's own events: the game has just started, its table is posted below the closed lobby; the stored
# table message was missing or not the table (a restart between posting and storing its id): a new one.
TABLE_OPENED = "table_opened"
TABLE_REPOSTED = "table_reposted"


@dataclass
class _Redraw:
    """A table's redraws: one at a time; the events of clicks that arrive meanwhile wait for the next one."""

    events: list[Event] = field(default_factory=list)
    waiter: asyncio.Future[None] | None = None
    task: asyncio.Task[None] | None = None


class TableMessages(TableTroubles):
    """The table message's redraws (a part of `TableCog`)."""

    async def refresh(self, session_id: int, events: list[Event]) -> None:
        """Redraw the table with these events; returns once a redraw that includes them is done.

        One redraw per table at a time: a burst of clicks costs one edit for all that arrived meanwhile.
        """
        redraw = self._redraws.setdefault(session_id, _Redraw())
        redraw.events.extend(events)
        if redraw.waiter is None:
            redraw.waiter = asyncio.get_running_loop().create_future()
        waiter = redraw.waiter
        if redraw.task is None or redraw.task.done():
            redraw.task = asyncio.create_task(self._redraw_loop(session_id, redraw))
        await asyncio.shield(waiter)

    async def _redraw_loop(self, session_id: int, redraw: _Redraw) -> None:
        while redraw.waiter is not None:
            await asyncio.sleep(self.pace.wait(session_id))  # what comes meanwhile shares this redraw
            waiter, events = redraw.waiter, redraw.events
            redraw.waiter, redraw.events = None, []
            try:
                # The turn message first: a table that moves to a new message then stays the last one.
                await self._tell_turn(session_id)
                await self._draw(session_id, events)
            except DISCORD_ERRORS as error:
                self._report(session_id, error, events)
            except Exception:
                log.exception("redrawing the table of session %d failed", session_id)
            finally:
                self.pace.drawn(session_id)
                if not waiter.done():
                    waiter.set_result(None)
        if self._redraws.get(session_id) is redraw:
            del self._redraws[session_id]

    async def _draw(self, session_id: int, events: list[Event]) -> None:
        record = await self.bot.sessions.session(session_id)
        if record.status == "lobby" or record.status == "cancelled":
            return
        view = await self.table_view(record)
        lang = await self.table_lang(record)
        table = await self.render(record, view, events, lang)
        if record.is_open and self.offers_panel(view):
            table.items.insert(
                0,
                components.button(
                    components.spec(self.game_name, self.panel_action).encode(record.id),
                    self.panel_text(lang),
                    emoji=self.panel_emoji,
                ),
            )
        channel = self.bot.get_partial_messageable(record.channel_id)
        buttons = components.view_of(*table.items)
        kinds = {event.get("type") for event in events}
        if TABLE_OPENED in kinds or TABLE_REPOSTED in kinds:  # the stored message is not the table
            await self._post(channel, record, table, buttons, lang, opening=TABLE_OPENED in kinds)
            return
        new_message = not kinds.isdisjoint(self.new_message_events)
        if record.message_id is not None and not new_message:
            message = channel.get_partial_message(record.message_id)

            async def edit() -> None:
                if table.file is not None:
                    table.file.reset()
                # A table drawn without its picture (between two games, the final table) drops the one the
                # message still holds: an edit that names no attachments keeps them.
                attachments = [table.file] if table.file is not None else []
                await message.edit(embed=table.embed, view=buttons, attachments=attachments)

            try:
                await self._with_retries(edit, f"editing the table of session {record.id}")
                self._shown(record.id)
                return
            except discord.NotFound:
                log.info("table message of session %d is gone; posting a new one", record.id)
        elif record.message_id is not None:
            await self._retire(channel, record, self.retired(record, view, events, lang))
        await self._post(channel, record, table, buttons, lang)

    async def _retire(
        self, channel: discord.PartialMessageable, record: SessionRecord, embed: discord.Embed | None
    ) -> None:
        assert record.message_id is not None
        try:
            if embed is None:
                await channel.get_partial_message(record.message_id).edit(view=None)
            else:
                await channel.get_partial_message(record.message_id).edit(embed=embed, view=None)
        except discord.HTTPException:
            log.warning("could not retire the old table message of session %d", record.id)

    async def _post(
        self,
        channel: discord.PartialMessageable,
        record: SessionRecord,
        table: Table,
        buttons: discord.ui.View,
        lang: str,
        *,
        opening: bool = False,
    ) -> None:
        """Post the table, retrying with backoff what Discord may accept later (5xx, 429, the network).

        A running game is never cancelled for it: the error goes up (`_report` tells the players and draws
        the table again later). Only a game whose first table Discord refuses for good (`opening`, e.g. the
        bot may not attach files here) closes, with a note in the channel: nobody has played it yet, and its
        channel would stay taken for nothing.
        """

        async def send() -> discord.Message:
            if table.file is not None:
                table.file.reset()
                return await channel.send(
                    embed=table.embed, view=buttons, file=table.file, allowed_mentions=NO_MENTIONS
                )
            return await channel.send(embed=table.embed, view=buttons, allowed_mentions=NO_MENTIONS)

        try:
            message = await self._with_retries(send, f"posting the table of session {record.id}")
        except discord.HTTPException as refused:
            if not opening or _transient(refused):
                raise
            error = refused
        else:
            await self.bot.sessions.set_message(record.id, message.id)
            self._shown(record.id)
            return
        log.warning("the first table of session %d was refused: %s", record.id, error)
        try:
            await self.bot.sessions.cancel(record.id, reason=f"table could not be posted: {error}")
        except GameOver:
            return
        try:
            await channel.send(
                t("ui.table_failed", lang, game=self.title, error=str(error.text or error.status)[:200]),
                allowed_mentions=NO_MENTIONS,
            )
        except discord.HTTPException:
            log.warning("could not tell channel %d that session %d closed", record.channel_id, record.id)

    async def repair_tables(self) -> None:
        """At start: a running game whose stored table message is gone, or is not its table (the bot stopped
        between posting a table and storing its id), gets a new table. The others are left as they are (a
        restart must not cost an edit per open game)."""
        await self.bot.wait_until_ready()
        for session_id in await self.bot.store.sessions.open_ids(self.game_name, self.bot.sessions.shards):
            try:
                record = await self.bot.sessions.session(session_id)
                if record.status != "active":
                    continue
                if await self._lost_table(record):
                    await self.refresh(session_id, [{"type": TABLE_REPOSTED}])
            except Exception:
                log.exception("could not check the table of session %d", session_id)

    async def _lost_table(self, record: SessionRecord) -> bool:
        if record.message_id is None:
            return True
        channel = self.bot.get_partial_messageable(record.channel_id)
        try:
            message = await channel.fetch_message(record.message_id)
        except discord.NotFound:
            return True
        ours = f"{self.game_name}:{record.id}:"
        ids = [
            getattr(child, "custom_id", None) or ""
            for row in message.components
            for child in getattr(row, "children", [row])
        ]
        lobby = components.spec(self.game_name, "join").encode(record.id)
        # The lobby, or a message the table has left (retired: no buttons of this game).
        return lobby in ids or not any(custom_id.startswith(ours) for custom_id in ids)

    async def _tell_turn(self, session_id: int) -> None:
        record = await self.bot.sessions.session(session_id)
        channel = self.bot.get_partial_messageable(record.channel_id)
        if not record.is_open:
            await self.turn_notices.finish(channel, session_id)
            return
        if record.status != "active":
            return
        view = await self.bot.sessions.view(session_id, None)
        lang = await self.table_lang(record)
        # A bot seat is never mentioned: the notice awaits the people only.
        people = [player for player in self.awaiting(view) if not is_bot(player)]
        await self.turn_notices.update(channel, session_id, people, self.title, lang, self.reminder(view))

    async def _wants_turn_notices(self, player: str) -> bool:
        profile = await self.bot.store.profiles.get(player)
        return profile is None or profile.turn_notices
