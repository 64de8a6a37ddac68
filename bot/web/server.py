"""The web pages: an aiohttp application the bot serves from its own process (bot/app.py starts and stops
it when WEB_ENABLED is on). See docs/architecture.md, "Web pages".

A server's pages live under `/s/<token>/`, the link token its admins made with `/settings web`; any other
token, an old one included, is the same 404 as an unknown path. Only GET and HEAD are answered (405
otherwise), each client address within its rate (429 with Retry-After), every answer with a strict content
security policy. The pages read through their own read-only connection (bot/web/reads.py)."""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from aiohttp import web
from babel.dates import format_datetime
from babel.numbers import format_decimal
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from bot.engine.bots import is_bot
from bot.games import GAME_TITLES, every_game, game_info
from bot.i18n import LANGUAGES, t
from bot.records import EVERY_GAME, ORDER_NAMES, PERIOD_NAMES, bot_record_line, rating_trend
from bot.store.repositories import BOARD_ORDERS, PERIOD_SECONDS, Board, BotRecord, Standing, is_anonymous
from bot.web.chart import Series, rating_chart
from bot.web.markup import to_html
from bot.web.ratelimit import RateLimit
from bot.web.reads import FinishedSession, WebReads
from bot.web.replay import ReplayCache, Step, replay_steps
from bot.web.tables import Tables
from bot.web.texts import labels

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
STYLESHEET = (HERE / "static" / "site.css").read_bytes()
TOKEN = r"[A-Za-z0-9_-]{16,64}"  # what secrets.token_urlsafe gives
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none';"
    " base-uri 'none'; form-action 'self'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
READING = ("GET", "HEAD")
PAGE_SIZE = 10
GAMES_PAGE_SIZE = 20
MOST_PAGES = 10_000
CHART_POINTS = 100

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class Server:
    """The server a request's token opened, and the reader's language."""

    guild_id: int
    token: str
    lang: str
    chosen_lang: str | None  # `?lang=` when the reader chose one: links keep it

    def link(self, path: str = "", **query: Any) -> str:
        wanted = {key: value for key, value in query.items() if value is not None}
        if self.chosen_lang is not None:
            wanted["lang"] = self.chosen_lang
        return f"/s/{self.token}/{path}" + (f"?{urlencode(wanted)}" if wanted else "")


def number(value: float, lang: str, decimals: bool = False) -> str:
    """A figure as the reader's language writes it: 1,234 · 1 234 · 1.234."""
    return str(format_decimal(value, format="#,##0.0" if decimals else "#,##0", locale=lang))


def moment(at: float, lang: str) -> str:
    return str(format_datetime(datetime.fromtimestamp(at, UTC), format="medium", locale=lang, tzinfo=UTC))


def whole_number(raw: str | None, default: int, most: int) -> int:
    """A page or step number from the query; anything else is the default."""
    if raw is None or not raw.isdigit() or len(raw) > 9:
        return default
    return min(int(raw), most)


class WebPages:
    """The application and what its handlers share: the read-only store, the bot's tables, the limits."""

    def __init__(
        self,
        reads: WebReads,
        tables: Tables,
        *,
        default_language: str = "en",
        rate_limit: int = 60,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.reads = reads
        self.tables = tables
        self.default_language = default_language
        self.limit = RateLimit(rate_limit)
        self.clock = clock
        self.replays = ReplayCache()
        self.templates = Environment(
            loader=FileSystemLoader(HERE / "templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
            trim_blocks=True,
            lstrip_blocks=True,
        )

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard])
        app.router.add_get("/site.css", self.stylesheet)
        app.router.add_get(r"/s/{token:" + TOKEN + "}/", self.leaderboard)
        app.router.add_get(r"/s/{token:" + TOKEN + r"}/player/{user:[0-9A-Za-z_-]{1,40}}", self.player)
        app.router.add_get(r"/s/{token:" + TOKEN + "}/games", self.games)
        app.router.add_get(r"/s/{token:" + TOKEN + r"}/games/{session:[1-9][0-9]{0,17}}", self.replay)
        app.router.add_get(
            r"/s/{token:" + TOKEN + r"}/games/{session:[1-9][0-9]{0,17}}/{step:[0-9]{1,6}}.png", self.picture
        )
        return app

    # -- every request --------------------------------------------------------------------------------

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Rate, method and headers for every answer, errors included; one 404 for whatever is not found."""
        wait = self.limit.take(request.remote or "")
        response: web.StreamResponse
        if wait:
            response = web.Response(
                status=429,
                text=t("web.too_many", self._lang(request)),
                headers={"Retry-After": RateLimit.retry_after(wait)},
            )
        elif request.method not in READING:
            response = web.Response(
                status=405,
                text=t("web.read_only", self._lang(request)),
                headers={"Allow": ", ".join(READING)},
            )
        else:
            try:
                response = await handler(request)
            except web.HTTPNotFound:
                response = self._not_found(request)
            except web.HTTPMethodNotAllowed:
                response = web.Response(status=405, headers={"Allow": ", ".join(READING)})
        response.headers.update(SECURITY_HEADERS)
        response.headers.setdefault("Cache-Control", "no-store")
        return response

    def _lang(self, request: web.Request) -> str:
        chosen = request.query.get("lang")
        return chosen if chosen in LANGUAGES else self.default_language

    def _not_found(self, request: web.Request) -> web.Response:
        lang = self._lang(request)
        html = self.templates.get_template("not_found.html").render(
            lang=lang, text=labels(lang), server=None, title=t("web.not_found.title", lang)
        )
        return web.Response(status=404, text=html, content_type="text/html")

    async def _server(self, request: web.Request) -> Server:
        """The server the token opens; 404 when none does."""
        token = request.match_info["token"]
        guild_id = await self.reads.guild_of_token(token)
        if guild_id is None:
            raise web.HTTPNotFound()
        chosen = request.query.get("lang")
        if chosen in LANGUAGES:
            return Server(guild_id, token, chosen, chosen)
        lang = await self.reads.guild_settings.language(guild_id, self.default_language)
        return Server(guild_id, token, lang, None)

    def _page(self, template: str, server: Server, **context: Any) -> web.Response:
        lang = server.lang
        switch = {code: server_link_in(server, code) for code in LANGUAGES}
        html = self.templates.get_template(template).render(
            lang=lang, text=labels(lang), server=server, languages=switch, **context
        )
        return web.Response(text=html, content_type="text/html")

    async def stylesheet(self, request: web.Request) -> web.Response:
        return web.Response(body=STYLESHEET, content_type="text/css")

    # -- the leaderboard ------------------------------------------------------------------------------

    async def leaderboard(self, request: web.Request) -> web.Response:
        server = await self._server(request)
        lang, query = server.lang, request.query
        game = query.get("game") if query.get("game") in GAME_TITLES else None
        period = query.get("period") if query.get("period") in PERIOD_SECONDS else "all"
        by = query.get("by") if query.get("by") in BOARD_ORDERS and game is not None else "wins"
        assert period is not None and by is not None
        page = max(1, whole_number(query.get("page"), 1, MOST_PAGES))
        seconds = PERIOD_SECONDS[period]
        since = None if seconds is None else self.clock() - seconds
        board = await self.reads.leaderboards.board(
            server.guild_id, game, by=by, since=since, offset=(page - 1) * PAGE_SIZE, limit=PAGE_SIZE
        )
        pages = max(1, math.ceil(board.entries / PAGE_SIZE))
        names = await self.reads.names(server.guild_id, [row.user_id for row in board.rows])
        rows = [
            standing_cells(row, board, by, game, lang) | {"name": shown_name(names, row.user_id, lang)}
            for row in board.rows
        ]
        for row, standing in zip(rows, board.rows, strict=True):
            row["link"] = server.link(f"player/{standing.user_id}")

        def page_link(number: int) -> str:
            return server.link("", game=game, period=period, by=by, page=number)

        return self._page(
            "leaderboard.html",
            server,
            title=t(
                "general.leaderboard.title",
                lang,
                game=GAME_TITLES[game] if game else t("general.leaderboard.every_game", lang),
            ),
            rows=rows,
            columns=board_columns(by, game, board),
            games=[(info.name, info.title) for info in every_game() if info.listed],
            game=game or EVERY_GAME,
            period=period,
            by=by,
            periods=[(name, t(key, lang)) for name, key in PERIOD_NAMES.items()],
            orders=[(name, t(key, lang)) for name, key in ORDER_NAMES.items()],
            fewer_better=by == "points" and board.lower_is_better and not board.team,
            page_text=t("web.page", lang, page=number(page, lang), pages=number(pages, lang)),
            previous=page_link(page - 1) if page > 1 else None,
            next=page_link(page + 1) if page < pages else None,
        )

    # -- a player's statistics ------------------------------------------------------------------------

    async def player(self, request: web.Request) -> web.Response:
        server = await self._server(request)
        lang, user_id = server.lang, request.match_info["user"]
        tallies = await self.reads.stats.tallies(server.guild_id, user_id)
        against = await self.reads.stats.against_bots(server.guild_id, user_id)
        if not tallies and not against:
            raise web.HTTPNotFound()
        with_bots: dict[str, list[BotRecord]] = {}
        for record in against:
            with_bots.setdefault(record.game, []).append(record)
        bot_lines = [
            f"{GAME_TITLES.get(game, game)}: {bot_record_line(records, lang)}"
            for game, records in with_bots.items()
        ]
        name = shown_name(await self.reads.names(server.guild_id, [user_id]), user_id, lang)
        games, series = [], []
        for tally in tallies:
            rated = await self.reads.stats.rating_points(server.guild_id, user_id, tally.game)
            trend = rating_trend(rated) if rated is not None else None
            games.append(
                {
                    "title": GAME_TITLES.get(tally.game, tally.game),
                    "games": number(tally.games, lang),
                    "wins": number(tally.wins, lang),
                    "total": number(tally.total, lang),
                    "best": number(tally.best, lang),
                    "average": number(round(tally.average, 1), lang, decimals=True),
                    "rating": number(round(trend.rating, 1), lang, decimals=True) if trend else "",
                    "trend": signed(trend.change, lang) if trend and trend.change is not None else "",
                }
            )
            if rated is not None:
                points = [(point.finished_at, point.rating) for point in rated[-CHART_POINTS:]]
                series.append(Series(GAME_TITLES.get(tally.game, tally.game), colour_of(tally.game), points))
        chart_title = t("web.stats.chart", lang)
        return self._page(
            "player.html",
            server,
            title=t("web.stats.title", lang, player=name),
            games=games,
            with_bots=bot_lines,
            chart=rating_chart(series, lang, chart_title),
            legend=[(line.label, f"#{line.colour & 0xFFFFFF:06x}") for line in series],
        )

    # -- the server's recent games --------------------------------------------------------------------

    async def games(self, request: web.Request) -> web.Response:
        server = await self._server(request)
        lang = server.lang
        game = request.query.get("game") if request.query.get("game") in GAME_TITLES else None
        page = max(1, whole_number(request.query.get("page"), 1, MOST_PAGES))
        found = await self.reads.history.finished(
            server.guild_id, game, offset=(page - 1) * GAMES_PAGE_SIZE, limit=GAMES_PAGE_SIZE + 1
        )
        shown = found[:GAMES_PAGE_SIZE]
        rows = [
            {
                "id": number(finished.session_id, lang),
                "link": server.link(f"games/{finished.session_id}"),
                "game": GAME_TITLES.get(finished.game, finished.game)
                + (f" · {t('history.with_bots', lang)}" if any(is_bot(p) for p in finished.players) else ""),
                "finished": moment(finished.finished_at, lang),
                "players": [finished.names.get(player, player) for player in finished.players],
                "winners": [finished.names.get(player, player) for player in finished.winners],
            }
            for finished in shown
        ]
        return self._page(
            "games.html",
            server,
            title=t("web.games.title", lang),
            rows=rows,
            previous=server.link("games", game=game, page=page - 1) if page > 1 else None,
            next=server.link("games", game=game, page=page + 1) if len(found) > GAMES_PAGE_SIZE else None,
        )

    # -- a finished game, step by step ----------------------------------------------------------------

    async def _steps(self, server: Server, request: web.Request) -> tuple[FinishedSession, list[Step]]:
        session_id = int(request.match_info["session"])
        finished = await self.reads.finished_session(server.guild_id, session_id)
        if finished is None:
            raise web.HTTPNotFound()
        steps = self.replays.get(session_id)
        if steps is None:
            rules = self.tables.rules(finished.record.game)
            if rules is None:
                raise web.HTTPNotFound()
            # The rules replay the whole log (a dictionary judges Top Stop's lists): off the event loop.
            steps = await asyncio.to_thread(replay_steps, rules, finished.record, finished.actions)
            self.replays.put(session_id, steps)
        return finished, steps

    async def _drawn(self, finished: FinishedSession, step: Step, lang: str) -> Any:
        drawer = self.tables.drawer(finished.record.game)
        if drawer is None:
            raise web.HTTPNotFound()
        view = {**step.view, "deadlines": {}}  # a finished game runs on no clock
        return await drawer.render(finished.record, view, step.events, lang)

    async def replay(self, request: web.Request) -> web.Response:
        server = await self._server(request)
        lang = server.lang
        finished, steps = await self._steps(server, request)
        last = len(steps) - 1
        index = whole_number(request.query.get("step"), last, last)
        step = steps[index]
        table = await self._drawn(finished, step, lang)
        record = finished.record
        names = {player: record.name(player) for player in record.players}
        embed = table.embed

        def html(text: str | None) -> Markup:
            return to_html(text or "", names, lang, now=self.clock())

        def step_link(number: int) -> str:
            return server.link(f"games/{record.id}", step=number)

        game_title = GAME_TITLES.get(record.game, record.game)
        if step.player is not None:
            actor = t("web.replay.by", lang, player=record.name(step.player))
        else:
            actor = t("web.replay.start" if index == 0 else "web.replay.system", lang)
        return self._page(
            "replay.html",
            server,
            title=t("web.replay.title", lang, game=game_title, id=number(record.id, lang)),
            step_text=t("web.replay.step", lang, step=number(index, lang), steps=number(last, lang)),
            actor=actor,
            when=moment(step.at, lang),
            embed_title=html(embed.title),
            description=html(embed.description),
            fields=[(html(field.name), html(field.value)) for field in embed.fields],
            footer=html(embed.footer.text) if embed.footer and embed.footer.text else None,
            picture=server.link(f"games/{record.id}/{index}.png") if table.file is not None else None,
            picture_text=getattr(table.file, "description", None) or game_title,
            first=step_link(0) if index > 0 else None,
            previous=step_link(index - 1) if index > 0 else None,
            next=step_link(index + 1) if index < last else None,
            last=step_link(last) if index < last else None,
        )

    async def picture(self, request: web.Request) -> web.Response:
        server = await self._server(request)
        finished, steps = await self._steps(server, request)
        index = int(request.match_info["step"])
        if index >= len(steps):
            raise web.HTTPNotFound()
        table = await self._drawn(finished, steps[index], server.lang)
        if table.file is None:
            raise web.HTTPNotFound()
        table.file.fp.seek(0)
        return web.Response(body=table.file.fp.read(), content_type="image/png")


def shown_name(names: dict[str, str], user_id: str, lang: str) -> str:
    """A player's name; a player who made their results anonymous (/profile) is said to be one."""
    return t("web.anonymous", lang) if is_anonymous(user_id) else names.get(user_id, user_id)


def server_link_in(server: Server, lang: str) -> str:
    """This server's leaderboard in another language (the language switch)."""
    return f"/s/{server.token}/?{urlencode({'lang': lang})}"


def signed(value: float, lang: str) -> str:
    shown = number(round(value, 1), lang, decimals=True)
    return f"+{shown}" if value > 0 else shown


def colour_of(game: str) -> int:
    try:
        return game_info(game).colour
    except KeyError:
        return 0x888888


def board_columns(by: str, game: str | None, board: Board) -> list[str]:
    """The leaderboard's columns after the place and the player, by what it ranks."""
    if by == "rating":
        return ["rating", "games"]
    if by == "points":
        return ["team_average" if board.team else "average", "wins", "games"]
    return ["wins", "games"] if game is None else ["wins", "games", "best"]


def standing_cells(row: Standing, board: Board, by: str, game: str | None, lang: str) -> dict[str, Any]:
    cells = {
        "position": number(row.position, lang),
        "games": number(row.games, lang),
        "wins": number(row.wins, lang),
        "best": number(row.best, lang) if row.best is not None else "",
        "rating": number(round(row.rating, 1), lang, decimals=True) if row.rating is not None else "",
    }
    average = number(round(row.average, 1), lang, decimals=True) if row.average is not None else ""
    cells["average"] = cells["team_average"] = average
    return cells


class WebServer:
    """The pages served on a host and port, with their read-only connection: started and stopped with the
    bot."""

    def __init__(self, pages: WebPages, host: str, port: int) -> None:
        self.pages = pages
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    @classmethod
    async def open(
        cls, database_path: str | Path, tables: Tables, *, host: str, port: int, **options: Any
    ) -> WebServer:
        reads = await WebReads.open(database_path)
        return cls(WebPages(reads, tables, **options), host, port)

    async def start(self) -> None:
        self._runner = web.AppRunner(self.pages.app(), access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        log.info("web pages served on %s:%d", self.host, self.port)

    @property
    def port_bound(self) -> int:
        """The port actually listened on (the configured one, or the system's pick for 0)."""
        if self._runner is None or not self._runner.addresses:
            return self.port
        return int(self._runner.addresses[0][1])

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        await self.pages.reads.close()
