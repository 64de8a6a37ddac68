"""A small Discord of our own on 127.0.0.1: REST routes, the gateway, and every request checked.

The bot talks to it over real sockets with an unmodified discord.py. Each JSON body is validated
against Discord's OpenAPI spec (when the file is there) and against the limits the spec cannot
express; interaction rules (3-second deadline, single acknowledgement, 15-minute tokens) are enforced.
Anything wrong is answered the way Discord answers it *and* recorded in `violations`, which the
fixtures assert empty at teardown.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import copy
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import yarl
from aiohttp import web

from . import limits
from .gateway import FakeGateway
from .objects import (
    ALL_PERMISSIONS,
    ATTACH_FILES,
    BOT_PERMISSIONS,
    EPHEMERAL,
    LOADING,
    SEND_MESSAGES,
    Clock,
    FakeUser,
    Snowflakes,
    category_channel,
    everyone_role,
    pinged_user_ids,
    pings_everyone,
    stored_components,
    stored_embeds,
    text_channel,
)
from .spec import OpenApiSpec, Problem, discord_errors

log = logging.getLogger(__name__)

API_PREFIX = "/api/v10"
DEFAULT_TOKEN = "MTAwMDAwMDAwMDAwMDAwMDAw.fake.e2e-token-not-a-real-secret"
DEFAULT_USERS = ("alice", "bob", "carol", "dave", "erin")
# The second guild (on shard 1 of two, and on the shard after the first's for any count) and its channels.
SECOND_GUILD_NAME = "Second table"
SECOND_CHANNELS = ("general-2", "games-2")
ANSWER_DEADLINE = 3.0  # seconds to answer or defer an interaction
TOKEN_LIFETIME = 15 * 60.0  # seconds an interaction token accepts follow-ups and edits
POLL_INTERVAL = 0.05  # seconds between re-checks of a wait_until() predicate
GLOBAL_RATE = 50  # requests per second for a bot, interaction routes excluded
# Per-route limits (Discord announces them in X-RateLimit-* headers; a client must not hard-code them):
# a channel's messages (each of create, edit, delete: 5 per 5 s) and an interaction token's webhook.
CHANNEL_MESSAGE_RATE = (5, 5.0)
WEBHOOK_RATE = (5, 2.0)
# The same limits over a tenth of the windows, for tests whose bot draws every change at once (conftest.py's
# `no_pace`): the bot still reads the headers and waits them out, but a test never waits seconds for them.
QUICK_CHANNEL_MESSAGE_RATE = (5, 0.5)
QUICK_WEBHOOK_RATE = (5, 0.2)
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024

# Which callback types an interaction type accepts (4/5 reply, 6/7 update, 8 choices, 9 modal).
_CALLBACKS_FOR = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}

T = TypeVar("T")
# Where the middleware leaves the parsed body and uploaded files for the route handlers.
BODY: web.RequestKey[Any] = web.RequestKey("body", Any)
UPLOADS: web.RequestKey[list[Upload]] = web.RequestKey("uploads", list)


@dataclass
class Violation:
    """Something the bot did that real Discord would refuse or that breaks a documented rule."""

    kind: str
    method: str
    path: str
    detail: str
    body: Any = None

    def __str__(self) -> str:
        return f"[{self.kind}] {self.method} {self.path}: {self.detail}"


@dataclass
class Upload:
    """A file part of a multipart request (files[n])."""

    index: int
    filename: str
    content_type: str
    data: bytes


@dataclass
class RequestRecord:
    method: str
    path: str
    operation: str
    body: Any
    query: dict[str, str]
    status: int = 0


@dataclass
class InteractionRecord:
    """An interaction the driver sent and everything the bot did with its token."""

    id: int
    token: str
    type: int
    user: FakeUser
    channel_id: int
    created: float
    data: dict[str, Any]
    message_id: int | None = None  # the message a component sat on
    callback_type: int | None = None
    callback_body: Any = None
    original_message_id: int | None = None
    modal: dict[str, Any] | None = None
    choices: list[dict[str, Any]] | None = None
    followup_ids: list[int] = field(default_factory=list)
    completed: bool = False  # a deferral was followed by an edit or a follow-up
    trigger: InteractionRecord | None = None  # for a modal submission: the interaction that opened it
    answered_after: float | None = None  # seconds from INTERACTION_CREATE to the bot's first callback

    @property
    def acknowledged(self) -> bool:
        return self.callback_type is not None


class DiscordError(Exception):
    """An error answer shaped like Discord's; `kind` set means it is also a violation (told by `detail`)."""

    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        *,
        kind: str | None = None,
        errors: dict[str, Any] | None = None,
        detail: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.kind, self.errors, self.detail = kind, errors, detail or message
        self.extra: dict[str, Any] = {}

    def payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code, **self.extra}
        if self.errors is not None:
            body["errors"] = self.errors
        return body


def _refuse_empty(message: dict[str, Any], uploads: list[Upload] | None = None) -> None:
    """Discord refuses to send — or to leave after an edit — a message with nothing to show."""
    shown = ("content", "embeds", "components", "attachments", "sticker_ids", "poll")
    if not uploads and not any(message.get(key) for key in shown):
        raise DiscordError(400, 50006, "Cannot send an empty message", kind="empty-message")


@dataclass
class RateBucket:
    """One of Discord's per-route rate limits: `limit` requests per window of `period` seconds, the window
    starting with its first request."""

    name: str
    limit: int
    period: float
    reset_at: float = 0.0
    used: int = 0

    def take(self, now: float) -> float | None:
        """Counts a request; the seconds to wait when the bucket is empty (the request is refused)."""
        if now >= self.reset_at:
            self.reset_at, self.used = now + self.period, 0
        if self.used >= self.limit:
            return self.reset_at - now
        self.used += 1
        return None

    def headers(self, now: float, wall: float) -> dict[str, str]:
        reset_after = max(0.0, self.reset_at - now)
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(max(0, self.limit - self.used)),
            "X-RateLimit-Reset": f"{wall + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": self.name,
        }


def json_response(data: Any, status: int = 200) -> web.Response:
    # discord.py parses JSON only when Content-Type is exactly application/json (no charset).
    return web.Response(
        status=status, body=json.dumps(data).encode(), headers={"Content-Type": "application/json"}
    )


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class FakeDiscord:
    """The fake: two guilds with channels and members, the bot's application, and its state.

    The first guild ("Games table": general, games) is the one the tests play in; the second ("Second
    table": general-2, games-2) is on the next shard, for tests of a sharded bot: with two shards, the first
    guild is on shard 0 and the second on shard 1. Every member is in both.
    """

    def __init__(
        self,
        spec: OpenApiSpec | None,
        *,
        token: str = DEFAULT_TOKEN,
        heartbeat_interval: float = 41.25,
        user_names: tuple[str, ...] = DEFAULT_USERS,
        shards: int = 1,
        message_rate: tuple[int, float] = CHANNEL_MESSAGE_RATE,
        webhook_rate: tuple[int, float] = WEBHOOK_RATE,
        extra_channels: tuple[str, ...] = (),
    ) -> None:
        self.spec = spec
        self.message_rate = message_rate  # (requests, seconds) of a channel's message create, edit, delete
        self.webhook_rate = webhook_rate  # (requests, seconds) of an interaction token's webhook
        self.recommended_shards = shards  # what GET /gateway/bot recommends
        self.token = token
        self.clock = Clock()
        self.ids = Snowflakes(self.clock)
        self.gateway = FakeGateway(self, heartbeat_interval=heartbeat_interval)
        self.application_id = self.ids.next()
        self.bot_user = FakeUser(self.application_id, "topbot", bot=True, permissions=BOT_PERMISSIONS)
        self.owner = FakeUser(self.ids.next(), "dev", permissions=ALL_PERMISSIONS)
        # The first guild on shard 0 of two, the second on the next shard (1 of two; another for any count).
        self.guild_id = self.ids.next()
        if (self.guild_id >> 22) % 2:
            self.guild_id = self.ids.next_on_the_next_shard(self.guild_id)
        self.second_guild_id = self.ids.next_on_the_next_shard(self.guild_id)
        self.guild_names = {self.guild_id: "Games table", self.second_guild_id: SECOND_GUILD_NAME}
        self.categories = {guild: self.ids.next() for guild in self.guild_names}
        self.category_id = self.categories[self.guild_id]
        self.channels: dict[int, dict[str, Any]] = {}
        first = ("general", "games", *extra_channels)  # more tables in the first guild (a load benchmark's)
        for guild, names in ((self.guild_id, first), (self.second_guild_id, SECOND_CHANNELS)):
            for position, name in enumerate(names):
                channel_id = self.ids.next()
                self.channels[channel_id] = text_channel(
                    channel_id, guild, name, position, self.categories[guild]
                )
        self.users: dict[int, FakeUser] = {}
        for user in (self.bot_user, self.owner):
            self._add_user(user)
        for name in user_names:
            self._add_user(FakeUser(self.ids.next(), name))
        self.messages: dict[int, dict[str, Any]] = {}  # every message ever made, by id
        self.channel_log: dict[int, list[int]] = {c: [] for c in self.channels}
        self.ephemeral_log: dict[int, list[int]] = collections.defaultdict(list)  # user id → message ids
        self.deleted: set[int] = set()
        self.pings: dict[int, list[int]] = {}  # message id → user ids it notifies
        self.files: dict[int, Upload] = {}  # attachment id → uploaded file
        self.interactions: dict[int, InteractionRecord] = {}
        self.tokens: dict[str, InteractionRecord] = {}
        self.modals: dict[int, InteractionRecord] = {}  # user id → interaction whose answer opened a modal
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.command_syncs = 0
        self.requests: list[RequestRecord] = []
        self.violations: list[Violation] = []
        self.diagnostics: list[Callable[[], str]] = []  # extra text for timeout messages (bot logs)
        self._changed = asyncio.Event()
        self._in_flight = 0
        self._last_activity = 0.0
        # The same by channel (an interaction's webhook counts for its channel): a settle on one table while
        # bots play on at others, whose requests never stop.
        self._in_flight_in: collections.Counter[int] = collections.Counter()
        self._last_activity_in: dict[int, float] = {}
        # Work an in-process bot reports as under way (e.g. a table redraw rendering its picture):
        # settle() waits for it too, since a render in a thread may outlast the quiet window.
        self.busy_checks: list[Callable[[], bool]] = []
        self._recent: collections.deque[float] = collections.deque()
        self.buckets: dict[tuple[str, str], RateBucket] = {}
        self.rate_limited: list[tuple[str, str]] = []  # (method, path) of every 429 given, for tests
        self._runner: web.AppRunner | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.port = 0

    # -- lifecycle ---------------------------------------------------------------------------------

    async def start(self) -> None:
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        self._add_routes(app.router)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None and server.sockets  # type: ignore[attr-defined]
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        log.info(
            "fake Discord listening on %s (guild %s, application %s)",
            self.origin,
            self.guild_id,
            self.application_id,
        )

    async def close(self) -> None:
        await self.gateway.close_all()
        for task in list(self._tasks):
            task.cancel()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        """The value for discord.http.Route.BASE."""
        return self.origin + API_PREFIX

    @property
    def gateway_url(self) -> yarl.URL:
        """The value for discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY."""
        return yarl.URL(f"ws://127.0.0.1:{self.port}/gateway")

    # -- bookkeeping -------------------------------------------------------------------------------

    def violation(self, kind: str, method: str, path: str, detail: str, body: Any = None) -> None:
        found = Violation(kind, method, path, detail, body)
        log.warning("fake Discord violation: %s", found)
        self.violations.append(found)
        self.changed()

    def take_violations(self) -> list[Violation]:
        """Returns and forgets the violations, for tests that provoke them on purpose."""
        found, self.violations = self.violations, []
        return found

    def changed(self) -> None:
        """Wakes everything waiting in wait_until()."""
        self._changed.set()
        self._changed = asyncio.Event()

    def describe_recent(self, count: int = 10) -> str:
        lines = [f"  {r.method} {r.path} → {r.status}" for r in self.requests[-count:]]
        text = "\nlast requests the fake saw:\n" + ("\n".join(lines) or "  (none)")
        if self.violations:
            text += "\nviolations so far:\n" + "\n".join(f"  {v}" for v in self.violations)
        for hook in self.diagnostics:
            text += "\n" + hook()
        return text

    async def wait_until(self, predicate: Callable[[], T], *, within: float, what: str) -> T:
        """Waits until predicate() is truthy (re-checked after each change); fails clearly when time runs out."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        while True:
            event = self._changed
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(
                    f"timed out after {within:.1f}s waiting for {what}" + self.describe_recent()
                )
            # Re-check now and then too: a predicate may read the in-process bot's state.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(remaining, POLL_INTERVAL)):
                    await event.wait()

    async def settle(
        self, quiet: float = 0.05, within: float = 5.0, *, channel_id: int | None = None
    ) -> None:
        """Waits until the bot has sent nothing for `quiet` seconds (no request in flight); with `channel_id`,
        nothing about that channel (its messages, its interactions' answers), whatever goes on elsewhere."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        while loop.time() < deadline:
            if channel_id is None:
                idle_for = loop.time() - self._last_activity
                in_flight = self._in_flight
                busy = any(check() for check in self.busy_checks)
            else:
                idle_for = loop.time() - self._last_activity_in.get(channel_id, 0.0)
                in_flight, busy = self._in_flight_in[channel_id], False
            if in_flight == 0 and idle_for >= quiet and not busy:
                return
            await asyncio.sleep(max(0.01, quiet - idle_for))
        raise AssertionError(f"the bot kept sending requests for {within:.1f}s" + self.describe_recent())

    def spawn(self, coro: Awaitable[Any]) -> None:
        """Runs a background job of the fake (cancelled at close)."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- guild -------------------------------------------------------------------------------------

    def _add_user(self, user: FakeUser) -> FakeUser:
        user.joined_at = user.joined_at or self.clock.iso()
        self.users[user.id] = user
        return user

    def user(self, name: str, *, permissions: int | None = None) -> FakeUser:
        """The member called `name`, added to the guild (GUILD_MEMBER_ADD) if new."""
        for user in self.users.values():
            if user.name == name:
                if permissions is not None:
                    user.permissions = permissions
                return user
        user = self._add_user(FakeUser(self.ids.next(), name))
        if permissions is not None:
            user.permissions = permissions
        for guild in self.guild_names:
            self.gateway.emit(
                "GUILD_MEMBER_ADD", {**user.member_payload(), "guild_id": str(guild)}, guild=guild
            )
        return user

    def members(self) -> list[FakeUser]:
        return list(self.users.values())

    def channel_named(self, name: str) -> dict[str, Any]:
        for channel in self.channels.values():
            if channel["name"] == name:
                return channel
        raise AssertionError(f"the fake guilds have no channel {name!r}")

    def guild_of(self, channel_id: int) -> int:
        return int(self.channels[channel_id]["guild_id"])

    def _channel_payload(self, channel_id: int) -> dict[str, Any]:
        channel = dict(self.channels[channel_id])
        ids = self.channel_log[channel_id]
        channel["last_message_id"] = str(ids[-1]) if ids else None
        return channel

    def guild_payload(self, guild_id: int | None = None) -> dict[str, Any]:
        """GUILD_CREATE: the guild (the first one by default) with its channels and every member (so no
        chunking is needed)."""
        guild_id = guild_id or self.guild_id
        members = self.members()
        channels = [c for c in self.channels if self.guild_of(c) == guild_id]
        return {
            "id": str(guild_id),
            "name": self.guild_names[guild_id],
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner.id),
            "region": "europe",
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 1,
            "explicit_content_filter": 0,
            "roles": [everyone_role(guild_id)],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "max_members": 500000,
            "max_video_channel_users": 25,
            "joined_at": self.bot_user.joined_at,
            "large": False,
            "unavailable": False,
            "lazy": True,
            "member_count": len(members),
            "members": [u.member_payload() for u in members],
            "channels": [category_channel(self.categories[guild_id], guild_id, "Tables")]
            + [{k: v for k, v in self._channel_payload(c).items() if k != "guild_id"} for c in channels],
            "threads": [],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "embedded_activities": [],
        }

    # -- messages ----------------------------------------------------------------------------------

    def channel_messages(self, channel_id: int) -> list[dict[str, Any]]:
        """The channel's live messages, oldest first."""
        return [self.messages[i] for i in self.channel_log[channel_id] if i not in self.deleted]

    def ephemerals_of(self, user_id: int) -> list[dict[str, Any]]:
        """The ephemeral messages only `user_id` can see, oldest first."""
        return [self.messages[i] for i in self.ephemeral_log[user_id] if i not in self.deleted]

    def _attachments(
        self, payload: dict[str, Any], uploads: list[Upload], keep: list[dict[str, Any]], channel: int
    ):
        """Discord's attachment rules: listed ids keep old files, files[n] become new attachments."""
        described = {
            str(a.get("id")): a for a in payload.get("attachments") or [] if isinstance(a, dict) and "id" in a
        }
        result = [a for a in keep if a["id"] in described] if "attachments" in payload else list(keep)
        for upload in uploads:
            meta = described.get(str(upload.index), {})
            attachment_id = self.ids.next()
            filename = meta.get("filename") or upload.filename
            self.files[attachment_id] = upload
            attachment = {
                "id": str(attachment_id),
                "filename": filename,
                "size": len(upload.data),
                "url": f"{self.origin}/attachments/{channel}/{attachment_id}/{filename}",
                "proxy_url": f"{self.origin}/attachments/{channel}/{attachment_id}/{filename}",
                "content_type": upload.content_type,
            }
            if meta.get("description"):
                attachment["description"] = meta["description"]
            result.append(attachment)
        return result

    def _apply(self, message: dict[str, Any], payload: dict[str, Any], uploads: list[Upload]) -> None:
        """Applies a create/edit body to a stored message."""
        if "content" in payload:
            message["content"] = payload["content"] or ""
        if "embeds" in payload:
            message["embeds"] = stored_embeds(payload["embeds"] or [])
        if "components" in payload:
            message["components"] = stored_components(payload["components"] or [])
        if "flags" in payload and payload["flags"] is not None:
            # Only SUPPRESS_EMBEDS and IS_COMPONENTS_V2 can be changed; EPHEMERAL/LOADING stay as they are.
            kept = message.get("flags", 0) & (EPHEMERAL | LOADING)
            message["flags"] = kept | (payload["flags"] & ((1 << 2) | (1 << 15)))
        if "attachments" in payload or uploads:
            message["attachments"] = self._attachments(
                payload, uploads, message.get("attachments", []), int(message["channel_id"])
            )
        if "allowed_mentions" in payload or "content" in payload:
            allowed = payload.get("allowed_mentions")
            pinged = pinged_user_ids(message["content"], allowed)
            self.pings[int(message["id"])] = pinged
            message["mentions"] = [self.users[u].user_payload() for u in pinged if u in self.users]
            message["mention_everyone"] = pings_everyone(message["content"], allowed)

    def _new_message(
        self,
        channel_id: int,
        payload: dict[str, Any],
        uploads: list[Upload],
        *,
        author: FakeUser,
        kind: int = 0,
        interaction: InteractionRecord | None = None,
        extra_flags: int = 0,
    ) -> dict[str, Any]:
        message_id = self.ids.next()
        flags = (payload.get("flags") or 0) | extra_flags
        message: dict[str, Any] = {
            "id": str(message_id),
            "type": kind,
            "channel_id": str(channel_id),
            "author": author.user_payload(),
            "content": "",
            "embeds": [],
            "components": [],
            "attachments": [],
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": bool(payload.get("tts")),
            "flags": flags,
            "timestamp": self.clock.iso(),
            "edited_timestamp": None,
        }
        if payload.get("nonce") is not None:
            message["nonce"] = payload["nonce"]
        if interaction is not None:
            message["webhook_id"] = str(self.application_id)
            message["application_id"] = str(self.application_id)
            message["interaction_metadata"] = self._interaction_metadata(interaction)
        self._apply(message, {**payload, "flags": None}, uploads)
        self.messages[message_id] = message
        if flags & EPHEMERAL and interaction is not None:
            self.ephemeral_log[interaction.user.id].append(message_id)
        else:
            self.channel_log[channel_id].append(message_id)
            self.gateway.emit(
                "MESSAGE_CREATE", self._gateway_message(message, author), guild=self.guild_of(channel_id)
            )
        self.changed()
        return message

    def _interaction_metadata(self, rec: InteractionRecord) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "id": str(rec.id),
            "type": rec.type,
            "user": rec.user.user_payload(),
            "authorizing_integration_owners": {"0": str(self.guild_of(rec.channel_id))},
        }
        if rec.type == 3 and rec.message_id:
            meta["interacted_message_id"] = str(rec.message_id)
        if rec.original_message_id:
            meta["original_response_message_id"] = str(rec.original_message_id)
        if rec.type == 5 and rec.trigger is not None:
            meta["triggering_interaction_metadata"] = self._interaction_metadata(rec.trigger)
        return meta

    def _gateway_message(self, message: dict[str, Any], author: FakeUser) -> dict[str, Any]:
        member = author.member_payload()
        member.pop("user")
        return {**message, "guild_id": str(self.guild_of(int(message["channel_id"]))), "member": member}

    def _edit_message(self, message: dict[str, Any], payload: dict[str, Any], uploads: list[Upload]) -> None:
        edited = copy.deepcopy(message)
        self._apply(edited, payload, uploads)
        _refuse_empty(edited)
        message.update(edited)
        message["flags"] = message.get("flags", 0) & ~LOADING
        message["edited_timestamp"] = self.clock.iso()
        if not message["flags"] & EPHEMERAL:
            author = self.users.get(int(message["author"]["id"]), self.bot_user)
            self.gateway.emit(
                "MESSAGE_UPDATE",
                self._gateway_message(message, author),
                guild=self.guild_of(int(message["channel_id"])),
            )
        self.changed()

    def _delete_message(self, message: dict[str, Any]) -> None:
        message_id = int(message["id"])
        self.deleted.add(message_id)
        if not message.get("flags", 0) & EPHEMERAL:
            guild = self.guild_of(int(message["channel_id"]))
            event = {"id": str(message_id), "channel_id": message["channel_id"], "guild_id": str(guild)}
            self.gateway.emit("MESSAGE_DELETE", event, guild=guild)
        self.changed()

    def _live_message(self, message_id: int, channel_id: int | None = None) -> dict[str, Any]:
        message = self.messages.get(message_id)
        if message is None or message_id in self.deleted:
            raise DiscordError(404, 10008, "Unknown Message")
        if channel_id is not None and int(message["channel_id"]) != channel_id:
            raise DiscordError(404, 10008, "Unknown Message")
        return message

    async def post_user_message(self, user: FakeUser, channel_id: int, content: str) -> dict[str, Any]:
        """A member writes in the channel (MESSAGE_CREATE to the bot)."""
        return self._new_message(channel_id, {"content": content}, [], author=user)

    # -- interactions (sent by the driver) ---------------------------------------------------------

    async def send_interaction(
        self,
        user: FakeUser,
        kind: int,
        data: dict[str, Any],
        *,
        channel_id: int,
        message: dict[str, Any] | None = None,
        trigger: InteractionRecord | None = None,
    ) -> InteractionRecord:
        """Builds an INTERACTION_CREATE the way Discord does and dispatches it to the bot (to the session of
        the channel's guild's shard)."""
        guild = self.guild_of(channel_id)
        if not self.gateway.connected_for(guild):
            raise AssertionError(
                f"{user.name} cannot interact: the bot is not connected to the gateway for guild {guild}"
            )
        rec = InteractionRecord(
            id=self.ids.next(),
            token="aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48),
            type=kind,
            user=user,
            channel_id=channel_id,
            created=self.clock.now(),
            data=data,
            message_id=int(message["id"]) if message else None,
            trigger=trigger,
        )
        payload: dict[str, Any] = {
            "id": str(rec.id),
            "application_id": str(self.application_id),
            "type": kind,
            "data": data,
            "guild_id": str(guild),
            "guild": {"id": str(guild), "locale": "en-US", "features": []},
            "channel_id": str(channel_id),
            "channel": {**self._channel_payload(channel_id), "permissions": str(user.permissions)},
            "member": user.member_payload(with_permissions=True),
            "token": rec.token,
            "version": 1,
            "app_permissions": str(BOT_PERMISSIONS),
            "locale": user.locale,
            "guild_locale": "en-US",
            "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": {"0": str(guild)},
            "context": 0,
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }
        if message is not None:
            payload["message"] = message
        self.interactions[rec.id] = rec
        self.tokens[rec.token] = rec
        await self.gateway.dispatch("INTERACTION_CREATE", payload, guild=guild)
        return rec

    # -- HTTP plumbing -----------------------------------------------------------------------------

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if not request.path.startswith(API_PREFIX):
            return await handler(request)
        channel = self._channel_of(request.path[len(API_PREFIX) :])
        self._in_flight += 1
        self._in_flight_in[channel] += 1
        try:
            return await self._checked(request, handler)
        finally:
            self._in_flight -= 1
            self._in_flight_in[channel] -= 1
            self._last_activity = self._last_activity_in[channel] = asyncio.get_running_loop().time()
            self.changed()

    def _channel_of(self, path: str) -> int:
        """The channel a request is about: a channel's route, or an interaction's callback and webhook (its
        token's channel); 0 for the rest."""
        parts = path.split("/")
        with contextlib.suppress(IndexError, ValueError):
            if parts[1] == "channels":
                return int(parts[2])
            if parts[1] in ("webhooks", "interactions"):
                record = self.tokens.get(parts[3])
                return record.channel_id if record is not None else 0
        return 0

    async def _checked(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        path = request.path[len(API_PREFIX) :]
        method = request.method
        operation = self.spec.match(method, path) if self.spec else None
        route_info = request.match_info.route
        op_id = getattr(route_info.handler, "operation_id", None) or (
            operation.operation_id if operation else ""
        )
        record = RequestRecord(method, path, op_id, None, dict(request.query))
        self.requests.append(record)
        bucket: RateBucket | None = None
        try:
            body, uploads = await self._read_body(request)
            record.body = body
            request[BODY], request[UPLOADS] = body, uploads
            self._check_rate(method, path)
            bucket = self._route_bucket(method, path)
            self._check_auth(request, path)
            if self.spec is not None and operation is None:
                raise DiscordError(
                    404, 0, "404: Not Found", kind="unknown-route", detail="not a route of Discord's API"
                )
            if getattr(route_info.handler, "operation_id", None) is None:
                raise DiscordError(
                    404,
                    0,
                    "404: Not Found",
                    kind="unknown-route",
                    detail="the fake does not implement this route",
                )
            problems: list[Problem] = []
            if body is not None:
                if self.spec is not None and operation is not None:
                    problems += self.spec.validate_request(operation, body)
                problems += limits.check_request(op_id, body)
            if problems:
                raise DiscordError(
                    400,
                    50035,
                    "Invalid Form Body",
                    kind="invalid-body",
                    errors=discord_errors(problems),
                    detail="; ".join(str(p) for p in problems),
                )
            response = await handler(request)
        except DiscordError as error:
            if error.kind:
                self.violation(error.kind, method, path, error.detail, record.body)
            response = json_response(error.payload(), error.status)
            if error.status == 429:
                # discord.py retries a 429 only when it came through Discord's proxy (a Via header).
                response.headers["Via"] = "1.1 google"
                response.headers["Retry-After"] = str(error.extra["retry_after"])
                self.rate_limited.append((method, path))
        if bucket is not None:
            response.headers.update(bucket.headers(self.clock.now(), self.clock.wall().timestamp()))
        record.status = response.status
        self._check_response_shape(operation, method, path, response)
        return response

    def _check_response_shape(
        self, operation: Any, method: str, path: str, response: web.StreamResponse
    ) -> None:
        """The fake's own answers must match the spec too, or the test bed would lie."""
        if self.spec is None or operation is None or not isinstance(response, web.Response):
            return
        if response.status >= 300 or response.body is None:
            return
        problems = self.spec.validate_response(operation, response.status, json.loads(response.body))  # type: ignore[arg-type]
        if problems:
            self.violation("fake-shape", method, path, "; ".join(str(p) for p in problems[:5]))

    async def _read_body(self, request: web.Request) -> tuple[Any, list[Upload]]:
        if not request.can_read_body:
            return None, []
        content_type = request.content_type
        if content_type == "application/json":
            try:
                return json.loads(await request.read()), []
            except ValueError:
                raise DiscordError(
                    400, 50109, "The request body contains invalid JSON.", kind="invalid-body"
                ) from None
        if content_type == "multipart/form-data":
            body: Any = None
            uploads: list[Upload] = []
            reader = await request.multipart()
            while (part := await reader.next()) is not None:
                name = part.name or ""  # type: ignore[union-attr]
                data = await part.read()  # type: ignore[union-attr]
                if name == "payload_json":
                    body = json.loads(data)
                elif name.startswith("files[") and name.endswith("]"):
                    part_type = part.headers.get("Content-Type", "application/octet-stream")  # type: ignore[union-attr]
                    uploads.append(Upload(int(name[6:-1]), part.filename or name, part_type, bytes(data)))  # type: ignore[union-attr]
                else:
                    raise DiscordError(
                        400, 50035, "Invalid Form Body", kind="invalid-body", detail=f"form part {name}"
                    )
            return body, uploads
        raw = await request.read()
        if raw:
            raise DiscordError(415, 0, f"unsupported Content-Type {content_type}", kind="invalid-body")
        return None, []

    def _check_rate(self, method: str, path: str) -> None:
        if path.startswith(("/interactions/", "/webhooks/")):
            return  # interaction endpoints are outside the global rate limit
        now = self.clock.now()
        while self._recent and self._recent[0] <= now - 1.0:
            self._recent.popleft()
        if len(self._recent) >= GLOBAL_RATE:
            retry_after = round(self._recent[0] + 1.0 - now, 3)
            error = DiscordError(429, 0, "You are being rate limited.", kind="rate-limit")
            error.extra = {"retry_after": retry_after, "global": True}
            raise error
        self._recent.append(now)

    def _route_bucket(self, method: str, path: str) -> RateBucket | None:
        """The per-route limit a request counts against (a channel's messages, an interaction token's
        webhook); an empty bucket answers 429, which the bot should never see: it reads the headers."""
        parts = path.strip("/").split("/")
        if parts[0] == "webhooks" and len(parts) >= 3:
            key, (limit, period) = ("webhook", parts[2]), self.webhook_rate
        elif parts[0] == "channels" and len(parts) >= 3 and parts[2] == "messages" and method != "GET":
            key, (limit, period) = (f"{method} messages", parts[1]), self.message_rate
        else:
            return None
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = RateBucket(key[0].replace(" ", "-"), limit, period)
        wait = bucket.take(self.clock.now())
        if wait is not None:
            error = DiscordError(429, 0, "You are being rate limited.", kind="rate-limit")
            error.extra = {"retry_after": round(wait, 3), "global": False}
            error.detail = f"the {key[0]} bucket of {key[1][:12]} is empty for {wait:.2f}s"
            raise error
        return bucket

    def _check_auth(self, request: web.Request, path: str) -> None:
        if path.startswith(("/interactions/", "/webhooks/")):
            return  # authorised by the interaction token in the path
        if request.headers.get("Authorization") != f"Bot {self.token}":
            raise DiscordError(401, 0, "401: Unauthorized", kind="auth")

    def _add_routes(self, router: web.UrlDispatcher) -> None:
        def route(method: str, path: str, operation_id: str, handler: Handler) -> None:
            async def wrapped(request: web.Request) -> web.StreamResponse:
                return await handler(request)

            wrapped.operation_id = operation_id  # type: ignore[attr-defined]
            router.add_route(method, API_PREFIX + path, wrapped)

        app_cmds = "/applications/{app_id}/commands"
        guild_cmds = "/applications/{app_id}/guilds/{guild_id}/commands"
        webhook = "/webhooks/{app_id}/{token}"
        route("GET", "/users/@me", "get_my_user", self._get_me)
        route("GET", "/users/{user_id}", "get_user", self._get_user)
        route("GET", "/oauth2/applications/@me", "get_my_oauth2_application", self._get_application)
        route("GET", "/gateway", "get_gateway", self._get_gateway)
        route("GET", "/gateway/bot", "get_bot_gateway", self._get_gateway_bot)
        route("GET", app_cmds, "list_application_commands", self._list_commands)
        route("PUT", app_cmds, "bulk_set_application_commands", self._put_commands)
        route("POST", app_cmds, "create_application_command", self._create_command)
        route("DELETE", app_cmds + "/{command_id}", "delete_application_command", self._delete_command)
        route(
            "GET",
            guild_cmds + "/permissions",
            "list_guild_application_command_permissions",
            self._no_permissions,
        )
        route("GET", guild_cmds, "list_guild_application_commands", self._list_commands)
        route("PUT", guild_cmds, "bulk_set_guild_application_commands", self._put_commands)
        route("POST", guild_cmds, "create_guild_application_command", self._create_command)
        route(
            "DELETE", guild_cmds + "/{command_id}", "delete_guild_application_command", self._delete_command
        )
        route(
            "POST",
            "/interactions/{interaction_id}/{token}/callback",
            "create_interaction_response",
            self._callback,
        )
        route("POST", webhook, "execute_webhook", self._followup)
        for method, operation, handler in (
            ("GET", "get_original_webhook_message", self._get_webhook_message),
            ("PATCH", "update_original_webhook_message", self._edit_webhook_message),
            ("DELETE", "delete_original_webhook_message", self._delete_webhook_message),
        ):
            route(method, webhook + "/messages/@original", operation, handler)
        for method, operation, handler in (
            ("GET", "get_webhook_message", self._get_webhook_message),
            ("PATCH", "update_webhook_message", self._edit_webhook_message),
            ("DELETE", "delete_webhook_message", self._delete_webhook_message),
        ):
            route(method, webhook + "/messages/{message_id}", operation, handler)
        route("GET", "/channels/{channel_id}", "get_channel", self._get_channel)
        route("GET", "/channels/{channel_id}/messages", "list_messages", self._list_messages)
        route("POST", "/channels/{channel_id}/messages", "create_message", self._create_message)
        route("GET", "/channels/{channel_id}/messages/{message_id}", "get_message", self._get_message)
        route(
            "PATCH",
            "/channels/{channel_id}/messages/{message_id}",
            "update_message",
            self._edit_message_route,
        )
        route(
            "DELETE",
            "/channels/{channel_id}/messages/{message_id}",
            "delete_message",
            self._delete_message_route,
        )
        route("POST", "/channels/{channel_id}/typing", "trigger_typing_indicator", self._typing)
        route("GET", "/guilds/{guild_id}/members/{user_id}", "get_guild_member", self._get_member)
        # Anything else is a route the fake does not know: fail the test rather than guess.
        router.add_route("*", API_PREFIX + "/{tail:.*}", self._unknown)
        router.add_get("/gateway", self.gateway.handle)
        router.add_get("/resume-gateway", self.gateway.handle)
        router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._get_attachment)

    async def _unknown(self, request: web.Request) -> web.StreamResponse:
        raise AssertionError("unreachable: the middleware answers unknown routes")

    # -- REST: identity ----------------------------------------------------------------------------

    async def _get_me(self, request: web.Request) -> web.Response:
        bot = self.bot_user.user_payload()
        return json_response({**bot, "verified": True, "mfa_enabled": True, "email": None, "locale": "en-US"})

    async def _get_user(self, request: web.Request) -> web.Response:
        user = self.users.get(int(request.match_info["user_id"]))
        if user is None:
            raise DiscordError(404, 10013, "Unknown User")
        return json_response(user.user_payload())

    async def _get_member(self, request: web.Request) -> web.Response:
        self._check_guild(request)
        user = self.users.get(int(request.match_info["user_id"]))
        if user is None:
            raise DiscordError(404, 10007, "Unknown Member")
        return json_response(user.member_payload())

    async def _get_application(self, request: web.Request) -> web.Response:
        return json_response(
            {
                "id": str(self.application_id),
                "name": "Top games bot (e2e)",
                "icon": None,
                "description": "",
                "summary": "",
                "type": None,
                "bot": self.bot_user.user_payload(),
                "bot_public": True,
                "bot_require_code_grant": False,
                "verify_key": "0" * 64,
                "flags": 0,
                "flags_new": "0",
                "owner": self.owner.user_payload(),
                "team": None,
                "rpc_origins": [],
                "tags": [],
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "role_connections_verification_url": None,
                "integration_types_config": {"0": {}},
                "approximate_guild_count": len(self.guild_names),
                "approximate_user_install_count": 0,
                "approximate_user_authorization_count": 0,
                "explicit_content_filter": 0,
                "eligible_oauth2_scopes": ["bot", "applications.commands"],
            }
        )

    async def _get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": str(self.gateway_url)})

    async def _get_gateway_bot(self, request: web.Request) -> web.Response:
        limit = {"total": 1000, "remaining": 999, "reset_after": 14_400_000, "max_concurrency": 1}
        return json_response(
            {"url": str(self.gateway_url), "shards": self.recommended_shards, "session_start_limit": limit}
        )

    # -- REST: application commands ----------------------------------------------------------------

    def _check_app(self, request: web.Request) -> None:
        if request.match_info.get("app_id") != str(self.application_id):
            raise DiscordError(403, 50001, "Missing Access", kind="wrong-application")

    def _check_guild(self, request: web.Request) -> int:
        guild = request.match_info.get("guild_id", "")
        if not guild.isdigit() or int(guild) not in self.guild_names:
            raise DiscordError(403, 50001, "Missing Access", kind="unknown-guild")
        return int(guild)

    def _commands_for(self, request: web.Request) -> list[dict[str, Any]]:
        self._check_app(request)
        if "guild_id" in request.match_info:
            return self.guild_commands.setdefault(self._check_guild(request), [])
        return self.global_commands

    def _stored_command(
        self, body: dict[str, Any], previous: list[dict[str, Any]], guild: int | None
    ) -> dict[str, Any]:
        kind = body.get("type") or 1
        same = [c for c in previous if c["name"] == body.get("name") and c["type"] == kind]
        command = {
            "id": same[0]["id"] if same else str(self.ids.next()),
            "application_id": str(self.application_id),
            "version": str(self.ids.next()),
            "type": kind,
            "name": body.get("name"),
            "description": body.get("description") or "",
            "default_member_permissions": body.get("default_member_permissions"),
            "nsfw": bool(body.get("nsfw")),
            "integration_types": body.get("integration_types") or [0],
            "contexts": body.get("contexts"),
            "name_localizations": body.get("name_localizations"),
            "description_localizations": body.get("description_localizations"),
        }
        if body.get("options"):
            command["options"] = body["options"]
        if guild is not None:
            command["guild_id"] = str(guild)
        if command["default_member_permissions"] is not None:
            command["default_member_permissions"] = str(command["default_member_permissions"])
        return command

    def _command_guild(self, request: web.Request) -> int | None:
        return int(request.match_info["guild_id"]) if "guild_id" in request.match_info else None

    async def _list_commands(self, request: web.Request) -> web.Response:
        return json_response(self._commands_for(request))

    async def _put_commands(self, request: web.Request) -> web.Response:
        commands = self._commands_for(request)
        fresh = [self._stored_command(c, commands, self._command_guild(request)) for c in request[BODY] or []]
        commands[:] = fresh
        self.command_syncs += 1
        self.changed()
        return json_response(fresh)

    async def _create_command(self, request: web.Request) -> web.Response:
        commands = self._commands_for(request)
        command = self._stored_command(request[BODY], commands, self._command_guild(request))
        commands[:] = [c for c in commands if c["id"] != command["id"]] + [command]
        self.changed()
        return json_response(command, 201)

    async def _delete_command(self, request: web.Request) -> web.Response:
        commands = self._commands_for(request)
        wanted = request.match_info["command_id"]
        if not any(c["id"] == wanted for c in commands):
            raise DiscordError(404, 10063, "Unknown application command")
        commands[:] = [c for c in commands if c["id"] != wanted]
        return web.Response(status=204)

    async def _no_permissions(self, request: web.Request) -> web.Response:
        self._check_app(request)
        self._check_guild(request)
        return json_response([])

    def all_commands(self, guild_id: int | None = None) -> list[dict[str, Any]]:
        """Every synced command, the guild's first (as a member of the guild, the first by default, sees them)."""
        return self.guild_commands.get(guild_id or self.guild_id, []) + self.global_commands

    # -- REST: interaction callbacks and webhooks --------------------------------------------------

    async def _callback(self, request: web.Request) -> web.Response:
        rec = self.interactions.get(int(request.match_info["interaction_id"]))
        if rec is None or rec.token != request.match_info["token"]:
            raise DiscordError(404, 10062, "Unknown interaction", kind="unknown-interaction")
        if rec.acknowledged:
            raise DiscordError(400, 40060, "Interaction has already been acknowledged.", kind="double-ack")
        age = self.clock.now() - rec.created
        rec.answered_after = age
        if age > ANSWER_DEADLINE:
            raise DiscordError(
                404,
                10062,
                "Unknown interaction",
                kind="deadline",
                detail=f"answered after {age:.2f}s (limit 3 s)",
            )
        body: dict[str, Any] = request[BODY] or {}
        kind = body.get("type")
        if kind not in _CALLBACKS_FOR.get(rec.type, set()) or (kind in (6, 7) and rec.message_id is None):
            raise DiscordError(
                400,
                50035,
                "Invalid Form Body",
                kind="invalid-callback",
                detail=f"callback type {kind} is not valid for interaction type {rec.type}",
            )
        data = body.get("data") or {}
        uploads: list[Upload] = request[UPLOADS]
        message: dict[str, Any] | None = None
        if kind == 4:
            _refuse_empty(data, uploads)
        if kind in (4, 5):
            message_type = 20 if rec.type == 2 else 0
            message = self._new_message(
                rec.channel_id,
                data if kind == 4 else {"flags": data.get("flags")},
                uploads,
                author=self.bot_user,
                kind=message_type,
                interaction=rec,
                extra_flags=LOADING if kind == 5 else 0,
            )
            rec.original_message_id = int(message["id"])
            rec.completed = kind == 4
        elif kind in (6, 7):
            assert rec.message_id is not None
            rec.original_message_id = rec.message_id
            message = self._live_message(rec.message_id)
            if kind == 7:
                self._edit_message(message, data, uploads)
            rec.completed = kind == 7
        elif kind == 9:
            rec.modal = data
            self.modals[rec.user.id] = rec
            rec.completed = True
        elif kind == 8:
            rec.choices = data.get("choices") or []
            rec.completed = True
        # Acknowledged only now: a refused answer (empty, unknown message …) does not count.
        rec.callback_type, rec.callback_body = kind, body
        self.changed()
        if request.query.get("with_response") not in ("1", "true", "True"):
            return web.Response(status=204)
        answer: dict[str, Any] = {"interaction": {"id": str(rec.id), "type": rec.type}}
        if message is not None:
            answer["interaction"].update(
                response_message_id=message["id"],
                response_message_loading=kind == 5,
                response_message_ephemeral=bool(message["flags"] & EPHEMERAL),
            )
            if kind in (4, 7):  # the spec has no resource for deferrals
                answer["resource"] = {"type": kind, "message": message}
        return json_response(answer)

    def _webhook_interaction(self, request: web.Request) -> InteractionRecord:
        if request.match_info["app_id"] != str(self.application_id):
            raise DiscordError(404, 10015, "Unknown Webhook", kind="unknown-webhook")
        rec = self.tokens.get(request.match_info["token"])
        if rec is None:
            raise DiscordError(401, 50027, "Invalid Webhook Token", kind="unknown-webhook")
        if self.clock.now() - rec.created > TOKEN_LIFETIME:
            raise DiscordError(401, 50027, "Invalid Webhook Token", kind="expired-token")
        if not rec.acknowledged:
            raise DiscordError(404, 10015, "Unknown Webhook", kind="not-acknowledged")
        return rec

    def _webhook_target(self, request: web.Request, rec: InteractionRecord) -> dict[str, Any]:
        wanted = request.match_info.get("message_id", "@original")
        if wanted == "@original":
            if rec.original_message_id is None:
                raise DiscordError(404, 10008, "Unknown Message")
            return self._live_message(rec.original_message_id)
        if int(wanted) not in rec.followup_ids and int(wanted) != rec.original_message_id:
            raise DiscordError(404, 10008, "Unknown Message", kind="foreign-message")
        return self._live_message(int(wanted))

    async def _followup(self, request: web.Request) -> web.Response:
        rec = self._webhook_interaction(request)
        body = request[BODY] or {}
        _refuse_empty(body, request[UPLOADS])
        message = self._new_message(
            rec.channel_id, body, request[UPLOADS], author=self.bot_user, kind=0, interaction=rec
        )
        rec.followup_ids.append(int(message["id"]))
        rec.completed = True
        if request.query.get("wait") in ("1", "true", "True"):
            return json_response(message)
        return web.Response(status=204)

    async def _get_webhook_message(self, request: web.Request) -> web.Response:
        rec = self._webhook_interaction(request)
        return json_response(self._webhook_target(request, rec))

    async def _edit_webhook_message(self, request: web.Request) -> web.Response:
        rec = self._webhook_interaction(request)
        message = self._webhook_target(request, rec)
        self._edit_message(message, request[BODY] or {}, request[UPLOADS])
        rec.completed = True
        return json_response(message)

    async def _delete_webhook_message(self, request: web.Request) -> web.Response:
        rec = self._webhook_interaction(request)
        self._delete_message(self._webhook_target(request, rec))
        rec.completed = True
        return web.Response(status=204)

    # -- REST: channels and messages ---------------------------------------------------------------

    def _channel_id(self, request: web.Request) -> int:
        channel_id = int(request.match_info["channel_id"])
        if channel_id not in self.channels:
            raise DiscordError(404, 10003, "Unknown Channel", kind="unknown-channel")
        return channel_id

    async def _get_channel(self, request: web.Request) -> web.Response:
        channel_id = self._channel_id(request)
        return json_response({**self._channel_payload(channel_id), "permissions": str(BOT_PERMISSIONS)})

    async def _list_messages(self, request: web.Request) -> web.Response:
        channel_id = self._channel_id(request)
        found = self.channel_messages(channel_id)[::-1]  # newest first, as Discord lists them
        if "before" in request.query:
            found = [m for m in found if int(m["id"]) < int(request.query["before"])]
        if "after" in request.query:
            found = [m for m in found if int(m["id"]) > int(request.query["after"])]
        limit = int(request.query.get("limit", 50))
        return json_response(found[:limit])

    async def _create_message(self, request: web.Request) -> web.Response:
        channel_id = self._channel_id(request)
        body = request[BODY] or {}
        _refuse_empty(body, request[UPLOADS])
        if not self.bot_user.permissions & SEND_MESSAGES:
            # A channel message needs the permission (an interaction's answer does not).
            raise DiscordError(403, 50013, "Missing Permissions")
        if request[UPLOADS] and not self.bot_user.permissions & ATTACH_FILES:
            # What Discord answers a bot that may not attach files in the channel (not a violation of ours).
            raise DiscordError(403, 50013, "Missing Permissions")
        message = self._new_message(channel_id, body, request[UPLOADS], author=self.bot_user)
        return json_response(message)

    async def _get_message(self, request: web.Request) -> web.Response:
        channel_id = self._channel_id(request)
        message = self._live_message(int(request.match_info["message_id"]), channel_id)
        if message["flags"] & EPHEMERAL:
            raise DiscordError(404, 10008, "Unknown Message")
        return json_response(message)

    async def _edit_message_route(self, request: web.Request) -> web.Response:
        channel_id = self._channel_id(request)
        message = self._live_message(int(request.match_info["message_id"]), channel_id)
        if message["flags"] & EPHEMERAL:
            # Ephemeral messages can only be edited through the interaction token.
            raise DiscordError(404, 10008, "Unknown Message", kind="edit-ephemeral")
        if message["author"]["id"] != str(self.bot_user.id):
            raise DiscordError(
                403, 50005, "Cannot edit a message authored by another user", kind="foreign-message"
            )
        self._edit_message(message, request[BODY] or {}, request[UPLOADS])
        return json_response(message)

    async def _delete_message_route(self, request: web.Request) -> web.Response:
        channel_id = self._channel_id(request)
        message = self._live_message(int(request.match_info["message_id"]), channel_id)
        if message["flags"] & EPHEMERAL:
            raise DiscordError(404, 10008, "Unknown Message", kind="edit-ephemeral")
        self._delete_message(message)
        return web.Response(status=204)

    async def _typing(self, request: web.Request) -> web.Response:
        self._channel_id(request)
        return web.Response(status=204)

    async def _get_attachment(self, request: web.Request) -> web.Response:
        upload = self.files.get(int(request.match_info["attachment_id"]))
        if upload is None:
            raise web.HTTPNotFound()
        return web.Response(body=upload.data, headers={"Content-Type": upload.content_type})
