"""The bot: opens the store, the words service and the engine, loads one cog per game, syncs commands."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
from typing import Any

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands

from bot import monitor
from bot.config import Settings
from bot.engine.sessions import ActResult, SessionManager
from bot.games import GameInfo, listed_games, loaded_games
from bot.i18n import N_, t
from bot.render.pictures import Pictures
from bot.store import SessionRecord, Shards, Store
from bot.store.shards import claim
from bot.ui.components import TableItem, dispatch_interaction
from bot.ui.replies import NO_MENTIONS, reply_error, unwrap
from bot.ui.translator import CommandTranslator
from bot.ui.tree import AnsweringTree
from bot.ui.vote import VoteService

log = logging.getLogger(__name__)

SHARED_EXTENSIONS = (
    "cogs.general",
    "cogs.settings",
    "cogs.profile",
    "cogs.leaderboard",
    "cogs.dictionary",
    "cogs.stats",
)
# Pictures of no one game (a member's chart in /stats), drawn in the same picture process.
SHARED_PICTURES = ("bot.render.stats_chart",)


def extensions(games: tuple[GameInfo, ...]) -> tuple[str, ...]:
    """The cogs a bot with these games loads: the shared ones, then one per game."""
    return (*SHARED_EXTENSIONS, *(info.extension for info in games))


def picture_modules(games: tuple[GameInfo, ...]) -> tuple[str, ...]:
    """What the picture process imports as it starts: the shared drawing modules, then the games' own."""
    return tuple(dict.fromkeys([*SHARED_PICTURES, *(module for info in games for module in info.pictures)]))


EXTENSIONS = extensions(listed_games())  # what a server gets

# What the bot needs in a channel: read it, post and edit its messages, embeds, pictures, threads.
PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
    add_reactions=True,
)

TableListener = Any  # async (ActResult) -> None, one per game cog: what an action nobody clicked did

UNREADABLE_NOTICE = N_("ui.unreadable_closed")


class GatewayUnreachable(Exception):
    """The first gateway connection failed (the cause is chained). Deliberately not an OSError or an
    aiohttp error: discord.py's reconnect loop retries those, and a first connection it retries as the
    resume of a session it never had (logging a traceback, then failing on it)."""


def invite_url(application_id: int) -> str:
    return discord.utils.oauth_url(
        application_id, permissions=PERMISSIONS, scopes=("bot", "applications.commands")
    )


class TopBot(commands.Bot):
    """The Top games bot: slash commands and buttons only, so no privileged intents are needed.

    A process that serves one shard (the default: the only shard) is a plain discord.py bot told its shard;
    one that serves several is a `ShardedTopBot`. `make_bot` picks."""

    store: Store
    sessions: SessionManager

    def __init__(self, settings: Settings, store: Store | None = None) -> None:
        # The bot never joins a voice channel: no warning at every start that voice is not supported.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        self.own_shards = Shards(settings.shard_count, settings.shard_ids)
        super().__init__(
            **self._shard_options(),
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            # Slash commands and buttons only: no message is ever read back from a cache, and a thousand
            # cached messages are tens of thousands of objects every full garbage collection walks.
            max_messages=None,
            allowed_mentions=NO_MENTIONS,
            help_command=None,
            tree_cls=AnsweringTree,
        )
        self.settings = settings
        self.game_infos = loaded_games(settings.extra_games)
        if store is not None:
            self.store = store
        self.words: Any = None
        self.table_listeners: dict[str, TableListener] = {}
        self.votes = VoteService(self)
        # Game pictures, drawn in a process of their own and kept per state.
        self.pictures = Pictures(modules=picture_modules(self.game_infos))
        self.tree.error(self._on_app_command_error)
        self._sweeper: asyncio.Task[None] | None = None
        self._warmer: asyncio.Task[None] | None = None
        self._watchdog: monitor.StallWatchdog | None = None
        self._collections: monitor.SlowCollections | None = None
        self.web: Any = None  # the web pages (bot/web), when WEB_ENABLED
        # The start-up's steps, for `python -m bot` to tell which one Discord did not answer in time.
        self.logged_in = asyncio.Event()
        self.set_up = asyncio.Event()
        self.connected = asyncio.Event()
        self._open_gateway = self.http.ws_connect
        self.http.ws_connect = self._first_gateway_or_fail  # type: ignore[method-assign]
        self._unreachable: GatewayUnreachable | None = None
        self._shards_claimed = False

    def _shard_options(self) -> dict[str, Any]:
        """discord.py's own sharding: the shard this process identifies with (none said: the only one)."""
        shards = self.own_shards
        if shards.count == 1:
            return {}
        return {"shard_id": shards.ids[0], "shard_count": shards.count}

    def _gateway_session_exists(self) -> bool:
        return self.ws is not None

    async def _first_gateway_or_fail(self, url: str, *, compress: int = 0) -> aiohttp.ClientWebSocketResponse:
        """Open a gateway socket; if the very first one fails, end the start-up (see GatewayUnreachable).
        Once a session exists, failures are discord.py's to retry."""
        try:
            return await self._open_gateway(url, compress=compress)
        except (OSError, aiohttp.ClientError) as exc:
            if not self._gateway_session_exists():
                self._unreachable = GatewayUnreachable(str(exc))
                raise self._unreachable from exc
            raise

    async def claim_shards(self) -> None:
        """Before any shard connects: the shard count must be the one the store recorded, and this process
        takes its shards' locks (ShardsRefused, one line, otherwise). Done once; `python -m bot` does it
        before logging in, so that a refused process never reaches Discord."""
        if not self._shards_claimed:
            await claim(self.store, self.own_shards)
            self._shards_claimed = True

    async def on_connect(self) -> None:
        self.connected.set()

    async def setup_hook(self) -> None:
        self.logged_in.set()  # discord.py calls this once Discord has taken the token
        monitor.share_the_interpreter()
        threshold = self.settings.stall_log_ms / 1000
        # Stalls while the bot starts are expected (INFO) until the set-up is done (`settled`).
        self._watchdog = monitor.StallWatchdog(asyncio.get_running_loop(), threshold=threshold, starting=True)
        self._watchdog.start()
        self._collections = monitor.SlowCollections(threshold, starting=True)
        self._collections.start()
        self.pictures.start()
        self.start_warming_words()
        if not hasattr(self, "store"):
            self.store = await Store.open(self.settings.database, synchronous=self.settings.synchronous)
        # Before anything of a shard is restored: another process may hold it.
        await self.claim_shards()
        games = {info.name: info.make(self.words) for info in self.game_infos}
        self.sessions = SessionManager(
            self.store,
            games,
            lobby_seconds=self.settings.lobby_minutes * 60,
            max_games_per_guild=self.settings.max_games_per_server,
            shards=self.own_shards,
        )
        self.sessions.listeners.append(self._on_session_events)
        self.add_dynamic_items(TableItem)
        self.add_listener(dispatch_interaction, "on_interaction")
        for extension in extensions(self.game_infos):
            await self.load_extension(extension)
        await self.tree.set_translator(CommandTranslator())
        # Restore after the cogs are loaded, so that a timer already due finds its cog to update the table.
        await self.sessions.start()
        await self.votes.start()
        self._sweeper = asyncio.create_task(self._sweep_idle_sessions())
        if self.settings.web_enabled:
            await self._serve_web_pages()
        await self.sync_commands()
        assert self._warmer is not None  # started at the top of this method
        try:
            await self._warmer
        except Exception:
            log.exception("loading the dictionaries failed; each loads on first use instead")
        if self.application_id:
            log.info("invite the bot with: %s", invite_url(self.application_id))
        self._watchdog.settled()
        self._collections.settled()
        self.set_up.set()

    async def _serve_web_pages(self) -> None:
        """The servers' web pages, on their own read-only connection to the database. A port the bot cannot
        listen on is logged, and the bot runs without them: the games never depend on the pages."""
        from bot.web import WebServer
        from bot.web.tables import BotTables

        web = await WebServer.open(
            self.settings.database,
            BotTables(self),
            host=self.settings.web_host,
            port=self.settings.web_port,
            default_language=self.settings.default_language,
            rate_limit=self.settings.web_rate_limit,
        )
        try:
            await web.start()
        except OSError as exc:  # the port is taken, the address is not this machine's: the games go on
            log.error(
                "web pages not served: cannot listen on %s:%d (%s)",
                self.settings.web_host,
                self.settings.web_port,
                exc.strerror or exc,
            )
            await web.close()
            return
        self.web = web

    async def sync_commands(self) -> bool:
        """Sync the command tree only when it changed since the last sync (Discord allows 200 creates a day).
        Only the process that serves shard 0 syncs: the commands are the bot's, whatever the shard."""
        if not self.own_shards.holds_first:
            log.info("command tree synced by the process of shard 0; not syncing")
            return False
        guild = discord.Object(id=self.settings.dev_guild_id) if self.settings.dev_guild_id else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        translator = self.tree.translator
        # The translated payload, so that a changed translation is synced too.
        payload = [
            await command.get_translated_payload(self.tree, translator)
            if translator is not None
            else command.to_dict(self.tree)
            for command in self.tree.get_commands(guild=guild)
        ]
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        key = f"command_tree_hash:{guild.id if guild else 'global'}"
        if await self.store.meta.get(key) == digest:
            log.info("command tree unchanged; not syncing")
            return False
        synced = await self.tree.sync(guild=guild)
        async with self.store.transaction() as tx:
            await self.store.meta.set(tx, key, digest)
        log.info("synced %d command(s) %s", len(synced), f"to guild {guild.id}" if guild else "globally")
        return True

    async def _on_session_events(self, result: ActResult) -> None:
        record = result.session
        if any(event.get("type") == "unreadable" for event in result.events):
            await self._tell_unreadable(record)
            return
        listener = self.table_listeners.get(record.game)
        if listener is not None:
            await listener(result)

    async def _tell_unreadable(self, record: SessionRecord) -> None:
        """A stored game that cannot be read was closed: its channel hears why, instead of silence."""
        channel = self.get_channel(record.channel_id)
        if not isinstance(channel, discord.abc.Messageable):
            return
        from bot.ui.table import TableCog

        cog = next(
            (c for c in self.cogs.values() if isinstance(c, TableCog) and c.game_name == record.game), None
        )
        # The header holds no options; the game's language option is read if that column still is.
        record.options = await self._readable_options(record.id)
        if cog is not None:
            language, command = await cog.table_lang(record), f"/{cog.group.name} new"
        else:
            language = await self.store.guild_settings.language(
                record.guild_id, self.settings.default_language
            )
            command = f"/{record.game} new"
        with contextlib.suppress(discord.HTTPException):
            await channel.send(t(UNREADABLE_NOTICE, language, command=command))

    async def _readable_options(self, session_id: int) -> dict[str, Any]:
        """A session's options, or {} when they are what cannot be read."""
        row = await self.store.db.fetch_one("SELECT options FROM sessions WHERE id = ?", (session_id,))
        try:
            options = json.loads(row["options"]) if row is not None else {}
        except (ValueError, TypeError):
            return {}
        return options if isinstance(options, dict) else {}

    async def _on_app_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        await reply_error(interaction, unwrap(error))

    def start_warming_words(self) -> None:
        """The words service, its dictionaries loading in threads from now on (once): beside the store's
        opening, Discord's login and the sessions' restore. The bot goes online only once they are loaded:
        loading them while players played stalled the event loop for 20–70 ms at a time."""
        if self._warmer is not None:
            return
        from bot.words import WordService

        self.words = WordService()
        self.words.import_libraries()
        self._warmer = asyncio.create_task(self._warm_words())

    async def _warm_words(self) -> None:
        """Open the precomputed word tables, then load every dictionary and lemmatizer, in a thread now,
        not on the event loop at a round's end."""
        started = time.perf_counter()
        for language in self.words.languages:
            if await asyncio.to_thread(self.words.table, language) is None:
                log.warning(
                    "no word table for %s: run `python -m bot.words build` (words are slower)", language
                )
        log.info("word tables open in %.2f s", time.perf_counter() - started)
        # Everything loaded now lives as long as the bot: no collection walks it, during the load or after.
        with monitor.loading_long_lived():
            for language in self.words.languages:
                started = time.perf_counter()
                await asyncio.to_thread(self.words.warm, language)
                log.info("words for %s ready in %.1f s", language, time.perf_counter() - started)
            for info in self.game_infos:  # what a game reads from them once (its bots' lexicon)
                if info.warm is not None:
                    started = time.perf_counter()
                    await asyncio.to_thread(info.warm, self.words)
                    log.info("%s ready in %.1f s", info.name, time.perf_counter() - started)

    async def _sweep_idle_sessions(self) -> None:
        while True:
            await asyncio.sleep(60)
            self.sessions.evict_idle()

    async def close(self) -> None:
        """Stop timers, let writes under way finish, close Discord, then the database."""
        for task in (self._sweeper, self._warmer):
            if task is not None:
                task.cancel()
        if self._watchdog is not None:
            self._watchdog.stop()
        if self._collections is not None:
            self._collections.stop()
        if self.web is not None:
            await self.web.close()
        await self.votes.close_all()
        if hasattr(self, "sessions"):
            await self.sessions.close()
        await super().close()
        await asyncio.to_thread(self.pictures.close)
        if hasattr(self, "store"):
            with contextlib.suppress(Exception):
                await self.store.close()


class _FirstGatewayFailure(logging.Filter):
    """discord.py logs a shard that failed to connect with its traceback before retrying it; a very first
    connection that failed is told in one line instead (GatewayUnreachable, see ShardedTopBot)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], GatewayUnreachable))


logging.getLogger("discord.shard").addFilter(_FirstGatewayFailure())


class ShardedTopBot(TopBot, commands.AutoShardedBot):
    """A process that serves several shards: discord.py's AutoShardedBot, one gateway session per shard."""

    def _shard_options(self) -> dict[str, Any]:
        return {"shard_ids": list(self.own_shards.ids), "shard_count": self.own_shards.count}

    def _gateway_session_exists(self) -> bool:
        return bool(self.shards)

    async def launch_shard(self, gateway: Any, shard_id: int, *, initial: bool = False) -> None:
        # discord.py retries a shard that failed to connect for ever: a very first connection that failed
        # (GatewayUnreachable) ends the start-up instead, at the retry.
        if self._unreachable is not None:
            raise self._unreachable
        await super().launch_shard(gateway, shard_id, initial=initial)


def make_bot(settings: Settings, store: Store | None = None) -> TopBot:
    """The bot for these settings: one that serves several shards is an AutoShardedBot."""
    kind = ShardedTopBot if len(settings.shard_ids) > 1 else TopBot
    return kind(settings, store)
