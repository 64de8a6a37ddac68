"""The test driver: people at a table who run slash commands, click, pick and fill in modals.

    table = Table(fake)
    alice, bob = table.user("alice"), table.user("bob")
    reply = await alice.slash("topstop new", language="en")
    await bob.click(reply.message, "Join")
    assert "bob" in table.last_message.text

Every action builds the INTERACTION_CREATE Discord would send, dispatches it over the fake gateway
and waits until the bot has answered (or fails with what the fake saw meanwhile).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

from .fake_discord import FakeDiscord, InteractionRecord
from .objects import EPHEMERAL, LOADING, Clock, FakeUser

DEFAULT_TIMEOUT = 5.0
ADMINISTRATOR = 1 << 3
_SUBCOMMAND, _GROUP = 1, 2
_STRING, _INTEGER, _BOOLEAN, _USER, _CHANNEL, _ROLE, _MENTIONABLE, _NUMBER = 3, 4, 5, 6, 7, 8, 9, 10
_CALLBACK_NAMES = {
    4: "reply",
    5: "deferred reply",
    6: "deferred update",
    7: "update",
    8: "autocomplete",
    9: "modal",
}


def _walk(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for component in components:
        found.append(component)
        found += _walk(component.get("components") or [])
        for key in ("component", "accessory"):
            if isinstance(component.get(key), dict):
                found += _walk([component[key]])
    return found


class Message:
    """A live view of one message: every attribute re-reads the fake, so edits show up."""

    def __init__(self, fake: FakeDiscord, message_id: int) -> None:
        self._fake = fake
        self.id = message_id

    @property
    def raw(self) -> dict[str, Any]:
        return self._fake.messages[self.id]

    @property
    def channel_id(self) -> int:
        return int(self.raw["channel_id"])

    @property
    def author_id(self) -> int:
        return int(self.raw["author"]["id"])

    @property
    def content(self) -> str:
        return self.raw.get("content") or ""

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self.raw.get("embeds") or []

    @property
    def components(self) -> list[dict[str, Any]]:
        return self.raw.get("components") or []

    @property
    def attachments(self) -> list[dict[str, Any]]:
        return self.raw.get("attachments") or []

    @property
    def files(self) -> dict[str, bytes]:
        """Attached files by name, with the bytes the bot uploaded."""
        return {a["filename"]: self._fake.files[int(a["id"])].data for a in self.attachments}

    @property
    def flags(self) -> int:
        return int(self.raw.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """Still "the bot is thinking…" after a deferred reply."""
        return bool(self.flags & LOADING)

    @property
    def deleted(self) -> bool:
        return self.id in self._fake.deleted

    @property
    def pinged(self) -> list[int]:
        """The users this message notifies (after allowed_mentions)."""
        return self._fake.pings.get(self.id, [])

    @property
    def text(self) -> str:
        """Everything a person reads: content plus embed titles, descriptions, fields, footers."""
        parts = [self.content]
        for embed in self.embeds:
            parts += [
                (embed.get("author") or {}).get("name", ""),
                embed.get("title", ""),
                embed.get("description", ""),
            ]
            for item in embed.get("fields") or []:
                parts += [item.get("name", ""), item.get("value", "")]
            parts.append((embed.get("footer") or {}).get("text", ""))
        for component in _walk(self.components):
            if component.get("type") == 10:  # text display (components v2)
                parts.append(component.get("content", ""))
        return "\n".join(p for p in parts if p)

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in _walk(self.components) if c.get("type") == 2]

    @property
    def button_labels(self) -> list[str]:
        return [b.get("label") or "" for b in self.buttons]

    def button(self, label: str) -> dict[str, Any]:
        """The button with this label (or custom_id); fails listing the buttons there are."""
        for button in self.buttons:
            if button.get("label") == label or button.get("custom_id") == label:
                return button
        raise AssertionError(f"message {self.id} has no button {label!r}; its buttons: {self.button_labels}")

    @property
    def selects(self) -> list[dict[str, Any]]:
        return [c for c in _walk(self.components) if c.get("type") in (3, 5, 6, 7, 8)]

    def __repr__(self) -> str:
        text = self.text.replace("\n", " | ")
        return f"<Message {self.id} {'ephemeral ' if self.ephemeral else ''}{text[:80]!r} buttons={self.button_labels}>"


class Reply:
    """What the bot did with one interaction."""

    def __init__(self, fake: FakeDiscord, record: InteractionRecord) -> None:
        self._fake = fake
        self.record = record

    @property
    def kind(self) -> str:
        """What the bot answered with: reply, deferred reply, update, deferred update, modal, autocomplete."""
        return _CALLBACK_NAMES.get(self.record.callback_type or 0, "none")

    @property
    def message(self) -> Message | None:
        """The response message (the reply, or the message that was updated)."""
        if self.record.original_message_id is None:
            return None
        return Message(self._fake, self.record.original_message_id)

    @property
    def answer(self) -> Message | None:
        """What the user was told: the reply (or the updated message), or, after a click acknowledged
        silently, its first follow-up (e.g. a private refusal)."""
        if self.record.callback_type == 6 and self.record.followup_ids:
            return Message(self._fake, self.record.followup_ids[0])
        return self.message

    @property
    def ephemeral(self) -> bool:
        """Whether the answer is private."""
        return self.answer is not None and self.answer.ephemeral

    @property
    def followups(self) -> list[Message]:
        return [Message(self._fake, i) for i in self.record.followup_ids]

    @property
    def private(self) -> Message | None:
        """The private answer: the reply itself when it is ephemeral, else the first ephemeral follow-up
        (after a click was acknowledged first)."""
        if self.message is not None and self.message.ephemeral:
            return self.message
        return next((m for m in self.followups if m.ephemeral), None)

    @property
    def linked(self) -> Message | None:
        """The channel message the answer links to (e.g. "your lobby is open: <link>")."""
        found = re.search(r"https://discord\.com/channels/\d+/\d+/(\d+)", self.text)
        return Message(self._fake, int(found.group(1))) if found else None

    @property
    def modal(self) -> dict[str, Any] | None:
        return self.record.modal

    @property
    def choices(self) -> list[dict[str, Any]]:
        return self.record.choices or []

    @property
    def text(self) -> str:
        """The answer's text."""
        return self.answer.text if self.answer else ""

    def __repr__(self) -> str:
        return f"<Reply {self.kind} message={self.message!r}>"


class Player:
    """One member of the guild, acting through the Discord client."""

    def __init__(self, table: Table, user: FakeUser) -> None:
        self.table = table
        self.user = user

    @property
    def name(self) -> str:
        return self.user.name

    @property
    def id(self) -> int:
        return self.user.id

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    @property
    def _fake(self) -> FakeDiscord:
        return self.table.fake

    @property
    def ephemerals(self) -> list[Message]:
        """The ephemeral replies only this person sees, oldest first."""
        return [Message(self._fake, int(m["id"])) for m in self._fake.ephemerals_of(self.id)]

    @property
    def last_ephemeral(self) -> Message:
        found = self.ephemerals
        assert found, f"{self.name} has no ephemeral message"
        return found[-1]

    @property
    def modal(self) -> dict[str, Any] | None:
        """The modal the bot last opened for this person and that is still open."""
        record = self._fake.modals.get(self.id)
        return record.modal if record else None

    # -- actions -----------------------------------------------------------------------------------

    async def slash(
        self,
        command: str,
        /,
        *,
        channel: str | None = None,
        wait: bool = True,
        within: float | None = None,
        options: dict[str, Any] | None = None,
        quiet: bool = True,
        **kwargs: Any,
    ) -> Reply:
        """Runs "/group sub …" with options (keyword arguments, or `options` for odd names). `quiet=False`
        waits for the answer only, not for the channel's quiet (a table that bots play on by themselves)."""
        data = self.table.build_command(command, {**(options or {}), **kwargs}, user=self.user)
        channel_id = self.table.channel_id_of(channel)
        record = await self._fake.send_interaction(self.user, 2, data, channel_id=channel_id)
        return await self._answered(record, f"{self.name} running /{command}", wait, within, quiet)

    async def autocomplete(self, command: str, /, option: str, typed: str, **others: Any) -> Reply:
        """Types `typed` into `option` of "/group sub …" (with the other options given): the bot's choices."""
        data = self.table.build_command(command, {**others, option: typed}, user=self.user)
        options = data["options"]
        while options and options[0].get("type") in (_SUBCOMMAND, _GROUP):
            options = options[0]["options"]
        for given in options:
            if given["name"] == option:
                given["focused"] = True
        record = await self._fake.send_interaction(
            self.user, 4, data, channel_id=self.table.channel_id_of(None)
        )
        return await self._answered(record, f"{self.name} typing in /{command} {option}", True, None)

    async def click(
        self, message: Message | Reply, label: str, *, wait: bool = True, within: float | None = None
    ) -> Reply:
        """Clicks the button with this label (or custom_id) on a message this person can see."""
        message = self._visible(message)
        button = message.button(label)
        if button.get("disabled"):
            raise AssertionError(f"{self.name} cannot click {label!r} on {message!r}: the button is disabled")
        if button.get("style") == 5 or "custom_id" not in button:
            raise AssertionError(f"{label!r} is a link button; clicking it does not reach the bot")
        data = {"custom_id": button["custom_id"], "component_type": 2, "id": button.get("id")}
        record = await self._fake.send_interaction(
            self.user, 3, data, channel_id=message.channel_id, message=copy.deepcopy(message.raw)
        )
        return await self._answered(
            record, f"{self.name} clicking {label!r} on message {message.id}", wait, within
        )

    async def select(
        self,
        message: Message | Reply,
        values: list[str] | str,
        *,
        placeholder: str | None = None,
        within: float | None = None,
    ) -> Reply:
        """Picks options (by value or label) in the message's string select (by placeholder if several)."""
        message = self._visible(message)
        selects = [s for s in message.selects if placeholder is None or s.get("placeholder") == placeholder]
        if len(selects) != 1:
            raise AssertionError(
                f"{self.name} needs exactly one select on {message!r} (placeholder={placeholder!r}); "
                f"found {[s.get('placeholder') for s in message.selects]}"
            )
        select = selects[0]
        if select.get("disabled"):
            raise AssertionError(f"the select on {message!r} is disabled")
        wanted = [values] if isinstance(values, str) else list(values)
        options = select.get("options") or []
        picked = []
        for value in wanted:
            match = [o for o in options if value in (o.get("value"), o.get("label"))]
            if not match:
                raise AssertionError(
                    f"select has no option {value!r}; options: {[o.get('label') for o in options]}"
                )
            picked.append(match[0]["value"])
        low, high = select.get("min_values", 1), select.get("max_values", 1)
        if not low <= len(picked) <= high:
            raise AssertionError(f"this select takes {low} to {high} values, not {len(picked)}")
        data = {"custom_id": select["custom_id"], "component_type": select["type"], "values": picked}
        record = await self._fake.send_interaction(
            self.user, 3, data, channel_id=message.channel_id, message=copy.deepcopy(message.raw)
        )
        return await self._answered(
            record, f"{self.name} picking {picked} on message {message.id}", True, within
        )

    async def submit_modal(
        self, values: dict[str, str], *, wait: bool = True, within: float | None = None
    ) -> Reply:
        """Fills the open modal's fields (by custom_id) and submits it, as the client would allow."""
        opened = self._fake.modals.get(self.id)
        if opened is None or opened.modal is None:
            raise AssertionError(f"the bot has not opened a modal for {self.name}")
        modal = opened.modal
        inputs = {c["custom_id"]: c for c in _walk(modal.get("components") or []) if c.get("type") == 4}
        unknown = set(values) - set(inputs)
        if unknown:
            raise AssertionError(
                f"modal {modal.get('title')!r} has no field {sorted(unknown)}; fields: {list(inputs)}"
            )
        for custom_id, field in inputs.items():
            value = values.get(custom_id, field.get("value") or "")
            if field.get("required", True) and not value:
                raise AssertionError(
                    f"the client will not submit {modal.get('title')!r} without {custom_id!r}"
                )
            if value and not field.get("min_length", 0) <= len(value) <= field.get("max_length", 4000):
                raise AssertionError(
                    f"{custom_id!r} must be {field.get('min_length', 0)}–{field.get('max_length')} long"
                )

        def answered(component: dict[str, Any]) -> dict[str, Any] | None:
            kind = component.get("type")
            if kind == 1:
                return {"type": 1, "components": [a for c in component["components"] if (a := answered(c))]}
            if kind == 18:
                inner = answered(component["component"])
                return {"type": 18, "id": component.get("id"), "component": inner} if inner else None
            if kind == 4:
                return {
                    "type": 4,
                    "custom_id": component["custom_id"],
                    # What the person leaves untouched is sent as prefilled, as Discord's client does.
                    "value": values.get(component["custom_id"], component.get("value") or ""),
                }
            return None

        components = [a for c in modal.get("components") or [] if (a := answered(c))]
        del self._fake.modals[self.id]
        data = {"custom_id": modal["custom_id"], "components": components}
        source = self._fake.messages.get(opened.message_id) if opened.message_id else None
        record = await self._fake.send_interaction(
            self.user,
            5,
            data,
            channel_id=opened.channel_id,
            message=copy.deepcopy(source) if source else None,
            trigger=opened,
        )
        return await self._answered(record, f"{self.name} submitting {modal.get('title')!r}", wait, within)

    async def say(self, content: str, *, channel: str | None = None) -> Message:
        """Writes a plain message in the channel."""
        message = await self._fake.post_user_message(self.user, self.table.channel_id_of(channel), content)
        return Message(self._fake, int(message["id"]))

    # -- helpers -----------------------------------------------------------------------------------

    def _visible(self, message: Message | Reply) -> Message:
        if isinstance(message, Reply):
            if message.message is None:
                raise AssertionError(f"{message!r} has no message to act on")
            message = message.message
        if message.deleted:
            raise AssertionError(f"{self.name} cannot act on message {message.id}: it was deleted")
        if message.ephemeral and message.id not in self._fake.ephemeral_log[self.id]:
            raise AssertionError(
                f"{self.name} cannot see message {message.id}: it is someone else's ephemeral"
            )
        return message

    async def _answered(
        self, record: InteractionRecord, action: str, wait: bool, within: float | None, quiet: bool = True
    ) -> Reply:
        """Waits for the callback (and, for a deferred reply, its edit or follow-up), then for quiet."""
        reply = Reply(self._fake, record)
        if not wait:
            return reply
        limit = within or self.table.timeout
        await self._fake.wait_until(
            lambda: record.acknowledged,
            within=limit,
            what=f"the bot to answer {action} (interaction {record.id})",
        )
        if record.callback_type == 5:
            await self._fake.wait_until(
                lambda: record.completed,
                within=limit,
                what=f"the bot to finish its deferred answer to {action}",
            )
        if quiet:
            await self.table.settle(within=limit)
        return reply

    def __repr__(self) -> str:
        return f"<Player {self.name} {self.id}>"


class Table:
    """The guild channel where the game is played, and the people around it."""

    def __init__(
        self,
        fake: FakeDiscord,
        *,
        channel: str = "general",
        timeout: float = DEFAULT_TIMEOUT,
        quiet_here: bool = False,
    ) -> None:
        self.fake = fake
        self.channel = fake.channel_named(channel)
        self.timeout = timeout
        # Quiet means this channel's quiet only (its messages, its interactions' answers): for a table beside
        # others where bots play on, whose requests never stop.
        self.quiet_here = quiet_here
        self._players: dict[str, Player] = {}

    @property
    def channel_id(self) -> int:
        return int(self.channel["id"])

    @property
    def guild_id(self) -> int:
        """The guild of the table's channel (the fake's first guild unless the channel is of the second)."""
        return self.fake.guild_of(self.channel_id)

    @property
    def clock(self) -> Clock:
        """Simulated time: `table.clock.advance(seconds)` skips ahead (deadlines, token expiry)."""
        return self.fake.clock

    def channel_id_of(self, name: str | None) -> int:
        return self.channel_id if name is None else int(self.fake.channel_named(name)["id"])

    def user(self, name: str, *, permissions: int | None = None, locale: str | None = None) -> Player:
        """The person called `name` (a member of the guild; new names join it).

        `locale` is their Discord client's language (interaction.locale), e.g. "de"; default "en-US".
        """
        if name not in self._players:
            self._players[name] = Player(self, self.fake.user(name, permissions=permissions))
        player = self._players[name]
        if locale is not None:
            player.user.locale = locale
        return player

    def channel_messages(self, channel: str | None = None) -> list[Message]:
        """What everyone sees in the channel, oldest first."""
        channel_id = self.channel_id_of(channel)
        return [Message(self.fake, int(m["id"])) for m in self.fake.channel_messages(channel_id)]

    @property
    def last_message(self) -> Message:
        found = self.channel_messages()
        assert found, "the channel is empty"
        return found[-1]

    async def wait_for_message(
        self,
        predicate: Callable[[Message], bool],
        *,
        channel: str | None = None,
        within: float | None = None,
        what: str = "a matching message",
    ) -> Message:
        """The newest channel message for which predicate holds, waiting for it if needed."""

        def find() -> Message | None:
            for message in reversed(self.channel_messages(channel)):
                if predicate(message):
                    return message
            return None

        found = await self.fake.wait_until(find, within=within or self.timeout, what=f"{what} in the channel")
        assert found is not None
        return found

    async def wait_for_bot(self, within: float = 15.0) -> None:
        """Until the bot is connected to the gateway with a ready session."""
        await self.fake.wait_until(
            lambda: self.fake.gateway.connected_for(self.guild_id), within=within, what="the bot to connect"
        )

    async def settle(self, within: float | None = None) -> None:
        channel = self.channel_id if self.quiet_here else None
        await self.fake.settle(within=within or self.timeout, channel_id=channel)

    # -- slash commands ----------------------------------------------------------------------------

    def command_names(self) -> list[str]:
        return [c["name"] for c in self.fake.all_commands(self.guild_id) if c["type"] == 1]

    def build_command(
        self, path: str, values: dict[str, Any], *, user: FakeUser | None = None
    ) -> dict[str, Any]:
        """The `data` of a CHAT_INPUT interaction for "/name [group] [sub]" from the synced commands."""
        words = path.lstrip("/").split()
        commands = [
            c for c in self.fake.all_commands(self.guild_id) if c["type"] == 1 and c["name"] == words[0]
        ]
        if not commands:
            raise AssertionError(f"the bot has not synced /{words[0]}; synced: {self.command_names()}")
        command = commands[0]
        needed = int(command.get("default_member_permissions") or 0)
        if user is not None and needed & ~user.permissions and not user.permissions & ADMINISTRATOR:
            # The client does not even show such a command to this member.
            raise AssertionError(f"{user.name} cannot use /{words[0]}: it needs permissions {needed:#x}")
        definitions = command.get("options") or []
        chain: list[dict[str, Any]] = []
        for word in words[1:]:
            match = [o for o in definitions if o["name"] == word and o.get("type") in (_SUBCOMMAND, _GROUP)]
            if not match:
                names = [o["name"] for o in definitions if o.get("type") in (_SUBCOMMAND, _GROUP)]
                raise AssertionError(f"/{' '.join(words)}: no subcommand {word!r}; there are {names}")
            chain.append(match[0])
            definitions = match[0].get("options") or []
        nested = [o["name"] for o in definitions if o.get("type") in (_SUBCOMMAND, _GROUP)]
        if nested:
            raise AssertionError(f"/{' '.join(words)} needs a subcommand: one of {nested}")
        resolved: dict[str, dict[str, Any]] = {}
        options = [
            self._option(d, values.pop(d["name"]), resolved) for d in definitions if d["name"] in values
        ]
        if values:
            known = [d["name"] for d in definitions]
            raise AssertionError(f"/{' '.join(words)} has no option {sorted(values)}; options: {known}")
        given = {o["name"] for o in options}
        missing = [d["name"] for d in definitions if d.get("required") and d["name"] not in given]
        if missing:
            raise AssertionError(f"/{' '.join(words)} cannot be sent without {missing}")
        for link in reversed(chain):
            options = [{"type": link["type"], "name": link["name"], "options": options}]
        data: dict[str, Any] = {"id": command["id"], "name": command["name"], "type": 1, "options": options}
        if command.get("guild_id"):
            data["guild_id"] = command["guild_id"]
        if resolved:
            data["resolved"] = resolved
        return data

    def _option(
        self, definition: dict[str, Any], value: Any, resolved: dict[str, dict[str, Any]]
    ) -> dict[str, Any]:
        kind, name = definition["type"], definition["name"]
        choices = definition.get("choices")
        if choices:
            by_name = {c["name"]: c["value"] for c in choices}
            allowed = [c["value"] for c in choices]
            value = by_name.get(value, value) if value not in allowed else value
            if value not in allowed:
                raise AssertionError(
                    f"option {name!r} takes one of {list(by_name)} / {allowed}, not {value!r}"
                )
        if kind == _STRING:
            value = str(value)
        elif kind == _INTEGER:
            value = int(value)
        elif kind == _NUMBER:
            value = float(value)
        elif kind == _BOOLEAN:
            value = bool(value)
        elif kind in (_USER, _MENTIONABLE):
            user = value.user if isinstance(value, Player) else value
            if not isinstance(user, FakeUser):
                user = self.fake.users[int(user)]
            resolved.setdefault("users", {})[str(user.id)] = user.user_payload()
            member = user.member_payload(with_permissions=True)
            member.pop("user")
            resolved.setdefault("members", {})[str(user.id)] = member
            value = str(user.id)
        elif kind == _CHANNEL:
            channel = (
                self.fake.channel_named(value) if isinstance(value, str) else self.fake.channels[int(value)]
            )
            resolved.setdefault("channels", {})[channel["id"]] = {**channel, "permissions": str(1 << 10)}
            value = channel["id"]
        else:
            raise AssertionError(f"the driver cannot fill option {name!r} of type {kind} yet")
        return {"type": kind, "name": name, "value": value}
