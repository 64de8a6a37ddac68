"""Toppo's bot players (bot/engine/bots.py): real time, so a level is first a reaction time.

A bot looks at the display and its own line only (the view: every deck lies face down, its own too). Each
decision — a reveal, a top, a match, a renewal, a restart — comes after a reaction time drawn for its level
(`Move.delay`: easy 2–4 s, medium 1.2–2.5 s, hard 0.6–1.4 s), so a fast person still beats the hard bot. Its
actions are the rules' legal actions, which carry the freshness of the state it decided on, as a person's
buttons do (`seen`, `play`, `vote`): when the display or the stretch of play changed meanwhile, the rules
refuse the action as stale, without penalty, and the bot looks again. Claims are judged by the rules like
anyone's, penalties included.

What it does, in order: calls toppo as soon as it holds fewer than ten cards (deck and line, which the view
counts); begins when play waits for it (never an early start); with a full line, tops when an order tops the
display, else matches a card identical to a display card (medium and hard), else renews; otherwise reveals.
Easy sometimes claims a top in whatever order it first tried (a wrong top costs it five cards). Now and
then, instead of renewing, it proposes to replace the display (a stuck display, which the rules let the
players replace); it votes yes to replacing it when its own line has no claim on it, and chooses the display's size between games
(the smallest: three cards).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Any

from bot.engine.bots import Level, Move, Seen, of_kind, pace
from bot.engine.game import Action
from bot.i18n import N_

DESCRIPTIONS = {
    Level.EASY: N_("toppo.bots.easy"),
    Level.MEDIUM: N_("toppo.bots.medium"),
    Level.HARD: N_("toppo.bots.hard"),
}

REACTION = {Level.EASY: (2.0, 4.0), Level.MEDIUM: (1.2, 2.5), Level.HARD: (0.6, 1.4)}
WRONG_TOP = 0.1  # how often easy claims a top on a full line that does not top (in the line's own order)
# How often a line with no claim makes it propose replacing the display instead of renewing: a renewed line
# goes under the deck in order, so a deck can bring the same lines round again and again against a display
# none of them tops; a person would notice and ask, a bot that remembers nothing asks now and then.
PROPOSE = 1 / 15
TOPPO_UNDER = 10  # the rules' "fewer than ten cards"


@dataclass
class ToppoBot:
    level: Level

    def choose(self, seen: Seen, rng: random.Random) -> Move | None:
        decided = _decide(seen, self.level, rng)
        # Sent as the rules offer it: their legal action carries the freshness it is made against.
        action = _offered(seen.legal, decided) if decided is not None else None
        if action is None:
            return None
        return Move(action, pace(self.level, rng, *REACTION.values()))


def make_bot(level: Level, words: Any) -> ToppoBot:
    """GameInfo.bots: Toppo checks no words."""
    return ToppoBot(Level(level))


def _decide(seen: Seen, level: Level, rng: random.Random) -> Action | None:
    view, seat, legal = seen.view, seen.seat, seen.legal
    kinds = {action["do"] for action in legal}
    if "choose" in kinds:
        return min(of_kind(legal, "choose"), key=lambda a: a["display"])
    if "toppo" in kinds and view["cards"][seat] < TOPPO_UNDER:
        return of_kind(legal, "toppo")[0]
    if "vote" in kinds and view["vote"] is not None and seat not in view["vote"]["ballots"]:
        accept = _claim(view, seat, level) is None
        return next(a for a in of_kind(legal, "vote") if a["accept"] is accept)
    if view["phase"] == "waiting":
        restart = of_kind(legal, "restart")
        return restart[0] if restart else None  # never an early start
    if view["phase"] != "playing":
        return None
    claim = _claim(view, seat, level)
    if claim is not None:
        return claim
    line = view["lines"][seat]
    if seat not in view["matched"] and len(line) == view["display_size"]:
        if level == Level.EASY and rng.random() < WRONG_TOP:
            return {"do": "top", "player": seat, "order": list(range(len(line)))}
        if "propose_replace" in kinds and rng.random() < PROPOSE:
            return of_kind(legal, "propose_replace")[0]
        return {"do": "renew", "player": seat} if "renew" in kinds else None
    reveal = of_kind(legal, "reveal")
    return reveal[0] if reveal else None


def _offered(legal: tuple[Action, ...], decided: Action) -> Action | None:
    """The legal action that is the one decided (its arguments, and the freshness the rules add)."""
    return next((a for a in legal if all(a.get(key) == value for key, value in decided.items())), None)


def _claim(view: dict[str, Any], seat: str, level: Level) -> Action | None:
    """A right claim its line holds now: a top in an order that tops (a full line), else a match of a card
    identical to a display card (not at easy, which looks for tops only)."""
    line, display = view["lines"][seat], view["display"]
    matched = seat in view["matched"]
    if not matched and len(line) == view["display_size"]:
        for order in itertools.permutations(range(len(line))):
            if all(_tops(line[i], card) for i, card in zip(order, display, strict=True)):
                return {"do": "top", "player": seat, "order": list(order)}
    if level != Level.EASY and (matched or len(line) == view["display_size"]):
        for index, card in enumerate(line):
            if card in display:
                return {"do": "match", "player": seat, "card": index, "slot": display.index(card)}
    return None


def _tops(line_card: list[str], display_card: list[str]) -> bool:
    """A card tops a display card when it shares its colour or its symbol (the view's [colour, symbol])."""
    return line_card[0] == display_card[0] or line_card[1] == display_card[1]
