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

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine.errors import BadAction, GameOver, NotAPlayer
from bot.engine.game import Event
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
POST_RETRY_SECONDS = 1.0
# The layer's own event: the game has just started, its table is posted below the closed lobby.
TABLE_OPENED = "table_opened"
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


def button(action: str, *args: Arg, modal: bool = False, opens_form: bool = False) -> Callable[[Any], Any]:
    """Declare a cog method as the handler of `<game>:<session>:<action>[:args]` (a button, select or modal).

    `modal`: it takes a form's submission. `opens_form`: it answers the click with a form, so the click is
    not acknowledged before it runs (every other click is).
    """

    def mark(method: Any) -> Any:
        method.__table_route__ = (action, args, modal, opens_form)
        return method

    return mark


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
    # The rules' action that ends a game early (the best score wins); None: ending cancels it, no result.
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
                action, args, modal, opens_form = route
                components.register(
                    game, action, getattr(self, name), *args, modal=modal, opens_form=opens_form
                )

    async def cog_load(self) -> None:
        self.bot.table_listeners[self.game_name] = self.on_events
        self.bot.sessions.result_listeners.append(self._on_timer_result)
        self.bot.votes.handlers[self._end_vote_kind] = self._end_vote_closed

    async def cog_unload(self) -> None:
        self.bot.table_listeners.pop(self.game_name, None)
        if self._on_timer_result in self.bot.sessions.result_listeners:
            self.bot.sessions.result_listeners.remove(self._on_timer_result)
        self.consoles.close()
        self.bot.votes.handlers.pop(self._end_vote_kind, None)
        components.unregister_game(self.game_name)
        for redraw in self._redraws.values():
            if redraw.task is not None:
                redraw.task.cancel()

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
        record = await self.bot.sessions.session(session_id)
        if record.game != self.game_name:
            raise BadAction("ui.not_this_game")
        if str(interaction.user.id) not in record.players:
            raise NotAPlayer("ui.not_a_player")
        return record

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
        view = await self.bot.sessions.view(session_id, None)
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
        if TABLE_OPENED in kinds:  # the stored message is the lobby's, closed already
            await self._post(channel, record, table, buttons, lang)
            return
        new_message = not kinds.isdisjoint(self.new_message_events)
        if record.message_id is not None and not new_message:
            try:
                attachments = [table.file] if table.file is not None else discord.utils.MISSING
                await channel.get_partial_message(record.message_id).edit(
                    embed=table.embed, view=buttons, attachments=attachments
                )
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
    ) -> None:
        """Post the table; if Discord refuses twice, the game closes and the channel is told why.

        A game with no table could not be played, and its channel would stay taken for nothing.
        """
        error: discord.HTTPException | None = None
        for attempt in range(2):
            try:
                if table.file is not None:
                    table.file.reset()
                    message = await channel.send(
                        embed=table.embed, view=buttons, file=table.file, allowed_mentions=NO_MENTIONS
                    )
                else:
                    message = await channel.send(
                        embed=table.embed, view=buttons, allowed_mentions=NO_MENTIONS
                    )
                await self.bot.sessions.set_message(record.id, message.id)
                return
            except discord.HTTPException as exc:
                error = exc
                log.warning(
                    "posting the table of session %d failed (attempt %d): %s", record.id, attempt + 1, exc
                )
                if attempt == 0:
                    await asyncio.sleep(POST_RETRY_SECONDS)
        assert error is not None
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

    async def on_events(self, record: SessionRecord, events: list[Event]) -> None:
        """Events of an action nobody clicked (a timer)."""
        if any(event.get("type") == "lobby_expired" for event in events):
            await self.close_expired_lobby(record)
            return
        await self.refresh(record.id, events)

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

    async def _on_timer_result(self, result: ActResult) -> None:
        if result.session.game == self.game_name:
            self._after_action(result, None)

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
        view = await self.bot.sessions.view(record.id, None)
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

    async def end_game(self, record: SessionRecord, by: str | None = None) -> None:
        """End now: the rules crown the best score (end_action), or the game is cancelled without a result."""
        if record.status == "lobby":
            record = await self.bot.sessions.cancel(record.id)
            lang = await self.table_lang(record)
            note = t("ui.lobby.cancelled_by", lang, who=mention(by)) if by else None
            await self._edit_lobby(record, note)
            return
        if self.end_action is not None:
            result = await self.bot.sessions.act(record.id, None, dict(self.end_action))
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
        game = self.bot.sessions.games[record.game]
        moment = game.freshness(await self.bot.sessions.state(record.id))
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
            await self.end_game(record)

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
        closes = self.bot.sessions.deadline(record, "lobby")
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
        record = await self.bot.sessions.session(click.session_id)
        if record.game != self.game_name:
            raise BadAction("ui.not_this_game")
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
        lang = self.user_lang(click.interaction)
        if not self.may_manage(click.interaction, record.host_id):
            raise NotAPlayer("ui.cancel.not_allowed")
        was_lobby = record.status == "lobby"
        record = await self.bot.sessions.cancel(click.session_id)
        if was_lobby:
            table_lang = await self.table_lang(record)
            note = t("ui.lobby.cancelled_by", table_lang, who=mention(click.player))
            await self._show_lobby(click.interaction, record, note)
        else:
            await reply_private(click.interaction, t("ui.cancel.done", lang))

    async def close_expired_lobby(self, record: SessionRecord) -> None:
        """The lobby's time ran out: say so on its message and remove the buttons."""
        await self._edit_lobby(record, t("ui.lobby.expired", await self.table_lang(record)))


async def answer(interaction: discord.Interaction[Any], content: str | None = None, **kwargs: Any) -> None:
    """The private answer after `act(..., private=True)`: it replaces a "thinking…" if there was one."""
    await reply_private(interaction, content, **kwargs)
