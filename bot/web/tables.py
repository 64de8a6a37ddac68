"""What the pages need of the running bot to show a game's steps: the game's rules (to replay its log) and
its cog (to draw each step as the channel saw it). Found by the game's name, as /history finds them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from bot.engine.game import Event, Game
from bot.store.repositories import SessionRecord

if TYPE_CHECKING:
    from bot.ui.table_base import Table


class Drawer(Protocol):
    async def render(
        self, record: SessionRecord, view: dict[str, Any], events: list[Event], lang: str
    ) -> Table:
        """The table message from the public view, in `lang`."""
        ...


class Tables(Protocol):
    def rules(self, game: str) -> Game | None: ...

    def drawer(self, game: str) -> Drawer | None: ...


class BotTables:
    """The bot's own: its session manager's rules and its loaded table cogs."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    def rules(self, game: str) -> Game | None:
        sessions = getattr(self.bot, "sessions", None)
        return sessions.games.get(game) if sessions is not None else None

    def drawer(self, game: str) -> Drawer | None:
        from bot.ui.table import TableCog

        for cog in self.bot.cogs.values():
            if isinstance(cog, TableCog) and cog.game_name == game:
                return cog
        return None
