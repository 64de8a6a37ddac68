"""Payloads shaped like Discord's: users, members, channels, the guild, messages, snowflakes and time."""

from __future__ import annotations

import itertools
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

DISCORD_EPOCH_MS = 1_420_070_400_000
EPHEMERAL = 1 << 6
LOADING = 1 << 7
# What a plain member may do in the table channel: see, talk, read history, use commands, embed, attach.
MEMBER_PERMISSIONS = (1 << 6) | (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 16) | (1 << 31)
# The bot's own permissions in the guild (app_permissions of interactions).
BOT_PERMISSIONS = MEMBER_PERMISSIONS | (1 << 13) | (1 << 35) | (1 << 38)
ALL_PERMISSIONS = (1 << 51) - 1
ATTACH_FILES = 1 << 15
SEND_MESSAGES = 1 << 11


class Clock:
    """Simulated time: real time plus whatever the test skipped with advance()."""

    def __init__(self) -> None:
        self._offset = 0.0

    def now(self) -> float:
        return time.monotonic() + self._offset

    def advance(self, seconds: float) -> None:
        """Jumps ahead, e.g. past the 3-second answer deadline or the 15-minute token lifetime."""
        self._offset += seconds

    def wall(self) -> datetime:
        return datetime.now(UTC) + timedelta(seconds=self._offset)

    def iso(self) -> str:
        return self.wall().isoformat()


class Snowflakes:
    """Ids that carry their creation time, like Discord's, so discord.py's created_at is right."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._counter = itertools.count()
        self._last = 0

    def next(self) -> int:
        ms = int(self._clock.wall().timestamp() * 1000) - DISCORD_EPOCH_MS
        value = (ms << 22) | (1 << 17) | (next(self._counter) & 0xFFF)
        self._last = max(value, self._last + 1)
        return self._last

    def next_on_the_next_shard(self, after: int) -> int:
        """An id one millisecond after `after`: on the shard after `after`'s for any shard count
        (`(id >> 22) % count`), and never handed out again."""
        value = after + (1 << 22)
        self._last = max(value, self._last)
        return value


@dataclass
class FakeUser:
    """A person (or the bot) in the fake guild."""

    id: int
    name: str
    bot: bool = False
    permissions: int = MEMBER_PERMISSIONS
    locale: str = "en-US"
    joined_at: str = ""
    roles: list[int] = field(default_factory=list)

    def user_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": None if self.bot else self.name.capitalize(),
            "avatar": None,
            "discriminator": "0",
            "public_flags": 0,
            "flags": 0,
            "bot": self.bot,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
            "collectibles": None,
            "primary_guild": None,
        }

    def member_payload(self, *, with_permissions: bool = False) -> dict[str, Any]:
        member: dict[str, Any] = {
            "user": self.user_payload(),
            "nick": None,
            "avatar": None,
            "banner": None,
            "roles": [str(r) for r in self.roles],
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_permissions:
            member["permissions"] = str(self.permissions)
        return member


def text_channel(
    channel_id: int, guild_id: int, name: str, position: int, parent_id: int | None
) -> dict[str, Any]:
    return {
        "id": str(channel_id),
        "type": 0,
        "guild_id": str(guild_id),
        "name": name,
        "position": position,
        "parent_id": str(parent_id) if parent_id else None,
        "topic": None,
        "nsfw": False,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "permission_overwrites": [],
        "flags": 0,
    }


def category_channel(channel_id: int, guild_id: int, name: str) -> dict[str, Any]:
    return {
        "id": str(channel_id),
        "type": 4,
        "guild_id": str(guild_id),
        "name": name,
        "position": 0,
        "parent_id": None,
        "nsfw": False,
        "permission_overwrites": [],
        "flags": 0,
    }


def everyone_role(guild_id: int) -> dict[str, Any]:
    return {
        "id": str(guild_id),
        "name": "@everyone",
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
        "hoist": False,
        "icon": None,
        "unicode_emoji": None,
        "position": 0,
        "permissions": str(MEMBER_PERMISSIONS),
        "managed": False,
        "mentionable": False,
        "flags": 0,
    }


_MENTION = re.compile(r"<@!?(\d+)>")


def pinged_user_ids(content: str, allowed_mentions: dict[str, Any] | None) -> list[int]:
    """Who a message really notifies: Discord pings every mention unless allowed_mentions says otherwise."""
    mentioned = list(dict.fromkeys(int(m) for m in _MENTION.findall(content or "")))
    if allowed_mentions is None:
        return mentioned
    if "users" in (allowed_mentions.get("parse") or []):
        return mentioned
    allowed = {int(u) for u in allowed_mentions.get("users") or []}
    return [u for u in mentioned if u in allowed]


def pings_everyone(content: str, allowed_mentions: dict[str, Any] | None) -> bool:
    if "@everyone" not in (content or "") and "@here" not in (content or ""):
        return False
    return allowed_mentions is None or "everyone" in (allowed_mentions.get("parse") or [])


def _without_nulls(value: Any) -> Any:
    """Discord leaves out unset fields in what it stores and sends back."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def stored_components(components: list[Any]) -> list[dict[str, Any]]:
    """Components as Discord returns them: numbered `id`s and select defaults filled in."""
    counter = itertools.count(1)

    def fill(component: dict[str, Any]) -> dict[str, Any]:
        component = dict(component)
        component.setdefault("id", next(counter))
        if component.get("type") in (3, 5, 6, 7, 8):
            component.setdefault("min_values", 1)
            component.setdefault("max_values", 1)
        if component.get("type") == 3:
            component["options"] = [
                {"default": False, **option} if isinstance(option, dict) else option
                for option in component.get("options", [])
            ]
        if isinstance(component.get("components"), list):
            component["components"] = [fill(c) for c in component["components"] if isinstance(c, dict)]
        for key in ("component", "accessory"):
            if isinstance(component.get(key), dict):
                component[key] = fill(component[key])
        return component

    return [fill(c) for c in _without_nulls(components) if isinstance(c, dict)]


def stored_embeds(embeds: list[Any]) -> list[dict[str, Any]]:
    return [{"type": "rich", **_without_nulls(e)} for e in embeds if isinstance(e, dict)]
