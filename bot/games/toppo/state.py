"""Toppo's options and state: plain data the engine stores as it is (orjson) and reads back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.engine.errors import BadAction
from bot.engine.game import as_dict

# Phases.
WAITING = "waiting"  # play is stopped (the deal, an interruption) until `awaited` begins
PLAYING = "playing"  # everyone plays at once
CHOOSING = "choosing"  # between two games of the series: the start player chooses 3, 4 or 5 cards
OVER = "over"  # the series is over

DISPLAY_SIZES = (3, 4, 5)  # "3, 4 or 5 Cards"
TWO_PLAYER_SIZES = (3, 4)  # "With two players, only use displays of three or four cards, never five."
DECK_SIZE = 33  # "Each player takes 33 cards as a face-down deck"

# Numeric options: (default, lowest, highest). `display` is a choice among DISPLAY_SIZES.
NUMBERS = {
    "games": (3, 1, 20),  # "Play a number of games": the games of the series
    "deck": (DECK_SIZE, 5, DECK_SIZE),  # each deck's cards at the deal (shorter games below 33)
    "restart_seconds": (20, 5, 600),  # the player who must begin has this long; then the bot begins for them
    "choose_seconds": (60, 10, 600),  # the start player's choice of 3/4/5; then the last size is kept
    "vote_seconds": (30, 10, 600),  # a vote on replacing the display closes after this
}
DEFAULT_DISPLAY = 3


def checked_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options with their defaults, or BadAction naming the first wrong one."""
    unknown = sorted(set(options) - {*NUMBERS, "display"}, key=str)
    if unknown:
        raise BadAction("toppo.option.unknown", name=str(unknown[0])[:40])
    checked: dict[str, Any] = {}
    display = options.get("display", DEFAULT_DISPLAY)
    if type(display) is not int or display not in DISPLAY_SIZES:  # bool is no number of cards
        raise BadAction("toppo.option.display", name="display")
    checked["display"] = display
    for name, (default, low, high) in NUMBERS.items():
        given = options.get(name, default)
        if type(given) is not int or not low <= given <= high:
            raise BadAction("toppo.option.range", name=name, low=low, high=high)
        checked[name] = given
    return checked


def sizes_for(players: int) -> tuple[int, ...]:
    """The display sizes a table of `players` may use."""
    return TWO_PLAYER_SIZES if players == 2 else DISPLAY_SIZES


@dataclass
class State:
    players: list[str]  # seat order
    sets: int  # 1 (2–4 players) or 2 (5–8 players)
    deck_size: int  # cards per deck at each deal
    games: int  # games in the series
    restart_seconds: int
    choose_seconds: int
    vote_seconds: int
    phase: str  # waiting | playing | choosing | over
    game_no: int  # the game of the series, from 1
    display_size: int  # 3, 4 or 5 this game
    display: list[str]  # the top card of each display position, left to right (public)
    topped: list[
        str
    ]  # cards covered on the display or set aside: the next stack (only their count is public)
    stack: list[str]  # the remaining stack, top first (hidden from everyone)
    decks: dict[str, list[str]]  # each face-down deck, top first (hidden from everyone, its owner included)
    lines: dict[str, list[str]]  # each player's face-up line, left to right (public)
    matched: list[str]  # players whose line is what is left of a line they matched from
    awaited: str | None  # who must begin (phase waiting): the start player, the topper, the penalised
    start_player: str  # this game's start player
    chooser: str | None  # who chooses the next game's display (phase choosing)
    display_no: int  # +1 whenever the display changes: the freshness `seen`
    play_no: int  # +1 at every interruption and every game's end: the freshness `play`
    vote_no: int  # votes opened so far: the freshness `vote` while one is open
    vote: dict[str, Any] | None  # the open vote on replacing the display
    penalty_cards: dict[str, int]  # penalty cards each player took this game
    totals: dict[str, int]  # running totals of penalty points over the series
    results: list[dict[str, Any]]  # one record per finished game
    history: list[dict[str, Any]]  # one record per claim (top, match, toppo), early start and replacement
    last_top: str | None  # who topped last (this game)
    left: list[str]
    winners: list[str]
    end_reason: str = ""  # a Termination's value once over


def dump(state: State) -> dict[str, Any]:
    return as_dict(state)


def load(data: Mapping[str, Any]) -> State:
    vote = data["vote"]
    return State(
        players=list(data["players"]),
        sets=data["sets"],
        deck_size=data["deck_size"],
        games=data["games"],
        restart_seconds=data["restart_seconds"],
        choose_seconds=data["choose_seconds"],
        vote_seconds=data["vote_seconds"],
        phase=data["phase"],
        game_no=data["game_no"],
        display_size=data["display_size"],
        display=list(data["display"]),
        topped=list(data["topped"]),
        stack=list(data["stack"]),
        decks={player: list(cards) for player, cards in data["decks"].items()},
        lines={player: list(cards) for player, cards in data["lines"].items()},
        matched=list(data["matched"]),
        awaited=data["awaited"],
        start_player=data["start_player"],
        chooser=data["chooser"],
        display_no=data["display_no"],
        play_no=data["play_no"],
        vote_no=data["vote_no"],
        vote=None if vote is None else _deep(vote),
        penalty_cards=dict(data["penalty_cards"]),
        totals=dict(data["totals"]),
        results=[_copy_result(record) for record in data["results"]],
        history=[_copy_record(record) for record in data["history"]],
        last_top=data["last_top"],
        left=list(data["left"]),
        winners=list(data["winners"]),
        end_reason=data.get("end_reason", ""),
    )


def _copy_result(record: Mapping[str, Any]) -> dict[str, Any]:
    return {**record, "points": dict(record["points"]), "totals": dict(record["totals"])}


def _copy_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """A history record; its lists of cards are copied too, so a loaded state shares nothing."""
    return {key: _deep(value) for key, value in record.items()}


def _deep(value: Any) -> Any:
    if isinstance(value, list):
        return [_deep(item) for item in value]
    if isinstance(value, dict):
        return {key: _deep(item) for key, item in value.items()}
    return value
