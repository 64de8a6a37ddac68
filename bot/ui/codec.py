"""Typed custom_ids: `<game>:<session>:<action>[:<arg>.<arg>…]`, each action declaring its arguments.

A button's id is all a click brings back (the bot may have restarted since the message was posted), and a
client can send any id it likes. So an id is parsed against its action's declaration — each argument's type
and bounds — and anything that does not fit is refused with one clear message, never a traceback.
Numbers are ASCII digits without leading zeros: one number has one spelling, so `２`, `٢`, `²` or `02`
are no id of ours. A control that needs no session (a leaderboard's page) leaves the session empty:
`leaderboard::page:2`. An argument declared `fresh` names the state it was made against (a round, a move):
an id without it is refused as stale, never taken as "any round".
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
    r"(?P<game>[a-z]{2,16}):(?P<session>[1-9][0-9]{0,18})?:(?P<action>[a-z_]{1,24})(?::(?P<arg>.*))?",
    re.S,
)
_FIELD = re.compile(r"[^.:\s]{1,50}")
# A number as this bot writes it: `\d` and str.isdigit() would also take other scripts' digits.
_NUMBER = re.compile(r"0|[1-9][0-9]{0,9}")


class MalformedId(ValueError):
    """A custom_id that is not one this bot builds (forged, damaged, or from another bot)."""


class MissingFreshness(MalformedId):
    """An id without the freshness value its action carries (e.g. a round): refused as stale."""


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
    fresh: bool = False  # names the state the click was made against (the rules' `freshness` key)

    def parse(self, text: str) -> int | str:
        if self.kind == "int":
            if not _NUMBER.fullmatch(text) or not self.low <= int(text) <= self.high:
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


def fresh(name: str, low: int = 0, high: int = 2**31 - 1) -> Arg:
    """A freshness value (the rules' `freshness()` key of that name): required, so that an id without it
    can never skip the stale check."""
    return Arg(name, "int", low=low, high=high, fresh=True)


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
    sessionless: bool = False  # a control that needs no session: `<game>::<action>[:args]`

    @property
    def freshness(self) -> tuple[str, ...]:
        """The names of the arguments that carry the rules' freshness values."""
        return tuple(arg.name for arg in self.args if arg.fresh)

    def encode(self, session_id: int | None = None, /, **values: Any) -> str:
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
        if self.sessionless:
            if session_id is not None:
                raise ValueError(f"{self.game}:{self.action} takes no session")
            session = ""
        elif session_id is None or not 1 <= session_id <= MAX_SESSION_ID:
            raise ValueError(f"session {session_id} out of range")
        else:
            session = str(session_id)
        custom_id = f"{self.game}:{session}:{self.action}"
        if fields:
            custom_id += ":" + SEPARATOR.join(fields)
        if len(custom_id) > MAX_CUSTOM_ID:
            raise ValueError(f"custom_id too long: {custom_id!r}")
        return custom_id

    def decode(self, arg: str | None) -> dict[str, Any]:
        fields = arg.split(SEPARATOR) if arg else []
        required = sum(1 for a in self.args if not a.optional)
        if len(fields) > len(self.args):
            raise MalformedId(f"{self.action} takes {len(self.args)} argument(s), not {len(fields)}")
        parsed = {spec.name: spec.parse(field) for spec, field in zip(self.args, fields, strict=False)}
        missing = self.args[len(fields) :]
        if all(arg.optional or arg.fresh for arg in missing) and any(arg.fresh for arg in missing):
            names = ", ".join(arg.name for arg in missing if arg.fresh)
            raise MissingFreshness(f"{self.action} lacks {names}")
        if len(fields) < required:
            raise MalformedId(f"{self.action} takes {len(self.args)} argument(s), not {len(fields)}")
        return parsed


@dataclass(frozen=True)
class Parsed:
    game: str
    session_id: int | None  # None: a control that needs no session
    action: str
    arg: str | None


def parse(custom_id: str) -> Parsed:
    """The parts of an id, or MalformedId; the arguments are checked by the action's Spec."""
    if len(custom_id) > MAX_CUSTOM_ID:
        raise MalformedId("too long")
    match = _HEAD.fullmatch(custom_id)
    if match is None:
        raise MalformedId("not an id of this bot")
    session_id = int(match["session"]) if match["session"] is not None else None
    if session_id is not None and session_id > MAX_SESSION_ID:
        raise MalformedId("no such session")
    arg = match["arg"]
    if arg is not None and not all(_FIELD.fullmatch(field) for field in arg.split(SEPARATOR)):
        raise MalformedId("malformed argument")
    return Parsed(match["game"], session_id, match["action"], arg)
