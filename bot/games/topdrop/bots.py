"""Top Drop's bot players (bot/engine/bots.py): a teammate that plays from its own hand.

It reads only its seat's view — its own `hand` (the rules show each player their own cards and the others'
only as counts), the pile's top card, the direction, the action and wild cards left and this turn's hints —
and the turns `legal_actions` offers it. Never another hand, never the draw pile.

- easy: the first legal turn (the rules list single cards before pairs, plain turns before action cards).
- medium: one card, the smallest jump; an action card only when no plain card follows.
- hard: weighs every legal turn, one or two cards, with or without an action card: the numbers each card
  jumps over (a 60 going up or a 1 going down turns the pile around and jumps over nothing), a second
  card when it follows closely enough, and an action or wild card's price, so that the team's shared cards
  are saved for when a plain turn would jump far (and priced higher while a teammate says they need one).
  When the player before it is on turn and none of its cards follows the pile, it says so to the table
  ("I'll need an Action Card"), one of the rulebook's allowed hints.

Every level votes to wait for an idle teammate (the game can go on), and a bot that is the table's host
starts the game; hard and medium start themselves, in the direction their hand suits best.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from bot.engine.bots import Level, Move, Seen, of_kind, pace
from bot.engine.game import Action
from bot.games.topdrop.cards import COLOR, FLIP, HIGHEST, LOWEST, SKIP, UP, direction_after, opposite
from bot.i18n import N_

DESCRIPTIONS = {
    Level.EASY: N_("topdrop.bots.easy"),
    Level.MEDIUM: N_("topdrop.bots.medium"),
    Level.HARD: N_("topdrop.bots.hard"),
}

# Hard's prices, in numbers jumped over (tuned by self-play, docs/bots/topdrop.md): what using one of the
# team's shared cards costs, and what a second card that turn is worth (one turn fewer for someone to be
# stuck on).
ACTION_PRICE = 40
WILD_PRICE = 50  # a wild card stands for any action: dearer than one action card
NEEDED = 2  # the price of an action card is doubled while a teammate says they need one
SKIP_PRICE = 6  # a Skip also leaves the pile as it is for a teammate who may follow it closer
SECOND_CARD = 10  # a second card is worth playing when it jumps over fewer numbers than this
NEED_AN_ACTION_CARD = "need_an_action_card"
TURN_PACE = {Level.EASY: (2.5, 4.0), Level.MEDIUM: (2.0, 3.5), Level.HARD: (1.5, 3.0)}


@dataclass
class TopDropBot:
    level: Level

    def choose(self, seen: Seen, rng: random.Random) -> Move | None:
        action = (
            _ballot(seen)
            or _start(seen, self.level)
            or _turn(seen, self.level)
            or (_hint(seen) if self.level == Level.HARD else None)
        )
        if action is None:
            return None
        return Move(action, pace(self.level, rng, *TURN_PACE.values()))


def make_bot(level: Level, words: Any) -> TopDropBot:
    """GameInfo.bots: Top Drop checks no words."""
    return TopDropBot(Level(level))


def _ballot(seen: Seen) -> Action | None:
    """Wait for an idle teammate: the game can go on (a "no" would end it, lost). Once: a cast ballot stands."""
    vote = seen.view.get("vote")
    if vote is None or seen.seat in vote["ballots"]:
        return None
    waits = [action for action in of_kind(seen.legal, "vote") if action["wait"] is True]
    return waits[0] if waits else None


def _start(seen: Seen, level: Level) -> Action | None:
    """The opening: a bot that is the table's host sends the team's choice (a person host makes their own).
    Easy takes the rules' default; the others start themselves, towards the far side of their hand's
    extreme card (their lowest going up when it is nearer 1 than their highest is to 60)."""
    starts = of_kind(seen.legal, "start")
    if not starts or seen.view.get("host") != seen.seat:
        return None
    if level == Level.EASY:
        return starts[0]
    cards = [card["card"] for card in seen.view["hand"]]
    direction = UP if not cards or min(cards) - LOWEST <= HIGHEST - max(cards) else opposite(UP)
    return next(
        (a for a in starts if a["first"] == seen.seat and a["direction"] == direction),
        starts[0],
    )


def _turn(seen: Seen, level: Level) -> Action | None:
    turns = of_kind(seen.legal, "turn")
    if not turns:
        return None
    if level == Level.EASY:
        return turns[0]
    view = seen.view
    if level == Level.MEDIUM:
        singles = [a for a in turns if len(a["cards"]) <= 1]
        plain = [a for a in singles if "action" not in a]
        return min(plain or singles or turns, key=lambda a: _price(view, a, needed=False))
    needed = any(
        hint["phrase"] == NEED_AN_ACTION_CARD and hint["player"] != seen.seat for hint in view["hints"]
    )
    return min(turns, key=lambda a: _price(view, a, needed=needed))


def _price(view: dict[str, Any], action: Action, *, needed: bool) -> float:
    """What a turn costs the team (module docstring): numbers jumped over, shared cards used, minus the
    worth of a close second card."""
    top = view["top"]["card"] if view["top"] else None
    direction = view["direction"]
    kind = action.get("action")
    cost = 0.0
    if kind is not None:
        cost += (WILD_PRICE if action.get("wild") else ACTION_PRICE) * (NEEDED if needed else 1)
    if kind == SKIP:
        return cost + SKIP_PRICE
    if kind == FLIP:
        direction = opposite(direction)
    for index, card in enumerate(action["cards"]):
        jumped = _jumped(card, top, direction)
        if index == 0 and kind == COLOR and top is not None and (card > top) != (direction == UP):
            jumped = 0  # a card of the top's colour played against the direction takes the pile back
        if index == 1:
            jumped -= SECOND_CARD
        cost += jumped
        top, direction = card, direction_after(card, direction)
    return cost


def _jumped(card: int, top: int | None, direction: str) -> int:
    """The numbers a card placed on `top` jumps over; none on the empty pile, nor for the 60 going up or the
    1 going down (the pile turns around)."""
    if top is None or (card == HIGHEST and direction == UP) or (card == LOWEST and direction != UP):
        return 0
    return abs(card - top) - 1


def _hint(seen: Seen) -> Action | None:
    """ "I'll need an Action Card": said once a round, while the player before it is on turn, when none of
    its cards follows the pile as it is; never alone at the table, never twice a turn."""
    view = seen.view
    hints = [a for a in of_kind(seen.legal, "hint") if a["phrase"] == NEED_AN_ACTION_CARD]
    if not hints or view.get("hinted") or view["phase"] != "play" or not view["hand"] or not view["top"]:
        return None
    seated = [p for p in view["players"] if p not in view["left"]]
    if len(seated) < 2 or _player_before(view, seen.seat) != view["current"]:
        return None
    top, direction = view["top"]["card"], view["direction"]
    if any((card["card"] > top) == (direction == UP) for card in view["hand"]):
        return None
    return hints[0]


def _player_before(view: dict[str, Any], seat: str) -> str | None:
    """The seat still playing, with cards, that plays just before `seat` (as the rules pass the turn)."""
    seats = view["players"]
    start = seats.index(seat)
    for step in range(1, len(seats)):
        other = seats[(start - step) % len(seats)]
        if other not in view["left"] and view["hand_counts"].get(other, 0) > 0:
            return str(other)
    return None
