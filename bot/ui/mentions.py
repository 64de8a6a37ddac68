"""Turn notifications: a short message that mentions the players a game awaits, one per turn.

A mention pings only in a new message (an edit never notifies), so each turn gets a new message and the
previous one is deleted: the channel keeps one. Its `allowed_mentions` name exactly the awaited users (never
a role, never @everyone), whatever the text says. A player turns them off with `/profile`.

Each table's last message is stored (whom it awaited, its id, the message it replaced), so that after a
restart the same turn is not announced again and no message is left behind.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import discord

from bot.i18n import N_, t
from bot.store import Store
from bot.store.repositories import TurnNotice
from bot.store.repositories import TurnNotices as StoredTurnNotices
from bot.ui.embeds import mention

log = logging.getLogger(__name__)

Wants = Callable[[str], Awaitable[bool]]  # whether a player wants to be told it is their turn


def turn_text(players: list[str], game: str, lang: str, *, reminder: bool = False) -> str:
    key = N_("ui.turn.reminder") if reminder else N_("ui.turn.yours")
    return t(key, lang, who=", ".join(mention(p) for p in players), game=game)


def only_these(players: list[str]) -> discord.AllowedMentions:
    """Mentions that ping exactly these users."""
    return discord.AllowedMentions(
        everyone=False, roles=False, replied_user=False, users=[discord.Object(id=int(p)) for p in players]
    )


class TurnNotices:
    """The last turn message of each table and whom it awaited, stored (a restart neither announces the same
    turn again nor leaves the previous message behind), and kept in memory once read.

    One table's notices change one at a time: only its redraw loop, which runs one redraw at a time, calls
    `update` and `finish`.
    """

    def __init__(self, wants: Wants, store: Callable[[], Store]) -> None:
        self.wants = wants
        self._store_of = store  # read when needed: a cog is made before anyone plays (tests make it bare)
        self._last: dict[int, TurnNotice | None] = {}

    async def update(
        self,
        channel: discord.PartialMessageable,
        session_id: int,
        awaiting: list[str],
        game: str,
        lang: str,
        again: str = "",
    ) -> None:
        """After a redraw: if whom the game awaits changed, a new message comes (when someone awaited wants
        it) and the previous one goes. `again`: the game's reminder mark (`TableBase.reminder`); when it
        changes, the same players are mentioned anew, in a reminder."""
        # The mark is kept with whom the notice awaited: a restart neither reminds twice nor forgets it.
        key = (*awaiting, f"again:{again}") if again else tuple(awaiting)
        last = await self._last_of(channel, session_id)
        if last is not None and last.awaiting == key:
            return
        told = [player for player in awaiting if await self.wants(player)]
        message_id = None
        if told:
            try:
                text = turn_text(told, game, lang, reminder=bool(again))
                message = await channel.send(text, allowed_mentions=only_these(told))
                message_id = message.id
            except discord.HTTPException as error:
                log.warning("could not post the turn message of session %d: %s", session_id, error)
        previous = last.message_id if last is not None else None
        # Stored before the previous message is deleted: from here on this turn counts as announced, and a
        # stop before the deletion leaves its id to delete at the next start (then forgotten).
        await self._save(session_id, TurnNotice(key, message_id, previous))
        if previous is not None:
            await _delete(channel, previous, session_id)
            await self._save(session_id, TurnNotice(key, message_id))

    async def finish(self, channel: discord.PartialMessageable, session_id: int) -> None:
        """The game is over: its last turn message goes."""
        last = await self._last_of(channel, session_id)
        self._last.pop(session_id, None)
        if last is None:
            return
        if last.message_id is not None:
            await _delete(channel, last.message_id, session_id)
        try:
            await self._store_of().db.run(StoredTurnNotices.drop_statements(session_id))
        except Exception:
            log.exception("the turn message of session %d stays stored", session_id)

    async def _last_of(self, channel: discord.PartialMessageable, session_id: int) -> TurnNotice | None:
        """The table's last notice: from memory, else (first use since start) from the store, deleting the
        message it replaced if a stop came before that deletion."""
        if session_id in self._last:
            return self._last[session_id]
        stored = await self._store_of().turn_notices.get(session_id)
        self._last[session_id] = stored
        if stored is not None and stored.previous_id is not None:  # a stop came before its deletion
            await _delete(channel, stored.previous_id, session_id)
            stored = TurnNotice(stored.awaiting, stored.message_id)
            await self._save(session_id, stored)
        return stored

    async def _save(self, session_id: int, notice: TurnNotice) -> None:
        self._last[session_id] = notice
        try:
            await self._store_of().db.run(StoredTurnNotices.save_statements(session_id, notice))
        except Exception:  # memory still knows it: only a restart could announce this turn again
            log.exception("the turn message of session %d could not be stored", session_id)


async def _delete(channel: discord.PartialMessageable, message_id: int, session_id: int) -> None:
    try:
        await channel.get_partial_message(message_id).delete()
    except discord.NotFound:
        pass
    except discord.HTTPException as error:
        log.warning("could not delete the turn message of session %d: %s", session_id, error)
