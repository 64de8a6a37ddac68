"""The server's own dictionary through the engine: a table's vote is stored with the action that closed it,
in the game's language; a later game on that server takes it along (and a replay judges alike); another
server, or another language, does not."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bot.engine.sessions import SessionManager
from bot.games.topstop import TopStop
from bot.replay import export_session, run_scenario
from bot.store import Store
from tests.engine.stacked_spins import stack_spins

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "games" / "topstop"))
from topstop_helpers import StubWords  # noqa: E402


@pytest.fixture
async def manager(database):
    store = await Store.open(database)
    rules = TopStop(StubWords(unknown={"blorf"}))
    stack_spins(rules, "B" * 10)  # every round on B
    manager = SessionManager(store, {"topstop": rules}, clock=lambda: 1_795_000_000.0)
    manager.db_path = database  # type: ignore[attr-defined]
    await manager.start()
    yield manager
    await manager.close()
    await store.close()


async def game(manager: SessionManager, guild: int, channel: int, language: str = "en") -> int:
    lobby = await manager.open_lobby(guild, channel, "topstop", "ann", {"language": language})
    await manager.join(lobby.id, "bob")
    await manager.join(lobby.id, "cat")
    await manager.start_game(lobby.id, "ann", {"first_player": "ann"})
    return lobby.id


async def blorf_round(manager: SessionManager, sid: int) -> dict:
    await manager.act(sid, "ann", {"do": "spin"})
    await manager.act(sid, "ann", {"do": "submit", "words": ["blorf"]})
    await manager.act(sid, "bob", {"do": "submit", "words": ["bread"]})
    await manager.act(sid, None, {"do": "end_writing"})
    view = await manager.view(sid, None)
    return view["history"][-1]["words"]["ann"][0]


async def test_a_word_voted_valid_is_accepted_in_the_next_game_on_that_server_only(manager) -> None:
    first = await game(manager, guild=1, channel=10)
    assert (await blorf_round(manager, first))["reason"] == "not_a_word"
    await manager.act(first, "ann", {"do": "dispute", "of": "ann", "word": "blorf"})
    await manager.act(first, "bob", {"do": "vote", "accept": True})
    await manager.act(first, "cat", {"do": "vote", "accept": True})
    [stored] = await manager.store.server_words.list(1, "en")
    assert (stored.word, stored.valid, stored.source, stored.session_id) == ("blorf", True, "vote", first)
    assert stored.day == "2026-11-18"
    await manager.act(first, "ann", {"do": "end"})

    again = await game(manager, guild=1, channel=11)
    assert (await manager.session(again)).setup["server_words"] == {
        "blorf": {"valid": True, "day": "2026-11-18"}
    }
    assert await blorf_round(manager, again) == {
        "word": "blorf",
        "valid": True,
        "reason": None,
        "ruled": "2026-11-18",
    }

    # `--session` exports the game with the server's words it took along: the replay judges alike.
    exported = await export_session(again, str(manager.db_path))
    assert exported["setup"]["server_words"] == {"blorf": {"valid": True, "day": "2026-11-18"}}
    replayed = run_scenario(exported)
    assert replayed["history"][0]["words"]["ann"][0]["ruled"] == "2026-11-18"

    elsewhere = await game(manager, guild=2, channel=20)
    assert (await blorf_round(manager, elsewhere))["reason"] == "not_a_word"
    french = await game(manager, guild=1, channel=12, language="fr")
    assert (await manager.session(french)).setup["server_words"] == {}


async def test_admin_entries_are_listed_counted_and_removed(manager) -> None:
    store = manager.store
    async with store.transaction() as tx:
        await store.server_words.set(tx, 1, "en", "zork", True, "99", 1_795_000_000.0)
        await store.server_words.set(tx, 1, "en", "blah", False, "99", 1_795_000_000.0)
        await store.server_words.set(tx, 2, "en", "zork", False, "99", 1_795_000_000.0)
    assert [w.word for w in await store.server_words.list(1, "en")] == ["blah", "zork"]
    assert [w.word for w in await store.server_words.list(1, "en", prefix="z")] == ["zork"]
    assert await store.server_words.count(1, "en") == 2
    async with store.transaction() as tx:
        assert await store.server_words.remove(tx, 1, "en", "zork") is True
        assert await store.server_words.remove(tx, 1, "en", "zork") is False
    assert await store.server_words.snapshot(1, "en") == {"blah": {"valid": False, "day": "2026-11-18"}}
    assert (await store.server_words.list(2, "en"))[0].valid is False  # each server its own
    found = await store.server_words.get(1, "en", "blah")
    assert found is not None and (found.valid, found.source, found.decided_by) == (False, "admin", "99")
    assert await store.server_words.get(1, "en", "zork") is None
