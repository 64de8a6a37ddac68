"""A server's defaults for the options of `/<game> new` (`/settings default`), read from each game's
declaration (`GameInfo.server_defaults`), so that a new game's defaults need nothing here.

Which value a new table takes: the host's own option, else the server's default, else the bot's setting
(each game's `GameInfo.bot_defaults`, e.g. TOPWORDS_TURN_MINUTES), else the game's own default —
`lobby_options` merges them and the game's `validate_options` judges the result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bot.engine.errors import BadAction
from bot.engine.game import Game
from bot.games.registry import GameInfo, ServerDefault
from bot.i18n import LANGUAGES, t


def declared(info: GameInfo, option: str) -> ServerDefault:
    """The declaration of a server-settable option, or a refusal naming the ones there are."""
    found = info.server_default(option)
    if found is None:
        names = ", ".join(d.option for d in info.server_defaults) or "—"
        raise BadAction("general.settings.unknown_option", game=info.title, option=option[:40], options=names)
    return found


def choice_name(default: ServerDefault, value: Any, lang: str) -> str:
    """A value as a reader reads it: its choice's name in `lang`, or the value itself."""
    for choice, key in default.choices:
        if choice == value and key is not None:
            return t(key, lang)
    return str(value)


def parse_default(info: GameInfo, option: str, typed: str) -> str | int:
    """The value of a server default as typed (or picked from the suggestions): one of the declared choices
    (its value, or its name in any language), else a whole number. Bounds are the game's to judge."""
    default = declared(info, option)
    text = typed.strip()
    if default.choices:
        for value, key in default.choices:
            names = {str(value)} | ({t(key, lang) for lang in LANGUAGES} if key is not None else set())
            if text.casefold() in {name.casefold() for name in names}:
                return value
        values = ", ".join(str(value) for value, _ in default.choices)
        raise BadAction("general.settings.bad_choice", option=option, choices=values)
    if not text.isdigit():
        raise BadAction("general.settings.not_a_number", option=option)
    number = int(text)
    if default.bounds is not None and not default.bounds[0] <= number <= default.bounds[1]:
        low, high = default.bounds
        raise BadAction("general.settings.out_of_bounds", option=option, low=low, high=high)
    return number


def check_default(game: Game, option: str, value: str | int) -> None:
    """The game's own check of the value, as it will judge it when a lobby opens (BadAction: why not)."""
    game.validate_options({option: value})


def server_defaults(info: GameInfo, stored: Mapping[str, Any]) -> dict[str, Any]:
    """The stored defaults the game still declares (an option a game no longer offers is left out)."""
    return {option: value for option, value in stored.items() if info.server_default(option) is not None}


def whole_number_between(low: int, high: int) -> Callable[[str], int]:
    """A `BotDefault` reader: a whole number within the rules' bounds."""

    def read(raw: str) -> int:
        if not raw.isdigit() or not low <= int(raw) <= high:
            raise ValueError(f"a whole number from {low} to {high}")
        return int(raw)

    return read


def minutes_as_seconds_or_off(raw: str) -> int | None:
    """A `BotDefault` reader: minutes (a decimal number) as whole seconds, 0 for off (None)."""
    try:
        minutes = float(raw)
    except ValueError:
        raise ValueError("a number of minutes (0: off)") from None
    if not minutes >= 0 or minutes == float("inf"):
        raise ValueError("0 (off) or a number of minutes")
    return round(minutes * 60) or None


def lobby_options(
    bot_defaults: Mapping[str, Any], server: Mapping[str, Any], host: Mapping[str, Any]
) -> dict[str, Any]:
    """The options a new lobby opens with: the host's win over the server's, which win over the bot's."""
    return {**bot_defaults, **server, **host}
