"""/stats and /history: a member's record on the server, and the server's finished games with their final
tables shown again. Every game the registry lists appears in both without a line of its own here: what a game
adds to /stats (its cog's `record_lines`) and how its final table looks (its cog's `render`) are its own."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, overload

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine.bots import is_bot
from bot.engine.errors import BadAction
from bot.games import GAME_TITLES, every_game
from bot.games.registry import game_info
from bot.i18n import N_, language_of, t
from bot.records import RatingTrend, bot_record_line, rating_trend
from bot.render.stats_chart import render_chart
from bot.store import BotRecord, FinishedGame, GameTally, ScorePoint
from bot.ui import codec, components
from bot.ui.components import Click, button, view_of
from bot.ui.embeds import shown_player
from bot.ui.replies import reply, reply_private, update_clicked
from bot.ui.translator import command_text
from cogs.general import GAME_CHOICES, answer_language

if TYPE_CHECKING:
    from bot.app import TopBot
    from bot.ui.table import TableCog

HISTORY = "history"  # the custom_ids' namespace: `history::page:<page>.<game>`, `history:<session>:table`
ALL_GAMES = "all"
PAGE_SIZE = 5  # games per page: one row of "show the table" buttons
MOST_PAGES = 10_000
CHART_POINTS = 100  # the last games a chart shows
CHART_FILE = "stats.png"

PAGE = codec.Spec(
    HISTORY,
    "page",
    (
        codec.number("page", 1, MOST_PAGES),
        codec.choice("game", ALL_GAMES, *(info.name for info in every_game())),
    ),
    sessionless=True,
)
TABLE = codec.Spec(HISTORY, "table")


def figure(value: float) -> str:
    """A figure as the tables write it: whole numbers bare, others with one decimal."""
    return str(int(value)) if value == int(value) else f"{value:.1f}"


def signed(value: float) -> str:
    return ("+" if value > 0 else "") + figure(round(value, 1))


def tally_lines(tally: GameTally, lang: str) -> list[str]:
    """Games, wins and points, the best in the game's own direction."""
    points = N_("stats.points_lower") if tally.lower_is_better else N_("stats.points")
    return [
        t("stats.games", lang, games=tally.games, wins=tally.wins),
        t(points, lang, total=tally.total, best=tally.best, average=figure(round(tally.average, 1))),
    ]


def rating_line(trend: RatingTrend, lang: str) -> str:
    if trend.change is None:
        return t("stats.rating", lang, rating=figure(round(trend.rating, 1)))
    return t(
        "stats.rating_trend",
        lang,
        rating=figure(round(trend.rating, 1)),
        change=signed(trend.change),
        day=f"<t:{int(trend.since)}:d>",
    )


def chart_series(
    points: list[ScorePoint], ratings: dict[str, list[tuple[float, float]]]
) -> list[dict[str, Any]]:
    """One line per game, oldest game first: its ratings where it has them, else its scores."""
    series: dict[str, list[tuple[float, float]]] = {}
    for point in points:
        series.setdefault(point.game, []).append((point.finished_at, float(point.score)))
    return [
        {
            "label": GAME_TITLES.get(game, game),
            "colour": game_info(game).colour,
            "points": [list(point) for point in (ratings.get(game) or scores)],
        }
        for game, scores in series.items()
    ]


def history_line(game: FinishedGame, lang: str) -> str:
    """`#id` · the day (in the reader's own time zone) · the game · its players · who won; a game with a bot
    marked "with bots" (its bots by name: never a mention)."""
    players = ", ".join(shown_player(player, game.names) for player in game.players)
    if game.winners:
        won = ", ".join(shown_player(player, game.names) for player in game.winners)
        winners = t("history.winners", lang, players=won)
    else:
        winners = t("history.no_winner", lang)
    line = t(
        "history.line",
        lang,
        id=game.session_id,
        day=f"<t:{int(game.finished_at)}:d>",
        game=GAME_TITLES.get(game.game, game.game),
        players=players,
        winners=winners,
    )
    return f"{line} · {t('history.with_bots', lang)}" if any(is_bot(p) for p in game.players) else line


def history_page(
    games: list[FinishedGame], page: int, game: str, lang: str, more: bool
) -> tuple[discord.Embed, discord.ui.View | None]:
    """A page of /history: its lines, a button per game to show its final table, and the page buttons."""
    title = t("history.title", lang, game=GAME_TITLES.get(game, t("history.all_games", lang)))
    embed = discord.Embed(title=title, colour=discord.Colour.dark_teal())
    if not games:
        embed.description = t("history.empty", lang) if page == 1 else t("history.no_page", lang, page=page)
        return embed, None
    embed.description = "\n".join(history_line(finished, lang) for finished in games)
    embed.set_footer(text=t("history.footer", lang, page=page))
    items: list[discord.ui.Item[Any]] = [
        button(
            TABLE.encode(finished.session_id),
            t("history.show", lang, id=finished.session_id),
            emoji="📜",
            row=0,
        )
        for finished in games
    ]
    if page > 1:
        items.append(
            button(PAGE.encode(page=page - 1, game=game), t("history.previous", lang), emoji="◀", row=1)
        )
    if more and page < MOST_PAGES:
        items.append(button(PAGE.encode(page=page + 1, game=game), t("history.next", lang), emoji="▶", row=1))
    return embed, view_of(*items)


class Records(commands.Cog):
    """/stats and /history, posted in the channel in the server's language (else the caller's); a game's
    table shown again is the caller's alone."""

    def __init__(self, bot: TopBot) -> None:
        self.bot = bot
        components.register(HISTORY, "page", self._on_page, *PAGE.args, sessionless=True)
        components.register(HISTORY, "table", self._on_table)

    async def cog_unload(self) -> None:
        components.unregister_game(HISTORY)

    # -- /stats ------------------------------------------------------------------------------------------

    @app_commands.command(name="stats", description=command_text("stats.cmd"), extras={"public_answer": True})
    @app_commands.describe(member=command_text("stats.cmd.member"), game=command_text("general.cmd.game"))
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.guild_only()
    async def stats(
        self,
        interaction: discord.Interaction[Any],
        member: discord.Member | None = None,
        game: app_commands.Choice[str] | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        guild, who = interaction.guild_id, member or interaction.user
        user_id, name = str(who.id), game.value if game is not None else None
        lang = await answer_language(self.bot.store.guild_settings, guild, interaction.locale)
        stats = self.bot.store.stats
        embed = discord.Embed(
            title=t("stats.title", lang, player=who.display_name), colour=discord.Colour.dark_teal()
        )
        tallies = await stats.tallies(guild, user_id, name)
        with_bots: dict[str, list[BotRecord]] = {}
        for record in await stats.against_bots(guild, user_id, name):
            with_bots.setdefault(record.game, []).append(record)
        # A game played only with bots still gets its field (people's figures none).
        tallies += [
            GameTally(game, 0, 0, 0, 0, False) for game in with_bots if game not in {x.game for x in tallies}
        ]
        tallies.sort(key=lambda tally: tally.game)
        if not tallies:
            embed.description = t("stats.empty", lang, player=f"<@{user_id}>")
            await reply(interaction, embed=embed)
            return
        ratings: dict[str, list[tuple[float, float]]] = {}
        for tally in tallies:
            lines = tally_lines(tally, lang) if tally.games else []
            if tally.game in with_bots:
                lines.append(bot_record_line(with_bots[tally.game], lang))
            rated = await stats.rating_points(guild, user_id, tally.game)
            trend = rating_trend(rated) if rated is not None else None
            if trend is not None and rated is not None:
                lines.append(rating_line(trend, lang))
                ratings[tally.game] = [(point.finished_at, point.rating) for point in rated[-CHART_POINTS:]]
            cog = self._table_cog(tally.game, required=False)
            if cog is not None:
                lines += await cog.record_lines(guild, user_id, lang)
            embed.add_field(
                name=GAME_TITLES.get(tally.game, tally.game), value="\n".join(lines)[:1024], inline=False
            )
        points = await stats.score_points(guild, user_id, name, CHART_POINTS)
        png = await self.bot.pictures.draw(render_chart, chart_series(points, ratings))
        embed.set_image(url=f"attachment://{CHART_FILE}")
        chart = N_("stats.chart_rating") if ratings else N_("stats.chart_points")
        embed.set_footer(text=t(chart, lang))
        await reply(interaction, embed=embed, file=discord.File(io.BytesIO(png), filename=CHART_FILE))

    # -- /history ----------------------------------------------------------------------------------------

    @app_commands.command(
        name="history", description=command_text("history.cmd"), extras={"public_answer": True}
    )
    @app_commands.describe(game=command_text("general.cmd.game"))
    @app_commands.choices(game=GAME_CHOICES)
    @app_commands.guild_only()
    async def history(
        self, interaction: discord.Interaction[Any], game: app_commands.Choice[str] | None = None
    ) -> None:
        embed, view = await self._page(interaction, 1, game.value if game is not None else ALL_GAMES)
        if view is None:
            await reply(interaction, embed=embed)
        else:
            await reply(interaction, embed=embed, view=view)

    async def _page(
        self, interaction: discord.Interaction[Any], page: int, game: str
    ) -> tuple[discord.Embed, discord.ui.View | None]:
        assert interaction.guild_id is not None
        lang = await answer_language(self.bot.store.guild_settings, interaction.guild_id, interaction.locale)
        found = await self.bot.store.history.finished(
            interaction.guild_id,
            None if game == ALL_GAMES else game,
            offset=(page - 1) * PAGE_SIZE,
            limit=PAGE_SIZE + 1,  # one more: whether a next page exists
        )
        return history_page(found[:PAGE_SIZE], page, game, lang, more=len(found) > PAGE_SIZE)

    async def _on_page(self, click: Click) -> None:
        embed, view = await self._page(click.interaction, click.args["page"], click.args["game"])
        await update_clicked(click.interaction, embed=embed, view=view)

    async def _on_table(self, click: Click) -> None:
        """The game's final table as its own cog draws it, from the spectators' view (no rack, no hand), for
        the caller alone; with the command that exports its moves."""
        interaction = click.interaction
        lang = language_of(interaction.locale)
        record = await self.bot.sessions.session(click.session_id)
        if record.guild_id != interaction.guild_id or record.status != "finished":
            raise BadAction("history.not_here")
        cog = self._table_cog(record.game)
        view = await cog.table_view(record, None)
        events = await self.bot.store.history.last_public_events(record.id)
        table = await cog.render(record, view, events, lang)
        note = t("history.replay", lang, id=record.id)
        await reply_private(interaction, note, embed=table.embed, files=[table.file] if table.file else [])

    @overload
    def _table_cog(self, game: str) -> TableCog: ...

    @overload
    def _table_cog(self, game: str, *, required: bool) -> TableCog | None: ...

    def _table_cog(self, game: str, *, required: bool = True) -> TableCog | None:
        """The cog that draws the game's tables (None, or a refusal, where the bot no longer loads it)."""
        from bot.ui.table import TableCog

        for cog in self.bot.cogs.values():
            if isinstance(cog, TableCog) and cog.game_name == game:
                return cog
        if required:
            raise BadAction("history.no_table", game=GAME_TITLES.get(game, game))
        return None


async def setup(bot: TopBot) -> None:
    await bot.add_cog(Records(bot))
