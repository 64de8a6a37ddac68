"""TopWords against the engine contract (bot/engine/game.py): options, freshness, legal and table actions,
votes through bot.engine.votes, the outcome, plain data that the engine serialises, and apply that never
changes its input yet copies only what an action changes."""

from __future__ import annotations

import contextlib
import copy
import random
from dataclasses import asdict
from typing import Any

import orjson
import pytest
from topwords_helpers import EXAMPLES, StubWords, Table, examples_table

from bot.engine.errors import BadAction, GameError
from bot.engine.game import Outcome, state_json, step
from bot.games.topwords import TopWords
from bot.games.topwords.state import Options

BAD_RAT = StubWords({"RAT": "not_a_word"})

# -- actions and options ------------------------------------------------------------------------------


def test_action_names_are_every_action_the_rules_know():
    game = TopWords(None)
    assert isinstance(game.action_names, frozenset)
    assert game.action_names == {
        "place", "pass", "challenge", "dispute", "propose_end", "vote", "leave",
        "close_challenge", "close_vote", "turn_timeout",
    }  # fmt: skip


@pytest.mark.parametrize("do", [["place"], {"do": "place"}, None, 7, "PLACE"])
def test_an_unknown_or_mistyped_do_is_a_bad_action_never_a_type_error(do: Any):
    table = Table()
    action = {"do": do, "player": "ann", "tiles": [[4, 4, "A"]]}
    with pytest.raises(BadAction):
        table.game.apply(table.state, action)
    with pytest.raises(BadAction):
        step(table.game, table.state, 0, 0, action)


def test_validate_options_fills_the_defaults():
    game = TopWords(StubWords())
    defaults = game.validate_options({})
    assert defaults == asdict(Options())
    assert game.validate_options(defaults) == defaults
    assert game.validate_options({"mode": "challenge"})["mode"] == "challenge"


@pytest.mark.parametrize(
    "options",
    [
        {"mode": "lenient"},
        {"mode": ["strict"]},
        {"language": "en"},
        {"check_words": "yes"},
        {"vote_seconds": 0},
        {"challenge_seconds": True},
        {"speed": 3},
    ],
)
def test_bad_options_are_refused_in_both_languages(options: dict[str, Any]):
    with pytest.raises(BadAction) as refused:
        TopWords(StubWords()).validate_options(options)
    assert refused.value.text("de") != refused.value.message


def test_new_game_takes_its_options_from_validate_options():
    game = TopWords(None)
    with pytest.raises(BadAction):
        game.validate_options({})  # checking words needs the words service
    state = game.new_game({"check_words": False}, ["ann", "bob"], {}, random.Random(0))
    assert state.options == Options(**game.validate_options({"check_words": False}))


# -- what the table offers ------------------------------------------------------------------------------


def test_table_actions_say_which_buttons_are_open():
    """Challenge and Dispute only when someone may use them; the vote only to its voters; nothing at the end."""
    table = examples_table(words=BAD_RAT, mode="challenge")
    game = table.game
    table.place("bob", EXAMPLES[0])
    assert game.table_actions(table.state, None) == {"place", "pass", "propose_end", "challenge", "dispute"}
    assert game.table_actions(table.state, "bob") == {"propose_end"}  # his own move
    assert game.table_actions(table.state, "ann") == {"place", "pass", "propose_end", "challenge", "dispute"}
    table.place("ann", EXAMPLES[1])
    table.do("challenge", "bob")  # RAT is taken back: ann may ask the table to restore it
    assert game.table_actions(table.state, "ann") == {"place", "pass", "propose_end", "dispute"}
    assert game.table_actions(table.state, "bob") == {"propose_end"}
    table.do("dispute", "ann")
    assert game.table_actions(table.state, None) == {"vote"}
    assert game.table_actions(table.state, "ann") == frozenset()  # she raised it
    table.do("vote", "bob", accept=False)
    table.do("propose_end", "ann")
    table.do("vote", "bob", accept=True)
    assert game.table_actions(table.state, None) == frozenset()


def test_strict_mode_with_two_players_offers_no_dispute():
    table = examples_table(words=StubWords())
    table.place("bob", EXAMPLES[0])
    assert "dispute" not in table.game.table_actions(table.state, None)


def test_the_view_carries_what_the_table_offers_and_what_buttons_are_made_against():
    table = examples_table(words=BAD_RAT, mode="challenge")
    table.place("bob", EXAMPLES[0])
    view = table.game.view_for(table.state, None)
    assert view["offered"] == sorted(table.game.table_actions(table.state, None))
    assert view["offered_to"] == {p: sorted(table.game.table_actions(table.state, p)) for p in ("ann", "bob")}
    assert view["freshness"] == table.game.freshness(table.state) == {"move": 2}
    assert view["taken_back"] is None
    table.place("ann", EXAMPLES[1])
    table.do("challenge", "bob")
    taken = table.game.view_for(table.state, "bob")["taken_back"]
    assert taken["player"] == "ann" and taken["words"] == [{"word": "RAT", "reason": "not_a_word"}]


def test_the_example_placement_is_a_legal_move_on_an_empty_board_and_later():
    table = Table(
        words=StubWords({"EI": "not_a_word"}), setup={"first_player": "ann", "racks": {"ann": "EINRSTU"}}
    )
    for _ in range(6):
        player = table.state.current
        [place] = [a for a in table.game.legal_actions(table.state, player) if a["do"] == "place"]
        table.do("place", player, tiles=place["tiles"])
    assert len(table.state.history) == 6 and "EI" not in {
        w["word"] for r in table.state.history for w in r["words"]
    }


# -- votes go through bot.engine.votes ------------------------------------------------------------------


def test_a_voter_may_change_their_mind_until_everyone_voted():
    """bot.engine.votes.cast: the last ballot counts; the vote closes once every voter has one."""
    table = examples_table(words=StubWords(), players=("ann", "bob", "cat", "dan"))
    table.do("propose_end", "bob")
    table.do("vote", "ann", accept=True)
    table.do("vote", "ann", accept=False)
    assert table.state.vote["votes"] == {"ann": False}
    table.do("vote", "cat", accept=True)
    table.do("vote", "dan", accept=True)
    assert table.state.votes[-1] | {"id": 1} == {
        "id": 1, "kind": "end", "by": "bob", "of": "bob", "words": [], "yes": 2, "no": 1, "allowed": False,
    }  # fmt: skip
    assert table.state.phase == "play"


def test_the_outcome_is_the_engines_with_higher_scores_better():
    table = examples_table()
    table.place("bob", EXAMPLES[0])
    table.place("ann", EXAMPLES[1])
    assert table.game.outcome(table.state) is None
    table.do("propose_end", "bob")
    table.do("vote", "ann", accept=True)
    outcome = table.game.outcome(table.state)
    assert isinstance(outcome, Outcome) and not outcome.lower_is_better and outcome.team_result is None
    assert outcome.scores == table.state.scores and outcome.winners == ["ann"]
    assert outcome.ranks() == {"ann": 1, "bob": 2}


# -- plain data, no mutation, copies of what changes only ----------------------------------------------


def playout(seed: int, mode: str, players: int) -> list[tuple[Any, dict[str, Any]]]:
    """(state, action) for every step of a random game through legal_actions and the timers' actions."""
    names = ("ann", "bob", "cat", "dan")[:players]
    table = Table(names, words=BAD_RAT, setup={}, seed=seed, mode=mode)
    rng = random.Random(seed)
    steps = []
    for _ in range(60):
        offered = [a for p in names for a in table.game.legal_actions(table.state, p) or []]
        offered += [t.action for t in table.game.timers(table.state)]
        if not offered:
            break
        action = rng.choice(offered)
        steps.append((table.state, action))
        table.do(
            action["do"],
            action.get("player"),
            **{k: v for k, v in action.items() if k not in ("do", "player")},
        )
    steps.append((table.state, {}))
    return steps


@pytest.mark.parametrize(
    ("seed", "mode", "players"), [(1, "strict", 2), (2, "challenge", 3), (3, "challenge", 2)]
)
def test_the_state_is_plain_data_the_engine_serialises_as_it_is(seed: int, mode: str, players: int):
    for state, _ in playout(seed, mode, players):
        game = TopWords(BAD_RAT)
        assert orjson.loads(state_json(state)) == game.dump(state)
        assert game.load(game.dump(state)) == state
        assert game.load(orjson.loads(state_json(state))) == state


@pytest.mark.parametrize(
    ("seed", "mode", "players"), [(4, "strict", 3), (5, "challenge", 4), (6, "challenge", 2)]
)
def test_apply_never_changes_its_input_accepted_or_refused(seed: int, mode: str, players: int):
    game = TopWords(BAD_RAT)
    for state, action in playout(seed, mode, players):
        before = copy.deepcopy(state)
        tries = [action, {**action, "player": state.players[(state.turn + 1) % len(state.players)]}]
        tries.append({"do": "place", "player": state.current, "tiles": [[0, 0, "Q"], [9, 9, "X"]]})
        for tried in tries:
            with contextlib.suppress(GameError):
                game.apply(state, tried)
            assert state == before


def test_an_accepted_action_copies_only_what_it_changes():
    """No deep copy: a move shares the unchanged parts of the state with the one it came from."""
    table = examples_table()
    old = table.state
    new = table.game.apply(old, {"do": "place", "player": "bob", "tiles": EXAMPLES[0]}).state
    assert new is not old and new.board is not old.board and new.racks is not old.racks
    assert new.options is old.options and new.start_draw is old.start_draw and new.votes is old.votes
    assert new.history[:-1] == list(old.history) and new.history[0] == old.history[0]
    passed = table.game.apply(new, {"do": "pass", "player": "ann"}).state
    assert passed.board is new.board and passed.history is new.history and passed.racks is new.racks
