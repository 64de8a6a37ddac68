"""News: private events addressed to a player by another's action or a timer, waiting to be shown.

They go at the top of the player's live console (bot/ui/consoles.py) or, when none is open, at the top of
the next private answer they get (`news_for_answer`, read by bot/ui/replies.py). Never in a public message.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import discord

from bot.engine.game import Event

log = logging.getLogger(__name__)

NEWS_KEPT = 20  # news waiting for a player: the latest ones (a long absence must not grow a message)
NEWS_EXTRA = "news"  # the interaction's extras key that the private answer reads its news from

Key = tuple[int, str]  # (session, player)


class News:
    """Private events waiting for their player, per session (kept while the process lives)."""

    def __init__(self) -> None:
        self._waiting: dict[Key, list[Event]] = {}

    def add(self, session_id: int, player: str, events: Iterable[Event]) -> None:
        waiting = self._waiting.setdefault((session_id, player), [])
        waiting.extend(events)
        del waiting[:-NEWS_KEPT]

    def waiting(self, session_id: int, player: str) -> bool:
        return bool(self._waiting.get((session_id, player)))

    def take(self, session_id: int, player: str) -> list[Event]:
        return self._waiting.pop((session_id, player), [])

    def give_back(self, session_id: int, player: str, events: list[Event]) -> None:
        """News that could not be shown go back first in the line."""
        if events:
            self._waiting[(session_id, player)] = [*events, *self._waiting.get((session_id, player), [])]

    def forget_session(self, session_id: int) -> None:
        for key in [key for key in self._waiting if key[0] == session_id]:
            del self._waiting[key]


async def news_for_answer(interaction: discord.Interaction[Any]) -> str:
    """The news attached to this interaction (once), for the top of its private answer."""
    lines = interaction.extras.pop(NEWS_EXTRA, None)
    if lines is None:
        return ""
    try:
        return str(await lines())
    except Exception:
        log.exception("news for interaction %s could not be written", interaction.id)
        return ""
