"""Top Stop against the engine contract: options, validation, views, events, legal actions, output."""

from __future__ import annotations

import json
import random

import pytest
from topstop_helpers import Table

from bot.engine.errors import BadAction, IllegalMove, NotAPlayer
from bot.games import make_game
from bot.games.topstop import TopStop, make


def test_registry_makes_top_stop() -> None:
    game = make_game("topstop", None)
    assert isinstance(game, TopStop)
    assert (game.name, game.min_players, game.max_players) == ("topstop", 2, 12)
    assert isinstance(make(None), TopStop)


@pytest.mark.parametrize("language", ["en", "fr", "de"])
def test_rule_languages_en_fr_de(language: str) -> None:
    assert Table(language=language).state.options.language == language


@pytest.mark.parametrize(
    "options",
    [
        {"language": "es"},
        {"mode": "turbo"},
        {"words": 0},
        {"words": 11},
        {"words": True},
        {"grace": 0},
        {"writing_time": "long"},
        {"check_words": "yes"},
        {"colour": "red"},
    ],
)
def test_rule_bad_options_are_refused(options: dict[str, object]) -> None:
    with pytest.raises(BadAction):
        TopStop(None).new_game({"check_words": False, **options}, ["ann", "bob"], {}, random.Random(0))


def test_rule_the_advanced_game_setup_belongs_to_mode_advanced() -> None:
    state = TopStop(None).new_game(
        {"mode": "advanced", "check_words": False}, ["ann", "bob"], {}, random.Random(0)
    )
    assert state.advanced is not None
    with pytest.raises(BadAction, match="advanced"):
        TopStop(None).new_game(
            {"check_words": False}, ["ann", "bob"], {"level_deck": ["I"]}, random.Random(0)
        )


def test_rule_checking_words_needs_the_words_service() -> None:
    with pytest.raises(BadAction, match="words service"):
        TopStop(None).new_game({}, ["ann", "bob"], {}, random.Random(0))


@pytest.mark.parametrize("players", [["ann"], ["ann", "ann"], ["ann", ""], [f"p{i}" for i in range(13)]])
def test_rule_two_to_twelve_distinct_players(players: list[str]) -> None:
    with pytest.raises(BadAction):
        TopStop(None).new_game({"check_words": False}, players, {}, random.Random(0))


def test_rule_unknown_setup_is_refused() -> None:
    with pytest.raises(BadAction):
        TopStop(None).new_game({"check_words": False}, ["ann", "bob"], {"racks": {}}, random.Random(0))


def test_rule_actions_are_checked() -> None:
    table = Table()
    table.refuses(BadAction, "dance", "ann")
    table.refuses(BadAction, "spin")  # a player action needs its player
    table.refuses(NotAPlayer, "spin", "zed", letter="P")
    table.refuses(IllegalMove, "end_writing", "ann")  # system actions are the bot's
    assert table.game.action_names == {
        "spin",
        "respin",
        "submit",
        "stop",
        "dispute",
        "vote",
        "review_done",
        "leave",
        "end",
        "end_writing",
        "close_vote",
        "end_round",
        "auto_spin",
        "draw",
        "choose",
        "auto_choose",
    }


def test_rule_others_words_are_hidden_while_writing() -> None:
    table = Table()
    table.do("spin", "ann", letter="P")
    applied = table.do("submit", "bob", words=["pear", "plum"])
    assert applied.events == [{"type": "submitted", "player": "bob", "count": 2}]
    assert applied.private == {"bob": [{"type": "your_words", "words": ["pear", "plum"]}]}
    for viewer in ("ann", "cat", None):
        shown = json.dumps(table.game.view_for(table.state, viewer))
        assert "pear" not in shown and "plum" not in shown
        assert table.game.view_for(table.state, viewer)["round"]["submitted"] == {"bob": 2}
    assert table.game.view_for(table.state, "bob")["round"]["your_words"] == ["pear", "plum"]
    # Revealed once writing closes: now everyone sees them.
    table.do("end_writing")
    assert table.game.view_for(table.state, None)["round"]["lists"]["bob"][0]["word"] == "pear"


def test_rule_view_shows_the_public_table() -> None:
    table = Table(first=None)
    table.do("spin", "ann", letter="M")
    shown = table.game.view_for(table.state, None)
    assert shown["phase"] == "first_spin"
    assert shown["first_spin"] == {"ann": "M", "bob": None, "cat": None}
    assert shown["round"] is None
    assert shown["options"]["target"] == 50


def test_legal_actions_follow_the_phase() -> None:
    table = Table()
    game = table.game
    assert game.legal_actions(table.state, "ann") == [
        {"do": "spin", "player": "ann"},
        {"do": "leave", "player": "ann"},
        {"do": "end", "player": "ann"},
    ]
    assert game.legal_actions(table.state, "bob") == [{"do": "leave", "player": "bob"}]
    table.do("spin", "ann", letter="P")
    # The words are free text: an example list stands for them; no words written yet, so a re-spin is open.
    assert game.legal_actions(table.state, "bob") == [
        {"do": "submit", "player": "bob", "words": []},
        {"do": "respin", "player": "bob"},
        {"do": "leave", "player": "bob"},
    ]
    assert game.table_actions(table.state, "bob") == {"submit", "respin", "leave"}
    table.do("submit", "bob", words=["pear", "pear"])
    table.do("stop", "bob")
    assert game.legal_actions(table.state, "bob") == [{"do": "leave", "player": "bob"}]
    table.do("end_writing")
    assert game.legal_actions(table.state, "cat") == [
        {"do": "dispute", "player": "cat", "of": "bob", "word": "pear"},
        {"do": "review_done", "player": "cat"},
        {"do": "leave", "player": "cat"},
    ]
    table.do("dispute", "cat", of="bob", word="pear")
    assert game.legal_actions(table.state, "ann")[:2] == [
        {"do": "vote", "player": "ann", "accept": True},
        {"do": "vote", "player": "ann", "accept": False},
    ]
    assert game.legal_actions(table.state, "zed") is None  # not seated at all


def test_replay_output_has_the_scenario_keys() -> None:
    table = Table()
    table.play_round("P", {"ann": ["pear", "apple"], "bob": ["plum"]}, stop="bob")
    output = table.output()
    for key in ("game", "players", "phase", "finished", "winners", "scores", "history"):
        assert key in output
    assert output["history"] == [
        {
            "round": 1,
            "letter": "P",
            "spinner": "ann",
            "stopped_by": "bob",
            "tiebreak": False,
            "players": ["ann", "bob", "cat"],
            "respun": [],
            "points": {"ann": 1, "bob": 0, "cat": 0},
            "penalties": {"bob": 1},
            "words": {
                "bob": [{"word": "plum", "valid": True, "reason": None}],
                "ann": [
                    {"word": "pear", "valid": True, "reason": None},
                    {"word": "apple", "valid": False, "reason": "wrong_letter"},
                ],
            },
            "disputes": [],
        }
    ]
    json.dumps(output)


def test_revealed_round_shows_in_history_before_scoring() -> None:
    table = Table()
    table.play_round("P", {"ann": ["pear"]}, score=False)
    assert table.output()["history"][0]["points"] is None


def test_dump_load_round_trips_through_json() -> None:
    table = Table(first=None)
    for player, letter in (("ann", "B"), ("bob", "B"), ("cat", "C")):
        table.do("spin", player, letter=letter)
    states = [table.state]
    table.do("spin", "ann", letter="A")
    table.do("spin", "bob", letter="Z")
    table.do("spin", "ann", letter="P")
    table.do("submit", "ann", words=["pear"])
    table.do("stop", "ann")
    states.append(table.state)
    table.do("end_writing")
    table.do("dispute", "bob", of="ann", word="pear")
    table.do("vote", "cat", accept=False)
    states.append(table.state)
    for state in states:
        data = json.loads(json.dumps(table.game.dump(state)))
        assert table.game.load(data) == state
        assert table.game.dump(table.game.load(data)) == data


def test_apply_never_mutates_the_state() -> None:
    table = Table()
    before = table.game.dump(table.state)
    state = table.state
    table.do("spin", "ann", letter="P")
    assert table.game.dump(state) == before


def test_the_view_names_the_host_the_first_spin_ties_and_what_the_table_offers() -> None:
    """The table is drawn from these; the cog works none of them out itself."""
    table = Table(first=None)
    table.do("spin", "ann", letter="B")
    table.do("spin", "bob", letter="B")
    table.do("spin", "cat", letter="C")  # ann and bob tie on B: they spin again
    shown = table.game.view_for(table.state, None)
    assert shown["first_spin_ties"] == [["ann", "bob"]]
    assert shown["offered"] == ["end", "leave", "spin"]
    table.do("spin", "ann", letter="A")
    table.do("spin", "bob", letter="D")  # ann spins first
    table.do("spin", "ann", letter="P")
    assert table.game.view_for(table.state, None)["host"] == "ann"
    assert "respin" in table.game.view_for(table.state, None)["offered"]  # nobody has words yet (FAQ 2)
    table.do("submit", "bob", words=["pear"])
    assert "respin" not in table.game.view_for(table.state, None)["offered"]
    table.do("leave", "ann")
    assert table.game.view_for(table.state, None)["host"] == "bob"  # the next remaining seat hosts
