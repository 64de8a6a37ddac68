"""Every text of the web pages, by catalogue key (bot/i18n), in the reader's language."""

from __future__ import annotations

from bot.i18n import N_, t

# Texts without parameters, as the templates name them (`text.nav_board`).
LABELS = {
    "nav_board": N_("web.nav.leaderboard"),
    "nav_games": N_("web.nav.games"),
    "language": N_("web.language"),
    "rank": N_("web.col.rank"),
    "player": N_("web.col.player"),
    "games": N_("web.col.games"),
    "wins": N_("web.col.wins"),
    "best": N_("web.col.best"),
    "average": N_("web.col.average"),
    "team_average": N_("web.col.team_average"),
    "rating": N_("web.col.rating"),
    "total": N_("web.col.total"),
    "trend": N_("web.col.trend"),
    "game": N_("web.col.game"),
    "finished": N_("web.col.finished"),
    "players": N_("web.col.players"),
    "winners": N_("web.col.winners"),
    "period": N_("web.filter.period"),
    "by": N_("web.filter.by"),
    "show": N_("web.filter.show"),
    "previous": N_("web.previous"),
    "next": N_("web.next"),
    "first_step": N_("web.replay.first"),
    "last_step": N_("web.replay.last"),
    "replay": N_("web.games.replay"),
    "no_games": N_("web.games.empty"),
    "no_winner": N_("web.games.no_winner"),
    "board_empty": N_("general.leaderboard.empty"),
    "every_game": N_("general.leaderboard.every_game"),
    "fewer_better": N_("general.leaderboard.fewer_better"),
    "chart_title": N_("web.stats.chart"),
    "no_rating": N_("web.stats.no_rating"),
    "not_found": N_("web.not_found.text"),
    "read_only": N_("web.footer"),
}


def labels(lang: str) -> dict[str, str]:
    return {name: t(key, lang) for name, key in LABELS.items()}
