"""Top Stop properties over random games: verdicts are consistent, points add up, state round-trips and replays."""

from __future__ import annotations

import functools
import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from topstop_helpers import Table

from bot.engine.errors import GameError
from bot.engine.game import step

PLAYERS = ("ann", "bob", "cat", "dan")


@functools.cache
def words_on(letter: str) -> st.SearchStrategy[list[str]]:
    """Few short words, so that common, duplicate and variant words come up often; a few are not words
    of letters or start with another letter. Lists of 4 exceed the table's 3 words and are refused."""
    stem = letter.lower()
    return st.lists(
        st.sampled_from([stem, stem + "a", stem + "b", stem + "é", stem + "-b", "xa"]), max_size=4
    )


# Built once, and each action's kind drawn before its arguments: only what the action needs is drawn (making
# strategies and drawing every candidate's words at each step was nine tenths of these tests' time).
PLAYER, RARE = st.sampled_from(PLAYERS), st.integers(0, 99)
FIRST_LETTER, LETTER = st.sampled_from("ABC"), st.sampled_from("ABP")
WRITING_KIND, REVIEW_KIND = st.integers(0, 4), st.integers(0, 4)


def next_action(table: Table, draw: st.DataObject) -> dict[str, Any]:
    """An action that fits the phase most of the time, and now and then one that does not."""
    state = table.state
    player = draw.draw(PLAYER)
    rare = draw.draw(RARE)
    if rare < 3:  # leaving or ending the game now and then
        return [{"do": "leave", "player": player}, {"do": "end_round"}, {"do": "end"}][rare]
    if state.phase == "first_spin":
        return {"do": "spin", "player": player, "letter": draw.draw(FIRST_LETTER)}
    if state.phase == "spin":
        return {"do": "spin", "player": state.round.spinner, "letter": draw.draw(LETTER)}
    if state.phase == "writing":
        kind = draw.draw(WRITING_KIND)  # submitting twice as likely as each other action
        if kind < 2:
            return {"do": "submit", "player": player, "words": draw.draw(words_on(state.round.letter or "A"))}
        return [{"do": "stop", "player": player}, {"do": "respin", "player": player}, {"do": "end_writing"}][
            kind - 2
        ]
    words = [(owner, e.word) for owner, es in state.round.lists.items() for e in es]
    kind = draw.draw(REVIEW_KIND if words else st.integers(0, 3))
    if kind == 0:
        return {"do": "vote", "player": player, "accept": draw.draw(st.booleans())}
    if kind == 4:
        owner, word = draw.draw(st.sampled_from(words))
        return {"do": "dispute", "player": player, "of": owner, "word": word}
    return [{"do": "close_vote"}, {"do": "end_round"}, {"do": "review_done", "player": player}][kind - 1]


def play(draw: st.DataObject) -> tuple[Table, list[Any]]:
    first = draw.draw(st.sampled_from([None, "ann", "cat"]))
    table = Table(PLAYERS, first=first, words=3, target=draw.draw(st.sampled_from([1, 2, 3, 8])))
    states = [table.state]
    for _ in range(draw.draw(st.integers(0, 120))):
        if table.state.phase == "over":
            break
        action = next_action(table, draw)
        try:
            table.do(
                action["do"],
                action.get("player"),
                **{k: v for k, v in action.items() if k not in ("do", "player")},
            )
        except GameError:
            continue
        states.append(table.state)
    return table, states


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_property_no_word_is_both_valid_and_crossed_out(
    data: st.DataObject,
) -> None:
    table, _ = play(data)
    for record in table.output()["history"]:
        for words in record["words"].values():
            for word in words:
                assert word["valid"] is (word["reason"] is None)
                assert word["reason"] is None or word["reason"] in {
                    "not_a_word",
                    "wrong_letter",
                    "common",
                    "duplicate",
                    "variant",
                    "voted_out",
                }


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_property_points_are_valid_words_minus_penalties(
    data: st.DataObject,
) -> None:
    table, _ = play(data)
    scores = {p: 0 for p in PLAYERS}
    for record in table.output()["history"]:
        if record["points"] is None:
            continue
        for player, points in record["points"].items():
            valid = sum(1 for w in record["words"].get(player, []) if w["valid"])
            assert points == valid - record["penalties"].get(player, 0)
            scores[player] = max(0, scores[player] + points)  # scores are floored at 0
    assert scores == table.state.scores


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_property_dump_load_round_trip(data: st.DataObject) -> None:
    table, states = play(data)
    for state in states:
        dumped = json.loads(json.dumps(table.game.dump(state)))
        assert table.game.load(dumped) == state


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_property_replaying_the_log_gives_the_same_state(
    data: st.DataObject,
) -> None:
    table, _ = play(data)
    state = table.game.new_game(table.options, table.players, table.setup, random.Random(table.seed))
    for version, action in enumerate(table.log):
        _, applied = step(table.game, state, table.seed, version, action)
        state = applied.state
    assert state == table.state
    assert table.game.replay_output(state) == table.output()


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_property_view_shows_only_the_viewers_own_unrevealed_words(
    data: st.DataObject,
) -> None:
    table, _ = play(data)
    if table.state.phase != "writing":
        return
    submissions = table.state.round.submissions
    for viewer in (*PLAYERS, None):
        shown = table.game.view_for(table.state, viewer)["round"]
        assert "lists" not in shown
        assert shown.get("your_words") == submissions.get(viewer) if viewer else "your_words" not in shown
        assert shown["submitted"] == {p: len(words) for p, words in submissions.items()}
