"""`python -m bot.replay --session ID --db PATH` exports a finished game of every game with a table: the
exported scenario replays to the same final state's output, whatever the engine drew along the way."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest

from bot.engine.errors import GameError
from bot.engine.sessions import SessionManager
from bot.games import games_with_a_table, make_game
from bot.replay import main, run_scenario, words_service
from bot.store import Store

MOVES = 40  # random legal moves before the host ends the game (if it has not ended by then)
MOST_MOVES = 2000
ENDINGS = frozenset({"leave", "end"})  # not drawn at random: the game would end before any move


@pytest.mark.parametrize("info", games_with_a_table(), ids=lambda info: info.name)
async def test_a_finished_game_exports_as_a_scenario_that_replays_to_its_end(
    info, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = make_game(info.name, words_service())
    path = tmp_path / "bot.db"
    store = await Store.open(path)
    manager = SessionManager(store, {info.name: game})
    await manager.start()
    rng = random.Random(7)
    try:
        players = [f"p{seat}" for seat in range(max(2, game.min_players))]
        lobby = await manager.open_lobby(1, 10, info.name, players[0], dict(info.play_options[0]))
        for player in players[1:]:
            await manager.join(lobby.id, player)
        await manager.start_game(lobby.id, players[0])
        for move in range(MOST_MOVES):
            state = await manager.state(lobby.id)
            if game.outcome(state) is not None:
                break
            if move == MOVES:
                try:  # as /<game> end does; a game without an early end (TopWords) plays on to its own
                    await manager.act(lobby.id, None, {"do": "end", "by": "host"})
                    continue
                except GameError:
                    pass
            offered = [
                (p, a)
                for p in players
                for a in (game.legal_actions(state, p) or [])
                if a["do"] not in ENDINGS
            ]
            player, action = rng.choice(offered)
            try:
                await manager.act(lobby.id, player, action)
            except GameError:
                continue  # e.g. a word the dictionary refuses: nothing changed
        record = await manager.session(lobby.id)
        assert record.status == "finished"
        final = game.replay_output(await manager.state(lobby.id))
    finally:
        await manager.close()
        await store.close()

    # The command line as an operator runs it (its own event loop: in a thread of its own here).
    assert await asyncio.to_thread(main, ["--session", str(lobby.id), "--db", str(path)]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert len(exported["actions"]) > 1  # moves were played before the end
    replayed = run_scenario(exported)
    assert replayed["rejected"] == []
    expected = {"game": info.name, "players": players, **json.loads(json.dumps(final))}
    assert {key: value for key, value in replayed.items() if key != "rejected"} == expected
