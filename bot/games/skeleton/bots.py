"""Skeleton's bot players (docs/bots.md): the example policy for a new game's bots. Pure: it decides only
from what its seat sees (`Seen`: its view, its legal actions) and its own random source.

- easy plays a random card from its hand, or passes one time in three;
- medium plays its highest card;
- hard plays the smallest card that reaches the target when one does (the game ends at once, its bigger
  cards kept for nothing), else its highest card.
Each draws whenever it must (the only move then) and never leaves.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from bot.engine.bots import Level, Move, Seen, of_kind, pace
from bot.games.skeleton.state import value
from bot.i18n import N_

# What the lobby's Add a bot says of each level (the table layer reads `<game>.bots.<level>`).
DESCRIPTIONS = {
    Level.EASY: N_("skeleton.bots.easy"),
    Level.MEDIUM: N_("skeleton.bots.medium"),
    Level.HARD: N_("skeleton.bots.hard"),
}
# Seconds of "thinking" per level: a table can follow each move.
EASY = (2.0, 4.0)
MEDIUM = (1.2, 2.5)
HARD = (0.6, 1.4)


@dataclass
class SkeletonBot:
    level: Level

    def choose(self, seen: Seen, rng: random.Random) -> Move | None:
        draws = of_kind(seen.legal, "draw")
        plays = of_kind(seen.legal, "play")
        passes = of_kind(seen.legal, "pass")
        if draws:
            action = draws[0]
        elif plays or passes:
            action = self._play_or_pass(seen.view, seen.seat, plays, passes, rng)
        else:
            return None  # another player's turn, or the game is over
        return Move(action, pace(self.level, rng, EASY, MEDIUM, HARD))

    def _play_or_pass(
        self,
        view: dict[str, Any],
        seat: str,
        plays: list[dict[str, Any]],
        passes: list[dict[str, Any]],
        rng: random.Random,
    ) -> dict[str, Any]:
        if not plays:
            return passes[0]
        if self.level is Level.EASY:
            if passes and rng.random() < 1 / 3:
                return passes[0]
            return rng.choice(plays)
        by_value = sorted(plays, key=lambda action: value(action["card"]))
        if self.level is Level.MEDIUM:
            return by_value[-1]
        needed = view["target"] - view["scores"][seat]
        winning = [action for action in by_value if value(action["card"]) >= needed]
        return winning[0] if winning else by_value[-1]


def policy(level: Level, words: Any) -> SkeletonBot:
    """Skeleton's bot at `level` (it needs no words)."""
    return SkeletonBot(level)
