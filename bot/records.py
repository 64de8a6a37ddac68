"""What the bot says of stored records, shared by /stats, /leaderboard and the web pages: a member's rating
trend, the names of a leaderboard's periods and orders. Pure, no discord, no I/O."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.engine.bots import LEVEL_NAMES, LEVELS, Level
from bot.i18n import N_, t
from bot.store.repositories import BotRecord, RatingPoint

EVERY_GAME = "all"  # a leaderboard that counts every game at once
# A leaderboard's periods and orders (`Leaderboards.board`) with the catalogue keys of their names.
PERIOD_NAMES = {
    "all": N_("general.leaderboard.period.all"),
    "month": N_("general.leaderboard.period.month"),
    "week": N_("general.leaderboard.period.week"),
}
ORDER_NAMES = {
    "wins": N_("general.leaderboard.by.wins"),
    "points": N_("general.leaderboard.by.points"),
    "rating": N_("general.leaderboard.by.rating"),
}
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


def bot_record_line(records: Sequence[BotRecord], lang: str) -> str:
    """A member's games with bots in one game, per bot level, in `lang` (/stats and the web pages): e.g.
    "🤖 With bots (no rating): against easy: 2 won of 3 · against hard: 0 won of 1"."""
    order = {level.value: index for index, level in enumerate(LEVELS)}
    parts = [
        t(
            "stats.against_level",
            lang,
            level=t(LEVEL_NAMES[Level(record.level)], lang),
            games=record.games,
            wins=record.wins,
        )
        for record in sorted(records, key=lambda record: order.get(record.level, len(order)))
        if record.level in order
    ]
    return t("stats.with_bots", lang, levels=" · ".join(parts))
