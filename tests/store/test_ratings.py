"""Skill ratings: each finished game moves its players' figures as openskill rates the same match, in the
transaction of its results, and a rebuild from the results gives the very same figures."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from openskill.models import PlackettLuce

from bot.engine.sessions import SessionManager
from bot.ratings import rebuild_work
from bot.ratings.__main__ import main as ratings_main
from bot.ratings.__main__ import rebuild
from bot.store import Store
from tests.store.helpers import TickingClock
from tests.store.tally_game import TallyGame

GUILD = 1


@pytest.fixture
async def env(database: Path | str):
    store = await Store.open(database)
    manager = SessionManager(store, {"tally": TallyGame(), "other": TallyGame()}, clock=TickingClock())
    await manager.start()
    yield manager, store, database
    await manager.close()
    await store.close()


_channels = iter(range(100, 10_000))


async def play(
    manager: SessionManager, scores: dict[str, int], *, guild: int = GUILD, game: str = "tally", **how
):
    """One game of `game` on `guild`, started and finished with these scores (and `how` it ended)."""
    players = list(scores)
    record = await manager.open_lobby(guild, next(_channels), game, players[0], {})
    for player in players[1:]:
        await manager.join(record.id, player)
    await manager.start_game(record.id, players[0])
    await manager.act(record.id, players[0], {"do": "finish", "scores": scores, **how})
    return record.id


async def figures(store: Store, *players: str, game: str = "tally") -> list[tuple[float, float]]:
    found = [await store.ratings.get(GUILD, game, p) for p in players]
    assert all(f is not None for f in found)
    return [(f.mu, f.sigma) for f in found if f is not None]


def as_pairs(teams) -> list[tuple[float, float]]:
    return [(r.mu, r.sigma) for team in teams for r in team]


async def test_a_finished_game_rates_its_players_as_openskill_rates_the_match_ties_sharing_a_place(env):
    manager, store, _ = env
    await play(manager, {"ann": 9, "bob": 4, "cat": 4, "dan": 1})
    model = PlackettLuce()
    ann, bob, cat, dan = (model.rating() for _ in range(4))
    expected = model.rate([[ann], [bob], [cat], [dan]], ranks=[1, 2, 2, 4])
    assert await figures(store, "ann", "bob", "cat", "dan") == as_pairs(expected)
    assert (await store.ratings.get(GUILD, "tally", "ann")).games == 1


async def test_the_next_game_starts_from_the_figures_the_last_one_left(env):
    manager, store, _ = env
    await play(manager, {"ann": 9, "bob": 4})
    await play(manager, {"bob": 7, "ann": 2, "cat": 5})
    model = PlackettLuce()
    ann, bob = (r for [r] in model.rate([[model.rating()], [model.rating()]], ranks=[1, 2]))
    [[bob], [cat], [ann]] = model.rate([[bob], [model.rating()], [ann]], ranks=[1, 2, 3])
    assert await figures(store, "ann", "bob", "cat") == [
        (ann.mu, ann.sigma),
        (bob.mu, bob.sigma),
        (cat.mu, cat.sigma),
    ]
    assert (await store.ratings.get(GUILD, "tally", "bob")).games == 2
    assert [mu for _, mu, _ in await store.ratings.history(GUILD, "tally", "bob")][-1] == bob.mu


async def test_where_fewer_points_is_better_the_fewest_points_rate_first(env):
    """Toppo: penalty points; the game's ranks are already in its direction."""
    manager, store, _ = env
    await play(manager, {"ann": 12, "bob": 3, "cat": 30}, lower_is_better=True)
    model = PlackettLuce()
    bob, ann, cat = model.rate([[model.rating()] for _ in range(3)], ranks=[1, 2, 3])
    assert await figures(store, "bob", "ann", "cat") == as_pairs([bob, ann, cat])
    assert (
        (await store.ratings.get(GUILD, "tally", "bob")).mu
        > 25
        > (await store.ratings.get(GUILD, "tally", "cat")).mu
    )


async def test_a_player_who_left_ranks_after_every_player_who_stayed(env):
    manager, store, _ = env
    await play(manager, {"ann": 2, "bob": 50, "cat": 1}, left=["bob"])
    model = PlackettLuce()
    ann, cat, bob = model.rate([[model.rating()] for _ in range(3)], ranks=[1, 2, 3])
    assert await figures(store, "ann", "cat", "bob") == as_pairs([ann, cat, bob])


@pytest.mark.parametrize("team_result", ["won", "lost"])
async def test_a_cooperative_team_shares_its_result_against_the_game(env, team_result):
    """Top Drop: every player of the team, even one who left, shares the team's place; the game is the other
    side, as many players at the starting figures."""
    manager, store, _ = env
    await play(
        manager, {"ann": 4, "bob": 4, "cat": 4}, lower_is_better=True, team_result=team_result, left=["cat"]
    )
    model = PlackettLuce()
    team = [model.rating() for _ in range(3)]
    the_game = [model.rating() for _ in range(3)]
    [rated, _] = model.rate([team, the_game], ranks=[1, 2] if team_result == "won" else [2, 1])
    assert await figures(store, "ann", "bob", "cat") == [(r.mu, r.sigma) for r in rated]
    moved = (await store.ratings.get(GUILD, "tally", "ann")).mu - 25
    assert moved > 0 if team_result == "won" else moved < 0


async def test_a_game_with_one_competitor_rates_nobody(env):
    manager, store, _ = env
    await play(manager, {"ann": 5})
    assert await store.ratings.get(GUILD, "tally", "ann") is None
    assert len(await store.results.for_session(1)) == 1


async def test_each_server_and_game_has_its_own_ratings(env):
    manager, store, _ = env
    await play(manager, {"ann": 9, "bob": 4})
    await play(manager, {"ann": 1, "bob": 4}, guild=2)
    await play(manager, {"ann": 1, "bob": 4}, game="other")
    assert (await store.ratings.get(GUILD, "tally", "ann")).mu > 25
    assert (await store.ratings.get(2, "tally", "ann")).mu < 25
    assert (await store.ratings.get(GUILD, "other", "ann")).mu < 25


async def test_a_finishing_write_that_fails_leaves_neither_results_nor_ratings(env):
    manager, store, _ = env
    players = ["ann", "bob"]
    record = await manager.open_lobby(GUILD, 5, "tally", "ann", {})
    await manager.join(record.id, "bob")
    await manager.start_game(record.id, "ann")
    async with store.transaction() as tx:  # another writer moved the session on: the unit is stale
        await tx.execute("UPDATE sessions SET version = version + 1 WHERE id = ?", (record.id,))
    with pytest.raises(Exception, match="no longer as this write expected"):
        await manager.act(record.id, "ann", {"do": "finish", "scores": dict.fromkeys(players, 1)})
    assert await store.results.for_session(record.id) == []
    assert await store.ratings.all() == []


async def test_a_rebuild_from_the_results_gives_exactly_the_figures_the_games_left(env):
    manager, store, path = env
    await play(manager, {"ann": 9, "bob": 4, "cat": 4})
    await play(manager, {"ann": 3, "bob": 8}, lower_is_better=True)
    await play(manager, {"bob": 1, "cat": 1, "dan": 1}, team_result="lost")
    await play(manager, {"dan": 1, "ann": 1}, team_result="won", guild=2)
    # Two games that end at once with a player in common: both count, one after the other.
    first = asyncio.create_task(play(manager, {"ann": 5, "eve": 1}))
    second = asyncio.create_task(play(manager, {"eve": 6, "ann": 2}))
    await asyncio.gather(first, second)
    await play(manager, {"ann": 5, "bob": 6, "cat": 7, "dan": 8}, left=["cat"], game="other")
    live = await store.ratings.all()
    history = await store.db.fetch_all(
        "SELECT session_id, guild_id, game, user_id, mu, sigma, rated_at FROM rating_history ORDER BY id"
    )
    assert (await store.ratings.get(GUILD, "tally", "eve")).games == 2

    assert await rebuild(path) == 7
    assert await store.ratings.all() == live
    rebuilt = await store.db.fetch_all(
        "SELECT session_id, guild_id, game, user_id, mu, sigma, rated_at FROM rating_history ORDER BY id"
    )
    assert [tuple(r) for r in rebuilt] == [tuple(r) for r in history]


async def test_a_rebuild_replaces_figures_that_drifted(env):
    manager, store, _ = env
    await play(manager, {"ann": 9, "bob": 4})
    live = await store.ratings.all()
    async with store.transaction() as tx:
        await tx.execute("UPDATE ratings SET mu = 99")
    assert await store.db.run(rebuild_work) == 1
    assert await store.ratings.all() == live


def test_the_rebuild_command_refuses_a_missing_database(tmp_path, capsys):
    assert ratings_main(["rebuild", "--db", str(tmp_path / "none.db")]) == 2
    assert "no database" in capsys.readouterr().err
    assert not (tmp_path / "none.db").exists()


def test_the_rebuild_command_rebuilds_a_database_file(tmp_path, capsys):
    async def seed() -> list:
        store = await Store.open(tmp_path / "bot.db")
        manager = SessionManager(store, {"tally": TallyGame()}, clock=TickingClock())
        await play(manager, {"ann": 9, "bob": 4})
        async with store.transaction() as tx:
            await tx.execute("DELETE FROM ratings")
        await manager.close()
        await store.close()
        return []

    asyncio.run(seed())
    assert ratings_main(["rebuild", "--db", str(tmp_path / "bot.db")]) == 0
    assert "1 finished game" in capsys.readouterr().out
    with sqlite3.connect(tmp_path / "bot.db") as connection:
        assert connection.execute("SELECT COUNT(*) FROM ratings").fetchone()[0] == 2
    connection.close()


def test_the_rebuild_command_rebuilds_the_database_it_is_given_file_or_url(database, capsys):
    async def seed() -> None:
        store = await Store.open(database)
        manager = SessionManager(store, {"tally": TallyGame()}, clock=TickingClock())
        await play(manager, {"ann": 9, "bob": 4})
        async with store.transaction() as tx:
            await tx.execute("DELETE FROM ratings")
        await manager.close()
        await store.close()

    async def rated() -> int:
        store = await Store.open(database)
        try:
            return len(await store.ratings.all())
        finally:
            await store.close()

    asyncio.run(seed())
    assert ratings_main(["rebuild", "--db", str(database)]) == 0
    assert "1 finished game" in capsys.readouterr().out
    assert asyncio.run(rated()) == 2
