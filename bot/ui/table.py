"""The table layer every game's cog builds on: lobby, channel lookup, seats, `/status` `/leave` `/end`,
act-and-show with coalesced redraws, the table message's lifecycle, the private panel, texts and errors.

A game's cog declares its command group, its buttons (`@button(...)` with typed arguments) and how to draw
its table (`render`); everything else is here, the same for every game. The path of a click:

    TableItem (any custom_id) -> codec: typed arguments or a private refusal -> acknowledged at once
    -> the guards: the session is this game's, in this channel, from its own table message (`own_session`);
       for a form or private prompt, the rules offer its action to the clicker now (`check_open`)
    -> the cog's handler -> `act()`: the engine applies and commits the action
    -> `refresh()`: one redraw per table at a time; clicks that arrive meanwhile share the next one.

`TableCog` is assembled from one part per role, each on `TableBase` (bot/ui/table_base.py: the game's
declarations and hooks, the lookups and guards): `Lobby` (bot/ui/lobby.py), `TableMessages` and
`TableTroubles` (bot/ui/table_message.py, bot/ui/troubles.py: redraws, posting, retries, repair, turn
notices), `Controls` (bot/ui/controls.py: `/status` `/leave` `/end`, the end vote) and `PrivatePanel`
(bot/ui/panel.py: the panel button and live consoles). Here: the routes' registration and `act()`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.engine.bots import LEVEL_NAMES, LEVELS, Level
from bot.engine.game import Action
from bot.engine.sessions import ActResult
from bot.games import every_game
from bot.store import SessionRecord
from bot.ui import components
from bot.ui.bots import BotDriver
from bot.ui.codec import Arg
from bot.ui.consoles import ConsoleDesk
from bot.ui.controls import Controls
from bot.ui.lobby import BOTS_WANTED, Lobby
from bot.ui.mentions import TurnNotices
from bot.ui.news import News
from bot.ui.pace import Pace
from bot.ui.panel import PrivatePanel
from bot.ui.replies import acknowledge
from bot.ui.table_base import Table, TableBase, deadlines_of
from bot.ui.table_message import TableMessages
from bot.ui.translator import command_text
from bot.ui.troubles import answer

if TYPE_CHECKING:
    from bot.app import TopBot

# Where they moved, still importable from here (cogs and tests import them from the table layer).
__all__ = [
    "Table",
    "TableCog",
    "answer",
    "button",
    "deadlines_of",
]

log = logging.getLogger(__name__)

# The commands every game gets; their descriptions come from the catalogue.
STATUS = command_text("ui.cmd.status")
LEAVE = command_text("ui.cmd.leave")
END = command_text("ui.cmd.end")
UNLOAD_WAIT = 5.0  # seconds a redraw under way may take to finish when the bot stops
MOST_BOTS = 9  # `/<game> new bots:`'s bound; the game's own maximum of players refuses beyond it


async def _bot_options(
    interaction: discord.Interaction[Any],
    bots: app_commands.Range[int, 1, MOST_BOTS] | None = None,
    level: str | None = None,
) -> None:
    """Only its parameters matter: the `bots` and `level` options every game with bots adds to /new."""


_bot_options = app_commands.describe(
    bots=command_text("ui.cmd.new.bots"), level=command_text("ui.cmd.new.level")
)(
    app_commands.choices(
        level=[app_commands.Choice(name=command_text(LEVEL_NAMES[lvl]), value=lvl.value) for lvl in LEVELS]
    )(_bot_options)
)
_BOT_PARAMETERS = app_commands.Command(name="new", description="bot options", callback=_bot_options)._params


def _with_bot_options(command: app_commands.Command[Any, ..., Any]) -> None:
    """`/<game> new` gains the optional `bots` (how many) and `level`, for every game that declares bots: the
    cog's own command runs as it is, and the lobby reads what was asked from the interaction's extras."""
    if "bots" in command._params:
        return
    original = command._callback

    async def new_with_bots(
        cog: Any,
        interaction: discord.Interaction[Any],
        bots: int | None = None,
        level: str | None = None,
        **given: Any,
    ) -> Any:
        if bots:
            interaction.extras[BOTS_WANTED] = (bots, Level(level or Level.MEDIUM.value))
        return await original(cog, interaction, **given)

    command._params = {**command._params, "bots": _BOT_PARAMETERS["bots"], "level": _BOT_PARAMETERS["level"]}
    command._callback = new_with_bots


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


class TableCog(Lobby, TableMessages, Controls, PrivatePanel, TableBase):
    """Subclasses set `game_name`, `title`, `group`, and implement `render` (and `private_panel`)."""

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
        if isinstance(group, app_commands.Group) and declared is not None and declared.bots is not None:
            new = group.get_command("new")
            if isinstance(new, app_commands.Command):
                _with_bot_options(new)
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
        self._redraws = {}
        self._tasks = set()  # redraws under way that nobody awaits
        self._at_start: list[asyncio.Future[None]] = []  # the start's repairs, until done
        self.pace = Pace(self.redraw_interval)
        self.consoles = ConsoleDesk(
            self._draw_console,
            self.news_lines,
            self._reopen_hint,
            News(lambda: self.bot.store),
            game=self.game_name,
            guard=self._may_press,
            store=lambda: self.bot.store,
        )
        self.turn_notices = TurnNotices(self._wants_turn_notices, lambda: self.bot.store)
        declared = {info.name: info for info in every_game()}.get(self.game_name)
        policies = declared.bots if declared is not None else None
        self.bots = BotDriver(
            self.game_name,
            (lambda level: policies(level, self.bot.words)) if policies is not None else None,
            lambda: self.bot.sessions,
            self.bot_act,
            lambda: float(getattr(self.bot.settings, "bot_pace", 1.0)),
        )
        # Tables Discord would not show after every retry, and their redraws later.
        self._troubles = {}
        self._later = {}
        game = self.game_name
        components.register(game, "join", self._join)
        components.register(game, "leave", self._leave)
        components.register(game, "start", self._start)
        components.register(game, "cancel", self._cancel)
        components.register(game, "add_bot", self._add_bot)
        components.register(game, "remove_bot", self._remove_bot)
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
        self._at_start = [
            self._background(self.repair_tables()),
            self._background(self.restore_consoles()),
            self._background(self.restore_bots()),
        ]

    async def cog_unload(self) -> None:
        self.bot.table_listeners.pop(self.game_name, None)
        # At shutdown the start's repairs stop where they are (the next start does them again), and redraws
        # under way finish while Discord and the database are still open.
        for task in self._at_start:
            task.cancel()
        self.bots.close()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=UNLOAD_WAIT)
        self.consoles.close()
        self.bot.votes.handlers.pop(self._end_vote_kind, None)
        components.unregister_game(self.game_name)
        for redraw in self._redraws.values():
            if redraw.task is not None:
                redraw.task.cancel()
        for later in self._later.values():
            later.cancel()

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
        (a picture may take a moment) follows in the background. So it does when the table's pace holds its
        next redraw back: the player's own answer never waits out the pace.
        `confirm`: the click's own answer once the action is done (e.g. the private menu clicked says what
        was done).
        """
        await acknowledge(interaction)  # already done by the router and the command tree
        await self.own_session(interaction, session_id)
        actor = str(interaction.user.id)
        await self.consoles.attach_news(interaction, session_id, actor)
        result = await self.bot.sessions.act(session_id, actor, action, interaction_id=str(interaction.id))
        self._after_action(result)
        if confirm is not None:
            await confirm()
        if private or self.pace.wait(session_id) > 0:
            self._background(self.refresh(session_id, result.events))
        else:
            await self.refresh(session_id, result.events)
        await self._tell_trouble(interaction, session_id, later=private)
        return result

    @property
    def busy(self) -> bool:
        """True while a redraw is under way or queued, or a bot is about to move (tests wait for the table to
        be quiet)."""
        return bool(self._tasks) or bool(self._redraws) or self.consoles.busy or self.bots.busy

    # -- bot players (bot/ui/bots.py) -------------------------------------------------------------------

    async def bot_act(self, session_id: int, seat: str, action: Action) -> ActResult:
        """A bot's move, by the path of a person's click: the manager applies and commits it (the same
        stamping, lock and refusals), then the table is redrawn at its pace and the consoles told."""
        result = await self.bot.sessions.act(session_id, seat, action)
        self._after_action(result)
        self._background(self.refresh(session_id, result.events))
        return result

    def bots_play(self, record: SessionRecord) -> None:
        """The table changed: its bots look at it (bot/ui/bots.py)."""
        self.bots.poke(record)

    def _after_action(self, result: ActResult) -> None:
        super()._after_action(result)
        self.bots_play(result.session)

    async def restore_bots(self) -> None:
        """At start: every running game of this kind with a bot seat is looked at again, so a bot whose move
        was pending when the process stopped plays it now."""
        if self.bots is None or not self.offers_bots:
            return
        await self.bot.wait_until_ready()
        for session_id in await self.bot.store.sessions.open_with_bots(
            self.game_name, self.bot.sessions.shards
        ):
            try:
                record = await self.bot.sessions.session(session_id)
                for spec in record.bots.values():
                    self.bots.warm(Level(spec["level"]))  # off the loop, before the first choice
                self.bots_play(record)
            except Exception:
                log.exception("could not restore the bots of session %d", session_id)

    def _background(self, work: Coroutine[Any, Any, None]) -> asyncio.Future[None]:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def on_events(self, result: ActResult) -> None:
        """What an action nobody clicked (a timer) did: the table, and the news of the players it told."""
        if any(event.get("type") == "lobby_expired" for event in result.events):
            await self.close_expired_lobby(result.session)
            return
        self._after_action(result)
        await self.refresh(result.session.id, result.events)
