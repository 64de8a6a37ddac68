"""The tiles, racks, start player and forced setup."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from topwords_helpers import Table

from bot.engine.errors import BadAction
from bot.games import make_game
from bot.games.topwords import TopWords, make
from bot.games.topwords.rules import RACK_SIZE, TILE_COUNTS, start_rank


def test_registry_makes_topwords_for_two_to_four_players():
    """ "TOPWORDS ist das neue, dreidimensionale Wortspiel für 2 - 4 Spieler"."""
    game = make_game("topwords", None)
    assert isinstance(game, TopWords) and isinstance(make(None), TopWords)
    assert (game.name, game.min_players, game.max_players) == ("topwords", 2, 4)
    with pytest.raises(BadAction):
        game.new_game({"check_words": False}, ["ann"], {}, random.Random(0))
    with pytest.raises(BadAction):
        game.new_game({"check_words": False}, ["a", "b", "c", "d", "e"], {}, random.Random(0))
    with pytest.raises(BadAction):
        game.new_game({"check_words": False}, ["a", "a"], {}, random.Random(0))


def test_hundred_german_tiles_with_the_rulebook_counts():
    """A=5, Ä=1, …, E=14, …, Z=1: 100 tiles; Ä Ö Ü are tiles of their own; Q is a plain Q."""
    assert sum(TILE_COUNTS.values()) == 100
    assert TILE_COUNTS["E"] == 14 and TILE_COUNTS["N"] == 9 and TILE_COUNTS["Q"] == 1
    assert TILE_COUNTS["Ä"] == TILE_COUNTS["Ö"] == TILE_COUNTS["Ü"] == 1
    assert "ß" not in TILE_COUNTS
    table = Table(("ann", "bob", "cat", "dan"), setup={})
    everything = Counter("".join(table.state.racks.values()) + table.state.bag)
    assert everything == Counter(TILE_COUNTS)


def test_racks_of_seven_drawn_from_the_bag():
    """ "Jeder Spieler zieht verdeckt aus dem Beutel 7 Buchstaben"."""
    table = Table(("ann", "bob", "cat"), setup={})
    assert all(len(rack) == RACK_SIZE for rack in table.state.racks.values())
    assert len(table.state.bag) == 100 - 21


def test_start_player_is_closest_to_a():
    """ "Es beginnt, wessen Buchstabe am nächsten am A ist"; the draw is chance, recorded in the state."""
    for seed in range(30):
        table = Table(("ann", "bob", "cat"), setup={}, seed=seed)
        last = table.state.start_draw[-1]
        best = min(start_rank(letter) for letter in last.values())
        winners = [p for p, letter in last.items() if start_rank(letter) == best]
        assert winners == [table.state.first_player]
        assert table.state.current == table.state.first_player


def test_start_draw_ties_draw_again_and_umlauts_rank_with_their_letter():
    """Our ruling: Ä ranks as A (DIN 5007), so A and Ä tie; the tied draw again."""
    assert start_rank("Ä") == start_rank("A") == 0 and start_rank("Ü") == start_rank("U")
    tied = [s for s in range(300) if len(Table(("a", "b", "c", "d"), setup={}, seed=s).state.start_draw) > 1]
    assert tied, "some seed gives a tie"
    state = Table(("a", "b", "c", "d"), setup={}, seed=tied[0]).state
    first, second = state.start_draw[0], state.start_draw[1]
    best = min(start_rank(x) for x in first.values())
    assert set(second) == {p for p, x in first.items() if start_rank(x) == best}


def test_forced_first_player_skips_the_draw():
    table = Table(("ann", "bob", "cat"), setup={"first_player": "cat"})
    assert table.state.current == "cat" and table.state.start_draw == []
    with pytest.raises(BadAction):
        Table(setup={"first_player": "zed"})


def test_forced_racks_and_bag_order():
    """setup.racks and setup.bag: the bag string is the order tiles are drawn; the rest follows shuffled."""
    table = Table(
        ("ann", "bob"), setup={"first_player": "ann", "racks": {"ann": "SIEBXYZ"}, "bag": "QUALMEN"}
    )
    assert table.state.racks == {"ann": "SIEBXYZ", "bob": "QUALMEN"}
    assert table.tiles() == 100


def test_forced_board_counts_towards_the_hundred_tiles():
    setup = {"first_player": "ann", "board": [[4, 4, "OA"], [4, 5, "H"]], "racks": {"ann": "BCDEFGH"}}
    table = Table(setup=setup)
    assert table.state.board[44] == "OA" and table.tiles() == 100
    with pytest.raises(BadAction):
        Table(setup={"board": [[4, 4, "AA"]]})  # same letter on same letter
    with pytest.raises(BadAction):
        Table(setup={"board": [[4, 4, "ABCDEF"]]})  # height 6
    with pytest.raises(BadAction):
        Table(setup={"board": [[4, 4, "A"], [4, 4, "B"]]})  # one square twice


def test_setup_cannot_use_more_tiles_than_the_game_has():
    with pytest.raises(BadAction, match="Q"):
        Table(setup={"racks": {"ann": "QQ"}})
    with pytest.raises(BadAction):
        Table(setup={"racks": {"ann": "ABCDEFGH"}})  # eight
    with pytest.raises(BadAction):
        Table(setup={"colour": "red"})


def test_options_are_checked():
    """Options (SCENARIOS.md): language de, mode strict | challenge, check_words."""
    with pytest.raises(BadAction):
        Table(mode="lenient")
    with pytest.raises(BadAction):
        Table(language="en")
    with pytest.raises(BadAction):
        Table(check_words=True)  # no words service
    with pytest.raises(BadAction):
        Table(speed=3)
    assert Table().state.options.mode == "strict"
