"""/stats and /history's texts and buttons, from plain records, in each language."""

from __future__ import annotations

import pytest

from bot.games.topstop.records import word_record
from bot.i18n import LANGUAGES
from bot.records import rating_trend
from bot.store import FinishedGame, GameTally
from bot.store.repositories import RatingPoint
from bot.ui import components
from cogs.stats import PAGE, TABLE, history_line, history_page, rating_line, tally_lines


def test_points_say_when_the_lower_score_is_the_better_one() -> None:
    higher = GameTally("topple", games=4, wins=1, total=30, best=12, lower_is_better=False)
    lower = GameTally("toppo", games=4, wins=1, total=30, best=3, lower_is_better=True)
    assert tally_lines(higher, "en") == [
        "Games: **4** · wins: **1**",
        "Points: **30** in all · best: **12** · average: **7.5**",
    ]
    assert (
        tally_lines(lower, "en")[1]
        == "Points, the lower the better: **30** in all · best: **3** · average: **7.5**"
    )
    assert (
        "moyenne\u00a0: **7.5**" in tally_lines(lower, "fr")[1] and "l'emporte" in tally_lines(lower, "fr")[1]
    )


def test_the_rating_trend_is_its_change_since_the_game_ten_games_ago() -> None:
    points = [RatingPoint(float(day), 20.0 + day) for day in range(15)]
    trend = rating_trend(points)
    assert trend is not None and trend.rating == 34.0 and trend.change == 10.0 and trend.since == 4.0
    assert rating_line(trend, "en") == "Rating: **34** · +10 since <t:4:d>"
    single = rating_trend(points[:1])
    assert single is not None and single.change is None and rating_line(single, "de") == "Wertung: **20**"
    assert rating_trend([]) is None


def test_a_valid_word_is_judged_as_the_game_judged_it_in_the_end() -> None:
    record = word_record(
        [
            ("duck", None, False, True),  # valid, then voted out
            ("dromedary", "not_a_word", True, True),  # refused by the bot, accepted by the vote
            ("dog", None, None, False),
            ("duck", None, None, True),  # disputed again, the tie kept the verdict
            ("dinosaurs", "plural", None, False),
        ]
    )
    assert (record.revealed, record.valid, record.valid_percent) == (5, 3, 60)
    assert record.longest == "dromedary" and record.most_disputed == "duck" and record.disputes == 2
    assert word_record([]).longest is None and word_record([]).valid_percent == 0


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_history_line_names_the_day_the_game_its_players_and_winners(lang: str) -> None:
    won = FinishedGame(12, "topple", 1_700_000_000.5, ("1", "2"), {}, ("2",))
    line = history_line(won, lang)
    assert line.startswith("`#12` <t:1700000000:d> · **Topple** · <@1>, <@2> · 🏆 <@2>")
    lost = FinishedGame(13, "topdrop", 1_700_000_000, ("1", "2"), {}, ())
    assert "🏆" not in history_line(lost, lang)


def test_a_history_page_has_a_table_button_per_game_and_the_page_buttons_it_needs() -> None:
    games = [FinishedGame(n, "topple", 100.0, ("1",), {}, ("1",)) for n in (9, 8)]
    _, first = history_page(games, 1, "all", "en", more=True)
    assert first is not None
    ids = [item.custom_id for item in first.children]  # type: ignore[attr-defined]
    assert ids == [TABLE.encode(9), TABLE.encode(8), PAGE.encode(page=2, game="all")]
    _, last = history_page(games, 3, "topple", "en", more=False)
    assert last is not None
    assert [item.custom_id for item in last.children][-1] == "history::page:2.topple"  # type: ignore[attr-defined]
    embed, none = history_page([], 1, "all", "fr", more=False)
    assert none is None and embed.description == "Aucune partie terminée ici pour l'instant."


def test_history_buttons_are_typed_ids_the_router_takes_without_a_view_in_memory() -> None:
    """A page or table button of a message posted before a restart is routed by its id alone."""
    from cogs.stats import Records

    Records(bot=None)  # type: ignore[arg-type]
    try:
        route, session, args = components.resolve("history::page:2.topple")
        assert session == 0 and args == {"page": 2, "game": "topple"}
        route, session, args = components.resolve("history:42:table")
        assert session == 42 and args == {}
        with pytest.raises(components.DamagedComponent):
            components.resolve("history::page:2.chess")
    finally:
        components.unregister_game("history")
