"""Random legal games: the 100 tiles are conserved (board + racks + bag), and the state stays consistent."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from topwords_helpers import Table

from bot.engine.errors import IllegalMove
from bot.games.topwords.commands import DIRECTIONS
from bot.games.topwords.rules import MAX_HEIGHT, SIZE, TILE_COUNTS, tile_count


def _candidate(table: Table, rng: random.Random) -> dict[str, Any]:
    """A random action for the player to move: mostly a placement along a line, sometimes a pass or swap."""
    state = table.state
    player = state.current
    rack = state.racks[player]
    roll = rng.random()
    if roll < 0.05:
        return {"do": "pass", "player": player}
    if roll < 0.12 and rack and state.bag:
        return {"do": "pass", "player": player, "swap": rng.choice(rack)}
    dr, dc = DIRECTIONS[rng.choice(["across", "down"])]
    occupied = [(i // SIZE, i % SIZE) for i, stack in enumerate(state.board) if stack]
    row, col = rng.choice(occupied) if occupied else (4, 4)
    start = rng.randint(-3, 0)
    letters = rng.sample(rack, k=min(len(rack), rng.randint(1, 4)))
    tiles = []
    offset = start
    for letter in letters:
        tiles.append([row + dr * offset, col + dc * offset, letter])
        offset += 1
    return {"do": "place", "player": player, "tiles": tiles}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), players=st.integers(2, 4), mode=st.sampled_from(["strict", "challenge"]))
def test_tiles_are_conserved_through_random_legal_games(seed, players, mode):
    """board + racks + bag = 100 always, with the rulebook's letters; stacks stay at most 5 with no doubles."""
    names = ("ann", "bob", "cat", "dan")[:players]
    table = Table(names, setup={}, seed=seed, mode=mode)
    rng = random.Random(seed)
    accepted = 0
    for _ in range(400):
        if table.state.phase == "over":
            break
        if table.state.phase == "final_challenge":
            table.do("close_challenge")
            continue
        action = _candidate(table, rng)
        try:
            table.do(action.pop("do"), action.pop("player"), **action)
        except IllegalMove:
            continue
        accepted += 1
        assert table.last is not None
        # Hidden information goes only to its owner (DESIGN.md): any rack or tile drawn is private.
        for event in table.last.events:
            assert not {"rack", "racks", "drawn", "returned"} & set(event), event
        for player, events in table.last.private.items():
            assert all(event["player"] == player for event in events)
        state = table.state
        everything = Counter("".join(state.board) + "".join(state.racks.values()) + state.bag)
        assert everything == Counter(TILE_COUNTS)
        assert all(len(stack) <= MAX_HEIGHT for stack in state.board)
        assert all(a != b for stack in state.board for a, b in zip(stack, stack[1:], strict=False))
        assert all(len(rack) <= 7 for rack in state.racks.values())
        assert sum(r["points"] for r in state.history) == sum(state.scores.values()) or state.phase == "over"
        assert tile_count(state.board) == sum(len(r["tiles"]) for r in state.history)
    assert accepted > 0
    assert table.game.load(json.loads(json.dumps(table.game.dump(table.state)))) == table.state


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_a_challenged_move_restores_the_state_exactly(seed):
    """A successful challenge puts back board, racks, bag, scores and turn as they were before the move."""
    from topwords_helpers import StubWords

    table = Table(("ann", "bob", "cat"), words=StubWords(), setup={}, seed=seed, mode="challenge")
    rng = random.Random(seed)
    for _ in range(300):
        before = table.game.dump(table.state)
        action = _candidate(table, rng)
        if action["do"] != "place":
            continue
        try:
            table.do("place", action["player"], tiles=action["tiles"])
        except IllegalMove:
            continue
        mover = action["player"]
        challenger = next(p for p in table.players if p != mover)
        table.game.words.bad = {w["word"]: "not_a_word" for w in table.state.history[-1]["words"]}
        table.do("challenge", challenger)
        after = table.game.dump(table.state)
        for key in ("board", "racks", "bag", "scores", "history", "turn", "passes"):
            assert after[key] == before[key], key
        return
