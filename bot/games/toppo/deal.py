"""The deal of a Toppo game (Setup; New Game): every card shuffled, a deck of 33 to each player, the display
from the remaining stack, the rest the stack. The shuffle is chance's: new_game draws it from the engine's rng,
and a later game's deal is the `deal` chance outcome of the action that starts it, so the log replays exactly.

A scenario may force any part (`decks`, `display`, `stack`, `topped`); what it leaves out is dealt from the
cards it did not name. With a forced `stack`, the cards nobody holds lie under the display (`topped`): they
are what a refill shuffles into the next stack.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from bot.engine.errors import BadAction
from bot.games.toppo.cards import full_sets, parsed, shown

PARTS = ("decks", "display", "stack", "topped")


def forced_parts(given: Mapping[str, Any], players: Sequence[str], refusal: str) -> dict[str, Any]:
    """The forced parts of a deal ([colour, symbol] pairs) as card ids; BadAction(refusal) when malformed."""
    forced: dict[str, Any] = {}
    if "decks" in given:
        decks = given["decks"]
        if not isinstance(decks, Mapping) or not set(decks) <= set(players):
            raise BadAction(refusal)
        forced["decks"] = {player: parsed(cards, refusal) for player, cards in decks.items()}
    for part in ("display", "stack", "topped"):
        if part in given:
            forced[part] = parsed(given[part], refusal)
    return forced


def complete_deal(
    players: Sequence[str],
    sets: int,
    deck_size: int,
    display_size: int,
    forced: Mapping[str, Any],
    rng: random.Random,
    refusal: str,
) -> dict[str, Any]:
    """Every card of `sets` sets dealt (card ids): decks {player: top first}, display, stack (top first),
    topped. Forced parts stay as given; the rest is shuffled by `rng` and dealt in seat order."""
    forced_decks: Mapping[str, list[str]] = forced.get("decks", {})
    named = Counter(card for cards in forced_decks.values() for card in cards)
    for part in ("display", "stack", "topped"):
        named.update(forced.get(part, []))
    everything = Counter(full_sets(sets))
    if named - everything:  # more copies of a card than the sets hold
        raise BadAction(refusal)
    pool = sorted((everything - named).elements())
    rng.shuffle(pool)
    decks = {}
    for player in players:
        if player in forced_decks:
            decks[player] = list(forced_decks[player])
        else:
            decks[player], pool = pool[:deck_size], pool[deck_size:]
    if "display" in forced:
        display = list(forced["display"])
    else:
        display, pool = pool[:display_size], pool[display_size:]
    if len(display) != display_size or any(
        len(deck) < deck_size for p, deck in decks.items() if p not in forced_decks
    ):
        raise BadAction(refusal)
    if "stack" in forced:
        stack, topped = list(forced["stack"]), [*forced.get("topped", []), *pool]
    else:
        stack, topped = pool, list(forced.get("topped", []))
    return {"decks": decks, "display": display, "stack": stack, "topped": topped}


def shown_deal(deal: Mapping[str, Any]) -> dict[str, Any]:
    """A deal as the log and scenarios write it: cards as [colour, symbol] pairs."""
    return {
        "decks": {player: shown(cards) for player, cards in deal["decks"].items()},
        "display": shown(deal["display"]),
        "stack": shown(deal["stack"]),
        "topped": shown(deal["topped"]),
    }
