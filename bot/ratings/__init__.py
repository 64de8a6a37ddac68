"""Skill ratings: one per server, game and player, updated after every finished game with openskill's
Plackett-Luce model (multiplayer ranks, ties and teams).

A game's figures are computed inside the transaction that writes its results (`finishing_unit`: a unit the
writer runs), from the ratings that transaction reads: two games finishing at once with a player in common
are rated one after the other, never both from the same old figure. `rebuild_work` recomputes every rating
from the results alone, in the order they were written, with the same function: the same figures, to the
last bit.

How a game's result becomes a match:
- each player is a team of one, ranked by the game's rank (already in the game's direction: Toppo's fewest
  penalty points first; tied players share a rank; a player who left ranks after every player who stayed);
- a cooperative game (its results carry `team_result`: Top Drop) is one team of every player, sharing the
  team's result, against the game itself: as many players again at the model's starting figures, never
  stored, which the team beat when it won and lost to otherwise;
- a game with fewer than two sides to compare (a competitive game with one player) changes no rating.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from openskill.models import PlackettLuce

from bot.store.database import StaleWrite, Statement

MODEL = PlackettLuce()


@dataclass(frozen=True)
class Placing:
    """One player's place in a finished game."""

    user_id: str
    rank: int


@dataclass(frozen=True)
class Match:
    """A finished game as the ratings see it: who placed where, and whether they played as one team."""

    session_id: int
    guild_id: int
    game: str
    finished_at: float
    placings: tuple[Placing, ...]
    team_result: str | None = None  # "won" | "lost": a cooperative game, every player sharing it

    @classmethod
    def of(
        cls,
        session_id: int,
        guild_id: int,
        game: str,
        finished_at: float,
        placings: Sequence[tuple[str, int]],
        team_result: str | None = None,
    ) -> Match:
        """Placings in one canonical order (rank, then player), however they were read: the figures then
        come out of the same sums in the same order, live and in a rebuild."""
        ordered = sorted(placings, key=lambda placing: (placing[1], placing[0]))
        return cls(
            session_id,
            guild_id,
            game,
            finished_at,
            tuple(Placing(user, rank) for user, rank in ordered),
            team_result,
        )


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    games: int = 0

    @property
    def shown(self) -> float:
        """The figure a leaderboard ranks by: the skill the player has at least, almost surely (μ − 3σ)."""
        return self.mu - 3 * self.sigma


def new_ratings(match: Match, current: dict[str, Rating]) -> dict[str, Rating]:
    """The players' figures after `match`, from their figures before it (a player missing from `current`
    starts at the model's defaults). Empty when the match compares nothing."""
    players = [placing.user_id for placing in match.placings]
    before = {
        user: MODEL.rating(mu=current[user].mu, sigma=current[user].sigma)
        if user in current
        else MODEL.rating()
        for user in players
    }
    if match.team_result is not None:
        if not players:
            return {}
        the_game = [MODEL.rating() for _ in players]
        won = match.team_result == "won"
        [team, _] = MODEL.rate(
            [[before[user] for user in players], the_game], ranks=[1, 2] if won else [2, 1]
        )
        after = dict(zip(players, team, strict=True))
    else:
        if len(players) < 2:
            return {}
        teams = MODEL.rate(
            [[before[user]] for user in players], ranks=[float(placing.rank) for placing in match.placings]
        )
        after = {user: team[0] for user, team in zip(players, teams, strict=True)}
    return {
        user: Rating(rating.mu, rating.sigma, (current[user].games if user in current else 0) + 1)
        for user, rating in after.items()
    }


def rate_work(conn: sqlite3.Connection, match: Match) -> dict[str, Rating]:
    """Rate one finished game inside the open transaction: read the players' figures, write the new ones
    and their history rows."""
    users = [placing.user_id for placing in match.placings]
    marks = ", ".join("?" * len(users))
    rows = conn.execute(
        f"SELECT user_id, mu, sigma, games FROM ratings WHERE guild_id = ? AND game = ? AND user_id IN ({marks})",
        (match.guild_id, match.game, *users),
    ).fetchall()
    current = {row[0]: Rating(row[1], row[2], row[3]) for row in rows}
    after = new_ratings(match, current)
    conn.executemany(
        "INSERT INTO ratings (guild_id, game, user_id, mu, sigma, games, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (guild_id, game, user_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
        " games = excluded.games, updated_at = excluded.updated_at",
        [
            (match.guild_id, match.game, user, r.mu, r.sigma, r.games, match.finished_at)
            for user, r in after.items()
        ],
    )
    conn.executemany(
        "INSERT INTO rating_history (session_id, guild_id, game, user_id, mu, sigma, rated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (match.session_id, match.guild_id, match.game, user, r.mu, r.sigma, match.finished_at)
            for user, r in after.items()
        ],
    )
    return after


def _finish(statements: list[Statement], match: Match, conn: sqlite3.Connection) -> None:
    for sql, params, one_row in statements:
        cursor = conn.execute(sql, params)
        if one_row and cursor.rowcount != 1:
            raise StaleWrite(f"no longer as this write expected it: {sql.split(' WHERE ')[0]}")
    rate_work(conn, match)


def finishing_unit(statements: list[Statement], match: Match) -> Callable[[sqlite3.Connection], None]:
    """The unit of the action that ends a game: its statements (the log, the version, the results…), then
    the ratings, computed in the writer from what the same transaction reads. (A partial of module-level
    functions: it crosses to the writer process.)"""
    return partial(_finish, statements, match)


def rebuild_work(conn: sqlite3.Connection) -> int:
    """Every rating recomputed from the results alone; returns how many games were rated.

    Games are taken in the order their results were written (the results' row ids), which is the order the
    live updates ran in: each was made in the transaction that wrote its game's results."""
    conn.execute("DELETE FROM ratings")
    conn.execute("DELETE FROM rating_history")
    # PostgreSQL keeps no row ids: there the games are taken in the order they finished.
    written = "r.rowid" if isinstance(conn, sqlite3.Connection) else "r.finished_at"
    rows = conn.execute(
        # A game with a bot was never rated (ratings stay people against people): it is not rebuilt either.
        "SELECT session_id, guild_id, game, user_id, rank, finished_at, team_result FROM results"
        " WHERE with_bots = 0"
        f" ORDER BY (SELECT MIN({written}) FROM results AS r WHERE r.session_id = results.session_id), session_id"
    ).fetchall()
    games: dict[int, list[Any]] = {}
    for row in rows:
        games.setdefault(row[0], []).append(row)
    for session_rows in games.values():
        first = session_rows[0]
        rate_work(
            conn,
            Match.of(
                first[0],
                first[1],
                first[2],
                first[5],
                [(row[3], row[4]) for row in session_rows],
                first[6],
            ),
        )
    return len(games)
