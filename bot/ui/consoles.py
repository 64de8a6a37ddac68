"""Private consoles and news: what each player alone sees of a game, kept live while Discord lets us.

A console is a game's private panel (`TableCog.private_panel`: an embed, buttons and selects, a picture)
shown to one player in an ephemeral message. It opens from the table's panel button and is then drawn in
place: a press on it edits it (a refusal is shown inside it, not in a new message), and while its
interaction token lives (15 minutes from the last press or opening) the layer edits it whenever that
player's view changes, through the interaction's own webhook, one edit at a time per player. Just before
the token dies the console is edited one last time to say how to reopen it.

A console is only ever drawn into its owner's private message. A press answers through the clicked
message's own token, so a console id sent from any other message (a modified client can send any id on
any message: the table, a lobby, another game's console) would turn that message into the presser's
console, shown to all who see it. Such a press is refused privately and changes nothing, and so is one by
anyone not seated in the session the id names (`guard`).

News are the private events addressed to a player by someone else's action or by a timer (a stolen card,
a card the bot drew for them), stored with that action (bot/ui/news.py): shown at the top of their live
console, or else at the top of the next private answer they get (`attach_news`), and deleted once shown.
Never in a public message.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord

from bot.engine.errors import BadAction, GameError
from bot.engine.game import Event
from bot.i18n import language_of, t
from bot.ui import components
from bot.ui.news import NEWS_EXTRA, NEWS_KEPT, AnswerNews, Key, News, Taken
from bot.ui.turns import my_turn

if TYPE_CHECKING:
    from bot.ui.table_base import Table

log = logging.getLogger(__name__)

TOKEN_SECONDS = 15 * 60  # an interaction token's life: a console can be edited that long after a press
LIVE_SECONDS = 14 * 60  # the console says how to reopen it this long after its last press (a margin)

# Draws a console: (session, player, language, news events, refusal text or None) -> the console.
ConsoleDrawer = Callable[[int, str, str, list[Event], str | None], Awaitable["Table"]]
# The player's news events as lines of text, in their language.
NewsWriter = Callable[[int, list[Event], str], Awaitable[list[str]]]
# Refuses (raises a GameError) a press by anyone who may not press that console: not seated in the session
# the id names, or a session of another game.
PressGuard = Callable[[discord.Interaction[Any], int], Awaitable[None]]


@dataclass
class _Console:
    """One open console: the interaction whose token edits it, and its coalesced redraws."""

    interaction: discord.Interaction[Any]
    lang: str
    opened: float  # when the token was issued (the desk's clock)
    message_id: int | None = None  # the console's message, where alone it may be drawn
    news: list[Event] = field(default_factory=list)  # shown since the player's last press
    refusal: str | None = None  # the last press's refusal, shown until the next press
    shown: Any = None  # what the console shows, to skip an edit that would change nothing
    dirty: bool = False
    task: asyncio.Task[None] | None = None
    expiry: asyncio.TimerHandle | None = None


class ConsoleDesk:
    """The open consoles and waiting news of one game's tables."""

    def __init__(
        self,
        draw: ConsoleDrawer,
        write_news: NewsWriter,
        reopen_hint: Callable[[str], str],
        news: News,
        *,
        game: str = "",
        guard: PressGuard | None = None,
        clock: Callable[[], float] = time.monotonic,
        live_seconds: float = LIVE_SECONDS,
    ) -> None:
        self.draw = draw
        self.write_news = write_news
        self.reopen_hint = reopen_hint
        self.game = game  # the ids of this game's buttons begin with `<game>:<session>:`
        self.guard = guard
        self.clock = clock
        self.live_seconds = live_seconds
        self.news = news
        self._open: dict[Key, _Console] = {}

    # -- opening and pressing -------------------------------------------------------------------------

    async def open(self, interaction: discord.Interaction[Any], session_id: int, player: str) -> None:
        """The panel button on the table: a new private console, the click's own answer (so that its token
        edits the console and never the table the button sat on)."""
        if not interaction.response.is_done():
            await interaction.response.defer(ephemeral=True, thinking=True)
        await self._show(interaction, session_id, player, None)

    async def press(
        self,
        interaction: discord.Interaction[Any],
        session_id: int,
        player: str,
        work: Callable[[], Awaitable[Any]],
    ) -> None:
        """A press on the console: do the work, then redraw the console in place; a refusal is drawn
        inside it. The press's token keeps the console live for another 15 minutes.

        A press from anyone not seated there, or from any message but the player's console, is refused
        (a GameError, answered privately by the router) before anything is done or drawn."""
        if self.guard is not None:
            await self.guard(interaction, session_id)
        if not self._from_console(interaction, session_id, player):
            raise BadAction("ui.console.elsewhere")
        refusal = None
        try:
            await work()
        except GameError as error:
            refusal = f"⚠️ {error.text(language_of(interaction.locale))}"
        await self._show(interaction, session_id, player, refusal)

    async def _show(
        self, interaction: discord.Interaction[Any], session_id: int, player: str, refusal: str | None
    ) -> None:
        key = (session_id, player)
        lang = language_of(interaction.locale)
        old = self._open.pop(key, None)
        if old is not None:
            self._stop(old)
        taken = await self.news.take(session_id, player)
        console = _Console(interaction, lang, self.clock(), news=taken.events, refusal=refusal)
        try:
            table = await self.draw(session_id, player, lang, taken.events, refusal)
            drawn = await _edit(interaction, table)
        except BaseException:
            self.news.give_back(taken)
            raise
        await self.news.shown(taken)
        console.shown = _fingerprint(table)
        console.message_id = getattr(drawn, "id", None)
        self._open[key] = console
        loop = asyncio.get_running_loop()
        console.expiry = loop.call_later(self.live_seconds, self._expire_soon, key, console)

    def _from_console(self, interaction: discord.Interaction[Any], session_id: int, player: str) -> bool:
        """Whether the press came from the player's own console of this session: a private message of
        theirs (only its recipient can press it) that is the console the desk drew for them, or an older
        console of theirs, which shows this session's buttons (a restart, or a console opened again)."""
        message = interaction.message
        if message is None or not message.flags.ephemeral:
            return False
        meta = message.interaction_metadata
        if meta is not None and meta.user.id != interaction.user.id:
            return False
        console = self._open.get((session_id, player))
        if console is not None and console.message_id is not None and console.message_id == message.id:
            return True
        ours = f"{self.game}:{session_id}:"
        return any(custom_id.startswith(ours) for custom_id in components.custom_ids(message))

    # -- live edits -----------------------------------------------------------------------------------

    def is_open(self, session_id: int, player: str) -> bool:
        console = self._open.get((session_id, player))
        return console is not None and self._alive(console)

    def told(self, session_id: int, players: Iterable[str]) -> None:
        """An action stored news for these players (all it told but the actor, whose own answer tells them)."""
        self.news.told(session_id, players)

    def changed(self, session_id: int, players: Iterable[str] | None = None) -> None:
        """The game changed: every open console of the session (or of these players) is redrawn once
        (coalesced: presses that come while one is drawn share the next)."""
        wanted = None if players is None else set(players)
        for key, console in list(self._open.items()):
            if key[0] != session_id or (wanted is not None and key[1] not in wanted):
                continue
            if not self._alive(console):
                self._drop(key, console)
                continue
            console.dirty = True
            if console.task is None or console.task.done():
                console.task = asyncio.create_task(self._redraw_loop(key, console))

    async def _redraw_loop(self, key: Key, console: _Console) -> None:
        session_id, player = key
        while console.dirty and self._open.get(key) is console and self._alive(console):
            # One console drawn per turn of the event loop: eight consoles redrawn by one action would
            # otherwise draw and send back to back in one turn, and nothing else would run meanwhile.
            await my_turn()
            if self._open.get(key) is not console:
                return
            console.dirty = False
            taken = Taken(session_id, player)
            try:
                taken = await self.news.take(session_id, player)
                news = [*console.news, *taken.events][-NEWS_KEPT:]
                table = await self.draw(session_id, player, console.lang, news, console.refusal)
                shown = _fingerprint(table)
                if shown == console.shown and not taken.events:
                    continue
                await _edit(console.interaction, table)
            except discord.HTTPException as error:
                log.info("console of %s in session %d is gone: %s", player, session_id, error)
                self.news.give_back(taken)
                self._drop(key, console)
                return
            except GameError:
                self.news.give_back(taken)
                self._drop(key, console)  # the game is gone
                return
            except BaseException as error:
                self.news.give_back(taken)
                if not isinstance(error, Exception):
                    raise
                log.exception("redrawing the console of %s in session %d failed", player, session_id)
                return
            console.news, console.shown = news, shown
            await self.news.shown(taken)

    def _alive(self, console: _Console) -> bool:
        return self.clock() - console.opened < self.live_seconds

    def _expire_soon(self, key: Key, console: _Console) -> None:
        if self._open.get(key) is console:
            console.task = asyncio.create_task(self._say_reopen(key, console))

    async def _say_reopen(self, key: Key, console: _Console) -> None:
        """The token dies in a minute: the console keeps a note on how to reopen it, without buttons."""
        self._open.pop(key, None)
        if self.clock() - console.opened >= TOKEN_SECONDS:
            return  # too late to edit it
        embed = discord.Embed(description=self.reopen_hint(console.lang))
        try:
            await console.interaction.edit_original_response(
                content=None, embed=embed, view=None, attachments=[]
            )
        except discord.HTTPException as error:
            log.info("could not close the console of %s in session %d: %s", key[1], key[0], error)

    def _stop(self, console: _Console) -> None:
        if console.expiry is not None:
            console.expiry.cancel()
        if (
            console.task is not None
            and not console.task.done()
            and console.task is not asyncio.current_task()
        ):
            console.task.cancel()

    def _drop(self, key: Key, console: _Console) -> None:
        if self._open.get(key) is console:
            del self._open[key]
        self._stop(console)

    def forget_session(self, session_id: int) -> None:
        for key, console in list(self._open.items()):
            if key[0] == session_id:
                self._drop(key, console)
        self.news.forget_session(session_id)

    def close(self) -> None:
        for key, console in list(self._open.items()):
            self._drop(key, console)

    @property
    def busy(self) -> bool:
        """A console edit is under way (tests and the bench wait for quiet)."""
        return any(c.task is not None and not c.task.done() for c in self._open.values())

    # -- news in the next private answer -----------------------------------------------------------------

    async def attach_news(self, interaction: discord.Interaction[Any], session_id: int, player: str) -> None:
        """The player's waiting news go at the top of this interaction's private answer, if it gets one
        (read then, and deleted once it is sent: news not shown stay waiting). No query for a player the
        desk knows has none."""
        if self.is_open(session_id, player) or not await self.news.waiting(session_id, player):
            return
        lang = language_of(interaction.locale)

        async def lines(events: list[Event]) -> list[str]:
            return await self.write_news(session_id, events, lang)

        interaction.extras[NEWS_EXTRA] = AnswerNews(self.news, session_id, player, lines)


def with_news(table: Table, news: list[str], refusal: str | None, lang: str) -> Table:
    """The console with its news (and a refusal) at the top of its embed."""
    lines = []
    if news:
        lines.append(t("ui.console.news", lang))
        lines += [f"• {line}" for line in news]
    if refusal:
        lines.append(refusal)
    if lines:
        body = table.embed.description or ""
        table.embed.description = "\n".join([*lines, *([body] if body else [])])[:4096]
    return table


async def _edit(interaction: discord.Interaction[Any], table: Table) -> Any:
    """Draw the console in the interaction's own message (the console, never a public message): the
    message drawn, as Discord answered."""
    attachments = [table.file] if table.file is not None else []
    if table.file is not None:
        table.file.reset()
    return await interaction.edit_original_response(
        content=None, embed=table.embed, view=components.view_of(*table.items), attachments=attachments
    )


def _fingerprint(table: Table) -> Any:
    items = [item.to_component_dict() for item in table.items]
    return (repr(table.embed.to_dict()), repr(items), table.file is not None)
