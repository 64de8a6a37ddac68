"""/leaderboard [game] [period] [by]: a server's best players, a page at a time, with the caller's own place.

The Previous/Next buttons carry everything the page needs in their typed custom_id (game, period, order, page,
whose place is shown, language), so they keep working after a restart: no view lives in memory.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import discord
from babel.numbers import format_decimal
from discord import app_commands
from discord.ext import commands

from bot.config import LANGUAGES
from bot.games import GAME_TITLES, every_game
from bot.i18n import Text, t
from bot.records import EVERY_GAME, ORDER_NAMES, PERIOD_NAMES
from bot.store.repositories import BOARD_ORDERS, PERIOD_SECONDS, Board, Leaderboards, Standing
from bot.ui import codec, components
from bot.ui.components import Click, button, view_of
from bot.ui.embeds import mention
from bot.ui.replies import reply, update_clicked
from bot.ui.translator import command_text
from cogs.general import GAME_CHOICES, answer_language

if TYPE_CHECKING:
    from bot.app import TopBot

PAGE_SIZE = 10
ROUTE = "leaderboard"
PERIOD_CHOICES = [
    app_commands.Choice(name=command_text(key), value=period) for period, key in PERIOD_NAMES.items()
]
ORDER_CHOICES = [
    app_commands.Choice(name=command_text(key), value=order) for order, key in ORDER_NAMES.items()
]
PAGE_ARGS = (
    codec.choice("game", EVERY_GAME, *(info.name for info in every_game())),
    codec.choice("period", *PERIOD_SECONDS),
    codec.choice("by", *BOARD_ORDERS),
    codec.number("page", 1, 100_000),
    codec.token("viewer", r"[1-9][0-9]{0,19}"),
    codec.choice("lang", *LANGUAGES),
)


@dataclass(frozen=True)
class BoardQuery:
    """What a leaderboard message shows: all of it fits in its buttons' ids."""

    game: str | None
    period: str
    by: str
    page: int
    viewer: str
    lang: str

    def ids(self, page: int) -> dict[str, Any]:
        return {
            "game": self.game or EVERY_GAME,
            "period": self.period,
            "by": self.by,
            "page": page,
            "viewer": self.viewer,
            "lang": self.lang,
        }


def number(value: float, lang: str) -> str:
    """An average or a rating, one decimal, as the language writes it (12.5, 12,5)."""
    return str(format_decimal(value, format="#,##0.0", locale=lang))


def standing_line(row: Standing, query: BoardQuery, board: Board) -> str:
    lang, player = query.lang, mention(row.user_id)
    if query.by == "rating":
        rating = number(row.rating or 0.0, lang)
        return t(
            "general.leaderboard.line_rating",
            lang,
            rank=row.position,
            player=player,
            rating=rating,
            games=row.games,
        )
    if query.by == "points":
        average = number(row.average or 0.0, lang)
        if board.team:
            return t(
                "general.leaderboard.line_team",
                lang,
                rank=row.position,
                player=player,
                average=average,
                wins=row.wins,
                games=row.games,
            )
        return t(
            "general.leaderboard.line_points",
            lang,
            rank=row.position,
            player=player,
            average=average,
            games=row.games,
        )
    if query.game is None:
        return t(
            "general.leaderboard.line_all",
            lang,
            rank=row.position,
            player=player,
            wins=row.wins,
            games=row.games,
        )
    return t(
        "general.leaderboard.line",
        lang,
        rank=row.position,
        player=player,
        wins=row.wins,
        games=row.games,
        best=row.best,
    )


def pages_of(board: Board) -> int:
    return max(1, math.ceil(board.entries / PAGE_SIZE))


def render(
    board: Board, query: BoardQuery, asked_by: str | None = None
) -> tuple[discord.Embed, discord.ui.View | None]:
    """The leaderboard's embed and its Previous/Next buttons (none when one page holds it).

    `asked_by`: the order the caller asked for, when the board had to use another (points and ratings are
    per game)."""
    lang = query.lang
    game = (
        GAME_TITLES.get(query.game, query.game) if query.game else t("general.leaderboard.every_game", lang)
    )
    embed = discord.Embed(title=t("general.leaderboard.title", lang, game=game), colour=discord.Colour.gold())
    lines = [standing_line(row, query, board) for row in board.rows]
    if asked_by is not None and asked_by != query.by:
        lines.insert(0, t("general.leaderboard.per_game", lang))
    if not board.rows:
        lines.append(t("general.leaderboard.empty", lang))
    embed.description = "\n".join(lines)
    if board.entries:
        if board.own is None:
            embed.add_field(
                name=t("general.leaderboard.your_place", lang),
                value=t("general.leaderboard.unranked", lang, player=mention(query.viewer)),
            )
        elif board.own not in board.rows:
            embed.add_field(
                name=t("general.leaderboard.your_place", lang), value=standing_line(board.own, query, board)
            )
    pages = pages_of(board)
    footer = t(
        "general.leaderboard.footer",
        lang,
        order=Text(ORDER_NAMES[query.by]),
        period=Text(PERIOD_NAMES[query.period]),
        page=query.page,
        pages=pages,
    )
    if query.by == "points" and board.lower_is_better and not board.team:
        footer += " · " + t("general.leaderboard.fewer_better", lang)
    embed.set_footer(text=footer)
    if pages == 1:
        return embed, None
    spec = components.spec(ROUTE, "page")
    return embed, view_of(
        button(
            spec.encode(**query.ids(max(1, query.page - 1))),
            t("general.leaderboard.previous", lang),
            emoji="◀️",
            disabled=query.page <= 1,
        ),
        button(
            spec.encode(**query.ids(min(pages, query.page + 1))),
            t("general.leaderboard.next", lang),
            emoji="▶️",
            disabled=query.page >= pages,
        ),
    )


async def read_board(
    leaderboards: Leaderboards, guild_id: int, query: BoardQuery, now: float
) -> tuple[Board, BoardQuery]:
    """The page asked for; the last one when the board has shrunk below it since the button was drawn."""
    seconds = PERIOD_SECONDS[query.period]
    since = None if seconds is None else now - seconds

    async def page(number: int) -> Board:
        return await leaderboards.board(
            guild_id,
            query.game,
            by=query.by,
            since=since,
            offset=(number - 1) * PAGE_SIZE,
            limit=PAGE_SIZE,
            viewer=query.viewer,
        )

    board = await page(query.page)
    if not board.rows and board.entries and query.page > pages_of(board):
        query = replace(query, page=pages_of(board))
        board = await page(query.page)
    return board, query


class Leaderboard(commands.Cog):
    """/leaderboard and its page buttons."""

    def __init__(self, bot: TopBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        components.register(ROUTE, "page", self.turn_page, *PAGE_ARGS, sessionless=True)

    async def cog_unload(self) -> None:
        components.unregister_game(ROUTE)

    @app_commands.command(
        name="leaderboard",
        description=command_text("general.cmd.leaderboard"),
        extras={"public_answer": True},
    )
    @app_commands.describe(
        game=command_text("general.cmd.leaderboard.game"),
        period=command_text("general.cmd.leaderboard.period"),
        by=command_text("general.cmd.leaderboard.by"),
    )
    @app_commands.choices(game=GAME_CHOICES, period=PERIOD_CHOICES, by=ORDER_CHOICES)
    @app_commands.guild_only()
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        game: app_commands.Choice[str] | None = None,
        period: app_commands.Choice[str] | None = None,
        by: app_commands.Choice[str] | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        lang = await answer_language(self.bot.store.guild_settings, interaction.guild_id, interaction.locale)
        asked = by.value if by else "wins"
        query = BoardQuery(
            game=game.value if game else None,
            period=period.value if period else "all",
            by=asked if game else "wins",  # points and ratings are per game: every game at once counts wins
            page=1,
            viewer=str(interaction.user.id),
            lang=lang,
        )
        board, query = await read_board(self.bot.store.leaderboards, interaction.guild_id, query, time.time())
        embed, view = render(board, query, asked_by=asked)
        if view is None:
            await reply(interaction, embed=embed)
        else:
            await reply(interaction, embed=embed, view=view)

    async def turn_page(self, click: Click) -> None:
        """Previous/Next, by whoever clicks: the message shows the same board at another page."""
        guild_id = click.interaction.guild_id
        if guild_id is None:
            return
        args = click.args
        query = BoardQuery(
            game=None if args["game"] == EVERY_GAME else args["game"],
            period=args["period"],
            by=args["by"] if args["game"] != EVERY_GAME else "wins",
            page=args["page"],
            viewer=args["viewer"],
            lang=args["lang"],
        )
        board, query = await read_board(self.bot.store.leaderboards, guild_id, query, time.time())
        embed, view = render(board, query)
        await update_clicked(click.interaction, embed=embed, view=view)


async def setup(bot: TopBot) -> None:
    await bot.add_cog(Leaderboard(bot))
