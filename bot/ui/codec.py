"""Typed custom_ids: `<game>:<session>:<action>[:<arg>.<arg>…]`, each action declaring its arguments.

A button's id is all a click brings back (the bot may have restarted since the message was posted), and a
client can send any id it likes. So an id is parsed against its action's declaration — each argument's type
and bounds — and anything that does not fit is refused with one clear message, never a traceback.
No discord import: this module is tested on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# SQLite's INTEGER is 64-bit signed: a larger session number is no session of ours.
MAX_SESSION_ID = 2**63 - 1
MAX_CUSTOM_ID = 100  # Discord's limit on a component's or a modal's custom_id
SEPARATOR = "."

_HEAD = re.compile(
    r"(?P<game>[a-z]{2,16}):(?P<session>\d{1,19}):(?P<action>[a-z_]{1,24})(?::(?P<arg>.*))?", re.S
)
_FIELD = re.compile(r"[^.:\s]{1,50}")


class MalformedId(ValueError):
    """A custom_id that is not one this bot builds (forged, damaged, or from another bot)."""


@dataclass(frozen=True)
class Arg:
    """One argument of a button: a bounded integer, one of fixed words, or a short token matching `pattern`."""

    name: str
    kind: str = "int"  # "int" | "choice" | "token"
    low: int = 0
    high: int = 2**31 - 1
    choices: tuple[str, ...] = ()
    pattern: str = r"[^.:\s]{1,50}"
    optional: bool = False

    def parse(self, text: str) -> int | str:
        if self.kind == "int":
            if not text.isdigit() or len(text) > 10 or not self.low <= int(text) <= self.high:
                raise MalformedId(f"{self.name} must be a number from {self.low} to {self.high}")
            return int(text)
        if self.kind == "choice":
            if text not in self.choices:
                raise MalformedId(f"{self.name} must be one of {', '.join(self.choices)}")
            return text
        if not re.fullmatch(self.pattern, text):
            raise MalformedId(f"{self.name} is malformed")
        return text

    def format(self, value: Any) -> str:
        text = str(value)
        if not _FIELD.fullmatch(text):
            raise ValueError(f"{self.name}={value!r} cannot go in a custom_id")
        try:
            if self.parse(text) != (value if self.kind != "int" else int(value)):
                raise MalformedId(self.name)
        except (MalformedId, TypeError, ValueError) as error:
            raise ValueError(f"{self.name}={value!r} cannot go in a custom_id") from error
        return text


def number(name: str, low: int = 0, high: int = 2**31 - 1, *, optional: bool = False) -> Arg:
    return Arg(name, "int", low=low, high=high, optional=optional)


def choice(name: str, *choices: str, optional: bool = False) -> Arg:
    return Arg(name, "choice", choices=choices, optional=optional)


def token(name: str, pattern: str = r"[^.:\s]{1,50}", *, optional: bool = False) -> Arg:
    return Arg(name, "token", pattern=pattern, optional=optional)


@dataclass(frozen=True)
class Spec:
    """An action's arguments, in order; optional ones come last (ids of older messages may lack them)."""

    game: str
    action: str
    args: tuple[Arg, ...] = ()

    def encode(self, session_id: int, **values: Any) -> str:
        unknown = set(values) - {arg.name for arg in self.args}
        if unknown:
            raise ValueError(f"{self.game}:{self.action} has no argument {', '.join(sorted(unknown))}")
        fields: list[str] = []
        for arg in self.args:
            value = values.get(arg.name)
            if value is None:
                if not arg.optional:
                    raise ValueError(f"{self.game}:{self.action} needs {arg.name}")
                break  # optional arguments are trailing: the first one left out ends the list
            fields.append(arg.format(value))
        if not 1 <= session_id <= MAX_SESSION_ID:
            raise ValueError(f"session {session_id} out of range")
        custom_id = f"{self.game}:{session_id}:{self.action}"
        if fields:
            custom_id += ":" + SEPARATOR.join(fields)
        if len(custom_id) > MAX_CUSTOM_ID:
            raise ValueError(f"custom_id too long: {custom_id!r}")
        return custom_id

    def decode(self, arg: str | None) -> dict[str, Any]:
        fields = arg.split(SEPARATOR) if arg else []
        required = sum(1 for a in self.args if not a.optional)
        if not required <= len(fields) <= len(self.args):
            raise MalformedId(f"{self.action} takes {len(self.args)} argument(s), not {len(fields)}")
        return {spec.name: spec.parse(field) for spec, field in zip(self.args, fields, strict=False)}


@dataclass(frozen=True)
class Parsed:
    game: str
    session_id: int
    action: str
    arg: str | None


def parse(custom_id: str) -> Parsed:
    """The parts of an id, or MalformedId; the arguments are checked by the action's Spec."""
    if len(custom_id) > MAX_CUSTOM_ID:
        raise MalformedId("too long")
    match = _HEAD.fullmatch(custom_id)
    if match is None:
        raise MalformedId("not an id of this bot")
    session_id = int(match["session"])
    if not 1 <= session_id <= MAX_SESSION_ID:
        raise MalformedId("no such session")
    arg = match["arg"]
    if arg is not None and not all(_FIELD.fullmatch(field) for field in arg.split(SEPARATOR)):
        raise MalformedId("malformed argument")
    return Parsed(match["game"], session_id, match["action"], arg)
