"""The outcome told: the `finished` event carries the whole Outcome as plain JSON (winners, scores, the
direction, the team result and rating, who left, whether it is a draw, and why the game ended, from the
closed set `Termination`), so a cog never reads the view to announce the end."""

from __future__ import annotations

import inspect
import json
import re
from typing import Any

import pytest

from bot.engine.game import Outcome, Termination
from bot.engine.sessions import SessionManager
from bot.games import make_game
from bot.store import Store
from tests.engine.race_game import RaceGame

OUTCOME_KEYS = {
    "type",
    "winners",
    "scores",
    "lower_is_better",
    "team_result",
    "team_rating",
    "left",
    "draw",
    "termination",
}


@pytest.fixture
async def manager(database):
    store = await Store.open(database)
    games = {
        "topstop": make_game("topstop", None),
        "topwords": make_game("topwords", None),
        "race": RaceGame(),
    }
    manager = SessionManager(store, games)
    yield manager
    await manager.close()
    await store.close()


def finished(events: list[dict[str, Any]]) -> dict[str, Any]:
    [event] = [e for e in events if e["type"] == "finished"]
    assert set(event) == OUTCOME_KEYS
    assert json.loads(json.dumps(event)) == event  # plain JSON, as the log keeps it
    return event


async def test_top_stop_ended_by_its_host_on_a_tie_is_a_draw(manager):
    sid = await _open(manager, "topstop", ("ann", "bob"), {"check_words": False})
    result = await manager.act(sid, "ann", {"do": "end"})
    event = finished(result.events)
    assert event["termination"] == "ended_by_host" and event["draw"] is True
    assert event["winners"] == ["ann", "bob"] and event["scores"] == {"ann": 0, "bob": 0}
    assert event["lower_is_better"] is False and event["team_result"] is None and event["left"] == []


async def test_top_stop_ended_by_the_tables_vote(manager):
    sid = await _open(manager, "topstop", ("ann", "bob"), {"check_words": False})
    result = await manager.act(sid, None, {"do": "end", "by": "vote"})
    assert finished(result.events)["termination"] == "ended_by_vote"


async def test_top_stop_left_with_one_player_has_a_single_winner(manager):
    sid = await _open(manager, "topstop", ("ann", "bob", "cat"), {"check_words": False})
    await manager.act(sid, "bob", {"do": "leave"})
    event = finished((await manager.act(sid, "cat", {"do": "leave"})).events)
    assert event["termination"] == "last_player_standing" and event["draw"] is False
    assert event["winners"] == ["ann"] and event["left"] == ["bob", "cat"]


async def test_topwords_ends_when_everyone_passed(manager):
    sid = await _open(manager, "topwords", ("ann", "bob"), {"check_words": False})
    await manager.act(sid, "ann", {"do": "pass"})
    event = finished((await manager.act(sid, "bob", {"do": "pass"})).events)
    assert event["termination"] == "all_passed" and event["draw"] is True  # 7 tiles each: -35 both


async def test_topwords_ends_when_the_others_left(manager):
    sid = await _open(manager, "topwords", ("ann", "bob"), {"check_words": False})
    event = finished((await manager.act(sid, "bob", {"do": "leave"})).events)
    assert event["termination"] == "last_player_standing" and event["winners"] == ["ann"]


async def test_the_race_ends_on_its_target(manager):
    sid = await _open(manager, "race", ("ann", "bob"), {"target": 3})
    event = finished((await manager.act(sid, "ann", {"do": "advance", "by": 4})).events)
    assert event["termination"] == "target_reached" and event["winners"] == ["ann"] and not event["draw"]


def test_a_cooperative_outcome_tells_the_teams_result_and_rating():
    outcome = Outcome(
        [],
        {"ann": 0, "bob": 0},
        team_result="lost",
        team_rating=2,
        termination=Termination.TEAM_STUCK,
        draw=False,
    )
    event = outcome.event()
    assert (event["team_result"], event["team_rating"], event["termination"]) == ("lost", 2, "team_stuck")


def test_every_end_reason_in_the_games_rules_has_its_termination():
    """Each reason the rules end a game with (read from their source) maps to a Termination."""
    from bot.games.topstop import game as top_stop
    from bot.games.topwords import game as topwords

    top_stop_reasons = set(
        re.findall(r'_finish\(state, [^\n]*, "(\w+)", step\)', inspect.getsource(top_stop))
    )
    top_stop_reasons |= set(top_stop.END_BY.values())
    topwords_source = inspect.getsource(topwords)
    topwords_reasons = set(re.findall(r'self\._end\(s, "(\w+)", applied\)', topwords_source))
    topwords_reasons |= set(re.findall(r'return "(\w+)"  # "Ein Spieler', topwords_source))
    assert top_stop_reasons == set(top_stop.TERMINATIONS) == {"target", "players_left", "ended", "voted"}
    assert topwords_reasons == set(topwords.TERMINATIONS) == {"out", "passes", "no_words", "players_left"}
    told = [*top_stop.TERMINATIONS.values(), *topwords.TERMINATIONS.values()]
    assert all(isinstance(reason, Termination) for reason in told)


_channels = iter(range(100, 10_000))


async def _open(manager: SessionManager, game: str, players: tuple[str, ...], options: dict[str, Any]) -> int:
    lobby = await manager.open_lobby(1, next(_channels), game, players[0], options)
    for player in players[1:]:
        await manager.join(lobby.id, player)
    await manager.start_game(lobby.id, players[0], {"first_player": players[0]})
    return lobby.id
