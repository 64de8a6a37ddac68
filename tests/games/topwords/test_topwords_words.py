"""The dictionary: strict mode, challenge mode ("ANZWEIFELN EINES WORTES") and disputes by vote."""

from __future__ import annotations

from typing import Any

from topwords_helpers import EXAMPLE_SETUP, EXAMPLES, SIEB, StubWords, Table, examples_table

from bot.engine.errors import BadAction, GameOver, IllegalMove, WrongPhase
from bot.engine.game import Timer, UsedWord, WordRuling

BAD_RAT = StubWords({"RAT": "not_a_word"})


def test_strict_mode_refuses_an_unknown_word_and_names_it():
    """Strict (default): "a move with an unknown word is refused with the word named" (RULES-NOTES)."""
    words = StubWords({"BAUM": "proper_noun"})
    table = examples_table(words=words)
    error = table.refuses(IllegalMove, "place", "bob", tiles=EXAMPLES[0])
    assert error.code == "invalid_word"
    assert error.message == "BAUM is not allowed: a proper noun."
    assert "Eigenname" in error.text("de")
    assert "BAUM" in words.checked


def test_strict_mode_checks_cross_words_too():
    """Every word along and across that contains a new tile must be valid: ER as well as RAT."""
    table = examples_table(words=StubWords({"ER": "abbreviation"}))
    table.place("bob", EXAMPLES[0])
    error = table.refuses(IllegalMove, "place", "ann", tiles=EXAMPLES[1])
    assert "ER is not allowed: an abbreviation" in error.message


def test_words_are_checked_as_all_caps_tile_strings():
    words = StubWords()
    table = examples_table(words=words)
    table.place("bob", EXAMPLES[0])
    table.place("ann", EXAMPLES[1])
    assert words.checked == ["SIEB", "BAUM", "RAT", "ER"]


def test_challenge_mode_places_unchecked_until_challenged():
    table = examples_table(words=BAD_RAT, mode="challenge", players=("ann", "bob", "cat"))
    table.place("bob", EXAMPLES[0])
    record = table.place("cat", EXAMPLES[1])
    assert record["words"][0]["word"] == "RAT"
    assert table.game.legal_actions(table.state, "bob") == [
        {"do": "challenge", "player": "bob"},
        {"do": "dispute", "player": "bob", "word": "RAT"},
        {"do": "dispute", "player": "bob", "word": "ER"},
        {"do": "propose_end", "player": "bob"},
        {"do": "leave", "player": "bob"},
    ]
    assert table.game.legal_actions(table.state, "cat") == [
        {"do": "propose_end", "player": "cat"},
        {"do": "leave", "player": "cat"},
    ]
    # ann is to move, and may also challenge first
    assert {"do": "challenge", "player": "ann"} in table.game.legal_actions(table.state, "ann")


def test_successful_challenge_takes_the_move_back():
    """ "Ist das angezweifelte Wort tatsächlich nicht erlaubt, muss der Spieler diese Buchstaben entfernen"."""
    table = examples_table(words=BAD_RAT, mode="challenge")
    table.place("bob", EXAMPLES[0])
    before = table.game.dump(table.state)
    table.place("ann", EXAMPLES[1])
    table.do("challenge", "bob")
    after = table.game.dump(table.state)
    for key in ("board", "racks", "bag", "scores", "history", "turn", "passes"):
        assert after[key] == before[key], key
    (event,) = table.events("challenged")
    assert event["success"] and event["words"] == [{"word": "RAT", "reason": "not_a_word"}]
    assert table.events("taken_back")[0]["points"] == 10
    assert table.state.current == "ann"  # "Er kann ein neues Wort bilden oder passen."
    assert table.tiles() == 100


def test_after_a_take_back_the_player_plays_again_or_passes():
    table = examples_table(words=BAD_RAT, mode="challenge")
    table.place("bob", EXAMPLES[0])
    table.place("ann", EXAMPLES[1])
    table.do("challenge", "bob")
    table.do("pass", "ann")
    assert table.state.current == "bob"


def test_failed_challenge_costs_nothing_and_the_move_stands():
    """Our ruling: a challenge that finds every word allowed has no penalty; the move is then final."""
    table = examples_table(words=StubWords(), mode="challenge")
    table.place("bob", EXAMPLES[0])
    scores = dict(table.state.scores)
    table.do("challenge", "ann")
    assert table.state.scores == scores and table.state.current == "ann"
    assert table.events("challenged")[0]["success"] is False
    assert table.refuses(IllegalMove, "challenge", "ann").code == "nothing_to_challenge"


def test_only_others_challenge_only_the_last_move_only_before_the_next_move():
    """ "... bevor der nächste Spieler Buchstaben setzt"."""
    table = examples_table(words=BAD_RAT, mode="challenge")
    assert table.refuses(IllegalMove, "challenge", "ann").code == "nothing_to_challenge"  # own move
    table.place("bob", EXAMPLES[0])
    table.place("ann", EXAMPLES[1])  # BAUM is final now
    table.place("bob", EXAMPLES[2])  # and RAT/ER too: ann's window closed when bob moved
    assert table.refuses(IllegalMove, "challenge", "bob").code == "nothing_to_challenge"


def test_challenges_belong_to_challenge_mode():
    table = examples_table(words=StubWords())
    table.place("bob", EXAMPLES[0])
    error = table.refuses(IllegalMove, "challenge", "ann")
    assert "strict mode" in error.message


def test_used_words_are_recorded_once_the_move_is_final():
    table = examples_table(words=BAD_RAT, mode="challenge")
    applied = table.do("place", "bob", tiles=EXAMPLES[0])
    assert applied.used_words == [UsedWord(1, "ann", "SIEB", "sieb")]
    applied = table.do("place", "ann", tiles=EXAMPLES[1])
    assert applied.used_words == [UsedWord(2, "bob", "BAUM", "baum")]
    applied = table.do("challenge", "bob")
    assert applied.used_words == []
    applied = table.do("pass", "ann")
    assert applied.used_words == []  # RAT and ER were taken back: never used


def test_a_game_ending_move_waits_for_the_final_challenge_window():
    board, racks = _endgame()
    table = Table(words=StubWords({"ER": "not_a_word"}), mode="challenge", setup=_setup(board, racks))
    table.place("ann", [[2, 0, "E"], [2, 1, "R"]])
    assert table.state.phase == "final_challenge"
    assert table.game.timers(table.state) == [Timer("final:1", 30, {"do": "close_challenge"})]
    table.refuses(WrongPhase, "pass", "bob")
    table.do("challenge", "bob")
    assert table.state.phase == "play" and table.state.current == "ann"
    table.do("place", "ann", tiles=[[2, 0, "R"], [2, 1, "E"]])
    assert table.state.phase == "final_challenge"
    table.do("close_challenge")
    out = table.output()
    assert out["finished"] and out["end_reason"] == "out" and out["winners"] == ["ann"]
    table.refuses(GameOver, "close_challenge")


def test_strict_dispute_puts_a_refused_move_to_the_vote():
    """RULES-NOTES: "players may dispute the dictionary's verdict by vote"; the majority of votes cast."""
    table = examples_table(words=StubWords({"BAUM": "not_a_word"}), players=("ann", "bob", "cat"))
    assert table.state.current == "bob"
    table.do("dispute", "bob", tiles=EXAMPLES[0])
    assert table.state.phase == "vote"
    assert table.game.timers(table.state) == [Timer("vote:1", 30, {"do": "close_vote"})]
    table.refuses(IllegalMove, "vote", "bob", accept=True)  # the disputer does not vote
    table.refuses(BadAction, "vote", "ann", accept="yes")
    table.do("vote", "ann", accept=True)
    table.do("vote", "cat", accept=True)
    assert table.state.phase == "play" and table.state.history[-1]["words"][0]["word"] == "BAUM"
    assert table.state.overrides == {"BAUM": True}
    assert table.state.current == "cat"


def test_a_tied_vote_keeps_the_dictionary_verdict():
    table = examples_table(words=StubWords({"BAUM": "not_a_word"}), players=("ann", "bob", "cat"))
    table.do("dispute", "bob", tiles=EXAMPLES[0])
    table.do("vote", "ann", accept=True)
    table.do("vote", "cat", accept=False)
    assert table.state.phase == "play" and table.state.current == "bob"
    assert len(table.state.history) == 1 and table.state.overrides == {}


def test_dispute_of_an_allowed_word_can_take_a_move_back():
    """The other direction: the dictionary lets a name through; the table votes it out."""
    table = examples_table(words=StubWords(), players=("ann", "bob", "cat"))
    table.place("bob", EXAMPLES[0])
    table.do("dispute", "cat", word="baum")
    assert table.state.vote["voters"] == ["ann"]  # bob made the move: he does not vote on it
    table.do("vote", "ann", accept=False)
    assert len(table.state.history) == 1 and table.state.current == "bob"
    assert table.state.overrides == {"BAUM": False}
    assert table.refuses(IllegalMove, "place", "bob", tiles=EXAMPLES[0]).code == "invalid_word"


def test_a_player_may_dispute_a_successful_challenge():
    table = examples_table(words=StubWords({"RAT": "not_a_word"}), mode="challenge")
    table.place("bob", EXAMPLES[0])
    table.place("ann", EXAMPLES[1])
    table.do("challenge", "bob")
    table.do("dispute", "ann")
    assert table.state.vote["kind"] == "restore"
    table.do("vote", "bob", accept=True)  # bob, fair, agrees RAT is a word
    assert table.state.history[-1]["points"] == 10 and table.state.current == "bob"
    assert table.state.overrides == {"RAT": True}
    assert table.refuses(IllegalMove, "challenge", "bob").code == "nothing_to_challenge"


def test_nothing_to_dispute_when_the_dictionary_agrees():
    table = examples_table(words=StubWords())
    assert table.refuses(IllegalMove, "dispute", "bob", tiles=EXAMPLES[0]).code == "nothing_to_dispute"
    assert table.refuses(IllegalMove, "dispute", "ann").code == "nothing_to_dispute"  # own move


def test_no_moves_during_a_vote():
    table = examples_table(words=StubWords({"BAUM": "not_a_word"}))
    table.do("dispute", "bob", tiles=EXAMPLES[0])
    table.refuses(WrongPhase, "place", "bob", tiles=EXAMPLES[0])
    table.refuses(WrongPhase, "close_challenge")
    assert table.game.legal_actions(table.state, "ann") == [
        {"do": "vote", "player": "ann", "accept": True},
        {"do": "vote", "player": "ann", "accept": False},
        {"do": "leave", "player": "ann"},
    ]
    assert table.game.legal_actions(table.state, "bob") == [{"do": "leave", "player": "bob"}]


def test_words_on_the_start_move_are_checked_too():
    table = Table(
        words=StubWords({"SIEB": "not_a_word"}), setup={"first_player": "ann", "racks": {"ann": "SIEBACD"}}
    )
    assert table.refuses(IllegalMove, "place", "ann", tiles=SIEB).code == "invalid_word"


def _endgame() -> tuple[list[list[object]], dict[str, str]]:
    from test_topwords_flow import _crowded_board

    return _crowded_board()


def _setup(board: list[list[object]], racks: dict[str, str]) -> dict[str, object]:
    return {"first_player": "ann", "board": board, "racks": racks}


def test_strict_mode_a_tied_take_back_vote_keeps_the_move_and_makes_it_final():
    """Ruling: on a tie the dictionary decides; in strict mode it already allowed the move."""
    table = examples_table(words=StubWords(), players=("ann", "bob", "cat", "dan"))
    table.place("bob", EXAMPLES[0])
    table.do("dispute", "cat")
    view = table.game.view_for(table.state, "ann")
    assert view["vote"]["kind"] == "take_back" and view["vote"]["voters"] == ["ann", "dan"]
    table.do("vote", "ann", accept=False)
    assert table.game.view_for(table.state, None)["vote"]["voted"] == ["ann"]
    table.do("vote", "dan", accept=True)
    assert len(table.state.history) == 2 and table.state.overrides == {}
    assert table.state.votes[-1]["allowed"] and table.state.votes[-1]["decided_by"] == "dictionary"
    assert table.refuses(IllegalMove, "dispute", "ann").code == "nothing_to_dispute"


def test_a_refused_restore_leaves_the_move_taken_back():
    table = examples_table(words=StubWords({"RAT": "not_a_word"}), mode="challenge")
    table.place("bob", EXAMPLES[0])
    table.place("ann", EXAMPLES[1])
    table.do("challenge", "bob")
    table.do("dispute", "ann")
    table.do("vote", "bob", accept=False)
    assert table.state.current == "ann" and len(table.state.history) == 2
    assert table.state.overrides == {"RAT": False}
    assert table.refuses(IllegalMove, "dispute", "ann").code == "nothing_to_dispute"


def test_the_final_window_allows_a_dispute_and_returns_to_it():
    board, racks = _endgame()
    table = Table(("ann", "bob", "cat"), words=StubWords(), mode="challenge", setup=_setup(board, racks))
    table.place("ann", [[2, 0, "E"], [2, 1, "R"]])
    made = [word["word"] for word in table.state.history[-1]["words"]]
    assert made[0] == "ER"
    assert table.game.legal_actions(table.state, "bob") == [
        {"do": "challenge", "player": "bob"},
        *({"do": "dispute", "player": "bob", "word": word} for word in made),
        {"do": "leave", "player": "bob"},
    ]  # the final window: no propose_end, no placement
    table.do("dispute", "bob", word="ER")
    table.refuses(IllegalMove, "vote", "ann", accept=True)  # her own move
    table.do("vote", "cat", accept=True)
    assert table.state.phase == "final_challenge"
    table.do("close_challenge")
    assert table.output()["end_reason"] == "out"


def server_table(server_words: dict[str, Any], **kwargs: Any) -> Table:
    """The examples table with the server's own dictionary taken along at the start."""
    table = Table(
        setup={
            **EXAMPLE_SETUP,
            "racks": {**EXAMPLE_SETUP["racks"], "cat": "RTEOKHP"},
            "server_words": server_words,
        },
        players=("ann", "bob", "cat"),
        **kwargs,
    )
    table.place("ann", SIEB)
    return table


def test_a_word_the_server_accepted_needs_no_dictionary() -> None:
    table = server_table(
        {"baum": {"valid": True, "day": "2026-11-20"}}, words=StubWords({"BAUM": "not_a_word"})
    )
    table.place("bob", EXAMPLES[0])
    assert table.state.history[-1]["words"][0]["word"] == "BAUM"


def test_a_word_the_server_refused_is_refused_with_the_day_of_its_vote() -> None:
    table = server_table({"baum": {"valid": False, "day": "2026-11-21"}}, words=StubWords())
    refused = table.refuses(IllegalMove, "place", "bob", tiles=EXAMPLES[0])
    assert refused.code == "invalid_word" and "refused by this server's vote on 2026-11-21" in refused.message
    table.do("dispute", "bob", tiles=EXAMPLES[0])  # a later vote may overturn it, and is remembered
    table.do("vote", "ann", accept=True)
    assert table.do("vote", "cat", accept=True).rulings == [WordRuling("baum", True)]
    assert table.state.history[-1]["words"][0]["word"] == "BAUM"


def test_a_decided_vote_is_remembered_a_tie_is_not() -> None:
    table = examples_table(words=StubWords(), players=("ann", "bob", "cat"))
    table.place("bob", EXAMPLES[0])
    table.do("dispute", "cat", word="baum")
    assert table.do("vote", "ann", accept=False).rulings == [WordRuling("baum", False)]
    tied = examples_table(words=StubWords({"BAUM": "not_a_word"}), players=("ann", "bob", "cat"))
    tied.do("dispute", "bob", tiles=EXAMPLES[0])
    tied.do("vote", "ann", accept=True)
    assert tied.do("vote", "cat", accept=False).rulings == []
