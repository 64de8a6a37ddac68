"""What /stats says of a member's rating, computed from stored records: pure, no discord, no I/O."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.store.repositories import RatingPoint

TREND_GAMES = 10  # a rating's trend: its change over the member's last this many games


@dataclass(frozen=True)
class RatingTrend:
    """A rating now, and its change since an earlier game (None: only one game rated so far)."""

    rating: float
    change: float | None
    since: float  # when the game the change is measured from ended


def rating_trend(points: Sequence[RatingPoint], over: int = TREND_GAMES) -> RatingTrend | None:
    """The latest rating and how it moved over the last `over` games (None: never rated)."""
    if not points:
        return None
    latest = points[-1]
    if len(points) < 2:
        return RatingTrend(latest.rating, None, latest.finished_at)
    start = points[max(0, len(points) - 1 - over)]
    return RatingTrend(latest.rating, latest.rating - start.rating, start.finished_at)
