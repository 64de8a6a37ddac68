"""The table layer every game's cog builds on: lobby, channel lookup, seats, `/status` `/leave` `/end`,
act-and-show with coalesced redraws, the table message's lifecycle, the private panel, texts and errors.

A game's cog declares its command group, its buttons (`@button(...)` with typed arguments) and how to draw
its table (`render`); everything else is here, the same for every game. The path of a click:

    TableItem (any custom_id) -> codec: typed arguments or a private refusal -> acknowledged at once
    -> the cog's handler -> `act()`: the engine applies and commits the action
    -> `refresh()`: one redraw per table at a time; clicks that arrive meanwhile share the next one.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands

from bot.engine.errors import BadAction, GameOver, NotAPlayer, StaleAction, WrongPhase
from bot.engine.game import STALE_MESSAGE, Event
from bot.engine.sessions import ActResult
from bot.engine.votes import VoteResult
from bot.games import every_game
from bot.i18n import LANGUAGES, N_, language_of, t
from bot.store import SessionRecord, VoteRecord
from bot.ui import components
from bot.ui.access import manages_server
from bot.ui.codec import Arg
from bot.ui.components import Click
from bot.ui.consoles import ConsoleDesk, with_news
from bot.ui.embeds import mention, message_link, player_list, relative_time
from bot.ui.mentions import TurnNotices
from bot.ui.pace import Pace
from bot.ui.replies import NO_MENTIONS, acknowledge, reply_private, update_clicked
from bot.ui.translator import command_text

if TYPE_CHECKING:
    from bot.app import TopBot

log = logging.getLogger(__name__)

# The lobby's buttons and their texts' keys.
LOBBY_BUTTONS = {
    "join": N_("ui.lobby.join"),
    "leave": N_("ui.lobby.leave"),
    "start": N_("ui.lobby.start"),
    "cancel": N_("ui.lobby.cancel"),
}
# Discord calls for the table are retried with backoff: the first wait, doubled each time up to the last.
POST_RETRY_SECONDS = 1.0
POST_RETRY_MAX_SECONDS = 30.0
DISCORD_ATTEMPTS = 5
# After that, the table is drawn again later (then every doubled wait, up to this), until it is shown.
REDRAW_LATER_MAX_SECONDS = 600.0
# What a call to Discord may raise that says nothing about the game (the table is redrawn later).
DISCORD_ERRORS = (discord.HTTPException, aiohttp.ClientError, OSError, asyncio.TimeoutError)
# The layer's own events: the game has just started, its table is posted below the closed lobby; the stored
# table message was missing or not the table (a restart between posting and storing its id): a new one.
TABLE_OPENED = "table_opened"
TABLE_REPOSTED = "table_reposted"
# The commands every game gets; their descriptions come from the catalogue.
STATUS = command_text("ui.cmd.status")
LEAVE = command_text("ui.cmd.leave")
END = command_text("ui.cmd.end")


@dataclass
class Table:
    """What the channel sees of a game: the message's embed, its buttons and an optional picture."""

    embed: discord.Embed
    items: list[discord.ui.Item[Any]] = field(default_factory=list)
    file: discord.File | None = None


def button(
    action: str,
    *args: Arg,
    modal: bool = False,
    opens_form: bool = False,
    opens: str | dict[str, Any] | None = None,
) -> Callable[[Any], Any]:
    """Declare a cog method as the handler of `<game>:<session>:<action>[:args]` (a button, select or modal).

    `modal`: it takes a form's submission. `opens_form`: it answers the click with a form, so the click is
    not acknowledged before it runs (every other click is).
    `opens`: the rules' action the form or private prompt leads to; the layer refuses the click (before the
    handler runs) when the clicker is not seated, when its `fresh` arguments are not the state's, or when
    the rules do not offer that action to the clicker now (`table_actions`). The refusal is then the rules'
    own answer to it (e.g. "your list is final"), tried on the state and never committed: given as an
    example action (`{"do": "submit", "words": []}`) where the action needs arguments to get that far.
    """

    def mark(method: Any) -> Any:
        method.__table_route__ = (action, args, modal, opens_form, opens)
        return method

    return mark


@dataclass
class _Trouble:
    """Why a table is not shown, how many redraws failed in a row, and who was told already."""

    error: str
    failures: int = 0
    told: set[str] = field(default_factory=set)


@dataclass
class _Redraw:
    """A table's redraws: one at a time; the events of clicks that arrive meanwhile wait for the next one."""

    events: list[Event] = field(default_factory=list)
    waiter: asyncio.Future[None] | None = None
    task: asyncio.Task[None] | None = None


class TableCog(commands.Cog):
    """Subclasses set `game_name`, `title`, `group`, and implement `render` (and `private_panel`)."""

    game_name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    colour: ClassVar[discord.Colour] = discord.Colour.blurple()
    group: ClassVar[app_commands.Group]
    # The rules' action that ends a game early (the best score wins), sent with `by`: "host" or "vote" (the
    # outcome's termination); None: ending cancels it, no result.
    end_action: ClassVar[dict[str, Any] | None] = {"do": "end"}
    # Events after which the table moves to a new message (the old one keeps its record, without buttons).
    new_message_events: ClassVar[frozenset[str]] = frozenset()
    # The private panel's button ("my hand / my words / my rack"), on every table while the game runs.
    panel_action: ClassVar[str] = "mine"
    panel_emoji: ClassVar[str] = "🂠"
    end_vote_seconds: ClassVar[float] = 60.0
    # The least time between two edits of a table (Discord limits a channel's messages): see bot/ui/pace.py.
    redraw_interval: ClassVar[float] = 1.0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # The title and colour the game declared (bot/games/registry.py), unless the cog says otherwise.
        declared = {info.name: info for info in every_game()}.get(cls.__dict__.get("game_name", ""))
        if declared is not None:
            if "title" not in cls.__dict__:
                cls.title = declared.title
            if "colour" not in cls.__dict__:
                cls.colour = discord.Colour(declared.colour)
        group = cls.__dict__.get("group")
        if isinstance(group, app_commands.Group):
            # The commands every game has, added to its group before discord.py binds the cog's commands.
            for name, description, callback in (
                ("status", STATUS, TableCog._status_command),
                ("leave", LEAVE, TableCog._leave_command),
                ("end", END, TableCog._end_command),
            ):
                if group.get_command(name) is None:
                    group.add_command(
                        app_commands.Command(name=name, description=description, callback=callback)
                    )

    def __init__(self, bot: TopBot) -> None:
        self.bot = bot
        self._redraws: dict[int, _Redraw] = {}
        self._tasks: set[asyncio.Future[None]] = set()  # redraws under way that nobody awaits
        self.pace = Pace(self.redraw_interval)
        self.consoles = ConsoleDesk(self._draw_console, self.news_lines, self._reopen_hint)
        self.turn_notices = TurnNotices(self._wants_turn_notices)
        # Tables Discord would not show after every retry, and their redraws later.
        self._troubles: dict[int, _Trouble] = {}
        self._later: dict[int, asyncio.Task[None]] = {}
        game = self.game_name
        components.register(game, "join", self._join)
        components.register(game, "leave", self._leave)
        components.register(game, "start", self._start)
        components.register(game, "cancel", self._cancel)
        # The console is the panel click's own answer (a private message its token then keeps live).
        components.register(game, self.panel_action, self._on_panel, opens_form=True)
        for name in dir(type(self)):
            route = getattr(getattr(type(self), name), "__table_route__", None)
            if route is not None:
                action, args, modal, opens_form, opens = route
                handler = getattr(self, name)
                if opens is not None:
                    handler = self._guarded(handler, opens, tuple(arg.name for arg in args if arg.fresh))
                components.register(game, action, handler, *args, modal=modal, opens_form=opens_form)

    async def cog_load(self) -> None:
        self.bot.table_listeners[self.game_name] = self.on_events
        self.bot.votes.handlers[self._end_vote_kind] = self._end_vote_closed
        self._background(self.repair_tables())

    async def cog_unload(self) -> None:
        self.bot.table_listeners.pop(self.game_name, None)
        self.consoles.close()
        self.bot.votes.handlers.pop(self._end_vote_kind, None)
        components.unregister_game(self.game_name)
        for redraw in self._redraws.values():
            if redraw.task is not None:
                redraw.task.cancel()
        for later in self._later.values():
            later.cancel()

    # -- to implement ---------------------------------------------------------------------------------

    async def render(
        self, record: SessionRecord, view: dict[str, Any], events: list[Event], lang: str
    ) -> Table:
        """The table message from the public view, in the table's language."""
        raise NotImplementedError

    def retired(
        self, record: SessionRecord, view: dict[str, Any], events: list[Event], lang: str
    ) -> discord.Embed | None:
        """What the previous table message keeps when the table moves on (None: it keeps its embed)."""
        return None

    def offers_panel(self, view: dict[str, Any]) -> bool:
        """Whether the table shows the private panel's button now (by default while the game runs)."""
        return not view.get("finished")

    def panel_text(self, lang: str) -> str:
        """The private panel button's label."""
        return t("ui.button_mine", lang)

    async def private_panel(
        self, record: SessionRecord, view: dict[str, Any], lang: str
    ) -> Table | str | discord.Embed:
        """The player's console (their hand, words or rack), from their own view: a `Table` of buttons and
        selects drawn in place on each press (bot/ui/consoles.py); a text or embed is a console without any."""
        raise NotImplementedError

    async def news_lines(self, session_id: int, events: list[Event], lang: str) -> list[str]:
        """Private events told to a player by another's action or a timer, as lines of their news."""
        return []

    def awaiting(self, view: dict[str, Any]) -> list[str]:
        """The players whose turn or choice the game awaits (the view's `awaiting`): they are mentioned."""
        return [str(player) for player in view.get("awaiting") or []]

    def describe_options(self, options: dict[str, Any], lang: str) -> str:
        """The lobby's options as players read them, in `lang`: each game words its own from the catalogue
        (a raw `key: value` would show option names no player knows)."""
        raise NotImplementedError

    # -- languages, lookups and checks ----------------------------------------------------------------

    @staticmethod
    def user_lang(interaction: discord.Interaction[Any]) -> str:
        """Private replies follow the user's Discord language."""
        return language_of(str(interaction.locale))

    async def table_lang(self, record: SessionRecord) -> str:
        """The channel's messages: the game's own language option (Top Stop), else the server's setting."""
        language = record.options.get("language")
        if isinstance(language, str) and language in LANGUAGES:
            return language
        return await self.bot.store.guild_settings.language(
            record.guild_id, self.bot.settings.default_language
        )

    async def channel_game(self, interaction: discord.Interaction[Any]) -> SessionRecord:
        """This channel's open game of this cog's kind, or a refusal that says how to start one."""
        assert interaction.channel_id is not None
        record = await self.bot.sessions.open_in_channel(interaction.channel_id)
        if record is None or record.game != self.game_name:
            raise BadAction("ui.no_game", game=self.title, command=f"/{self.group.name} new")
        return record

    async def seated(self, interaction: discord.Interaction[Any], session_id: int) -> SessionRecord:
        """The session, if the user plays in it; else a refusal (spectators may watch)."""
        record = await self.own_session(interaction, session_id)
        if str(interaction.user.id) not in record.players:
            raise NotAPlayer("ui.not_a_player")
        return record

    async def own_session(self, interaction: discord.Interaction[Any], session_id: int) -> SessionRecord:
        """The session an id names, if the click may act on it: a session of this cog's game, in the channel
        clicked, from its own table message (or a private message, which only the clicker sees). Any other
        id (forged, another game's, an older message's) is refused and changes nothing."""
        record = await self.bot.sessions.session(session_id)
        if record.game != self.game_name:
            raise BadAction("ui.not_this_game")
        if interaction.channel_id is not None and interaction.channel_id != record.channel_id:
            raise BadAction("ui.not_this_table")
        message = interaction.message
        if message is None or message.flags.ephemeral or message.id == record.message_id:
            return record
        redraw = self._redraws.get(session_id)
        if redraw is not None and redraw.task is not None and not redraw.task.done():
            # A table just posted: its id is stored by the redraw under way.
            await asyncio.shield(redraw.task)
            record = await self.bot.sessions.session(session_id)
        if message.id != record.message_id:
            raise StaleAction(STALE_MESSAGE)
        return record

    def _guarded(
        self, handler: Callable[[Click], Awaitable[None]], opens: str | dict[str, Any], fresh: tuple[str, ...]
    ) -> Callable[[Click], Awaitable[None]]:
        async def guarded(click: Click) -> None:
            await self.check_open(click, opens, fresh)
            await handler(click)

        return guarded

    async def check_open(
        self, click: Click, action: str | dict[str, Any], fresh: tuple[str, ...] = ()
    ) -> None:
        """Before a form or a private prompt opens: the clicker plays here, the click was made against the
        state as it is (its `fresh` arguments), and the rules offer `action` to the clicker now."""
        example = {"do": action} if isinstance(action, str) else action
        record = await self.seated(click.interaction, click.session_id)
        made_against = {name: click.args.get(name) for name in fresh}
        if await self.bot.sessions.offered(record.id, click.player, example, made_against):
            return
        raise WrongPhase("ui.not_open_to_you")

    @staticmethod
    def may_manage(interaction: discord.Interaction[Any], host_id: str) -> bool:
        """The host, or a member allowed to manage the server (checked here, not only by Discord)."""
        if str(interaction.user.id) == host_id:
            return True
        return manages_server(interaction)

    async def host_of(self, record: SessionRecord) -> str:
        """The rules' host when they name one (the first seat still playing), else the lobby's host."""
        if record.status == "lobby":
            return record.host_id
        view = await self.bot.sessions.view(record.id, None)
        host = view.get("host")
        return host if isinstance(host, str) else record.host_id

    # -- acting and showing ---------------------------------------------------------------------------

    async def act(
        self,
        interaction: discord.Interaction[Any],
        session_id: int,
        action: dict[str, Any],
        *,
        private: bool = False,
        confirm: Callable[[], Awaitable[Any]] | None = None,
    ) -> ActResult:
        """Apply the action, then show the table (coalesced with other clicks).

        The click or command was acknowledged before its handler ran, so the rules, the commit and the
        redraw come after Discord has its answer; a refusal is the user's private answer. Nothing about the
        action is shown before it is durable.
        `private`: the user gets a private answer next (`answer()`), e.g. after a slash command; the table
        (a picture may take a moment) follows in the background.
        `confirm`: the click's own answer once the action is done (e.g. the private menu clicked says what
        was done).
        """
        await acknowledge(interaction)  # already done by the router and the command tree
        await self.own_session(interaction, session_id)
        actor = str(interaction.user.id)
        self.consoles.attach_news(interaction, session_id, actor)
        result = await self.bot.sessions.act(session_id, actor, action, interaction_id=str(interaction.id))
        self._after_action(result, actor)
        if confirm is not None:
            await confirm()
        if private:
            self._background(self.refresh(session_id, result.events))
        else:
            await self.refresh(session_id, result.events)
        await self._tell_trouble(interaction, session_id, later=private)
        return result

    @property
    def busy(self) -> bool:
        """True while a redraw is under way or queued (tests wait for the table to be quiet)."""
        return bool(self._tasks) or bool(self._redraws) or self.consoles.busy

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

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
                attachments = [table.file] if table.file is not None else discord.utils.MISSING
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
        note = "⚠️ " + t("ui.table_trouble", self.user_lang(interaction), error=trouble.error)
        if later:
            _notes[interaction.id] = note
            return
        try:
            await interaction.followup.send(note, ephemeral=True, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException:
            log.warning("could not tell a player of session %d that its table is not shown", session_id)

    async def repair_tables(self) -> None:
        """At start: a running game whose stored table message is gone, or is not its table (the bot stopped
        between posting a table and storing its id), gets a new table. The others are left as they are (a
        restart must not cost an edit per open game)."""
        await self.bot.wait_until_ready()
        for session_id in await self.bot.store.sessions.open_ids(self.game_name):
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

    async def table_view(self, record: SessionRecord, player: str | None = None) -> dict[str, Any]:
        """The rules' view with the layer's standard keys: `deadlines` by meaning ({"turn": at, …}),
        from the timers' keys (`<meaning>:<which>`), so that no cog reads a timer's private key."""
        view = await self.bot.sessions.view(record.id, player)
        view["deadlines"] = deadlines_of(record)
        return view

    async def on_events(self, result: ActResult) -> None:
        """What an action nobody clicked (a timer) did: the table, and the news of the players it told."""
        if any(event.get("type") == "lobby_expired" for event in result.events):
            await self.close_expired_lobby(result.session)
            return
        self._after_action(result, None)
        await self.refresh(result.session.id, result.events)

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

    async def _draw_console(
        self, session_id: int, player: str, lang: str, news: list[Event], refusal: str | None
    ) -> Table:
        record = await self.bot.sessions.session(session_id)
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

    def _after_action(self, result: ActResult, actor: str | None) -> None:
        """After any action: news to the players told something, every open console of the table redrawn."""
        self.consoles.told(result.session.id, result.private, actor)
        self.consoles.changed(result.session.id)
        if not result.session.is_open:
            self.consoles.news.forget_session(result.session.id)

    async def _tell_turn(self, session_id: int) -> None:
        record = await self.bot.sessions.session(session_id)
        channel = self.bot.get_partial_messageable(record.channel_id)
        if not record.is_open:
            await self.turn_notices.finish(channel, session_id)
            return
        if record.status != "active":
            return
        awaiting = self.awaiting(await self.bot.sessions.view(session_id, None))
        lang = await self.table_lang(record)
        await self.turn_notices.update(channel, session_id, awaiting, self.title, lang)

    async def _wants_turn_notices(self, player: str) -> bool:
        profile = await self.bot.store.profiles.get(player)
        return profile is None or profile.turn_notices

    # -- /status, /leave, /end --------------------------------------------------------------------------

    async def _status_command(self, interaction: discord.Interaction[Any]) -> None:
        await self.status(interaction)

    async def _leave_command(self, interaction: discord.Interaction[Any]) -> None:
        await self.leave(interaction)

    async def _end_command(self, interaction: discord.Interaction[Any]) -> None:
        await self.end(interaction)

    async def status(self, interaction: discord.Interaction[Any]) -> None:
        """The table as the channel sees it, in the user's language, with their private panel."""
        record = await self.channel_game(interaction)
        lang = self.user_lang(interaction)
        if record.status == "lobby":
            await reply_private(interaction, embed=self.lobby_embed(record, lang=lang))
            return
        view = await self.table_view(record)
        table = await self.render(record, view, [], lang)
        player = str(interaction.user.id)
        if player in record.players:
            self.consoles.attach_news(interaction, record.id, player)
            panel = await self.private_panel(record, await self.bot.sessions.view(record.id, player), lang)
            text = panel.embed.description if isinstance(panel, Table) else panel
            text = text.description if isinstance(text, discord.Embed) else text
            table.embed.add_field(name=t("ui.only_you", lang), value=(text or "—")[:1024], inline=False)
        kwargs: dict[str, Any] = {"embed": table.embed}
        if table.file is not None:
            kwargs["file"] = table.file
        await reply_private(interaction, **kwargs)

    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        record = await self.channel_game(interaction)
        lang = self.user_lang(interaction)
        player = str(interaction.user.id)
        if record.status == "lobby":
            record = await self.bot.sessions.leave_lobby(record.id, player)
            await reply_private(interaction, t("ui.left_lobby", lang))
            await self._edit_lobby(record)
            return
        if player not in record.players:
            raise NotAPlayer("ui.not_a_player")
        await self.act(interaction, record.id, {"do": "leave"}, private=True)
        await answer(interaction, t("ui.left_game", lang))

    async def end(self, interaction: discord.Interaction[Any]) -> None:
        """The host or Manage Server ends the game; a player asks the table (once per round or move)."""
        record = await self.channel_game(interaction)
        lang = self.user_lang(interaction)
        if not self.may_manage(interaction, await self.host_of(record)):
            if record.status == "lobby":
                raise NotAPlayer("ui.only_host_lobby")
            await self.ask_to_end(interaction, record)
            return
        lobby = record.status == "lobby"
        await self.end_game(record, by=str(interaction.user.id))
        if lobby:
            said = N_("ui.lobby_closed")
        else:
            said = N_("ui.game_ended") if self.end_action is not None else N_("ui.game_ended_no_result")
        await answer(interaction, t(said, lang))

    async def end_game(self, record: SessionRecord, by: str | None = None, *, voted: bool = False) -> None:
        """End now: the rules crown the best score (end_action, told whether the host or the table's vote
        ended it), or the game is cancelled without a result."""
        if record.status == "lobby":
            record = await self.bot.sessions.cancel(record.id)
            lang = await self.table_lang(record)
            note = t("ui.lobby.cancelled_by", lang, who=mention(by)) if by else None
            await self._edit_lobby(record, note)
            return
        if self.end_action is not None:
            action = {**self.end_action, "by": "vote" if voted else "host"}
            result = await self.bot.sessions.act(record.id, None, action)
            self._after_action(result, None)
            await self.refresh(record.id, result.events)
            return
        record = await self.bot.sessions.cancel(record.id)
        lang = await self.table_lang(record)
        channel = self.bot.get_partial_messageable(record.channel_id)
        if record.message_id is not None:
            await self._retire(channel, record, None)
        try:
            await channel.send(
                t("ui.ended_no_result", lang, game=self.title, id=record.id), allowed_mentions=NO_MENTIONS
            )
        except discord.HTTPException:
            log.warning("could not announce the end of session %d", record.id)

    # -- the vote to end ------------------------------------------------------------------------------------

    @property
    def _end_vote_kind(self) -> str:
        return f"{self.game_name}:end"

    async def ask_to_end(self, interaction: discord.Interaction[Any], record: SessionRecord) -> None:
        """The others vote; a player may ask once per round or move (the rules' freshness says which)."""
        lang = self.user_lang(interaction)
        asker = str(interaction.user.id)
        view = await self.bot.sessions.view(record.id, None)
        still_playing = [p for p in record.players if p not in view.get("left", [])]
        if asker not in still_playing:
            raise NotAPlayer("ui.end.not_allowed")
        moment = await self.bot.sessions.freshness(record.id)
        for vote in await self.bot.store.votes.for_session(record.id, self._end_vote_kind):
            if vote.status == "open":
                raise BadAction("ui.end_vote_open")
            if vote.payload.get("asker") == asker and vote.payload.get("at") == moment:
                raise BadAction("ui.end_asked_already")
        voters = [p for p in still_playing if p != asker]
        table_lang = await self.table_lang(record)
        channel = self.bot.get_partial_messageable(record.channel_id)
        # Another ask may have opened a vote since the check above: the write itself keeps it to one, and
        # the asker is told only what was written.
        opened = await self.bot.votes.open(
            channel,
            record.channel_id,
            kind=self._end_vote_kind,
            question=t(
                "ui.end.question",
                table_lang,
                name=discord.utils.escape_markdown(record.name(asker)),
                game=self.title,
            ),
            eligible=voters,
            seconds=self.end_vote_seconds,
            lang=table_lang,
            session_id=record.id,
            payload={"asker": asker, "at": moment},
            quorum=True,
        )
        if not opened.created:
            raise BadAction("ui.end_vote_open")
        await reply_private(interaction, t("ui.end.asked", lang))

    async def _end_vote_closed(self, vote: VoteRecord, result: VoteResult) -> None:
        if result != "yes" or vote.session_id is None:
            return
        record = await self.bot.sessions.session(vote.session_id)
        if record.is_open:
            await self.end_game(record, voted=True)

    # -- lobby ------------------------------------------------------------------------------------------

    async def open_lobby(
        self, interaction: discord.Interaction[Any], options: dict[str, Any]
    ) -> SessionRecord:
        """`/<game> new`: open a lobby in this channel with the caller as host."""
        assert interaction.guild_id is not None and interaction.channel_id is not None
        record = await self.bot.sessions.open_lobby(
            interaction.guild_id,
            interaction.channel_id,
            self.game_name,
            str(interaction.user.id),
            options,
            interaction.user.display_name,
        )
        lang = await self.table_lang(record)
        # The lobby is a message of the channel (as the tables are); the command's own answer is private,
        # so that a refusal (a game already here, a bad option) is only ever told to whoever asked.
        channel = self.bot.get_partial_messageable(record.channel_id)
        try:
            message = await channel.send(
                embed=self.lobby_embed(record, lang=lang),
                view=self.lobby_view(record, lang),
                allowed_mentions=NO_MENTIONS,
            )
        except discord.HTTPException as error:
            await self.bot.sessions.cancel(record.id, reason=f"lobby could not be posted: {error}")
            raise BadAction("ui.lobby.post_failed", error=str(error.text or error.status)[:200]) from None
        await self.bot.sessions.set_message(record.id, message.id)
        link = message_link(record.guild_id, record.channel_id, message.id)
        await reply_private(interaction, t("ui.lobby.opened", self.user_lang(interaction), link=link))
        return record

    def lobby_embed(self, record: SessionRecord, note: str | None = None, lang: str = "en") -> discord.Embed:
        game = self.bot.sessions.games[record.game]
        embed = discord.Embed(title=t("ui.lobby.title", lang, game=self.title), colour=self.colour)
        embed.add_field(name=t("ui.lobby.host", lang), value=mention(record.host_id), inline=True)
        embed.add_field(
            name=t("ui.lobby.players", lang), value=f"{game.min_players}–{game.max_players}", inline=True
        )
        embed.add_field(
            name=t("ui.lobby.options", lang),
            value=self.describe_options(record.options, lang)[:1024],
            inline=False,
        )
        embed.add_field(
            name=t("ui.lobby.seated", lang, n=len(record.players)),
            value=player_list(record.players, lang)[:1024],
            inline=False,
        )
        closes = deadlines_of(record).get("lobby")
        if record.status == "lobby":
            lines = [t("ui.lobby.how", lang)]
            if closes:
                lines.append(t("ui.lobby.closes", lang, when=relative_time(closes)))
            embed.description = "\n".join(lines)
        if note:
            embed.description = note
        return embed

    def lobby_view(self, record: SessionRecord, lang: str = "en") -> discord.ui.View:
        def lobby_button(action: str, style: discord.ButtonStyle) -> discord.ui.Item[Any]:
            custom_id = components.spec(self.game_name, action).encode(record.id)
            return components.button(custom_id, t(LOBBY_BUTTONS[action], lang), style=style)

        return components.view_of(
            lobby_button("join", discord.ButtonStyle.success),
            lobby_button("leave", discord.ButtonStyle.secondary),
            lobby_button("start", discord.ButtonStyle.primary),
            lobby_button("cancel", discord.ButtonStyle.danger),
        )

    async def _show_lobby(
        self, interaction: discord.Interaction[Any], record: SessionRecord, note: str | None = None
    ) -> None:
        lang = await self.table_lang(record)
        view = self.lobby_view(record, lang) if note is None else None
        await update_clicked(interaction, embed=self.lobby_embed(record, note, lang), view=view)

    async def _edit_lobby(self, record: SessionRecord, note: str | None = None) -> None:
        if record.message_id is None:
            return
        channel = self.bot.get_partial_messageable(record.channel_id)
        lang = await self.table_lang(record)
        view = self.lobby_view(record, lang) if record.status == "lobby" and note is None else None
        try:
            await channel.get_partial_message(record.message_id).edit(
                embed=self.lobby_embed(record, note, lang), view=view
            )
        except discord.HTTPException:
            log.warning("could not update the lobby message of session %d", record.id)

    async def _lobby_record(self, click: Click) -> SessionRecord:
        """The lobby a lobby button names: its own message, while it is a lobby (the host's Cancel on the
        old lobby message never touches the game that started from it)."""
        record = await self.own_session(click.interaction, click.session_id)
        if record.status != "lobby":
            raise GameOver("ui.lobby.not_open")
        return record

    async def _join(self, click: Click) -> None:
        await self._lobby_record(click)
        record = await self.bot.sessions.join(
            click.session_id, click.player, click.interaction.user.display_name
        )
        await self._show_lobby(click.interaction, record)

    async def _leave(self, click: Click) -> None:
        await self._lobby_record(click)
        record = await self.bot.sessions.leave_lobby(click.session_id, click.player)
        await self._show_lobby(click.interaction, record)

    async def _start(self, click: Click) -> None:
        record = await self._lobby_record(click)
        setup = await self.start_setup(record)
        result = await self.bot.sessions.start_game(click.session_id, click.player, setup)
        lang = await self.table_lang(result.session)
        await self._show_lobby(
            click.interaction, result.session, t("ui.lobby.started", lang, n=len(result.session.players))
        )
        await self.refresh(result.session.id, [{"type": TABLE_OPENED}, *result.events])
        await self.after_start(click, result)

    async def start_setup(self, record: SessionRecord) -> dict[str, Any]:
        """What the rules' setup needs that is only known when the host starts (e.g. the players' birthdays)."""
        return {}

    async def after_start(self, click: Click, result: ActResult) -> None:
        """The game started and its table is up: e.g. the host's private panel."""

    async def _cancel(self, click: Click) -> None:
        record = await self._lobby_record(click)
        if not self.may_manage(click.interaction, record.host_id):
            raise NotAPlayer("ui.cancel.not_allowed")
        record = await self.bot.sessions.cancel(click.session_id)
        table_lang = await self.table_lang(record)
        note = t("ui.lobby.cancelled_by", table_lang, who=mention(click.player))
        await self._show_lobby(click.interaction, record, note)

    async def close_expired_lobby(self, record: SessionRecord) -> None:
        """The lobby's time ran out: say so on its message and remove the buttons."""
        await self._edit_lobby(record, t("ui.lobby.expired", await self.table_lang(record)))


# Notes for a command's own answer (`answer`), by interaction id: e.g. the table could not be shown.
_notes: dict[int, str] = {}


async def answer(interaction: discord.Interaction[Any], content: str | None = None, **kwargs: Any) -> None:
    """The private answer after `act(..., private=True)`: it replaces a "thinking…" if there was one."""
    note = _notes.pop(interaction.id, None)
    if note is not None:
        content = f"{note}\n{content}" if content else note
    await reply_private(interaction, content, **kwargs)


def deadlines_of(record: SessionRecord) -> dict[str, float]:
    """The session's earliest deadline per meaning: a timer's key is `<meaning>[:<which>…]`."""
    deadlines: dict[str, float] = {}
    for key, timer in record.timers.items():
        meaning = key.split(":", 1)[0]
        at = float(timer["at"])
        if meaning not in deadlines or at < deadlines[meaning]:
            deadlines[meaning] = at
    return deadlines


def _transient(error: BaseException) -> bool:
    """A failure Discord may not repeat: a server error, a rate limit, the network."""
    if isinstance(error, discord.HTTPException):
        return error.status >= 500 or error.status == 429
    return isinstance(error, DISCORD_ERRORS)


def _error_text(error: BaseException) -> str:
    if isinstance(error, discord.HTTPException):
        return str(error.text or error.status)[:200]
    return (str(error) or type(error).__name__)[:200]
