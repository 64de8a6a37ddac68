"""Skeleton's state and options: plain data the engine stores as it is (orjson) and reads back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.engine.errors import BadAction
from bot.engine.game import as_dict

RANKS = (1, 2, 3, 4, 5)
SUITS = ("s", "h", "d", "c")
# Twenty distinct cards, "3h" = the 3 of hearts, worth 3 points: distinct names let the conformance suite
# see a hand leak, which repeated names would hide.
DECK = tuple(f"{rank}{suit}" for rank in RANKS for suit in SUITS)

# Option: (default, lowest, highest).
OPTIONS = {
    "target": (10, 3, 60),  # points that win
    "turn_seconds": (120, 10, 3600),  # an idle turn ends after this
}


def value(card: str) -> int:
    return int(card[:-1])


def checked_options(options: Mapping[str, Any]) -> dict[str, int]:
    """The options with their defaults, or BadAction naming the first wrong one."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise BadAction("skeleton.option.unknown", name=unknown[0])
    checked = {}
    for name, (default, low, high) in OPTIONS.items():
        given = options.get(name, default)
        if type(given) is not int or not low <= given <= high:  # bool is no number of points
            raise BadAction("skeleton.option.range", name=name, low=low, high=high)
        checked[name] = given
    return checked


@dataclass
class State:
    players: list[str]  # seat order
    target: int
    turn_seconds: int
    deck: list[str]  # the cards left to draw, sorted: their order is chance's, decided at each draw
    hands: dict[str, list[str]]  # secret: each player sees only their own
    scores: dict[str, int]
    pile: list[str]  # cards played, public, last on top
    current: str  # whose turn it is
    turn: int  # counts turns from 1: the freshness every button carries
    phase: str  # "draw" | "play" | "over"
    left: list[str]
    history: list[dict[str, Any]]  # one record per finished turn
    winners: list[str]
    end_reason: str = ""  # why the game ended: a Termination's value, "" while it goes on


def dump(state: State) -> dict[str, Any]:
    return as_dict(state)


def load(data: Mapping[str, Any]) -> State:
    return State(
        players=list(data["players"]),
        target=data["target"],
        turn_seconds=data["turn_seconds"],
        deck=list(data["deck"]),
        hands={player: list(cards) for player, cards in data["hands"].items()},
        scores=dict(data["scores"]),
        pile=list(data["pile"]),
        current=data["current"],
        turn=data["turn"],
        phase=data["phase"],
        left=list(data["left"]),
        history=[dict(record) for record in data["history"]],
        winners=list(data["winners"]),
        end_reason=data.get("end_reason", ""),
    )
