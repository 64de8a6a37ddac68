"""Topple's options and state: plain data the engine stores as it is (orjson) and reads back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.engine.errors import BadAction
from bot.engine.game import as_dict
from bot.i18n import N_

# Phases.
OPENING = "opening"  # PREPARATION 2: every player rolls, the highest roll goes first (ties roll again)
ROLL = "roll"  # the player on turn rolls the die
PLACE = "place"  # the player on turn places a piece on a square the roll allows
OVER = "over"

STANDARD = "standard"
YOUNG = "young"  # YOUNG PEOPLE VERSION: no score, a toppler is out
VARIANTS = (STANDARD, YOUNG)
VARIANT_NAMES = {STANDARD: N_("topple.variant.standard"), YOUNG: N_("topple.variant.young")}

# Colours in seat order; with 2 players the first seat plays red and yellow, the second green and blue.
COLOURS = ("red", "yellow", "green", "blue")
# How each colour reads (the ids above stay the same in every language: scenarios, buttons, the log).
COLOUR_NAMES = {
    "red": N_("topple.colour.red"),
    "yellow": N_("topple.colour.yellow"),
    "green": N_("topple.colour.green"),
    "blue": N_("topple.colour.blue"),
}
PIECES_PER_COLOUR = 12

# Numeric options: (default, lowest, highest).
NUMBERS = {
    "target": (100, 1, 1000),  # 4. "Decide what the winning score will be. For example, 100 points."
    "turn_seconds": (120, 10, 3600),  # an idle turn is played for the player after this
}


def checked_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options with their defaults, or BadAction naming the first wrong one."""
    unknown = sorted(set(options) - {*NUMBERS, "variant"}, key=str)
    if unknown:
        raise BadAction("topple.option.unknown", name=str(unknown[0])[:40])
    checked: dict[str, Any] = {}
    for name, (default, low, high) in NUMBERS.items():
        given = options.get(name, default)
        if type(given) is not int or not low <= given <= high:  # bool is no number of points
            raise BadAction("topple.option.range", name=name, low=low, high=high)
        checked[name] = given
    variant = options.get("variant", STANDARD)
    if variant not in VARIANTS or not isinstance(variant, str):
        raise BadAction("topple.option.variant", choices=", ".join(VARIANTS))
    checked["variant"] = variant
    return checked


def colours_of(players: Sequence[str]) -> dict[str, list[str]]:
    """TWO-PLAYER VERSION: two colours each; otherwise one colour per seat."""
    if len(players) == 2:
        return {players[0]: [COLOURS[0], COLOURS[1]], players[1]: [COLOURS[2], COLOURS[3]]}
    return {player: [COLOURS[seat]] for seat, player in enumerate(players)}


@dataclass
class State:
    players: list[str]  # seat order
    colours: dict[str, list[str]]  # each player's colours
    variant: str  # "standard" | "young"
    target: int
    turn_seconds: int
    phase: str  # opening | roll | place | over
    turn: int  # counts roll-offs and turns from 1: the freshness every button carries
    round: int  # 0 during the opening, then 1, 2, …
    current: str | None  # the player on turn (None during the opening and at the end)
    roll: int | None  # the die of the turn, once rolled
    board: list[list[list[str]]]  # board[row][col] = the stack's colours from the bottom up
    supply: dict[str, int]  # pieces of each colour still to place this round (colours in play only)
    scores: dict[str, int]  # standard: points; young: how many players each has outlasted
    opening: dict[str, int | None]  # the roll-off under way: each contender's roll (None: yet to roll)
    opening_rolls: list[dict[str, int]]  # every finished roll-off
    last_placer: str | None  # who placed the last piece (the topple bonus, the next round's opener)
    out: list[str]  # young: the players who toppled, in order
    left: list[str]
    history: list[dict[str, Any]]  # one record per placement
    rounds: list[dict[str, Any]]  # one record per finished round
    winners: list[str]
    end_reason: str = ""  # a Termination's value once over


def dump(state: State) -> dict[str, Any]:
    return as_dict(state)


def load(data: Mapping[str, Any]) -> State:
    return State(
        players=list(data["players"]),
        colours={player: list(colours) for player, colours in data["colours"].items()},
        variant=data["variant"],
        target=data["target"],
        turn_seconds=data["turn_seconds"],
        phase=data["phase"],
        turn=data["turn"],
        round=data["round"],
        current=data["current"],
        roll=data["roll"],
        board=[[list(stack) for stack in row] for row in data["board"]],
        supply=dict(data["supply"]),
        scores=dict(data["scores"]),
        opening=dict(data["opening"]),
        opening_rolls=[dict(rolls) for rolls in data["opening_rolls"]],
        last_placer=data["last_placer"],
        out=list(data["out"]),
        left=list(data["left"]),
        history=[dict(record) for record in data["history"]],
        rounds=[dict(record) for record in data["rounds"]],
        winners=list(data["winners"]),
        end_reason=data.get("end_reason", ""),
    )
