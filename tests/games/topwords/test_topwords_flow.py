"""Turns, refills, passing and swapping, the three ends, penalties, winners, views, events, persistence."""

from __future__ import annotations

import json

from topwords_helpers import EXAMPLES, SIEB, StubWords, Table, examples_table

from bot.engine.errors import BadAction, GameOver, IllegalMove, NotAPlayer, NotYourTurn
from bot.engine.game import UsedWord


def test_turns_go_to_the_left_neighbour_and_racks_refill_to_seven():
    """ "Der linke Nachbar ... ist als Nächster an der Reihe"; refill "bis er wieder sieben ... hat"."""
    table = Table(("ann", "bob", "cat"), setup={"first_player": "bob", "racks": {"bob": "SIEBACD"}})
    assert table.state.current == "bob"
    table.place("bob", SIEB)
    assert table.state.current == "cat"
    assert len(table.state.racks["bob"]) == 7 and table.state.racks["bob"].startswith("ACD")
    table.do("pass", "cat")
    assert table.state.current == "ann"


def test_pass_without_swap_changes_no_tiles():
    table = Table()
    racks = dict(table.state.racks)
    table.do("pass", "ann")
    assert table.state.racks == racks and table.state.current == "bob"
    assert table.events("passed") == [{"type": "passed", "player": "ann", "swapped": False}]


def test_pass_with_swap_returns_one_tile_and_draws_one_blind():
    """ "Ein Spieler, der gepasst hat, darf einen seiner Buchstaben in den Beutel werfen und blind ..."."""
    table = Table(setup={"first_player": "ann", "racks": {"ann": "SIEBXYZ", "bob": "ABCDEFG"}, "bag": "QUA"})
    table.do("pass", "ann", swap="X", at=2)
    assert table.state.racks["ann"] == "SIEBYZQ"
    assert table.state.bag.startswith("UXA")
    assert table.tiles() == 100
    public = table.events("passed")[0]
    assert public == {"type": "passed", "player": "ann", "swapped": True}  # the letters stay secret
    assert not table.events("rack")
    (private,) = table.last.private["ann"]
    assert private == {"type": "rack", "player": "ann", "rack": "SIEBYZQ", "drawn": "Q", "returned": "X"}


def test_swap_position_is_chance_filled_in_by_resolve_chance():
    table = Table(setup={"first_player": "ann", "racks": {"ann": "SIEBXYZ"}})
    table.do("pass", "ann", swap="X")
    assert isinstance(table.log[-1]["at"], int)
    assert table.tiles() == 100


def test_swap_front_of_bag_gives_the_same_tile_back():
    table = Table(setup={"first_player": "ann", "racks": {"ann": "SIEBXYZ"}})
    table.do("pass", "ann", swap="X", at=0)
    assert sorted(table.state.racks["ann"]) == sorted("SIEBXYZ")


def test_swap_needs_the_tile_and_a_bag_and_a_valid_position():
    table = Table(setup={"first_player": "ann", "racks": {"ann": "SIEBXYZ"}})
    assert table.refuses(IllegalMove, "pass", "ann", swap="Q").code == "not_on_rack"
    table.refuses(BadAction, "pass", "ann", swap="X", at=500)
    board, racks = _crowded_board()
    table = Table(setup={"first_player": "ann", "board": board, "racks": racks})
    assert table.state.bag == ""
    assert table.refuses(IllegalMove, "pass", "ann", swap="E").code == "bag_empty"


def test_game_ends_when_every_player_passed_in_a_row():
    """ "Das Spiel endet, wenn alle Spieler nacheinander einmal gepasst haben"; −5 per tile left."""
    table = Table(("ann", "bob", "cat"))
    table.do("pass", "ann")
    table.do("pass", "bob")
    assert table.state.phase == "play"
    table.do("pass", "cat")
    out = table.output()
    assert out["finished"] and out["end_reason"] == "passes"
    assert out["scores"] == {"ann": -35, "bob": -35, "cat": -35}
    assert out["winners"] == ["ann", "bob", "cat"]  # a tie: every tied player wins
    table.refuses(GameOver, "pass", "ann")


def test_a_move_between_passes_resets_the_count():
    table = Table(setup={"first_player": "ann", "racks": {"bob": "SIEBACD"}})
    table.do("pass", "ann")
    table.place("bob", SIEB)
    table.do("pass", "ann")
    assert table.state.phase == "play" and table.state.passes == 1


def test_game_ends_when_a_player_is_out_and_the_bag_is_empty():
    """ "Ein Spieler hat keine Buchstaben mehr (und kann auch aus dem leeren Beutel keine nachziehen)"."""
    board, racks = _crowded_board()
    table = Table(setup={"first_player": "ann", "board": board, "racks": racks})
    table.place("ann", [[2, 0, "E"], [2, 1, "R"]])
    out = table.output()
    assert out["finished"] and out["end_reason"] == "out"
    assert out["penalties"] == {"ann": 0, "bob": 5 * len(racks["bob"])}
    assert out["winners"] == ["ann"]
    over = table.events("game_over")[0]
    assert over["reason"] == "out" and over["tiles_left"] == {"ann": 0, "bob": len(racks["bob"])}


def test_game_ends_when_every_player_agrees_no_word_can_be_formed():
    """The rulebook's third end, "keiner der Spieler kann ... ein neues Wort bilden": proposed, all agree."""
    table = Table(("ann", "bob", "cat"))
    table.do("propose_end", "bob")
    assert table.state.phase == "vote" and table.state.vote["voters"] == ["ann", "cat"]
    table.refuses(IllegalMove, "vote", "bob", accept=True)  # the proposer does not vote
    table.do("vote", "ann", accept=True)
    table.do("vote", "cat", accept=True)
    out = table.output()
    assert out["finished"] and out["end_reason"] == "no_words"
    assert out["votes"][-1]["allowed"] is True


def test_one_no_or_a_missing_vote_keeps_the_game_going():
    table = Table(("ann", "bob", "cat"))
    table.do("propose_end", "ann")
    table.do("vote", "bob", accept=True)
    table.do("close_vote")  # cat did not vote in time
    assert table.state.phase == "play" and table.state.current == "ann"
    table.do("propose_end", "cat")
    table.do("vote", "ann", accept=False)
    table.do("vote", "bob", accept=True)
    assert table.state.phase == "play" and not table.output()["finished"]


def test_other_players_cannot_act_out_of_turn_and_strangers_not_at_all():
    table = Table()
    table.refuses(NotYourTurn, "pass", "bob")
    table.refuses(NotAPlayer, "pass", "zed")
    table.refuses(BadAction, "pass")
    table.refuses(BadAction, "fly", "ann")
    table.refuses(BadAction, "close_vote", "ann")


def test_view_shows_own_rack_only_and_hides_the_bag():
    table = Table(
        ("ann", "bob"), setup={"first_player": "ann", "racks": {"ann": "SIEBACD", "bob": "QUALMEN"}}
    )
    mine = table.game.view_for(table.state, "ann")
    assert mine["rack"] == "SIEBACD" and mine["you"] == "ann"
    assert mine["rack_counts"] == {"ann": 7, "bob": 7} and mine["bag_count"] == 86
    text = json.dumps(mine)
    assert "QUALMEN" not in text and "bag" not in {k for k in mine if k != "bag_count"}
    spectator = table.game.view_for(table.state, None)
    assert "rack" not in spectator and "SIEBACD" not in json.dumps(spectator)
    assert table.state.bag[:10] not in json.dumps(spectator)


def test_a_rack_is_told_only_to_its_player():
    """Hidden information (DESIGN.md): the new rack and the tiles drawn are a private event of the mover;
    the public events carry neither."""
    table = examples_table()
    applied = table.do("place", "bob", tiles=EXAMPLES[0])
    assert all(not {"rack", "drawn", "private_to"} & set(event) for event in applied.events)
    assert list(applied.private) == ["bob"]
    (rack,) = applied.private["bob"]
    assert rack == {"type": "rack", "player": "bob", "rack": "LNAGELO", "drawn": "ELO"}
    moved = table.events("moved")[0]
    assert moved["points"] == 8 and moved["words"] == [{"word": "BAUM", "points": 4}]


def test_used_words_name_the_move_player_and_lemma():
    table = examples_table(words=StubWords())
    applied = table.do("place", "bob", tiles=EXAMPLES[0])
    # strict mode: a move is final once the next player acts; SIEB became final now
    assert applied.used_words == [UsedWord(1, "ann", "SIEB", "sieb")]
    applied = table.do("place", "ann", tiles=EXAMPLES[1])
    assert applied.used_words == [UsedWord(2, "bob", "BAUM", "baum")]


def test_dump_and_load_round_trip_through_json():
    table = examples_table()
    table.place("bob", EXAMPLES[0])
    data = json.loads(json.dumps(table.game.dump(table.state)))
    assert table.game.load(data) == table.state


def test_apply_never_mutates_the_state():
    table = examples_table()
    before = json.dumps(table.game.dump(table.state), sort_keys=True)
    state = table.state
    table.game.apply(state, {"do": "place", "player": "bob", "tiles": EXAMPLES[0]})
    assert json.dumps(table.game.dump(state), sort_keys=True) == before


def test_legal_actions_list_what_each_player_may_do():
    """The mover: a placement (one example), a pass and a pass with each tile to swap; the others may
    propose to end; anyone seated may leave; someone not playing gets None."""
    table = Table(setup={"first_player": "ann", "racks": {"ann": "SIEBACD"}})
    mine = table.game.legal_actions(table.state, "ann")
    assert mine[0]["do"] == "place" and mine[1:] == [
        {"do": "pass", "player": "ann"},
        *({"do": "pass", "player": "ann", "swap": letter} for letter in "ABCDEIS"),
        {"do": "propose_end", "player": "ann"},
        {"do": "leave", "player": "ann"},
    ]
    table.do("place", "ann", tiles=mine[0]["tiles"])  # the example is a legal move
    assert table.game.legal_actions(table.state, "ann") == [
        {"do": "propose_end", "player": "ann"},
        {"do": "leave", "player": "ann"},
    ]
    assert table.game.legal_actions(table.state, "zed") is None
    assert table.game.timers(table.state) == []
    assert table.game.outcome(table.state) is None


def test_replay_output_has_the_contract_keys():
    table = examples_table()
    out = table.output()
    for key in ("phase", "finished", "winners", "scores", "history"):
        assert key in out
    assert out["history"][0] == {
        "move": 1,
        "player": "ann",
        "tiles": SIEB,
        "words": [{"word": "SIEB", "points": 4}],
        "doubled": True,
        "bonus": 0,
        "points": 8,
    }
    assert out["board"][4] == "..SIEB...." and out["heights"][4] == "0011110000"
    assert out["tiles"] == 100


def _crowded_board() -> tuple[list[list[object]], dict[str, str]]:
    """A board holding all but 9 tiles in rows 1–2, ann with E R (to play ER at A3–B3), bob with 7 more."""
    from bot.games.topwords.rules import TILE_COUNTS

    pool = "".join(ch * n for ch, n in TILE_COUNTS.items())
    rest = list(pool)
    for ch in "ER":
        rest.remove(ch)
    bob = "".join(rest[:7])
    rest = rest[7:]
    # Stacks of up to 5 from A1 on (never the same letter on the same letter); setup checks no words.
    board: list[list[object]] = []
    squares = [(r, c) for r in range(9) for c in range(10)]
    for r, c in squares:
        if not rest:
            break
        stack = ""
        while rest and len(stack) < 5:
            i = next((k for k, ch in enumerate(rest) if not stack or ch != stack[-1]), None)
            if i is None:
                break
            stack += rest.pop(i)
        board.append([r, c, stack])
    assert not rest
    return board, {"ann": "ER", "bob": bob}
