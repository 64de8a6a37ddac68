"""When Discord will not show a table: its calls retried with backoff, the players told why (once each, at
their next interaction), and the table drawn again later until it is shown."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import discord

from bot.engine.game import Event
from bot.i18n import t
from bot.ui.replies import NO_MENTIONS, reply_private
from bot.ui.table_base import TableBase

log = logging.getLogger(__name__)

# Discord calls for the table are retried with backoff: the first wait, doubled each time up to the last.
POST_RETRY_SECONDS = 1.0
POST_RETRY_MAX_SECONDS = 30.0
DISCORD_ATTEMPTS = 5
# After that, the table is drawn again later (then every doubled wait, up to this), until it is shown.
REDRAW_LATER_MAX_SECONDS = 600.0
# What a call to Discord may raise that says nothing about the game (the table is redrawn later).
DISCORD_ERRORS = (discord.HTTPException, aiohttp.ClientError, OSError, asyncio.TimeoutError)


@dataclass
class _Trouble:
    """Why a table is not shown, how many redraws failed in a row, and who was told already."""

    error: str
    failures: int = 0
    told: set[str] = field(default_factory=set)


class TableTroubles(TableBase):
    """Retries, the players told, the redraw later (a part of `TableCog`, under its table messages)."""

    async def _with_retries(self, call: Callable[[], Awaitable[Any]], what: str) -> Any:
        """`call()`, again after a growing wait while Discord fails in a way that may pass (5xx, 429, the
        network); a refusal for good (4xx, NotFound) or the last failure goes up."""
        wait = POST_RETRY_SECONDS
        for attempt in range(1, DISCORD_ATTEMPTS + 1):
            try:
                return await call()
            except DISCORD_ERRORS as error:
                if attempt == DISCORD_ATTEMPTS or not _transient(error):
                    raise
                log.warning("%s failed (attempt %d), again in %.1f s: %s", what, attempt, wait, error)
                await asyncio.sleep(wait)
                wait = min(wait * 2, POST_RETRY_MAX_SECONDS)
        raise AssertionError("unreachable")

    def _report(self, session_id: int, error: BaseException, events: list[Event]) -> None:
        """The table could not be shown after every retry: the players hear why at their next interaction,
        and it is drawn again later (with the events it could not show) until it is."""
        trouble = self._troubles.setdefault(session_id, _Trouble(""))
        trouble.error = _error_text(error)
        trouble.failures += 1
        log.warning("the table of session %d could not be shown: %s", session_id, trouble.error)
        previous = self._later.pop(session_id, None)
        if previous is not None and previous is not asyncio.current_task():
            previous.cancel()
        wait = min(POST_RETRY_MAX_SECONDS * 2 ** (trouble.failures - 1), REDRAW_LATER_MAX_SECONDS)
        self._later[session_id] = asyncio.create_task(self._redraw_later(session_id, events, wait))

    async def _redraw_later(self, session_id: int, events: list[Event], wait: float) -> None:
        await asyncio.sleep(wait)
        if self._later.get(session_id) is asyncio.current_task():
            del self._later[session_id]
        if session_id not in self._troubles:
            return  # a redraw since has shown the table
        try:
            record = await self.bot.sessions.session(session_id)
        except Exception:
            log.exception("session %d could not be read to redraw its table", session_id)
            return
        if record.status == "cancelled":
            self._troubles.pop(session_id, None)
            return
        await self.refresh(session_id, events)

    def _shown(self, session_id: int) -> None:
        """The table is up again: nothing left to tell, nothing to retry."""
        self._troubles.pop(session_id, None)
        later = self._later.pop(session_id, None)
        if later is not None and later is not asyncio.current_task():
            later.cancel()

    async def _tell_trouble(
        self, interaction: discord.Interaction[Any], session_id: int, *, later: bool = False
    ) -> None:
        """A player who acts while the table cannot be shown hears it once, privately (`later`: with the
        command's own answer, see `answer`)."""
        trouble = self._troubles.get(session_id)
        player = str(interaction.user.id)
        if trouble is None or player in trouble.told:
            return
        trouble.told.add(player)
        status = f"/{self.group.name} status"
        note = "⚠️ " + t("ui.table_trouble", self.user_lang(interaction), error=trouble.error, status=status)
        if later:
            _notes[interaction.id] = note
            return
        try:
            await interaction.followup.send(note, ephemeral=True, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException:
            log.warning("could not tell a player of session %d that its table is not shown", session_id)


# Notes for a command's own answer (`answer`), by interaction id: e.g. the table could not be shown.
_notes: dict[int, str] = {}


async def answer(interaction: discord.Interaction[Any], content: str | None = None, **kwargs: Any) -> None:
    """The private answer after `act(..., private=True)`: it replaces a "thinking…" if there was one."""
    note = _notes.pop(interaction.id, None)
    if note is not None:
        content = f"{note}\n{content}" if content else note
    await reply_private(interaction, content, **kwargs)


def _transient(error: BaseException) -> bool:
    """A failure Discord may not repeat: a server error, a rate limit, the network."""
    if isinstance(error, discord.HTTPException):
        return error.status >= 500 or error.status == 429
    return isinstance(error, DISCORD_ERRORS)


def _error_text(error: BaseException) -> str:
    if isinstance(error, discord.HTTPException):
        return str(error.text or error.status)[:200]
    return (str(error) or type(error).__name__)[:200]
