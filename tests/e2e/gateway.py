"""The fake gateway: HELLO, IDENTIFY → READY + GUILD_CREATE, heartbeats, RESUME, dropped connections.

A session IDENTIFYs for a shard (`"shard": [id, count]`, or none: the only shard) and gets only the guilds of
that shard, `(guild_id >> 22) % count == id`, and only their events, as on Discord."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

if TYPE_CHECKING:
    from .fake_discord import FakeDiscord

log = logging.getLogger(__name__)

DISPATCH, HEARTBEAT, IDENTIFY, PRESENCE, VOICE, RESUME, RECONNECT, REQUEST_MEMBERS = 0, 1, 2, 3, 4, 6, 7, 8
INVALID_SESSION, HELLO, HEARTBEAT_ACK = 9, 10, 11
INVALID_SHARD = 4010  # the gateway's close code for a shard outside its count
GUILD_MEMBERS_INTENT = 1 << 1
GUILD_MESSAGES_INTENT = 1 << 9
# Events Discord sends only to bots that asked for the matching intent.
EVENT_INTENTS = {
    "MESSAGE_CREATE": GUILD_MESSAGES_INTENT,
    "MESSAGE_UPDATE": GUILD_MESSAGES_INTENT,
    "MESSAGE_DELETE": GUILD_MESSAGES_INTENT,
    "GUILD_MEMBER_ADD": GUILD_MEMBERS_INTENT,
}


@dataclass
class Session:
    """One gateway session; it outlives a dropped socket so the bot can RESUME it."""

    id: str
    intents: int
    seq: int = 0
    backlog: list[dict[str, Any]] = field(default_factory=list)
    ws: web.WebSocketResponse | None = None
    sent: int = 0  # the highest seq written to the current socket
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one writer at a time keeps seq order
    ready: bool = False
    invalid: bool = False
    resumes: int = 0
    shard: tuple[int, int] = (0, 1)  # (id, count) from IDENTIFY

    def serves(self, guild_id: int) -> bool:
        shard_id, count = self.shard
        return (guild_id >> 22) % count == shard_id


class FakeGateway:
    """Speaks Discord's gateway protocol v10 over plain (uncompressed) text frames."""

    def __init__(self, fake: FakeDiscord, *, heartbeat_interval: float) -> None:
        self.fake = fake
        self.heartbeat_interval = heartbeat_interval
        self.ack_heartbeats = True
        self.sessions: dict[str, Session] = {}
        self.current: Session | None = None
        self.heartbeats = 0
        self.identifies = 0
        self.connections: list[str] = []  # the path of every socket opened, e.g. "/gateway"
        self.received: list[dict[str, Any]] = []  # every op the bot sent, for assertions

    # -- routes ------------------------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self.connections.append(request.path)
        log.info("gateway: socket opened on %s?%s", request.path, request.query_string)
        bound: Session | None = None
        try:
            await ws.send_json(
                {"op": HELLO, "d": {"heartbeat_interval": int(self.heartbeat_interval * 1000)}}
            )
            async for message in ws:
                if message.type is not WSMsgType.TEXT:
                    continue
                payload = json.loads(message.data)
                self.received.append(payload)
                bound = await self._on_op(ws, payload, bound)
                self.fake.changed()
        finally:
            await self._closed(ws, bound)
        return ws

    async def _on_op(
        self, ws: web.WebSocketResponse, payload: dict[str, Any], bound: Session | None
    ) -> Session | None:
        op, data = payload.get("op"), payload.get("d")
        if op == HEARTBEAT:
            self.heartbeats += 1
            if self.ack_heartbeats:
                await ws.send_json({"op": HEARTBEAT_ACK})
        elif op == IDENTIFY:
            return await self._identify(ws, data or {})
        elif op == RESUME:
            return await self._resume(ws, data or {})
        elif op == REQUEST_MEMBERS and bound is not None:
            await self._send_members(bound, data or {})
        elif op not in (PRESENCE, VOICE):
            self.fake.violation("gateway", "WS", "/gateway", f"unexpected gateway op {op}: {payload}")
        return bound

    async def _identify(self, ws: web.WebSocketResponse, data: dict[str, Any]) -> Session | None:
        self.identifies += 1
        if data.get("token") != self.fake.token:
            self.fake.violation("auth", "WS", "/gateway", "IDENTIFY with a token the fake does not know")
            await ws.close(code=4004, message=b"Authentication failed.")
            return None
        if not isinstance(data.get("intents"), int):
            self.fake.violation("gateway", "WS", "/gateway", "IDENTIFY without intents")
        shard = data.get("shard") or [0, 1]
        if not (
            isinstance(shard, list)
            and len(shard) == 2
            and all(isinstance(n, int) for n in shard)
            and 0 <= shard[0] < shard[1]
        ):
            self.fake.violation("gateway", "WS", "/gateway", f"IDENTIFY with an invalid shard {shard!r}")
            await ws.close(code=INVALID_SHARD, message=b"Invalid shard.")
            return None
        session = Session(
            id=secrets.token_hex(16),
            intents=int(data.get("intents") or 0),
            ws=ws,
            shard=(shard[0], shard[1]),
        )
        self.sessions[session.id] = session
        self.current = session
        guilds = [guild for guild in self.fake.guild_names if session.serves(guild)]
        bot = self.fake.bot_user
        ready = {
            "v": 10,
            "user": {**bot.user_payload(), "verified": True, "mfa_enabled": True, "email": None},
            "guilds": [{"id": str(guild), "unavailable": True} for guild in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": f"{self.fake.origin.replace('http', 'ws', 1)}/resume-gateway",
            "shard": list(session.shard),
            "application": {"id": str(self.fake.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "_trace": ["fake-discord"],
        }
        self._emit(session, "READY", ready)
        for guild in guilds:
            self._emit(session, "GUILD_CREATE", self.fake.guild_payload(guild))
        await self._flush(session)
        session.ready = True
        log.info(
            "gateway: session %s identified for shard %s with intents %s",
            session.id,
            list(session.shard),
            session.intents,
        )
        return session

    async def _resume(self, ws: web.WebSocketResponse, data: dict[str, Any]) -> Session | None:
        session = self.sessions.get(str(data.get("session_id")))
        if session is None or session.invalid or data.get("token") != self.fake.token:
            log.info("gateway: RESUME refused, session invalid")
            await ws.send_json({"op": INVALID_SESSION, "d": False})
            return None
        async with session.lock:
            # Everything after the client's last seq is sent again, then RESUMED.
            session.ws, session.sent = ws, int(data.get("seq") or 0)
        session.resumes += 1
        self.current = session
        self._emit(session, "RESUMED", {"_trace": ["fake-discord"]})
        await self._flush(session)
        log.info("gateway: session %s resumed from seq %s", session.id, data.get("seq"))
        return session

    async def _send_members(self, session: Session, data: dict[str, Any]) -> None:
        chunk = {
            "guild_id": str(data.get("guild_id") or self.fake.guild_id),
            "members": [u.member_payload() for u in self.fake.members()],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        self._emit(session, "GUILD_MEMBERS_CHUNK", chunk)
        await self._flush(session)

    async def _closed(self, ws: web.WebSocketResponse, session: Session | None) -> None:
        log.info("gateway: socket closed (code %s)", ws.close_code)
        if session is not None and session.ws is ws:
            session.ws = None
            # A client that closes with 1000/1001 ends its session; anything else may resume.
            # (drop() detaches the socket first, so a close the fake caused never lands here.)
            if ws.close_code in (1000, 1001):
                session.invalid = True
        self.fake.changed()

    # -- sending -----------------------------------------------------------------------------------

    def _emit(self, session: Session, event: str, data: Any) -> None:
        """Numbers the event and keeps it in the session's backlog (for sending and for RESUME)."""
        session.seq += 1
        session.backlog.append({"op": DISPATCH, "t": event, "s": session.seq, "d": data})
        del session.backlog[:-1000]

    async def _flush(self, session: Session) -> None:
        """Writes the backlog the socket has not had yet, in seq order."""
        async with session.lock:
            for payload in [p for p in session.backlog if p["s"] > session.sent]:
                ws = session.ws
                if ws is None or ws.closed:
                    return  # kept for RESUME
                try:
                    await ws.send_json(payload)
                except (ConnectionResetError, RuntimeError):
                    log.info("gateway: %s kept for RESUME, the socket is gone", payload["t"])
                    return
                session.sent = payload["s"]

    def session_for(self, guild_id: int | None = None) -> Session | None:
        """The session that receives the guild's events (the first guild's by default): the latest one
        identified for its shard that can still be resumed."""
        guild = guild_id or self.fake.guild_id
        for session in reversed(self.sessions.values()):
            if not session.invalid and session.serves(guild):
                return session
        return None

    def emit(self, event: str, data: Any, *, guild: int | None = None) -> None:
        """Queues an event of the guild (the first by default) for the session of its shard and sends it
        soon (kept for RESUME if the socket is down)."""
        session = self.session_for(guild)
        if session is None:
            return  # no session: like Discord, nobody receives it
        needed = EVENT_INTENTS.get(event, 0)
        if needed and not session.intents & needed:
            return
        self._emit(session, event, data)
        self.fake.spawn(self._flush(session))

    async def dispatch(self, event: str, data: Any, *, guild: int | None = None) -> None:
        """Sends an event of the guild (the first by default) to the session of its shard now; fails if the
        bot has no session for it."""
        session = self.session_for(guild)
        if session is None:
            raise AssertionError(
                f"cannot send {event}: the bot has no gateway session for guild {guild} (did it connect?)"
            )
        self._emit(session, event, data)
        await self._flush(session)

    @property
    def connected(self) -> bool:
        """The bot has a live socket with a ready session."""
        return _live(self.current)

    def connected_for(self, guild_id: int | None = None) -> bool:
        """The session of the guild's shard (the first guild by default) is ready on a live socket."""
        return _live(self.session_for(guild_id))

    def live_shards(self) -> list[tuple[int, int]]:
        """The (id, count) of every shard with a ready session on a live socket."""
        return sorted({s.shard for s in self.sessions.values() if not s.invalid and _live(s)})

    # -- faults the tests can cause ----------------------------------------------------------------

    async def drop(self, code: int = 4000, *, invalidate: bool = False) -> None:
        """Closes the bot's socket as a network blip would; the bot should RESUME.

        With invalidate=True the session cannot be resumed, so the bot must IDENTIFY afresh.
        """
        session = self.current
        if session is None or session.ws is None:
            raise AssertionError("no gateway connection to drop")
        session.invalid = invalidate
        ws, session.ws = session.ws, None
        await ws.close(code=code, message=b"dropped by the test")

    async def request_reconnect(self) -> None:
        """Sends op 7 RECONNECT, as Discord does before moving a session."""
        session = self.current
        if session is None or session.ws is None:
            raise AssertionError("no gateway connection")
        await session.ws.send_json({"op": RECONNECT, "d": None})

    async def close_all(self) -> None:
        for session in self.sessions.values():
            if session.ws is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(session.ws.close(code=1001), 2)


def _live(session: Session | None) -> bool:
    return bool(session and session.ready and session.ws is not None and not session.ws.closed)
