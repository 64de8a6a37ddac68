"""Properties of every Topple game: random games (any seat count, both variants, idle turns included) played
through `step` as live play plays them, checked at every state."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine.game import step
from bot.games import make_game
from bot.games.topple import State
from bot.games.topple.board import RISK_SCALE
from bot.games.topple.state import PIECES_PER_COLOUR

PLAYERS = ["ann", "bob", "cat", "dan"]
STEPS = 400


def random_game(seed: int, count: int, variant: str) -> list[State]:
    """Every state of a game in which seated players pick among their legal actions (never leaving) and a
    turn sometimes runs out."""
    game = make_game("topple", None)
    choices = random.Random(seed)
    state: State = game.new_game({"variant": variant, "target": 60}, PLAYERS[:count], {}, random.Random(seed))
    states = [state]
    for version in range(STEPS):
        if game.outcome(state) is not None:
            break
        moves = [a for p in state.players for a in game.legal_actions(state, p) or [] if a["do"] != "leave"]
        if not moves or choices.random() < 0.05:
            action = dict(game.timers(state)[0].action)
        else:
            action = choices.choice(moves)
        state = step(game, state, seed, version, action)[1].state
        states.append(state)
    return states


GAMES = settings(max_examples=25, deadline=None)


@GAMES
@given(seed=st.integers(0, 2**32), count=st.integers(2, 4), variant=st.sampled_from(["standard", "young"]))
def test_pieces_are_conserved_board_plus_supply_is_twelve_per_colour(
    seed: int, count: int, variant: str
) -> None:
    for state in random_game(seed, count, variant):
        if state.phase == "over":
            continue
        on_board = Counter(colour for row in state.board for stack in row for colour in stack)
        for colour, left in state.supply.items():
            assert on_board[colour] + left == PIECES_PER_COLOUR, (colour, on_board, state.supply)
        assert set(on_board) <= set(state.supply)  # only colours in play this round are on the board


@GAMES
@given(seed=st.integers(0, 2**32), count=st.integers(2, 4))
def test_scores_equal_the_sum_of_the_placement_records(seed: int, count: int) -> None:
    for state in random_game(seed, count, "standard"):
        totals = dict.fromkeys(state.players, 0)
        for record in state.history:
            totals[record["player"]] += record["points"]
            if "bonus" in record:
                totals[record["bonus"]["player"]] += record["bonus"]["points"]
        assert totals == state.scores
        for summary in state.rounds:  # and each round's points are its records'
            assert sum(summary["points"].values()) == sum(
                r["points"] + r.get("bonus", {}).get("points", 0)
                for r in state.history
                if r["round"] == summary["round"]
            )


@GAMES
@given(seed=st.integers(0, 2**32), count=st.integers(2, 4), variant=st.sampled_from(["standard", "young"]))
def test_every_placement_lands_on_a_square_its_roll_allows_with_a_risk_that_is_a_chance(
    seed: int, count: int, variant: str
) -> None:
    game = make_game("topple", None)
    states = random_game(seed, count, variant)
    for state in states:
        assert all(0 <= r < RISK_SCALE for row in game.view_for(state, None)["risks"] for r in row)
    for record in states[-1].history:
        row, col = record["square"]
        level = 1 + abs(row - 2) + abs(col - 2)
        assert record["roll"] == 6 or record["roll"] == level
        assert 0 <= record["risk"] < RISK_SCALE


@GAMES
@given(seed=st.integers(0, 2**32), count=st.integers(2, 4))
def test_young_scores_count_the_players_each_has_outlasted(seed: int, count: int) -> None:
    game = make_game("topple", None)
    final = random_game(seed, count, "young")[-1]
    expected = {
        p: sum(1 for index, _ in enumerate(final.out) if p not in final.out[: index + 1])
        for p in PLAYERS[:count]
    }
    assert final.scores == expected
    outcome: Any = game.outcome(final)
    if outcome is not None:
        assert outcome.winners == [p for p in final.players if p not in final.out]
        ranks = outcome.ranks()
        assert [ranks[p] for p in reversed(final.out)] == sorted(ranks[p] for p in final.out)
