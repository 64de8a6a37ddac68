"""A server's settings (`guild_settings.settings`) and a player's say over their data, on a real SQLite file."""

from __future__ import annotations

import pytest

from bot.store import ResultRow, ServerSettings, SessionRecord, Store
from bot.store.repositories import is_anonymous


@pytest.fixture
async def store(database):
    store = await Store.open(database)
    yield store
    await store.close()


async def finished_game(store: Store, channel_id: int, rows: list[ResultRow]) -> int:
    record = SessionRecord(
        id=0, guild_id=1, channel_id=channel_id, game="race", status="finished", host_id=rows[0].user_id,
        players=[r.user_id for r in rows], options={}, seed=7, created_at=1.0, updated_at=1.0,
    )  # fmt: skip
    async with store.transaction() as tx:
        session_id = await store.sessions.create(tx, record)
        await store.results.record(tx, session_id, 1, "race", rows, 2.0)
    return session_id


async def test_a_server_without_settings_reads_the_empty_settings(store):
    settings = await store.guild_settings.settings(1)
    assert settings == ServerSettings() and settings.to_json() == "{}"


async def test_settings_are_stored_per_server_and_survive_reopening(store, database):
    def restrict(settings: ServerSettings) -> None:
        settings.channels.append(555)
        settings.max_games = 3
        settings.defaults["race"] = {"target": 30}

    async with store.transaction() as tx:
        await store.guild_settings.update(tx, 1, restrict, 1.0)
    await store.close()
    reopened = await Store.open(database)
    try:
        assert await reopened.guild_settings.settings(1) == ServerSettings([555], 3, {"race": {"target": 30}})
        assert await reopened.guild_settings.settings(2) == ServerSettings()
    finally:
        await reopened.close()


async def test_changes_keep_what_they_do_not_touch(store):
    async with store.transaction() as tx:
        await store.guild_settings.update(tx, 1, lambda s: s.channels.append(555), 1.0)
    async with store.transaction() as tx:
        await store.guild_settings.update(tx, 1, lambda s: setattr(s, "max_games", 4), 2.0)
    assert await store.guild_settings.settings(1) == ServerSettings([555], 4, {})


async def test_a_failed_transaction_changes_no_setting(store):
    with pytest.raises(RuntimeError):
        async with store.transaction() as tx:
            await store.guild_settings.update(tx, 1, lambda s: setattr(s, "max_games", 4), 1.0)
            raise RuntimeError("a later step failed")
    assert await store.guild_settings.settings(1) == ServerSettings()


async def test_settings_set_before_the_language_leave_the_language_to_the_caller(store):
    """The row a setting creates holds no language: the answer's language stays the caller's."""
    async with store.transaction() as tx:
        await store.guild_settings.update(tx, 1, lambda s: setattr(s, "max_games", 4), 1.0)
    assert await store.guild_settings.language(1, "fr") == "fr"
    assert await store.guild_settings.chosen_language(1) is None
    async with store.transaction() as tx:
        await store.guild_settings.set_language(tx, 1, "de", 2.0)
    assert await store.guild_settings.language(1, "fr") == "de"
    assert (await store.guild_settings.settings(1)).max_games == 4  # the language kept the settings


async def test_stored_values_of_the_wrong_shape_are_left_out(store):
    async with store.transaction() as tx:
        await tx.execute(
            "INSERT INTO guild_settings (guild_id, language, settings, updated_at) VALUES (1, '', ?, 1.0)",
            ('{"channels": [5, "x"], "max_games": -2, "defaults": {"race": 3, "quiz": {"mode": "a"}}}',),
        )
    assert await store.guild_settings.settings(1) == ServerSettings([5], None, {"quiz": {"mode": "a"}})


async def test_a_profile_is_deleted_and_a_missing_one_says_so(store):
    async with store.transaction() as tx:
        await store.profiles.set_birthday(tx, "ann", 2, 29, 1.0)
    async with store.transaction() as tx:
        assert await store.profiles.delete(tx, "ann") is True
    assert await store.profiles.get("ann") is None
    async with store.transaction() as tx:
        assert await store.profiles.delete(tx, "ann") is False


async def test_anonymised_results_stay_for_the_others_under_one_new_id(store):
    first = await finished_game(store, 10, [ResultRow("111", 30, 1, True), ResultRow("222", 20, 2, False)])
    second = await finished_game(store, 11, [ResultRow("222", 25, 1, True), ResultRow("111", 5, 2, False)])
    assert await store.profiles.result_count("111") == 2

    async with store.transaction() as tx:
        anonymous, count = await store.profiles.anonymise_results(tx, "111")
    # A random id, not one made from the player's (its 16 hex digits may hold "111" by chance).
    assert count == 2 and is_anonymous(anonymous) and anonymous.removeprefix("anon-") != "111"
    assert len(anonymous.removeprefix("anon-")) == 16
    assert await store.profiles.result_count("111") == 0
    # Every row kept, the same anonymous id on both; the other player's rows untouched.
    assert [r.user_id for r in await store.results.for_session(first)] == [anonymous, "222"]
    assert [r.user_id for r in await store.results.for_session(second)] == ["222", anonymous]
    board = {row.user_id: (row.games, row.wins) for row in await store.results.leaderboard(1, "race")}
    assert board == {anonymous: (2, 1), "222": (2, 1)}


async def test_the_ratings_follow_the_anonymised_results(store):
    session = await finished_game(store, 10, [ResultRow("111", 30, 1, True), ResultRow("222", 20, 2, False)])
    async with store.transaction() as tx:
        for user in ("111", "222"):
            await tx.execute(
                "INSERT INTO ratings (guild_id, game, user_id, mu, sigma, games, updated_at)"
                " VALUES (1, 'race', ?, 25, 8, 1, 1)",
                (user,),
            )
            await tx.execute(
                "INSERT INTO rating_history (session_id, guild_id, game, user_id, mu, sigma, rated_at)"
                " VALUES (?, 1, 'race', ?, 25, 8, 1)",
                (session, user),
            )
    async with store.transaction() as tx:
        anonymous, _ = await store.profiles.anonymise_results(tx, "111")
    for table in ("ratings", "rating_history"):
        rows = await store.db.fetch_all(f"SELECT user_id FROM {table} ORDER BY user_id")
        assert sorted(row[0] for row in rows) == sorted(["222", anonymous])


async def test_each_anonymisation_draws_a_new_id(store):
    await finished_game(store, 10, [ResultRow("111", 30, 1, True), ResultRow("222", 20, 2, False)])
    async with store.transaction() as tx:
        one, _ = await store.profiles.anonymise_results(tx, "111")
    await finished_game(store, 11, [ResultRow("111", 30, 1, True), ResultRow("222", 20, 2, False)])
    async with store.transaction() as tx:
        other, count = await store.profiles.anonymise_results(tx, "111")
    assert count == 1 and other != one
    async with store.transaction() as tx:
        _, none = await store.profiles.anonymise_results(tx, "111")
    assert none == 0
