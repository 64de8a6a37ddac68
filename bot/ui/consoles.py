"""Private consoles and news: what each player alone sees of a game, kept live while Discord lets us.

A console is a game's private panel (`TableCog.private_panel`: an embed, buttons and selects, a picture)
shown to one player in an ephemeral message. It opens from the table's panel button and is then drawn in
place: a press on it edits it (a refusal is shown inside it, not in a new message, and so is what the
action told the presser alone: the cards they drew), and while its
interaction token lives (15 minutes from the last press or opening) the layer edits it whenever that
player's view changes, through the interaction's own webhook, one edit at a time per player. Just before
the token dies the console is edited one last time to say how to reopen it. The token is stored with the
session (bot/store: `consoles`), so that after a restart every open console follows the table again.

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
from discord.http import handle_message_parameters
from discord.webhook.async_ import async_context

from bot.engine.errors import BadAction, GameError
from bot.engine.game import Event
from bot.i18n import language_of, t
from bot.store.repositories import Consoles as StoredConsoles
from bot.store.repositories import StoredConsole
from bot.ui import components
from bot.ui.news import NEWS_EXTRA, NEWS_KEPT, AnswerNews, Key, News, Taken
from bot.ui.turns import my_turn

if TYPE_CHECKING:
    from bot.store import Store
    from bot.ui.table_base import Table

log = logging.getLogger(__name__)

TOKEN_SECONDS = 15 * 60  # an interaction token's life: a console can be edited that long after a press
LIVE_SECONDS = 14 * 60  # the console says how to reopen it this long after its last press (a margin)
# A console's stored token is replaced by a newer press's at most this often (a press on the same message):
# one write per press would double a console's writes; after a restart the console lives that much less.
SAVE_SECONDS = 60.0

# Draws a console: (session, player, language, news events, the last press's note or None) -> the console.
ConsoleDrawer = Callable[[int, str, str, list[Event], str | None], Awaitable["Table"]]
# The player's news events as lines of text, in their language.
NewsWriter = Callable[[int, list[Event], str], Awaitable[list[str]]]
# Refuses (raises a GameError) a press by anyone who may not press that console: not seated in the session
# the id names, or a session of another game.
PressGuard = Callable[[discord.Interaction[Any], int], Awaitable[None]]


class StoredToken:
    """A console's interaction token read back from the store after a restart: it edits the interaction's
    original response (the console's message) with the request `Interaction.edit_original_response`
    makes, which discord.py offers only on an interaction it received."""

    def __init__(self, client: discord.Client, application_id: int, token: str) -> None:
        self.client = client
        self.application_id = application_id
        self.token = token

    async def edit_original_response(
        self,
        *,
        content: str | None = None,
        embed: discord.Embed | None = None,
        view: discord.ui.View | None = None,
        attachments: list[discord.File] | None = None,
    ) -> dict[str, Any]:
        http = self.client.http
        # The client's own HTTP session, as a partial webhook of the client takes it.
        session = discord.Webhook.partial(self.application_id, self.token, client=self.client).session
        with handle_message_parameters(
            content=content,
            embed=embed,
            view=view,
            attachments=discord.utils.MISSING if attachments is None else attachments,
            previous_allowed_mentions=self.client.allowed_mentions,
        ) as params:
            data: Any = await async_context.get().edit_original_interaction_response(
                self.application_id,
                self.token,
                session=session,
                proxy=http.proxy,
                proxy_auth=http.proxy_auth,
                payload=params.payload,
                multipart=params.multipart,
                files=params.files,
            )
        return dict(data)


@dataclass
class _Console:
    """One open console: the interaction whose token edits it, and its coalesced redraws."""

    interaction: discord.Interaction[Any] | StoredToken
    lang: str
    opened: float  # when the token was issued (the desk's clock)
    message_id: int | None = None  # the console's message, where alone it may be drawn
    stored: tuple[str, float] | None = None  # the stored token and when it was issued (wall clock)
    news: list[Event] = field(default_factory=list)  # shown since the player's last press
    note: str | None = None  # the last press's refusal, or what it told the presser, until the next press
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
        store: Callable[[], Store] | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        live_seconds: float = LIVE_SECONDS,
    ) -> None:
        self.draw = draw
        self.write_news = write_news
        self.reopen_hint = reopen_hint
        self.game = game  # the ids of this game's buttons begin with `<game>:<session>:`
        self.guard = guard
        self._store_of = store  # None: the tokens are not kept (a restart loses the open consoles)
        self.clock = clock
        self.wall = wall  # tokens outlive the process: their age is told by the wall clock
        self.live_seconds = live_seconds
        self.news = news
        self._open: dict[Key, _Console] = {}
        self._closing: set[asyncio.Task[None]] = (
            set()
        )  # reopen notes being written: no longer open, still busy

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
        inside it, and so is the text the work returns (what the action told the presser alone), both until
        the next press. The press's token keeps the console live for another 15 minutes.

        A press from anyone not seated there, or from any message but the player's console, is refused
        (a GameError, answered privately by the router) before anything is done or drawn."""
        if self.guard is not None:
            await self.guard(interaction, session_id)
        if not self._from_console(interaction, session_id, player):
            raise BadAction("ui.console.elsewhere")
        note = None
        try:
            told = await work()
            note = told if isinstance(told, str) else None
        except GameError as error:
            note = f"⚠️ {error.text(language_of(interaction.locale))}"
        await self._show(interaction, session_id, player, note)

    async def _show(
        self, interaction: discord.Interaction[Any], session_id: int, player: str, note: str | None
    ) -> None:
        key = (session_id, player)
        lang = language_of(interaction.locale)
        old = self._open.pop(key, None)
        if old is not None:
            self._stop(old)
        taken = await self.news.take(session_id, player)
        console = _Console(interaction, lang, self.clock(), news=taken.events, note=note)
        try:
            table = await self.draw(session_id, player, lang, taken.events, note)
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
        await self._keep(key, console, old)

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

    # -- kept across a restart ------------------------------------------------------------------------

    async def _keep(self, key: Key, console: _Console, old: _Console | None) -> None:
        """Store the console's token, so that a restart finds it; the one stored stays while it edits the
        same message and is under a minute old (`SAVE_SECONDS`)."""
        interaction = console.interaction
        if self._store_of is None:
            return
        now = self.wall()
        if (
            old is not None
            and old.stored is not None
            and old.message_id == console.message_id
            and old.lang == console.lang
            and now - old.stored[1] < SAVE_SECONDS
        ):
            console.stored = old.stored
            return
        session_id, player = key
        stored = StoredConsole(
            session_id,
            player,
            interaction.application_id,
            interaction.token,
            console.lang,
            opened_at=now,
            message_id=console.message_id,
        )
        try:
            await self._store_of().db.run(StoredConsoles.save_statements(stored))
        except Exception:
            log.warning("the console of %s in session %d is not stored: a restart loses it", key[1], key[0])
            return
        console.stored = (interaction.token, now)

    async def _unkeep(self, key: Key, console: _Console) -> None:
        """The console is of no more use (its token dies, its message is gone): its row goes."""
        if self._store_of is None or console.stored is None:
            return
        try:
            await self._store_of().db.run(StoredConsoles.drop_statements(*key, console.stored[0]))
        except Exception:
            log.warning("the stored console of %s in session %d stays until the next start", key[1], key[0])

    def restore(self, stored: StoredConsole, token: discord.Interaction[Any] | StoredToken) -> bool:
        """A console stored before a restart, live again if its token still is (then `changed` redraws
        it): it follows the table as before."""
        key = (stored.session_id, stored.player)
        age = self.wall() - stored.opened_at
        if age >= self.live_seconds or key in self._open:
            return False
        console = _Console(token, stored.language, self.clock() - age, message_id=stored.message_id)
        console.stored = (stored.token, stored.opened_at)
        self._open[key] = console
        loop = asyncio.get_running_loop()
        console.expiry = loop.call_later(self.live_seconds - age, self._expire_soon, key, console)
        return True

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
                table = await self.draw(session_id, player, console.lang, news, console.note)
                shown = _fingerprint(table)
                if shown == console.shown and not taken.events:
                    continue
                await _edit(console.interaction, table)
            except discord.HTTPException as error:
                log.info("console of %s in session %d is gone: %s", player, session_id, error)
                self.news.give_back(taken)
                self._drop(key, console)
                await self._unkeep(key, console)
                return
            except GameError:
                self.news.give_back(taken)
                self._drop(key, console)  # the game is gone
                await self._unkeep(key, console)
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
            console.task = task = asyncio.create_task(self._say_reopen(key, console))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    async def _say_reopen(self, key: Key, console: _Console) -> None:
        """The token dies in a minute: the console keeps a note on how to reopen it, without buttons."""
        self._open.pop(key, None)
        await self._unkeep(key, console)
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
        return bool(self._closing) or any(
            c.task is not None and not c.task.done() for c in self._open.values()
        )

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


def with_news(table: Table, news: list[str], note: str | None, lang: str) -> Table:
    """The console with its news (and the last press's note: a refusal, what it told the presser) at the top
    of its embed."""
    lines = []
    if news:
        lines.append(t("ui.console.news", lang))
        lines += [f"• {line}" for line in news]
    if note:
        lines.append(note)
    if lines:
        body = table.embed.description or ""
        table.embed.description = "\n".join([*lines, *([body] if body else [])])[:4096]
    return table


async def _edit(interaction: discord.Interaction[Any] | StoredToken, table: Table) -> Any:
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
