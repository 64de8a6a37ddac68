"""Who votes on a dispute, what a tie means, buttons from older messages, and every refusal in German.

Rulings in docs/rules/topwords.md ("Disputes by vote", "Buttons on older messages", "Error codes").
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from topwords_helpers import EXAMPLES, SIEB, StubWords, Table, examples_table

from bot import i18n
from bot.engine.errors import BadAction, GameError, IllegalMove, StaleAction
from bot.games.topwords import RuleBroken, tiles_for_word
from bot.games.topwords.commands import DIRECTIONS
from bot.games.topwords.rules import empty_board

BAD_RAT = StubWords({"RAT": "not_a_word"})
FOUR = ("ann", "bob", "cat", "dan")
THREE = ("ann", "bob", "cat")

# -- the mover never votes on their own move ------------------------------------------------------------


def test_the_mover_never_votes_on_their_own_move():
    table = examples_table(words=StubWords(), players=THREE)
    table.place("bob", EXAMPLES[0])
    table.do("dispute", "cat", word="BAUM")
    assert table.state.vote["voters"] == ["ann"]
    error = table.refuses(IllegalMove, "vote", "bob", accept=True)
    assert error.code == "not_a_voter" and "it is your own move" in error.message
    assert error.text("de") == "Du stimmst hier nicht ab: es ist dein eigener Zug."
    assert "you raised it" in table.refuses(IllegalMove, "vote", "cat", accept=True).message


def test_two_players_in_challenge_mode_a_dispute_goes_to_the_dictionary():
    """Nobody but the mover could vote: the vote is a 0:0 tie at once, and the dictionary decides."""
    table = examples_table(words=BAD_RAT, mode="challenge")
    table.place("bob", EXAMPLES[0])
    table.place("ann", EXAMPLES[1])  # RAT, refused by the dictionary
    table.do("dispute", "bob", word="RAT")
    assert [e["type"] for e in table.last.events][:2] == ["vote_open", "vote_result"]
    assert table.events("vote_open")[0]["voters"] == []
    assert table.state.phase == "play" and table.state.vote is None
    vote = table.state.votes[-1]
    assert (vote["yes"], vote["no"], vote["allowed"], vote["decided_by"]) == (0, 0, False, "dictionary")
    (taken,) = table.events("taken_back")
    assert taken["words"] == [{"word": "RAT", "reason": "not_a_word"}]
    assert table.state.current == "ann" and len(table.state.history) == 2
    assert table.state.overrides == {}  # the dictionary's verdict is no table ruling


def test_two_players_in_challenge_mode_a_dispute_of_a_good_word_makes_the_move_final():
    table = examples_table(words=StubWords(), mode="challenge")
    table.place("bob", EXAMPLES[0])
    table.do("dispute", "ann")
    assert table.state.votes[-1]["allowed"] and len(table.state.history) == 2
    assert table.refuses(IllegalMove, "challenge", "ann").code == "nothing_to_challenge"


def test_two_players_in_strict_mode_there_is_nothing_to_dispute():
    """The dictionary already allowed every word of the move and nobody else could vote."""
    table = examples_table(words=StubWords())
    table.place("bob", EXAMPLES[0])
    error = table.refuses(IllegalMove, "dispute", "ann")
    assert error.code == "nothing_to_dispute" and "nobody else can vote" in error.message
    assert "sonst kann niemand abstimmen" in error.text("de")


def test_two_players_the_other_player_votes_on_a_proposed_or_restored_move():
    table = examples_table(words=BAD_RAT, mode="challenge")
    table.place("bob", EXAMPLES[0])
    table.place("ann", EXAMPLES[1])
    table.do("challenge", "bob")
    table.do("dispute", "ann")
    assert table.state.vote["kind"] == "restore" and table.state.vote["voters"] == ["bob"]


# -- a tie: the dictionary decides ------------------------------------------------------------------------


def _challenge_table(words: StubWords) -> Table:
    """Four players in challenge mode; cat has just played RAT (move 3), dan disputes it."""
    table = examples_table(words=words, mode="challenge", players=FOUR)
    table.place("bob", EXAMPLES[0])
    table.place("cat", EXAMPLES[1])
    table.do("dispute", "dan", word="RAT")
    assert table.state.vote["voters"] == ["ann", "bob"]
    return table


def test_challenge_mode_a_tied_vote_has_the_dictionary_check_the_word():
    table = _challenge_table(BAD_RAT)
    table.do("vote", "ann", accept=True)
    table.do("vote", "bob", accept=False)
    vote = table.state.votes[-1]
    assert (vote["yes"], vote["no"], vote["allowed"], vote["decided_by"]) == (1, 1, False, "dictionary")
    assert table.events("taken_back")[0]["words"] == [{"word": "RAT", "reason": "not_a_word"}]
    assert table.state.current == "cat" and len(table.state.history) == 2
    assert table.state.overrides == {}


def test_challenge_mode_a_tie_on_a_good_word_keeps_the_move_and_makes_it_final():
    table = _challenge_table(StubWords())
    table.do("vote", "ann", accept=True)
    table.do("vote", "bob", accept=False)
    assert table.state.votes[-1]["allowed"] and len(table.state.history) == 3
    assert table.refuses(IllegalMove, "challenge", "dan").code == "nothing_to_challenge"


def test_challenge_mode_a_vote_closing_with_no_vote_cast_has_the_dictionary_decide():
    table = _challenge_table(BAD_RAT)
    table.do("close_vote")
    vote = table.state.votes[-1]
    assert (vote["yes"], vote["no"], vote["allowed"]) == (0, 0, False)
    assert table.events("taken_back") and table.state.current == "cat"


def test_a_decisive_vote_still_overrules_the_dictionary():
    table = _challenge_table(BAD_RAT)
    table.do("vote", "ann", accept=True)
    table.do("vote", "bob", accept=True)
    assert table.state.votes[-1]["decided_by"] == "players" and table.state.overrides == {"RAT": True}
    assert len(table.state.history) == 3


# -- buttons on older messages ------------------------------------------------------------------------
# A button carries game.freshness(state) as it was: {"move": moves made and taken back, "vote": the open
# vote}. The engine's step() refuses it as stale_action once a value changed (bot/engine/game.py:
# check_action); both only count up, so a value once replaced never comes back.


def test_a_challenge_from_an_older_message_does_not_challenge_the_newer_move():
    table = examples_table(words=BAD_RAT, mode="challenge", players=THREE)
    table.place("bob", EXAMPLES[0])  # move 2: its table message has a Challenge button for move 2
    assert table.game.freshness(table.state) == {"move": 2}
    table.place("cat", EXAMPLES[1])  # move 3: RAT
    error = table.refuses(StaleAction, "challenge", "ann", move=2)
    assert error.code == "stale_action" and "moved on" in error.message
    table.refuses(BadAction, "challenge", "ann", move="two")  # not a move number at all
    table.do("challenge", "ann", move=3)
    assert table.events("taken_back")


def test_after_a_take_back_the_boards_number_moves_on_and_older_buttons_are_stale():
    """The move taken back changes the board's number too (it never goes back down), so the Challenge
    button of that move is refused, never told "the game has moved on (move 0)"."""
    setup = {"first_player": "ann", "racks": {"ann": "SIEBRTS"}}
    table = Table(words=StubWords({"SIEB": "not_a_word"}), mode="challenge", setup=setup)
    table.place("ann", SIEB)
    table.do("challenge", "bob", move=1)
    assert table.game.freshness(table.state) == {"move": 2}
    error = table.refuses(StaleAction, "challenge", "bob", move=1)
    assert "(move 0)" not in error.message and "latest" in error.message


def test_the_challenge_button_of_a_move_taken_back_is_stale_against_the_move_that_replaces_it():
    """Move 3 taken back, then a new move 3 on the board: the first move 3's Challenge button is refused
    (stale_action), not applied to the new move (the board's number went 3, 4, 5, never back to 3)."""
    table = examples_table(words=BAD_RAT, mode="challenge", players=THREE)
    table.place("bob", EXAMPLES[0])
    table.place("cat", EXAMPLES[1])  # RAT: its message's Challenge button names move 3
    taken_back_button = table.game.freshness(table.state)["move"]
    table.do("challenge", "ann", move=taken_back_button)
    assert table.events("taken_back") and len(table.state.history) == 2
    table.place("cat", [[8, 5, "T"]])  # the third move on the board again
    assert len(table.state.history) == 3
    assert table.game.freshness(table.state)["move"] != taken_back_button
    error = table.refuses(StaleAction, "challenge", "bob", move=taken_back_button)
    assert error.code == "stale_action"
    assert table.state.pending is not None and not table.state.pending["challenged"]


def test_actions_without_the_move_stay_valid():
    table = examples_table(words=BAD_RAT, mode="challenge", players=THREE)
    table.place("bob", EXAMPLES[0])
    table.place("cat", EXAMPLES[1])
    table.do("challenge", "ann")
    assert table.events("taken_back")


def test_a_dispute_from_an_older_message_names_its_move():
    table = examples_table(words=StubWords(), players=FOUR)
    table.place("bob", EXAMPLES[0])
    table.place("cat", EXAMPLES[1])
    assert table.refuses(StaleAction, "dispute", "dan", move=2, word="BAUM").code == "stale_action"
    table.do("dispute", "dan", move=3, word="RAT")
    assert table.state.vote["words"] == [{"word": "RAT", "reason": None}]


def test_a_restore_names_the_board_it_was_offered_on():
    table = examples_table(words=BAD_RAT, mode="challenge")
    table.place("bob", EXAMPLES[0])
    table.place("ann", EXAMPLES[1])  # move 3, taken back: the board is as after move 2, its number is 4
    table.do("challenge", "bob", move=3)
    table.refuses(StaleAction, "dispute", "ann", move=3)
    table.refuses(StaleAction, "dispute", "ann", move=2)
    table.do("dispute", "ann", move=4)
    assert table.state.vote["kind"] == "restore"


def test_a_proposed_move_names_the_board_it_was_refused_on():
    table = examples_table(words=StubWords({"BAUM": "not_a_word"}), players=THREE)
    table.refuses(StaleAction, "dispute", "bob", tiles=EXAMPLES[0], move=2)
    table.do("dispute", "bob", tiles=EXAMPLES[0], move=1)
    assert table.state.vote["kind"] == "allow_move"


def test_a_vote_button_of_a_closed_vote_does_not_count_in_the_next_vote():
    table = examples_table(words=StubWords(), players=THREE)
    table.do("propose_end", "bob")  # vote 1
    assert table.game.freshness(table.state) == {"move": 1, "vote": 1}
    table.do("vote", "ann", accept=False)
    table.do("vote", "cat", accept=False, vote=1)
    error = table.refuses(StaleAction, "vote", "cat", accept=True, vote=1)
    assert "Vote 1 is closed" in error.message and "Abstimmung 1 ist geschlossen" in error.text("de")
    table.do("propose_end", "cat")  # vote 2
    assert table.refuses(StaleAction, "vote", "ann", accept=True, vote=1).code == "stale_action"
    table.do("vote", "ann", accept=True, vote=2)


def test_a_ballot_from_a_cancelled_votes_button_does_not_count_in_the_next_vote():
    """A cancelled vote is not in the votes log, yet its id is never given again: its buttons stay stale."""
    table = examples_table(words=StubWords(), players=FOUR)
    table.do("propose_end", "bob")  # vote 1; its buttons name it
    cancelled = table.game.freshness(table.state)["vote"]
    table.do("leave", "bob")  # the proposer leaves: vote 1 is dropped, not logged
    assert table.events("vote_cancelled") and table.state.votes == []
    table.do("propose_end", "cat")
    assert table.game.freshness(table.state)["vote"] != cancelled
    assert table.refuses(StaleAction, "vote", "ann", accept=True, vote=cancelled).code == "stale_action"
    assert table.state.vote is not None and table.state.vote["votes"] == {}


def test_states_saved_before_the_freshness_counters_load_with_counters_that_move_on():
    """A snapshot saved before board_changes and votes_opened loads with what they would count now."""
    table = examples_table(words=BAD_RAT, mode="challenge", players=THREE)
    table.place("bob", EXAMPLES[0])
    table.place("cat", EXAMPLES[1])
    table.do("challenge", "ann")  # taken back: 3 moves made, 1 taken back
    table.do("propose_end", "bob")
    data = json.loads(json.dumps(table.game.dump(table.state)))
    del data["board_changes"], data["votes_opened"]
    old = table.game.load(data)
    assert old == table.state
    assert table.game.freshness(old) == {"move": 4, "vote": 1}


# -- every refusal in every language ----------------------------------------------------------------------

PACKAGE = Path(__file__).resolve().parents[3] / "bot" / "games" / "topwords"
ERRORS = {"RuleBroken", "BadAction", "WrongPhase", "NotYourTurn", "NotAPlayer", "StaleAction", "GameOver"}


def test_every_refusal_in_the_rules_is_a_catalogue_key():
    """No bare `raise BadAction("…")` with an English sentence: each names a key of the catalogue."""
    raises = 0
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Raise) or node.exc is None:
                continue
            raises += 1
            call = node.exc
            assert isinstance(call, ast.Call) and isinstance(call.func, ast.Name), (path.name, node.lineno)
            name = call.func.id
            assert name in ERRORS | {"_wrong_phase"}, (path.name, node.lineno, name)
            if name in ERRORS:
                key = call.args[0]
                assert isinstance(key, ast.Constant) and i18n.has(key.value), (path.name, node.lineno)
    assert raises > 30


def test_refusals_speak_french_and_german():
    table = examples_table(words=StubWords(), players=THREE)
    table.place("bob", EXAMPLES[0])
    errors: list[GameError] = [
        table.refuses(GameError, "place", "bob", tiles=EXAMPLES[1]),  # not your turn
        table.refuses(BadAction, "vote", "ann", accept=True, vote="x"),
        table.refuses(GameError, "close_vote"),
        table.refuses(BadAction, "place", "cat", tiles="E5"),
    ]
    # An unknown action never reaches the rules through step(); given to apply, they refuse it too.
    with pytest.raises(BadAction) as unknown:
        table.game.apply(table.state, {"do": "nonsense", "player": "cat"})
    errors.append(unknown.value)
    for error in errors:
        texts = {error.message, error.text("fr"), error.text("de")}
        assert len(texts) == 3, texts


def test_a_word_not_in_the_last_move_is_refused_in_both_languages():
    table = examples_table(words=StubWords(), players=THREE)
    table.place("bob", EXAMPLES[0])
    error = table.refuses(IllegalMove, "dispute", "cat", word="HAUS")
    assert error.code == "word_not_in_move" and isinstance(error, RuleBroken)
    assert error.message == "The last move made BAUM, not HAUS: dispute one of them."
    assert error.text("de") == "Der letzte Zug hat BAUM gebildet, nicht HAUS: Stimme über eines davon ab."


@pytest.mark.parametrize(
    ("typed", "en", "de"),
    [("down", "down", "senkrecht"), ("senkrecht", "down", "senkrecht"), ("a", "across", "waagrecht")],
)
def test_word_off_board_names_the_direction_in_the_readers_language(typed, en, de):
    assert typed in DIRECTIONS
    with pytest.raises(RuleBroken) as caught:
        tiles_for_word(empty_board(), "BAUM", 8, 8, typed)
    error = caught.value
    assert error.code == "word_off_board"
    assert error.message == f"BAUM from I9 {en} runs off the board."
    assert error.text("de") == f"BAUM ab I9 {de} passt nicht auf das Spielbrett."
