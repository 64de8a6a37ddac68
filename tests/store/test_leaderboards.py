"""A server's leaderboards on a real SQLite file: by wins, points per game (in the game's direction; a
cooperative game's team rating) and skill rating, over all time or a recent period, a page at a time with the
viewer's own line."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.ratings import rebuild_work
from bot.store import SessionRecord, Store

GUILD = 1
DAY = 86400.0
NOW = 100 * DAY


@pytest.fixture
async def store(database: Path | str):
    opened = await Store.open(database)
    yield opened
    await opened.close()


_channels = iter(range(1, 100_000))


async def finished(
    store: Store,
    game: str,
    scores: dict[str, int],
    *,
    at: float = NOW,
    guild: int = GUILD,
    lower: bool = False,
    team: str | None = None,
    team_rating: int | None = None,
) -> None:
    """A finished game's results as the engine writes them: competition ranks in the game's direction."""
    sign = 1 if lower else -1
    ranks = {p: 1 + sum(1 for o in scores.values() if sign * o < sign * s) for p, s in scores.items()}
    async with store.transaction() as tx:
        session_id = await store.sessions.create(
            tx,
            SessionRecord(
                0, guild, next(_channels), game, "finished", "x", list(scores), {}, 1, created_at=at
            ),
        )
        for player, score in scores.items():
            won = team == "won" if team else ranks[player] == 1
            await tx.execute(
                "INSERT INTO results (session_id, guild_id, game, user_id, score, rank, won, finished_at, result,"
                " lower_is_better, team_result, team_rating) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    guild,
                    game,
                    player,
                    score,
                    ranks[player],
                    int(won),
                    at,
                    "won" if won else "lost",
                    int(lower),
                    team,
                    team_rating,
                ),
            )


def order(board) -> list[str]:
    return [row.user_id for row in board.rows]


async def test_by_wins_most_wins_first_then_the_better_average_place(store):
    await finished(store, "topstop", {"ann": 10, "bob": 5, "cat": 7})
    await finished(store, "topstop", {"ann": 1, "bob": 9, "cat": 3})
    await finished(store, "topstop", {"ann": 8, "bob": 2, "cat": 4})
    board = await store.leaderboards.board(GUILD, "topstop", by="wins")
    assert order(board) == ["ann", "bob", "cat"]  # cat: no win, but a better place than nobody
    assert [(r.position, r.wins, r.games, r.best) for r in board.rows] == [
        (1, 2, 3, 10),
        (2, 1, 3, 9),
        (3, 0, 3, 7),
    ]


async def test_by_points_the_best_average_per_game_first(store):
    await finished(store, "topstop", {"ann": 10, "bob": 12})
    await finished(store, "topstop", {"ann": 10})
    await finished(store, "topstop", {"bob": 2, "cat": 20})
    board = await store.leaderboards.board(GUILD, "topstop", by="points")
    assert order(board) == ["cat", "ann", "bob"]
    assert [r.average for r in board.rows] == [20, 10, 7]
    assert not board.lower_is_better


async def test_by_points_where_fewer_points_is_better_the_fewest_first(store):
    """Toppo: penalty points; the best score is the lowest too."""
    await finished(store, "toppo", {"ann": 30, "bob": 5, "cat": 12}, lower=True)
    await finished(store, "toppo", {"ann": 2, "bob": 9}, lower=True)
    board = await store.leaderboards.board(GUILD, "toppo", by="points")
    assert order(board) == ["bob", "cat", "ann"] and board.lower_is_better
    assert [r.average for r in board.rows] == [7, 12, 16]
    wins = await store.leaderboards.board(GUILD, "toppo", by="wins")
    # One win each: bob's average place is the better; each one's best is their fewest points.
    assert [(r.user_id, r.best) for r in wins.rows] == [("bob", 5), ("ann", 2), ("cat", 12)]


async def test_a_cooperative_game_counts_team_wins_and_ranks_points_by_the_team_rating(store):
    """Top Drop: every player shares the team's result and rating; cards left decide equal ratings."""
    await finished(store, "topdrop", {"ann": 0, "bob": 0}, lower=True, team="won", team_rating=3)
    await finished(store, "topdrop", {"cat": 5, "dan": 5}, lower=True, team="lost", team_rating=1)
    await finished(store, "topdrop", {"cat": 2, "eve": 2}, lower=True, team="lost", team_rating=2)
    await finished(store, "topdrop", {"dan": 9, "eve": 9}, lower=True, team="lost", team_rating=2)
    wins = await store.leaderboards.board(GUILD, "topdrop", by="wins")
    assert [(r.user_id, r.wins) for r in wins.rows][:2] == [("ann", 1), ("bob", 1)]
    points = await store.leaderboards.board(GUILD, "topdrop", by="points")
    assert points.team
    assert order(points) == ["ann", "bob", "eve", "cat", "dan"]
    assert [r.average for r in points.rows] == [3, 3, 2, 1.5, 1.5]  # cat: fewer cards left than dan


async def test_by_rating_the_highest_shown_rating_first_and_only_rated_players(store):
    await finished(store, "topwords", {"ann": 300, "bob": 200})
    await finished(store, "topwords", {"bob": 250, "cat": 100})
    await finished(store, "topwords", {"solo": 400})  # one player: no rating
    await store.db.run(rebuild_work)
    board = await store.leaderboards.board(GUILD, "topwords", by="rating")
    shown = {p: (await store.ratings.get(GUILD, "topwords", p)).shown for p in ("ann", "bob", "cat")}
    assert order(board) == sorted(shown, key=lambda p: -shown[p])
    assert [r.rating for r in board.rows] == sorted(shown.values(), reverse=True)
    assert board.entries == 3


@pytest.mark.parametrize(
    ("period", "expected", "games"),
    [(None, ["old", "new"], 5), (NOW - 30 * DAY, ["new", "old"], 3), (NOW - 7 * DAY, ["new", "old"], 1)],
)
async def test_a_period_counts_only_the_games_finished_in_it(store, period, expected, games):
    for days_ago in (60, 45, 20):  # old wins twice long ago and once this month
        await finished(store, "topstop", {"old": 9, "new": 1}, at=NOW - days_ago * DAY)
    for days_ago in (10, 3):  # new wins this month, once this week
        await finished(store, "topstop", {"old": 1, "new": 9}, at=NOW - days_ago * DAY)
    board = await store.leaderboards.board(GUILD, "topstop", by="wins", since=period)
    assert order(board) == expected and [r.games for r in board.rows] == [games, games]


async def test_pages_and_the_viewers_own_line_wherever_it_is(store):
    for n in range(25):  # p00 scores most
        await finished(store, "topstop", {f"p{n:02d}": 100 - n})
    first = await store.leaderboards.board(GUILD, "topstop", by="points", limit=10, viewer="p17")
    assert order(first) == [f"p{n:02d}" for n in range(10)] and first.entries == 25
    assert first.own is not None and (first.own.position, first.own.user_id) == (18, "p17")
    last = await store.leaderboards.board(GUILD, "topstop", by="points", offset=20, limit=10, viewer="p03")
    assert [r.position for r in last.rows] == [21, 22, 23, 24, 25] and last.own.position == 4
    beyond = await store.leaderboards.board(
        GUILD, "topstop", by="points", offset=30, limit=10, viewer="nobody"
    )
    assert beyond.rows == [] and beyond.entries == 25 and beyond.own is None


async def test_every_game_at_once_counts_wins_and_only_this_servers(store):
    await finished(store, "topstop", {"ann": 9, "bob": 1})
    await finished(store, "toppo", {"ann": 9, "bob": 1}, lower=True)
    await finished(store, "topwords", {"cat": 9, "bob": 1})
    await finished(store, "topwords", {"zed": 9, "ann": 1}, guild=2)
    board = await store.leaderboards.board(GUILD, None, by="wins")
    # One win each: then the better average place (cat 1, ann 1.5, bob 5/3).
    assert [(r.user_id, r.wins, r.games) for r in board.rows] == [("cat", 1, 1), ("ann", 1, 2), ("bob", 1, 3)]
    assert board.rows[0].best is None
    with pytest.raises(ValueError):
        await store.leaderboards.board(GUILD, None, by="points")
