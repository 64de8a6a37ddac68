"""Bot players: the contract a game's bot policy implements, beside its pure rules.

A policy decides for one seat from what that seat may know — its own view (`view_for(state, seat)`), the
actions `legal_actions` offers it and the buttons `table_actions` offers it — and from its own random
source. It never sees the state, another seat's secrets or the session's seed: the table layer builds a
`Seen` for it and submits the action it chooses through the same path as a person's click, so the rules
judge a bot's move as anyone's, and the action log holds it like anyone's (a replay never runs a bot again).

A game offers bots by declaring `bots=` in its `GameInfo` (bot/games/registry.py): a function
`(level, words) -> Policy`, words being the bot.words service (None where the game needs none). A policy
lives in `bot/games/<game>/bots.py`; like the rules it is pure: no discord, no I/O, no asyncio, no clock.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from bot.engine.game import JSON, Action
from bot.i18n import N_


class Level(StrEnum):
    """A bot's strength, as the lobby offers it: each level beats the one below (docs/bots.md)."""

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


LEVELS: tuple[Level, ...] = (Level.EASY, Level.MEDIUM, Level.HARD)
# Each level's name, as the lobby, /new and /stats say it (catalogue keys; a game describes its levels itself
# under `<game>.bots.<level>`).
LEVEL_NAMES: dict[Level, str] = {
    Level.EASY: N_("ui.bot.level.easy"),
    Level.MEDIUM: N_("ui.bot.level.medium"),
    Level.HARD: N_("ui.bot.level.hard"),
}


@dataclass(frozen=True)
class Seen:
    """Everything a bot's seat may know now: nothing more reaches a policy."""

    seat: str  # the bot's player id
    view: JSON  # game.view_for(state, seat)
    legal: tuple[Action, ...]  # game.legal_actions(state, seat), or () when it may do nothing
    offered: frozenset[str]  # game.table_actions(state, seat)


@dataclass(frozen=True)
class Move:
    """What a bot will do, and after how long (seconds): its thinking time at a human pace, or in a speed game
    its reaction time. The table layer waits `delay`, then sends `action` (unless the table moved on and the
    action is no longer offered: the bot then looks again)."""

    action: Action
    delay: float


class Policy(Protocol):
    """One bot's way of playing one game at one level.

    A policy whose choices read data that takes time to load (word lists) may also have `warm(self) -> None`,
    loading it: the table layer calls it once, in a worker thread, before the level's first choice (when a
    bot is seated, at a restore), so no such load ever runs on the event loop. It must be thread-safe.
    """

    @property
    def level(self) -> Level:
        """The level it plays at (read only: the driver keeps one policy per level)."""
        ...

    def choose(self, seen: Seen, rng: random.Random) -> Move | None:
        """The move this seat makes now, or None to wait (nothing to do, or nothing worth doing yet: another
        player's turn, a vote it has already cast). Only `seen` and `rng` may inform it."""
        ...


def pace(
    level: Level,
    rng: random.Random,
    easy: tuple[float, float],
    medium: tuple[float, float],
    hard: tuple[float, float],
) -> float:
    """A randomised delay in seconds from the level's (low, high) range."""
    low, high = {Level.EASY: easy, Level.MEDIUM: medium, Level.HARD: hard}[level]
    return rng.uniform(low, high)


def of_kind(legal: Sequence[Action], name: str) -> list[Action]:
    """The legal actions named `name`."""
    return [action for action in legal if action.get("do") == name]


# A bot seat's player id: never a Discord snowflake (digits) nor a mention, so nothing can ping it.
BOT_PREFIX = "bot:"


def is_bot(player: str | None) -> bool:
    """Whether this player id is a bot seat's."""
    return isinstance(player, str) and player.startswith(BOT_PREFIX)


def bot_id(number: int) -> str:
    return f"{BOT_PREFIX}{number}"


def bot_rng(seat_seed: int, version: int) -> random.Random:
    """The bot's random source for the state at `version`: from the seat's own seed (never the session's), so
    a choice is reproducible from the seat alone."""
    return random.Random(f"{seat_seed}:{version}")
