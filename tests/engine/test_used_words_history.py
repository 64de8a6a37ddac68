"""Top Stop's rule 6 across a restart: the used-word history is written to SQLite with each reveal, and a
game restored from the store still knows every earlier word."""

from __future__ import annotations

from bot.engine.sessions import SessionManager
from bot.games import make_game
from bot.replay import words_service
from bot.store import Store
from tests.engine.stacked_spins import stack_spins


async def open_manager(path, spins):
    store = await Store.open(path)
    rules = make_game("topstop", words_service())
    stack_spins(rules, spins)
    return store, SessionManager(store, {"topstop": rules})


async def test_a_word_of_round_one_is_a_duplicate_after_a_restart(database):
    path = database
    store, manager = await open_manager(path, "CMP")
    record = await manager.open_lobby(1, 10, "topstop", "ann", {"language": "en"})
    sid = record.id
    await manager.join(sid, "bob")
    await manager.start_game(sid, "ann")
    await manager.act(sid, "ann", {"do": "spin"})  # the first spin, C: ann is closest to A
    await manager.act(sid, "bob", {"do": "spin"})  # M
    await manager.act(sid, "ann", {"do": "spin"})  # P
    await manager.act(sid, "ann", {"do": "submit", "words": ["pears", "plum"]})
    await manager.act(sid, None, {"do": "end_writing"})
    history = await store.used_words.for_session(sid)
    assert {(w.player, w.word) for w in history} == {("ann", "pears"), ("ann", "plum")}
    await manager.act(sid, None, {"do": "end_round"})
    await manager.close()
    await store.close()

    store, manager = await open_manager(path, "P")  # a restart: everything comes back from the file
    await manager.start()
    try:
        await manager.act(sid, "bob", {"do": "spin"})
        await manager.act(sid, "bob", {"do": "submit", "words": ["pear", "pen"]})
        await manager.act(sid, None, {"do": "end_writing"})
        view = await manager.view(sid, None)
        verdicts = {e["word"]: e["reason"] for e in view["round"]["lists"]["bob"]}
        assert verdicts == {"pear": "duplicate", "pen": None}  # pear is pears of round 1 (case 2)
        lemma = {w.word: w.lemma_key for w in await store.used_words.for_session(sid)}
        assert lemma["pear"] == lemma["pears"]
    finally:  # the restored game armed its timers: stop them
        await manager.close()
        await store.close()
