"""News: private events addressed to a player by another's action or a timer, waiting to be shown.

They are stored with the action that told them (the session manager writes them in its unit: a restart loses
none) and deleted once shown: at the top of the player's live console (bot/ui/consoles.py) or, when none is
open, at the top of the next private answer they get (`AnswerNews`, read by bot/ui/replies.py). A showing
that fails leaves them stored. Never in a public message.

Reading them costs no query on the click path of a player without news: `News` remembers, per session, which
players have some (read once per session from the store, then kept up to date by the actions it is told of).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.engine.game import Event
from bot.store import Store
from bot.store.repositories import News as StoredNews

log = logging.getLogger(__name__)

NEWS_KEPT = (
    StoredNews.KEPT
)  # news waiting for a player: the latest ones (a long absence must not grow a message)
NEWS_EXTRA = "news"  # the interaction's extras key that the private answer reads its news from

Key = tuple[int, str]  # (session, player)


@dataclass
class Taken:
    """News read to be shown: deleted when shown (`News.shown`), given back when not (`News.give_back`)."""

    session_id: int
    player: str
    ids: list[int] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    told: int = 0  # `News`'s count of tellings when they were read


class News:
    """The players' stored news, and which players of each session have some."""

    def __init__(self, store: Callable[[], Store]) -> None:
        self._store_of = store  # read when needed: a cog is made before anyone plays (tests make it bare)
        self._waiting: dict[int, set[str]] = {}  # per session: players who (may) have news
        self._read: set[int] = set()  # sessions whose stored news have been looked at since start
        self._showing: set[int] = set()  # ids being shown now: not read twice at once
        self._told = 0  # tellings so far: a read that finds nothing forgets a player only if none came since

    def told(self, session_id: int, players: Iterable[str]) -> None:
        """These players were just told something (it is stored already)."""
        players = list(players)
        if players:
            self._waiting.setdefault(session_id, set()).update(players)
            self._told += 1

    async def waiting(self, session_id: int, player: str) -> bool:
        """Whether the player may have news: a query only on the session's first look since start."""
        if session_id not in self._read:
            players = await self._store_of().news.players_waiting(session_id)
            self._read.add(session_id)
            self._waiting.setdefault(session_id, set()).update(players)
        return player in self._waiting.get(session_id, ())

    async def take(self, session_id: int, player: str) -> Taken:
        """The player's news, oldest first (none being shown elsewhere): one indexed read when they have some."""
        taken = Taken(session_id, player, told=self._told)
        if not await self.waiting(session_id, player):
            return taken
        rows = await self._store_of().news.waiting(session_id, player)
        for news_id, event in rows:
            if news_id not in self._showing:
                taken.ids.append(news_id)
                taken.events.append(event)
        if not rows and taken.told == self._told:
            self._waiting[session_id].discard(player)
        self._showing.update(taken.ids)
        return taken

    async def shown(self, taken: Taken) -> None:
        """The news were shown: gone from the store (if that fails, they will be shown again)."""
        if not taken.ids:
            return
        try:
            await self._store_of().db.run(StoredNews.remove_statements(taken.ids))
        except Exception:
            log.exception("news shown to %s in session %d stay stored", taken.player, taken.session_id)
            self.give_back(taken)
            return
        self._showing.difference_update(taken.ids)
        if taken.told == self._told and not self._showing:
            self._waiting.get(taken.session_id, set()).discard(taken.player)

    def give_back(self, taken: Taken) -> None:
        """News that could not be shown stay waiting (they are still stored)."""
        if taken.ids:
            self._showing.difference_update(taken.ids)
            self._waiting.setdefault(taken.session_id, set()).add(taken.player)

    def forget_session(self, session_id: int) -> None:
        """The session closed (the store dropped its news with it)."""
        self._waiting.pop(session_id, None)
        self._read.discard(session_id)


NewsWriter = Callable[[list[Event]], Awaitable[list[str]]]  # events as lines, in the reader's language


class AnswerNews:
    """A player's news for the top of one interaction's private answer: read when the answer is written,
    deleted once it is sent, kept if it is not."""

    def __init__(self, news: News, session_id: int, player: str, write: NewsWriter) -> None:
        self._news = news
        self._session_id = session_id
        self._player = player
        self._write = write
        self._taken: Taken | None = None

    async def text(self) -> str:
        try:
            self._taken = await self._news.take(self._session_id, self._player)
            return "\n".join(await self._write(self._taken.events)) if self._taken.events else ""
        except Exception:
            log.exception("news of %s in session %d could not be written", self._player, self._session_id)
            self.unsent()
            return ""

    async def sent(self) -> None:
        if self._taken is not None:
            taken, self._taken = self._taken, None
            await self._news.shown(taken)

    def unsent(self) -> None:
        if self._taken is not None:
            taken, self._taken = self._taken, None
            self._news.give_back(taken)


def answer_news(interaction: discord.Interaction[Any]) -> AnswerNews | None:
    """The news attached to this interaction (once), for the top of its private answer."""
    news = interaction.extras.pop(NEWS_EXTRA, None)
    return news if isinstance(news, AnswerNews) else None
