"""What every part of the table layer builds on: what a game's cog declares, the hooks it implements, and the
lookups and checks every click passes (the clicked session is this game's, in this channel, from its own table
message; the clicker is seated; the rules offer the action now).

`TableCog` (bot/ui/table.py) is assembled from the parts that build on this base, one per role: the lobby
(bot/ui/lobby.py), the table message's life (bot/ui/table_message.py, bot/ui/troubles.py), `/status` `/leave`
`/end` and the end vote (bot/ui/controls.py) and the private panel (bot/ui/panel.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine.errors import BadAction, NotAPlayer, StaleAction, WrongPhase
from bot.engine.game import STALE_MESSAGE, Event
from bot.i18n import LANGUAGES, language_of, t
from bot.store import SessionRecord
from bot.ui.access import manages_server
from bot.ui.components import Click

if TYPE_CHECKING:
    from bot.app import TopBot
    from bot.engine.sessions import ActResult
    from bot.ui.bots import BotDriver
    from bot.ui.consoles import ConsoleDesk
    from bot.ui.mentions import TurnNotices
    from bot.ui.pace import Pace
    from bot.ui.table_message import _Redraw
    from bot.ui.troubles import _Trouble


@dataclass
class Table:
    """What the channel sees of a game: the message's embed, its buttons and an optional picture."""

    embed: discord.Embed
    items: list[discord.ui.Item[Any]] = field(default_factory=list)
    file: discord.File | None = None


class TableBase(commands.Cog):
    """A game's declarations and hooks, and the checks every part of the layer uses (cogs subclass
    `TableCog`, which adds the parts)."""

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

    # Set up by `TableCog.__init__`.
    bot: TopBot
    pace: Pace
    consoles: ConsoleDesk
    turn_notices: TurnNotices
    bots: BotDriver
    _redraws: dict[int, _Redraw]
    _tasks: set[asyncio.Future[None]]
    _troubles: dict[int, _Trouble]
    _later: dict[int, asyncio.Task[None]]

    if TYPE_CHECKING:
        # What the parts offer each other (each is defined once, in its own part).

        async def act(
            self,
            interaction: discord.Interaction[Any],
            session_id: int,
            action: dict[str, Any],
            *,
            private: bool = False,
            confirm: Callable[[], Awaitable[Any]] | None = None,
        ) -> ActResult: ...

        def _background(self, work: Coroutine[Any, Any, None]) -> asyncio.Future[None]: ...

        async def refresh(self, session_id: int, events: list[Event]) -> None: ...

        async def _retire(
            self, channel: discord.PartialMessageable, record: SessionRecord, embed: discord.Embed | None
        ) -> None: ...

        def _after_action(self, result: ActResult) -> None: ...

        def bots_play(self, record: SessionRecord) -> None: ...

        def lobby_embed(
            self, record: SessionRecord, note: str | None = None, lang: str = "en"
        ) -> discord.Embed: ...

        async def _edit_lobby(self, record: SessionRecord, note: str | None = None) -> None: ...

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

    async def own_lines(self, session_id: int, events: list[Event], lang: str) -> list[str]:
        """Private events told to a player by their own press on the console (the cards they drew), as lines
        at the top of the console redrawn, until their next press. None by default: the console shows the
        result of the action already (a card drawn appears in the hand)."""
        return []

    def awaiting(self, view: dict[str, Any]) -> list[str]:
        """The players whose turn or choice the game awaits (the view's `awaiting`): they are mentioned."""
        return [str(player) for player in view.get("awaiting") or []]

    def reminder(self, view: dict[str, Any]) -> str:
        """A mark that changes when the game reminds the players it awaits (an idle turn): they are then
        mentioned anew, in a reminder. "" (the default): only a change of whom it awaits is announced."""
        return ""

    async def record_lines(self, guild_id: int, user_id: str, lang: str) -> list[str]:
        """What /stats adds for this game besides games, wins, points and rating (e.g. a best move), from the
        member's finished games on the server: results alone, never a rack, a hand or an unrevealed word."""
        return []

    def bot_defaults(self) -> dict[str, Any]:
        """Options the bot's own settings give every new table (a server's defaults and the host's options
        win over them): those the game declares in `GameInfo.bot_defaults`, read by bot/config.py."""
        return dict(self.bot.settings.game_defaults.get(self.game_name, {}))

    def complete_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The options a lobby opens with, once the host's, the server's and the bot's are merged: a game
        adds what follows from them (Top Stop's advanced game takes the day it was opened)."""
        return options

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
        """The rules' host when they name one (the first seat still playing), else the lobby's host; never a
        bot seat (`SessionManager.host`)."""
        if record.status == "lobby":
            return record.host_id
        return await self.bot.sessions.host(record.id)

    async def table_view(self, record: SessionRecord, player: str | None = None) -> dict[str, Any]:
        """The rules' view with the layer's standard keys: `deadlines` by meaning ({"turn": at, …}),
        from the timers' keys (`<meaning>:<which>`), so that no cog reads a timer's private key."""
        view = await self.bot.sessions.view(record.id, player)
        view["deadlines"] = deadlines_of(record)
        return view


def deadlines_of(record: SessionRecord) -> dict[str, float]:
    """The session's earliest deadline per meaning: a timer's key is `<meaning>[:<which>…]`."""
    deadlines: dict[str, float] = {}
    for key, timer in record.timers.items():
        meaning = key.split(":", 1)[0]
        at = float(timer["at"])
        if meaning not in deadlines or at < deadlines[meaning]:
            deadlines[meaning] = at
    return deadlines
