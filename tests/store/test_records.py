"""What /stats and /history read, on a real SQLite file: a member's results per game, their points in time,
the rating once a `ratings` table exists, the words and moves kept in finished games' final snapshots, and a
server's finished games page by page."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.engine.errors import GameError
from bot.engine.game import step
from bot.engine.sessions import _encode_state, _result_rows
from bot.games import make_game
from bot.games.topstop import records as topstop_records
from bot.replay import load_scenario, words_service
from bot.store import SessionRecord, Store

GUILD, OTHER_GUILD = 1, 2
SCENARIOS = "tests/scenarios"


@pytest.fixture
async def store(database: Any) -> AsyncIterator[Store]:
    store = await Store.open(database)
    yield store
    await store.close()


async def store_finished(
    store: Store,
    scenario: str,
    *,
    at: float,
    guild: int = GUILD,
    then: tuple[dict[str, Any], ...] = ({"do": "end", "by": "host"},),
) -> int:
    """A scenario played by the rules to its end (the host ends it if it has not ended), stored as the engine
    stores a finished game: its final snapshot and its results."""
    spec = load_scenario(f"{SCENARIOS}/{scenario}.json")
    game = make_game(spec["game"], words_service())
    names = spec["players"]
    actions = [*spec["actions"], *then]
    state = game.new_game(spec.get("options", {}), names, spec.get("setup", {}), random.Random(0))
    version = 0
    for action in actions:
        if game.outcome(state) is not None:
            break
        try:
            _, applied = step(game, state, 0, version, action)
        except GameError:
            continue
        state, version = applied.state, version + 1
    outcome = game.outcome(state)
    assert outcome is not None, scenario
    record = SessionRecord(
        id=0, guild_id=guild, channel_id=int(at), game=spec["game"], status="finished", host_id=names[0],
        players=names, options=spec.get("options", {}), seed=0,
        snapshot=json.loads(_encode_state(game, state)), version=version, created_at=at, updated_at=at,
    )  # fmt: skip
    async with store.transaction() as tx:
        record.id = await store.sessions.create(tx, record)
        await store.sessions.save(tx, record)
        await store.results.record(tx, record.id, guild, spec["game"], _result_rows(outcome), at)
        await tx.execute(
            "UPDATE results SET lower_is_better = ? WHERE session_id = ?",
            (int(outcome.lower_is_better), record.id),
        )
    return record.id


async def result(
    store: Store, game: str, scores: dict[str, int], *, at: float, lower: bool = False, guild: int = GUILD
) -> int:
    """A finished game known by its results alone (what the generic parts of /stats and /history read)."""
    ranked = sorted(scores, key=lambda player: scores[player], reverse=not lower)
    record = SessionRecord(
        id=0, guild_id=guild, channel_id=int(at), game=game, status="finished", host_id=ranked[0],
        players=list(scores), options={}, seed=0, created_at=at, updated_at=at,
    )  # fmt: skip
    async with store.transaction() as tx:
        session_id = await store.sessions.create(tx, record)
        for rank, player in enumerate(ranked, 1):
            await tx.execute(
                "INSERT INTO results (session_id, guild_id, game, user_id, score, rank, won, finished_at, result,"
                " lower_is_better) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (session_id, guild, game, player, scores[player], rank, int(rank == 1), at,
                 "won" if rank == 1 else "lost", int(lower)),
            )  # fmt: skip
    return session_id


async def test_tallies_count_games_and_wins_and_take_the_best_score_in_the_games_direction(
    store: Store,
) -> None:
    await result(store, "topple", {"ann": 12, "bob": 7}, at=100)
    await result(store, "topple", {"ann": 3, "bob": 9}, at=200)
    await result(store, "toppo", {"ann": 4, "bob": 10}, at=300, lower=True)
    await result(store, "toppo", {"ann": 8, "bob": 2}, at=400, lower=True)
    await result(store, "topple", {"ann": 50, "bob": 1}, at=500, guild=OTHER_GUILD)  # another server's
    tallies = {tally.game: tally for tally in await store.stats.tallies(GUILD, "ann")}
    assert set(tallies) == {"topple", "toppo"}
    topple, toppo = tallies["topple"], tallies["toppo"]
    assert (topple.games, topple.wins, topple.total, topple.best, topple.lower_is_better) == (
        2,
        1,
        15,
        12,
        False,
    )
    assert (toppo.games, toppo.wins, toppo.total, toppo.best, toppo.lower_is_better) == (2, 1, 12, 4, True)
    assert toppo.average == 6
    [only] = await store.stats.tallies(GUILD, "ann", "toppo")
    assert only == toppo
    assert await store.stats.tallies(GUILD, "nobody") == []


async def test_score_points_are_the_latest_games_oldest_first(store: Store) -> None:
    for at, score in ((300, 5), (100, 1), (200, 3)):
        await result(store, "topple", {"ann": score, "bob": 0}, at=at)
    points = await store.stats.score_points(GUILD, "ann", "topple", limit=2)
    assert [(point.finished_at, point.score) for point in points] == [(200, 3), (300, 5)]


async def test_the_rating_points_are_the_members_rated_games_oldest_first(store: Store) -> None:
    await result(store, "topple", {"ann": 5, "bob": 0}, at=100)
    assert await store.stats.rating_points(GUILD, "ann", "topple") is None  # not rated yet
    async with store.transaction() as tx:
        rows = ((1, "ann", 25.0, 3.0, 100), (1, "ann", 26.5, 2.0, 200), (2, "ann", 40.0, 1.0, 100))
        for guild, user, mu, sigma, at in rows:
            await tx.execute(
                "INSERT INTO rating_history (session_id, guild_id, game, user_id, mu, sigma, rated_at)"
                " SELECT id, ?, 'topple', ?, ?, ?, ? FROM sessions LIMIT 1",
                (guild, user, mu, sigma, at),
            )
    points = await store.stats.rating_points(GUILD, "ann", "topple")
    # The rating shown is mu − 3σ, as on the leaderboard; another server's figures are not read.
    assert points is not None and [(p.finished_at, p.rating) for p in points] == [(100, 16.0), (200, 20.5)]


async def test_topstop_words_come_from_the_revealed_lists_with_the_votes_decisions(store: Store) -> None:
    # "duck" is voted out in three games: the most disputed; "dog" stays valid. In the third game the host
    # ends the game in the next round while Ann still writes "dinosaur": never revealed, so never counted.
    for at in (100, 200):
        await store_finished(store, "topstop/dispute_votes_out_a_valid_word", at=at)
    writing = tuple(
        {"do": "spin", "player": spinner, "letter": "D"} for spinner in ("ann", "bob", "cat", "dan")
    )
    writing += ({"do": "submit", "player": "ann", "words": ["dinosaur"]}, {"do": "end", "by": "host"})
    ended = await store_finished(store, "topstop/dispute_votes_out_a_valid_word", at=300, then=writing)
    stored = await store.sessions.get(ended)
    assert stored is not None and stored.snapshot is not None
    assert stored.snapshot["rounds"][-1]["submissions"]["ann"] == ["dinosaur"]  # written, never revealed
    rows = await store.stats.member_entries(
        GUILD, "ann", "topstop", each=topstop_records.ROUNDS, keyed=topstop_records.LISTS,
        fields=topstop_records.FIELDS,
    )  # fmt: skip
    words = [row[0] for row in rows]
    assert words.count("duck") == 3 and words.count("dog") == 3 and "dinosaur" not in words
    record = topstop_records.word_record(rows)
    assert record.most_disputed == "duck" and record.disputes == 3
    assert record.longest is not None and record.longest != "duck"
    assert (record.revealed, record.valid) == (6, 3)  # every duck voted out
    assert await store.stats.member_entries(
        OTHER_GUILD, "ann", "topstop", each=topstop_records.ROUNDS, keyed=topstop_records.LISTS,
        fields=topstop_records.FIELDS,
    ) == []  # fmt: skip


async def test_topwords_best_move_is_the_highest_scoring_placement_kept(store: Store) -> None:
    await store_finished(store, "topwords/leaver_ranked_after_those_who_stayed", at=100)
    await store_finished(store, "topwords/turn_timer", at=200)
    spec = load_scenario(f"{SCENARIOS}/topwords/leaver_ranked_after_those_who_stayed.json")
    moves = await store.stats.member_items(
        GUILD, "cat", "topwords", each="$.history", owner="$.player", fields=("$.points", "$.words")
    )
    assert len(moves) == 1 and spec["players"][2] == "cat"
    [(points, words)] = moves
    best = await store.stats.member_items(
        GUILD, "cat", "topwords", each="$.history", owner="$.player", fields=("$.points", "$.words"),
        highest="$.points",
    )  # fmt: skip
    assert best == [(points, words)] and points > 0 and json.loads(words)[0]["word"] == "ABC"


async def test_history_lists_finished_games_newest_first_with_winners_page_by_page(store: Store) -> None:
    ids = [await result(store, "topple", {"ann": at, "bob": 0}, at=at) for at in (100, 200, 300)]
    toppo = await result(store, "toppo", {"ann": 1, "bob": 5}, at=250, lower=True)
    await result(store, "topple", {"ann": 9, "bob": 0}, at=400, guild=OTHER_GUILD)
    async with store.transaction() as tx:  # an open game and a cancelled one are not history
        for status, at in (("active", 500), ("cancelled", 600)):
            await store.sessions.create(tx, SessionRecord(
                id=0, guild_id=GUILD, channel_id=at, game="topple", status=status, host_id="ann",
                players=["ann"], options={}, seed=0, created_at=at, updated_at=at,
            ))  # fmt: skip
    first = await store.history.finished(GUILD, limit=2)
    assert [game.session_id for game in first] == [ids[2], toppo]
    assert first[0].winners == ("ann",) and first[1].winners == ("ann",) and first[1].game == "toppo"
    assert first[0].players == ("ann", "bob") and first[0].finished_at == 300
    second = await store.history.finished(GUILD, offset=2, limit=2)
    assert [game.session_id for game in second] == [ids[1], ids[0]]
    assert [g.session_id for g in await store.history.finished(GUILD, "toppo")] == [toppo]


async def test_the_queries_use_their_indexes(store: Store) -> None:
    plans = {
        "stats": ("SELECT game FROM results WHERE guild_id = 1 AND user_id = 'ann' ORDER BY finished_at", ()),
        "history": (
            "SELECT id FROM sessions WHERE guild_id = 1 AND status = 'finished' ORDER BY finished_at DESC LIMIT 5",
            (),
        ),
        "history of a game": (
            "SELECT id FROM sessions WHERE guild_id = 1 AND game = 'toppo' AND status = 'finished'"
            " ORDER BY finished_at DESC LIMIT 5",
            (),
        ),
    }
    used = {}
    for name, (sql, params) in plans.items():
        if store.db.dialect == "postgresql":
            # A table of a few rows is read whole unless the planner is told to prefer its indexes.
            async with store.db._pool.acquire() as connection:  # type: ignore[attr-defined]
                await connection.execute("SET enable_seqscan = off")
                rows = await connection.fetch(f"EXPLAIN {sql}")
            used[name] = " ".join(str(row[0]) for row in rows)
        else:
            rows = await store.db.fetch_all(f"EXPLAIN QUERY PLAN {sql}", params)
            used[name] = " ".join(str(row[3]) for row in rows)
    assert "results_by_player" in used["stats"]
    assert "sessions_finished_by_guild" in used["history"]
    assert "TEMP B-TREE" not in used["history"] and "Sort" not in used["history"]
    assert "sessions_finished_by_game" in used["history of a game"]
