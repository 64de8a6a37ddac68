"""Toppo's cards (seeds/toppo-rules.txt, Components; RULES-NOTES.md, Toppo): 5 colours × 5 symbols × 6
copies = 150 cards in a set; 5 to 8 players play with two sets (300 cards).

A card is stored as the string "colour/symbol" (compact in the state and the log, and countable); players,
views, events and scenarios see it as the pair [colour, symbol].
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from bot.engine.errors import BadAction
from bot.i18n import N_

COLOURS = ("red", "yellow", "white", "green", "blue")
SYMBOLS = ("waves", "circle", "square", "h", "plus")
COPIES = 6  # of each card in one set
SET_SIZE = len(COLOURS) * len(SYMBOLS) * COPIES  # 150
TWO_SETS_FROM = 5  # "Try Toppo with up to eight players. You need a second game set"

# How the colours and symbols read (the ids above stay the same in every language: scenarios, buttons, the log).
COLOUR_NAMES = {
    "red": N_("toppo.colour.red"),
    "yellow": N_("toppo.colour.yellow"),
    "white": N_("toppo.colour.white"),
    "green": N_("toppo.colour.green"),
    "blue": N_("toppo.colour.blue"),
}
SYMBOL_NAMES = {
    "waves": N_("toppo.symbol.waves"),
    "circle": N_("toppo.symbol.circle"),
    "square": N_("toppo.symbol.square"),
    "h": N_("toppo.symbol.h"),
    "plus": N_("toppo.symbol.plus"),
}


def card(colour: str, symbol: str) -> str:
    return f"{colour}/{symbol}"


def colour_of(card_id: str) -> str:
    return card_id.split("/", 1)[0]


def symbol_of(card_id: str) -> str:
    return card_id.split("/", 1)[1]


def sets_for(players: int) -> int:
    """2–4 players play with one set, 5–8 with two."""
    return 2 if players >= TWO_SETS_FROM else 1


def full_sets(sets: int) -> list[str]:
    """Every card of `sets` sets, in a fixed order (colour, then symbol)."""
    return [card(c, s) for c in COLOURS for s in SYMBOLS for _ in range(COPIES * sets)]


def tops(line_card: str, display_card: str) -> bool:
    """1. Top: a card tops a display card when it coincides in symbol or in colour."""
    return colour_of(line_card) == colour_of(display_card) or symbol_of(line_card) == symbol_of(display_card)


def shown(cards: Iterable[str]) -> list[list[str]]:
    """Cards as players and scenarios see them: [[colour, symbol], …]."""
    return [card_id.split("/", 1) for card_id in cards]


def parsed(given: object, refusal: str) -> list[str]:
    """A list of [colour, symbol] pairs (a scenario's, a logged deal's) as card ids, or BadAction(refusal)."""
    if not isinstance(given, list):
        raise BadAction(refusal)
    cards = []
    for pair in given:
        if (
            not isinstance(pair, list | tuple)
            or len(pair) != 2
            or pair[0] not in COLOURS
            or pair[1] not in SYMBOLS
        ):
            raise BadAction(refusal)
        cards.append(card(pair[0], pair[1]))
    return cards


def same_cards(one: Sequence[str], other: Sequence[str]) -> bool:
    """The same cards, in any order."""
    return len(one) == len(other) and Counter(one) == Counter(other)
