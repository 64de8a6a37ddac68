"""Top Stop, advanced game: The Draw, the cards' mechanics, secrets, timers and the Level rules, one rule per test.

The cards' effects on scores and words are in tests/scenarios/topstop/advanced-*.json (the real dictionaries);
these tests drive the rules through `step` with words unchecked, as tests/games/topstop/topstop_helpers does.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from bot.engine.errors import BadAction, IllegalMove, NotYourTurn, StaleAction, WrongPhase
from bot.games.topstop import TopStop
from bot.games.topstop.cards import BA_OOSSEE_COUNTS, BA_OOSSEE_DECK, LEVEL_DECK, LEVELS
from bot.games.topstop.levels import LevelRule, breaks_level
from bot.games.topstop.state import CHOOSE, DRAW, SPIN, WRITING
from tests.games.topstop.topstop_helpers import Table


class Advanced(Table):
    """A table of the advanced game with forced decks; round 1 is played at once (no cards in it)."""

    def __init__(self, level_deck: list[str] = (), ba: list[str] = (), **options: Any) -> None:  # type: ignore[assignment]
        super().__init__(mode="advanced", **options)
        setup = {"first_player": "ann", "level_deck": list(level_deck), "ba_oossee_deck": list(ba)}
        self.setup = setup
        self.state = self.game.new_game(self.options, self.players, setup, random.Random(self.seed))

    def first_round(self) -> None:
        self.play_round("P", {"ann": ["pear", "plum"], "bob": ["peach"]})


def test_rule_decks_hold_32_cards_each_as_rules_notes_lists() -> None:
    assert len(LEVEL_DECK) == 32 and all(LEVEL_DECK.count(level) == 4 for level in LEVELS)
    assert len(BA_OOSSEE_DECK) == 32 and len(BA_OOSSEE_COUNTS) == 26
    table = Advanced()
    adv = table.state.advanced
    assert adv is not None
    assert sorted(adv.level_deck) == sorted(LEVEL_DECK) and sorted(adv.ba_deck) == sorted(BA_OOSSEE_DECK)


def test_rule_setup_forces_the_top_cards_and_shuffles_the_rest_below() -> None:
    table = Advanced(level_deck=["X", "I"], ba=["reverse", "reverse"])
    adv = table.state.advanced
    assert adv is not None
    assert adv.level_deck[:2] == ["X", "I"] and adv.ba_deck[:2] == ["reverse", "reverse"]
    assert "reverse" not in adv.ba_deck[2:] and sorted(adv.ba_deck) == sorted(BA_OOSSEE_DECK)


@pytest.mark.parametrize(
    "setup",
    [
        {"level_deck": ["XI"]},
        {"level_deck": "I"},
        {"ba_oossee_deck": ["shuffle", "shuffle"]},
        {"ba_oossee_deck": ["mabrouk"]},
        {"birthdays": {"zed": "01-01"}},
        {"birthdays": {"ann": "02-30"}},
        {"birthdays": {"ann": "1-1"}},
    ],
)
def test_rule_bad_setup_of_the_cards_is_refused(setup: dict[str, Any]) -> None:
    with pytest.raises(BadAction):
        TopStop(None).new_game(
            {"mode": "advanced", "check_words": False}, ["ann", "bob"], setup, random.Random(0)
        )


@pytest.mark.parametrize("setup", [{"ba_oossee_deck": ["mabrouk_3"]}, {"birthdays": {"ann": "01-01"}}])
def test_rule_the_levels_way_to_play_has_no_ba_oossee_deck_to_force(setup: dict[str, Any]) -> None:
    with pytest.raises(BadAction):
        TopStop(None).new_game(
            {"mode": "levels", "check_words": False}, ["ann", "bob"], setup, random.Random(0)
        )
    state = TopStop(None).new_game(
        {"mode": "levels", "check_words": False}, ["ann", "bob"], {"level_deck": ["II"]}, random.Random(0)
    )
    assert (
        state.advanced is not None and state.advanced.ba_deck == [] and state.advanced.level_deck[0] == "II"
    )


@pytest.mark.parametrize("options", [{"today": "13-01"}, {"today": 101}, {"country": "us"}])
def test_rule_bad_advanced_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(BadAction):
        TopStop(None).validate_options({"mode": "advanced", "check_words": False, **options})


def test_rule_the_first_round_is_played_normally_then_every_round_starts_with_the_draw() -> None:
    table = Advanced(ba=["mabrouk_3"])
    assert table.state.phase == SPIN
    table.refuses(WrongPhase, "draw", "ann", level=False)
    table.first_round()
    assert table.state.phase == DRAW and table.state.round.spinner == "bob"
    table.refuses(WrongPhase, "spin", "bob", letter="T")  # The Draw comes before the spin
    table.refuses(NotYourTurn, "draw", "cat", level=False)
    table.refuses(BadAction, "draw", "bob", level="yes")
    table.do("draw", "bob", level=False)
    assert table.state.phase == SPIN and table.state.scores["bob"] == 1 + 3


def test_rule_the_level_card_stays_face_down_until_the_ba_oossee_card_is_settled() -> None:
    table = Advanced(level_deck=["VI"], ba=["support_7"])
    table.first_round()
    applied = table.do("draw", "bob", level=True)
    # A choice is open: the Level card is still face down, known to the spinner alone.
    assert table.state.phase == DRAW
    assert applied.private["bob"] == [{"type": "your_level_card", "level": "VI"}]
    assert "VI" not in json.dumps(applied.events)
    spectator = table.game.view_for(table.state, None)
    assert "VI" not in json.dumps(spectator) and spectator["cards"]["round"]["face_down"] == 1
    assert table.game.view_for(table.state, "bob")["cards"]["your_face_down"] == ["VI"]
    assert "your_face_down" not in table.game.view_for(table.state, "ann")["cards"]
    revealed = table.do("choose", "bob", target="cat")
    assert {"type": "level_revealed", "player": "bob", "level": "VI"}.items() <= revealed.events[-1].items()
    assert table.state.phase == SPIN


def test_rule_level_cards_held_are_counted_in_public_and_listed_only_to_their_owner() -> None:
    table = Advanced(level_deck=["III"], ba=["mabrouk_3"])
    table.first_round()
    table.do("draw", "bob", level=True)
    assert table.game.view_for(table.state, None)["cards"]["level_cards"] == {"ann": 0, "bob": 1, "cat": 0}
    assert table.game.view_for(table.state, "bob")["cards"]["your_level_cards"] == ["III"]
    assert table.game.view_for(table.state, "ann")["cards"]["your_level_cards"] == []


def test_rule_the_peeked_card_is_told_to_the_spinner_only() -> None:
    table = Advanced(ba=["shuffle", "tax_2"])
    table.first_round()
    table.do("draw", "bob", level=False)
    applied = table.do("choose", "bob", peek=True)
    assert applied.private == {"bob": [{"type": "peeked", "card": "tax_2"}]}
    assert "tax_2" not in json.dumps(applied.events)
    assert "tax_2" not in json.dumps(table.game.view_for(table.state, None))


def test_rule_a_shuffle_without_peeking_tells_nobody_the_top_card() -> None:
    table = Advanced(ba=["shuffle", "tax_2"])
    table.first_round()
    table.do("draw", "bob", level=False)
    assert table.do("choose", "bob", peek=False).private == {}


def test_rule_the_ba_oossee_deck_reshuffles_its_discard_pile_when_empty() -> None:
    table = Advanced(ba=["mabrouk_3"])
    table.first_round()
    adv = table.state.advanced
    assert adv is not None
    # Every card drawn but three: the discard pile is all that is left.
    adv.ba_discard, adv.ba_deck = ["lose_4", "tax_1", "reverse"], []
    applied = table.do("draw", "bob", level=False)
    assert {"type": "ba_oossee_reshuffled", "cards": 3} in applied.events
    after = table.state.advanced
    assert after is not None and len(after.ba_deck) == 2 and len(after.ba_discard) == 1


def test_rule_a_reshuffle_follows_the_logged_chance_outcome() -> None:
    def reshuffled(seed: int) -> list[str]:
        table = Advanced(ba=["mabrouk_3"])
        table.first_round()
        assert table.state.advanced is not None
        table.state.advanced.ba_discard, table.state.advanced.ba_deck = list(BA_OOSSEE_DECK), []
        table.do("draw", "bob", level=False, shuffle=seed)
        assert table.state.advanced is not None
        return table.state.advanced.ba_deck

    assert reshuffled(7) == reshuffled(7) and reshuffled(7) != reshuffled(8)


def test_rule_played_level_i_cards_make_a_new_level_deck_when_it_runs_out() -> None:
    table = Advanced(ba=["mabrouk_3"])
    table.first_round()
    adv = table.state.advanced
    assert adv is not None
    adv.level_deck, adv.level_discard = [], ["I", "I"]
    table.do("draw", "bob", level=True)
    assert table.state.round.cards is not None and table.state.round.cards.level == "I"
    assert table.state.advanced is not None and table.state.advanced.level_deck == ["I"]


def test_rule_no_level_card_to_draw_is_refused_and_not_offered() -> None:
    table = Advanced(ba=["mabrouk_3"])
    table.first_round()
    assert table.state.advanced is not None
    table.state.advanced.level_deck, table.state.advanced.level_discard = [], []
    assert table.game.legal_actions(table.state, "bob")[0] == {"do": "draw", "player": "bob", "level": False}
    assert {"do": "draw", "player": "bob", "level": True} not in table.game.legal_actions(table.state, "bob")
    table.refuses(IllegalMove, "draw", "bob", level=True)


def test_rule_a_set_of_three_level_cards_scores_5_and_returns_to_the_bottom_of_the_deck() -> None:
    table = Advanced(level_deck=["V"], ba=["mabrouk_3"])
    table.first_round()
    assert table.state.advanced is not None
    table.state.advanced.stacks["bob"] = ["III", "VII"]
    table.do("draw", "bob", level=True)
    before = table.state.scores["bob"]
    record = table.play_round("E", {})
    adv = table.state.advanced
    assert adv is not None
    assert record["set_points"] == {"bob": 5} and table.state.scores["bob"] == before + 5
    assert adv.stacks["bob"] == [] and adv.level_deck[-3:] == ["III", "VII", "V"]


def test_rule_a_wild_card_counts_for_its_worth_and_goes_to_the_ba_oossee_discard() -> None:
    table = Advanced(ba=["wild_level_2"])
    table.first_round()
    assert table.state.advanced is not None
    table.state.advanced.stacks["bob"] = ["IV", "X"]
    table.do("draw", "bob", level=False)
    table.play_round("T", {})
    adv = table.state.advanced
    assert adv is not None
    # Oldest first: IV, X and the wild card (worth 2, one to spare) make the set; nothing is left.
    assert adv.stacks["bob"] == [] and "wild_level_2" in adv.ba_discard and adv.level_deck[-2:] == ["IV", "X"]


def test_rule_two_level_cards_short_of_a_set_stay_with_their_owner() -> None:
    table = Advanced(level_deck=["III"], ba=["mabrouk_3"])
    table.first_round()
    assert table.state.advanced is not None
    table.state.advanced.stacks["bob"] = ["VII"]
    table.do("draw", "bob", level=True)
    assert table.play_round("T", {})["set_points"] == {}
    assert table.state.advanced is not None and table.state.advanced.stacks["bob"] == ["VII", "III"]


def test_rule_second_chance_offers_a_level_card_only_while_one_is_left() -> None:
    table = Advanced(ba=["second_chance"])
    table.first_round()
    assert table.state.advanced is not None
    table.state.advanced.level_deck, table.state.advanced.level_discard = [], []
    table.do("draw", "bob", level=False)
    assert table.game.legal_actions(table.state, "bob")[0] == {
        "do": "choose",
        "player": "bob",
        "take": "ba_oossee",
    }
    table.refuses(BadAction, "choose", "bob", take="level")


def test_rule_choices_belong_to_the_card_player_and_offer_only_legal_targets() -> None:
    table = Advanced(ba=["steal_3"])
    table.first_round()
    table.do("draw", "bob", level=False)
    offered = table.game.legal_actions(table.state, "bob")
    targets = [a["target"] for a in offered if a["do"] == "choose"]
    assert targets == ["ann", "cat"]
    assert not [a for a in table.game.legal_actions(table.state, "ann") if a["do"] == "choose"]
    table.refuses(NotYourTurn, "choose", "ann", target="cat")
    table.refuses(BadAction, "choose", "bob", target="bob")
    assert table.game.table_actions(table.state, None) >= {"choose"}


def test_rule_a_click_on_an_earlier_choice_is_stale() -> None:
    table = Advanced(ba=["second_chance", "support_7"])
    table.first_round()
    table.do("draw", "bob", level=False)
    first = table.game.freshness(table.state)["choice"]
    table.do("choose", "bob", take="ba_oossee", choice=first)
    assert table.game.freshness(table.state)["choice"] == first + 1
    table.refuses(StaleAction, "choose", "bob", target="cat", choice=first)
    table.do("choose", "bob", target="cat", choice=first + 1)
    assert "choice" not in table.game.freshness(table.state)


def test_rule_an_idle_spinner_gets_a_random_legal_choice_after_the_spin_time() -> None:
    table = Advanced(ba=["give_3"], spin_time=20)
    table.first_round()
    (timer,) = table.game.timers(table.state)
    assert timer.seconds == 20 and timer.action == {"do": "auto_choose"}
    applied = table.do("auto_choose")
    assert {"type": "timed_out", "player": "bob", "do": "draw"} in applied.events
    (timer,) = table.game.timers(table.state)  # a new deadline for the card's choice
    table.do("auto_choose")
    act = table.log[-1]["act"]
    assert act["do"] == "choose" and act["target"] in ("ann", "cat")
    assert table.state.phase == SPIN
    table.do("auto_choose")
    assert table.log[-1]["act"]["do"] == "spin"
    if table.state.phase == CHOOSE:  # the random draw took a Level I or II card: its letter is chosen too
        table.do("auto_choose")
    assert table.state.phase == WRITING


def test_rule_auto_choose_acts_only_for_the_player_the_table_waits_for() -> None:
    table = Advanced(ba=["mabrouk_3"])
    table.first_round()
    table.refuses(BadAction, "auto_choose", act={"do": "draw", "player": "cat", "level": False})
    table.refuses(BadAction, "auto_choose", act={"do": "submit", "player": "bob", "words": []})


def test_rule_level_i_the_spinner_chooses_one_of_the_cards_letters() -> None:
    table = Advanced(level_deck=["I"], ba=["mabrouk_3"])
    table.first_round()
    table.do("draw", "bob", level=True)
    table.refuses(BadAction, "spin", "bob", letters=["S", "C"])
    table.do("spin", "bob", letters=["B", "M", "T"])
    assert table.state.phase == CHOOSE
    assert [a["letter"] for a in table.game.legal_actions(table.state, "bob") if a["do"] == "choose"] == [
        "B",
        "M",
        "T",
    ]
    table.do("choose", "bob", letter="m")
    assert table.state.phase == WRITING and table.state.round.letter == "M"


def test_rule_level_vii_keeps_its_category_while_the_card_stays_in_force() -> None:
    table = Advanced(level_deck=["VII"], ba=["mabrouk_3", "mabrouk_5"])
    table.first_round()
    table.do("draw", "bob", level=True)
    table.do("spin", "bob", letter="T", category="brands")
    table.do("end_writing")
    table.do("end_round")
    table.do("draw", "cat", level=False)
    table.refuses(IllegalMove, "spin", "cat", letter="T", category="verbs")
    table.do("spin", "cat")  # the chance outcome fills in the card's category
    assert table.log[-1]["category"] == "brands"


def test_rule_level_x_keeps_blank_slots_in_place_and_counts_only_words() -> None:
    table = Advanced(level_deck=["X"], ba=["mabrouk_3"])
    table.first_round()
    table.do("draw", "bob", level=True)
    table.do("spin", "bob", letter="A")
    applied = table.do("submit", "ann", words=["apple", " ", "bear", "", ""])
    assert table.state.round.submissions["ann"] == ["apple", "", "bear"]
    assert applied.events[-1]["count"] == 2
    table.do("stop", "ann")
    assert table.state.round.stop_penalty == 1  # 2 words of 5
    table.do("end_writing")
    assert table.verdicts("ann") == [("apple", None), ("bear", None)]  # bear: A at position 3


def test_rule_the_spinner_leaving_during_the_draw_passes_it_to_the_next_seat() -> None:
    table = Advanced(level_deck=["III"], ba=["support_7", "mabrouk_3"])
    table.first_round()
    table.do("draw", "bob", level=True)
    table.do("leave", "bob")
    assert table.state.round.spinner == "cat" and table.state.phase == DRAW
    adv = table.state.advanced
    assert adv is not None and adv.choice is None and "support_7" in adv.ba_discard
    table.do("draw", "cat", level=False)
    assert table.state.phase == SPIN and table.state.scores["cat"] == 3


def test_rule_the_advanced_state_round_trips_through_json() -> None:
    table = Advanced(level_deck=["II"], ba=["second_chance"])
    table.first_round()
    table.do("draw", "bob", level=True)
    data = json.loads(json.dumps(table.game.dump(table.state)))
    assert table.game.load(data) == table.state


def test_rule_base_game_snapshots_without_card_fields_still_load() -> None:
    table = Table()
    table.play_round("P", {"ann": ["pear"]})
    data = table.game.dump(table.state)
    del data["advanced"]
    for r in data["rounds"]:
        del r["cards"]
    assert table.game.load(data) == table.state


@pytest.mark.parametrize(
    ("level", "letter", "word", "slot", "broken"),
    [
        ("III", "T", "tea", 1, False),
        ("III", "T", "tour", 1, True),
        ("IV", "S", "stop", 1, False),
        ("IV", "S", "say", 1, True),
        ("V", "O", "apple", 1, False),
        ("V", "O", "orange", 1, True),
        ("V", "E", "café", 1, True),  # accents ignored: é is an E
        ("VI", "E", "table", 1, False),
        ("VI", "E", "cat", 1, True),
        ("X", "A", "apple", 1, False),
        ("X", "A", "banana", 2, False),
        ("X", "A", "tea", 3, False),
        ("X", "A", "tea", 2, True),
        ("X", "A", "radar", 4, False),
        ("X", "A", "tear", 5, True),
        ("I", "C", "cup", 1, False),
        (None, "P", "pear", 1, False),
    ],
)
def test_rule_each_level_rule_on_its_own(level: str, letter: str, word: str, slot: int, broken: bool) -> None:
    assert breaks_level(word, slot, LevelRule(level=level, letter=letter)) is broken


def test_rule_level_ii_words_begin_with_the_target_and_second_letter() -> None:
    rule = LevelRule(level="II", letter="P", second="O")
    assert not breaks_level("poster", 1, rule) and breaks_level("path", 1, rule)


@pytest.mark.parametrize("seed", range(8))
def test_rule_one_face_per_card_a_second_card_of_a_level_never_shows_the_first_ones_face(seed: int) -> None:
    table = Advanced(level_deck=["VII", "VII"], ba=["immunity", "immunity"], seed=seed)
    table.first_round()
    table.do("draw", "bob", level=True)
    table.do("spin", "bob")
    first = table.log[-1]["category"]
    table.do("end_writing")
    table.do("end_round")
    table.do("draw", "cat", level=True)
    table.do("spin", "cat")
    assert table.log[-1]["category"] != first
    faces = table.output()["level_faces"]
    assert faces["bob"] == [first] and faces["cat"] == [table.log[-1]["category"]]


def test_rule_one_face_per_card_a_card_back_from_a_set_shows_its_face_again() -> None:
    table = Advanced(level_deck=["II"], ba=["immunity", "immunity"])
    table.first_round()
    table.do("draw", "bob", level=True)
    table.do("spin", "bob", letter="P", letters=["R", "L"])
    adv = table.state.advanced
    assert adv is not None and adv.stacks["bob"] == ["II:RL"]
    # The card goes back under the deck with a set; drawn again, it plays its face without a new spin of it.
    adv.stacks["bob"] = []
    adv.level_deck.insert(0, "II:RL")
    table.do("choose", "bob", letter="L")
    table.do("end_writing")
    table.do("end_round")
    table.do("draw", "cat", level=True)
    table.refuses(IllegalMove, "spin", "cat", letter="P", letters=["O", "S"])
    table.do("spin", "cat", letter="P")
    assert table.log[-1]["letters"] == ["R", "L"]
