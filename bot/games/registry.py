"""The one place a game is declared: each package under bot/games sets `GAME = GameInfo(...)` in its
`__init__.py`, and every list the bot and its tests need (commands, cogs, pictures, rules pages, conformance
options…) is derived from those declarations here. Adding a game touches no shared file
(docs/adding-a-game.md).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.engine.bots import Level, Policy
from bot.engine.game import Game

PACKAGE = "bot.games"


def _no_options(lang: str) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class ServerDefault:
    """An option of `/<game> new` a server may give a default for (`/settings default`): the host's value
    wins over the server's, which wins over the game's own default (or the bot's setting). The game's
    `validate_options` judges a value, so a declaration states only what to offer and how to name it."""

    option: str  # the key in the game's options
    label: str  # catalogue key: what the option is, as /settings shows it
    # The values to offer, each with the catalogue key of its name (None: the value is its own name); no
    # choices: a whole number (of seconds, for a time), bounded by the game's own check.
    choices: tuple[tuple[str | int, str | None], ...] = ()
    # A number's bounds where they are narrower than the rules' (those of the host's own option).
    bounds: tuple[int, int] | None = None


@dataclass(frozen=True)
class BotDefault:
    """An option of `/<game> new` the bot's operator may give a default for in the environment (`env`, e.g.
    TOPPLE_TURN_SECONDS, documented in .env.example): read and checked at start-up with every setting, so a
    bad value stops the bot with one line naming it. A server's default and the host's option win over it."""

    env: str  # the setting's name
    option: str  # the key in the game's options
    # The option's value from the setting as written (None: the setting turns the option off); ValueError
    # with what the setting must be ("a whole number from 10 to 3600") for anything else.
    read: Callable[[str], Any]
    default: str = ""  # the setting's value when unset ("": the game's own default)


@dataclass(frozen=True)
class GameInfo:
    """What the bot and its tests know of a game besides its rules.

    `name` is the id everything stores and routes by (custom_ids, sessions, scenarios, catalogue namespace,
    `/name` command group, docs/rules/<name>.md): it is the package's name. `colour` is 0xRRGGBB (the rules
    never import discord; the table layer turns it into a discord.Colour).
    """

    name: str
    title: str
    colour: int
    make: Callable[[Any], Game]  # the rules object, given the bot.words service (None where none is needed)
    rules_summary: str  # catalogue key: the short account /rules shows in the reader's language
    cog: str = ""  # the extension that loads the game's cog; "" means cogs.<name>
    pictures: tuple[str, ...] = ()  # modules the picture process imports as it starts (Pillow, fonts)
    # Options that keep a conformance playout short but real (tests/engine/test_conformance.py).
    play_options: tuple[Mapping[str, Any], ...] = ({},)
    # The `/<name> new` options that open a table speaking `lang` (tests/e2e/test_languages.py).
    new_options: Callable[[str], dict[str, Any]] = _no_options
    # False: the game is loaded only where EXTRA_GAMES names it (tests, a developer's bot), never offered to
    # servers by default.
    listed: bool = True
    # True while a game's rules have landed but its cog has not: the bot never loads it (not even where
    # EXTRA_GAMES names it) and the tests that need a table skip it; the rules' tests (conformance, scenarios,
    # replay) run it all the same. The cog's arrival removes the flag.
    rules_only: bool = False
    # The options a server may set a default for (`/settings default`): timers and modes.
    server_defaults: tuple[ServerDefault, ...] = ()
    # The options the bot's environment may set a default for (bot/config.py reads them for every game).
    bot_defaults: tuple[BotDefault, ...] = ()
    # The game's bot players (bot/engine/bots.py): (level, words service) -> a Policy for one seat; None: the
    # game offers no bot.
    bots: Callable[[Level, Any], Policy] | None = None
    # What the game reads once per process from the words service (its bots' lexicon): loaded at start-up with
    # the dictionaries, before the bot goes online, not by the first bot to move in play (a second of Python
    # in a worker thread, beside the event loop, while tables play). Given the words service.
    warm: Callable[[Any], object] | None = None

    @property
    def extension(self) -> str:
        return self.cog or f"cogs.{self.name}"

    def server_default(self, option: str) -> ServerDefault | None:
        """The declaration of the server-settable `option`, or None."""
        return next((d for d in self.server_defaults if d.option == option), None)

    @property
    def rules_page(self) -> str:
        """The rules page's path in the repository (shipped as bot/rules/<name>.md, a link to it)."""
        return f"docs/rules/{self.name}.md"


@functools.cache
def _discovered() -> tuple[GameInfo, ...]:
    package = importlib.import_module(PACKAGE)
    found = []
    for module in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if not module.ispkg:
            continue
        info = getattr(importlib.import_module(f"{PACKAGE}.{module.name}"), "GAME", None)
        if not isinstance(info, GameInfo):
            raise TypeError(f"{PACKAGE}.{module.name} declares no GAME = GameInfo(...)")
        if info.name != module.name:
            raise ValueError(f"{PACKAGE}.{module.name} declares the game {info.name!r}: use its package name")
        found.append(info)
    return tuple(found)


def every_game() -> tuple[GameInfo, ...]:
    """Every declared game, listed or not, by name."""
    return _discovered()


def listed_games() -> tuple[GameInfo, ...]:
    """The games offered to servers (a game whose cog is still to come is never offered)."""
    return tuple(info for info in _discovered() if info.listed and not info.rules_only)


def games_with_a_table() -> tuple[GameInfo, ...]:
    """Every declared game that has its cog (all but the `rules_only` ones), listed or not."""
    return tuple(info for info in _discovered() if not info.rules_only)


def loaded_games(extra: tuple[str, ...] | list[str] = ()) -> tuple[GameInfo, ...]:
    """The games a bot loads: the listed ones and the unlisted ones named in `extra` (EXTRA_GAMES), never a
    game whose cog is still to come (`rules_only`)."""
    unknown = set(extra) - {info.name for info in _discovered()}
    if unknown:
        raise KeyError(f"no such game: {', '.join(sorted(unknown))}")
    return tuple(info for info in games_with_a_table() if info.listed or info.name in extra)


def game_info(name: str) -> GameInfo:
    """The declaration of the game called `name`; KeyError for an unknown game."""
    for info in _discovered():
        if info.name == name:
            return info
    raise KeyError(name)


def make_game(name: str, words: Any) -> Game:
    """The rules object of the game called `name`; KeyError for an unknown game."""
    return game_info(name).make(words)
