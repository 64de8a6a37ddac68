"""The TopWords cog without Discord: input checks, texts in both languages, the table embed and buttons,
and the rule that no rack letter ever reaches the table message."""

from __future__ import annotations

import inspect
import random
from dataclasses import dataclass
from typing import Any

import pytest
from discord import app_commands

from bot.engine.errors import BadAction, GameError, NotYourTurn, StaleAction, WrongPhase
from bot.engine.game import step
from bot.games.topwords import RuleBroken, TopWords
from bot.i18n import t
from bot.store import SessionRecord
from bot.ui import codec, components
from bot.ui.components import resolve
from bot.ui.translator import CommandTranslator
from cogs.topwords import cog as cog_module
from cogs.topwords import table
from cogs.topwords.cog import TopWordsCog, _own_rack_event
from cogs.topwords.texts import error_text, lang_of, swap_letter, word_letters

SIEB = [[4, 2, "S"], [4, 3, "I"], [4, 4, "E"], [4, 5, "B"]]
BAUM = [[5, 5, "A"], [6, 5, "U"], [7, 5, "M"]]
# Bob's rack holds seven tiles the game has only once and that no move here places: if any of them shows
# up in a table message, a rack leaked.
SECRET = "XYZQJÄÖ"
SETUP = {"first_player": "ann", "racks": {"ann": "SIEBRTS", "bob": SECRET}, "bag": "AUMLNAGFERNE"}
# The rulebook's racks: Ann lays SIEB, Bob BAUM down from its B.
BAUM_SETUP = {"first_player": "ann", "racks": {"ann": "SIEBRTS", "bob": "AUMLNAG"}, "bag": "FERNELOEHDK"}


@pytest.fixture(autouse=True)
def _buttons():
    """The cog declares its buttons (the table's ids are built from those declarations)."""
    TopWordsCog(None)  # type: ignore[arg-type]
    yield
    components.unregister_game("topwords")


@dataclass(frozen=True)
class Verdict:
    word: str
    valid: bool
    reason: str | None


class Words:
    """Every word is allowed except those listed as bad, with their reason."""

    def __init__(self, bad: dict[str, str] | None = None) -> None:
        self.bad = bad or {}

    def check_tiles(self, tiles: str, lang: str = "de") -> Verdict:
        return Verdict(tiles, tiles not in self.bad, self.bad.get(tiles))

    def lemma_key(self, word: str, lang: str) -> str:
        return word.lower()


class Game:
    """A TopWords game driven through the rules, with the events of every action kept."""

    def __init__(
        self,
        mode: str = "strict",
        setup: dict[str, Any] | None = None,
        bad: dict[str, str] | None = None,
        players: tuple[str, ...] = ("ann", "bob"),
    ):
        self.rules = TopWords(Words(bad))
        seats = list(players)
        self.state = self.rules.new_game({"mode": mode}, seats, setup or SETUP, random.Random(1))
        self.events: list[dict[str, Any]] = [{"type": "started", "players": seats}]
        self.private: dict[str, list[dict[str, Any]]] = {}
        self.log: list[dict[str, Any]] = []
        names = {"ann": "Ann", "bob": "Bob_*", "cat": "Cat"}
        self.record = SessionRecord(
            id=7, guild_id=1, channel_id=2, game="topwords", status="active", host_id="ann",
            players=seats, options={"mode": mode}, seed=1, names={p: names[p] for p in seats},
        )  # fmt: skip

    def act(self, player: str | None, **action: Any) -> list[dict[str, Any]]:
        """Through the engine's step(), as live play: stale buttons are refused there."""
        if player is not None:
            action["player"] = player
        _, applied = step(self.rules, self.state, 1, len(self.log), action)
        self.state, self.events, self.private = applied.state, applied.events, applied.private
        self.log.append(action)
        return applied.events

    def view(self, player: str | None = None) -> dict[str, Any]:
        return self.rules.view_for(self.state, player)

    def embed(self, lang: str = "en", closes: float | None = None) -> dict[str, Any]:
        return table.table_embed(self.record, self.view(), self.events, lang, closes=closes).to_dict()

    def items(self, lang: str = "en") -> list[Any]:
        return table.table_items(self.record.id, self.view(), lang)

    def labels(self, lang: str = "en") -> list[str]:
        return [item.item.label for item in self.items(lang)]


def embed_text(embed: dict[str, Any]) -> str:
    parts = [embed.get("title", ""), embed.get("description", ""), embed.get("footer", {}).get("text", "")]
    for item in embed.get("fields", []):
        parts += [item["name"], item["value"]]
    return "\n".join(parts)


def embed_size(embed: dict[str, Any]) -> int:
    """Discord's 6000-character count: title, description, field names and values, footer."""
    fields = sum(len(f["name"]) + len(f["value"]) for f in embed.get("fields", []))
    footer = len(embed.get("footer", {}).get("text", ""))
    return len(embed.get("title", "")) + len(embed.get("description", "")) + fields + footer


# -- languages ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("locale", "lang"),
    [("de", "de"), ("de-AT", "de"), ("en-US", "en"), ("fr", "fr"), ("es-ES", "en"), (None, "en")],
)
def test_french_or_german_for_their_locales_english_otherwise(locale, lang):
    assert lang_of(locale) == lang


def test_refusals_speak_the_readers_language():
    refusal = NotYourTurn("topwords.not_your_turn", name="Bob")
    assert error_text(refusal, "en") == "It is not your turn: Bob is to move."
    assert error_text(refusal, "de") == "Du bist nicht am Zug: Bob ist dran."
    assert error_text(refusal, "fr") == "Ce n'est pas votre tour\u00a0: c'est à Bob de jouer."
    broken = RuleBroken("topwords.rule.same_letter", letter="E", square="E5")
    assert "Niemals" in error_text(broken, "de") and "Never" in error_text(broken, "en")
    assert "Jamais la même lettre" in error_text(broken, "fr")


def test_the_rules_phase_refusals_are_translated_and_unknown_texts_come_back_as_they_are():
    game = Game()
    game.act("ann", do="propose_end")
    with pytest.raises(WrongPhase) as refused:
        game.act("bob", do="place", tiles=SIEB)
    assert refused.value.message == "A vote is open: wait for its result."
    assert error_text(refused.value, "de") == "Eine Abstimmung läuft: Warte ihr Ergebnis ab."
    assert error_text(refused.value, "fr") == "Un vote est en cours\u00a0: attendez son résultat."
    assert error_text(GameError("Something new."), "de") == "Something new."


# -- input ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("typed", "tiles"), [("baum", "BAUM"), (" Straße ", "STRASSE"), ("Bäume", "BÄUME")])
def test_a_word_is_letters_only_and_ss_stands_for_sharp_s(typed, tiles):
    assert word_letters(typed) == tiles


@pytest.mark.parametrize("typed", ["BAUM1", "ab-c", "it's", "two words", "   ", "<@123>"])
def test_a_word_with_anything_but_letters_is_refused_in_both_languages(typed):
    with pytest.raises(BadAction) as refused:
        word_letters(typed)
    assert refused.value.key == "topwords.bad_word"
    assert "letters only" in refused.value.message and "nur mit Buchstaben" in refused.value.text("de")


def test_a_word_longer_than_the_board_is_refused():
    with pytest.raises(BadAction, match="FUSSBALLFELD has 12 letters") as refused:
        word_letters("Fußballfeld")
    assert refused.value.text("de").startswith("FUSSBALLFELD hat 12 Buchstaben")


def test_the_swap_is_one_tile_letter():
    assert swap_letter("e") == "E" and swap_letter("ü") == "Ü"
    for typed in ("ß", "ab", "1", ""):
        with pytest.raises(BadAction):
            swap_letter(typed)


def test_a_refused_moves_button_carries_the_move_and_routes():
    item = table.allow_item(7, "en", "STRASSE", "E10", "across", 5)
    custom_id = item.item.custom_id
    assert len(custom_id) <= 100 and codec.parse(custom_id).arg == "STRASSE.E10.across.5"
    args = {"letters": "STRASSE", "square": "E10", "direction": "across"}
    assert resolve(custom_id)[1:] == (7, {**args, "move": 5})
    with pytest.raises(StaleAction):  # without the board it was refused on: never "any board"
        resolve("topwords:7:allow:STRASSE.E10.across")
    for forged in ("topwords:7:allow", "topwords:7:allow:STRASSE.K11.across", "topwords:7:allow:X.E1.up"):
        with pytest.raises(GameError, match="damaged"):
            resolve(forged)


# -- the table ------------------------------------------------------------------------------------------


def test_the_first_table_shows_the_start_and_who_moves():
    game = Game(setup={k: v for k, v in SETUP.items() if k != "first_player"})
    shown = game.embed()
    assert shown["title"].startswith("TopWords — ") and "to move" in shown["title"]
    assert "Start draw:" in shown["description"] and "closest to A" in shown["description"]
    assert shown["image"]["url"] == "attachment://board.png"
    assert game.labels() == []


def test_a_move_shows_words_points_scores_and_the_bag():
    game = Game()
    game.act("ann", do="place", tiles=SIEB)
    shown = game.embed()
    assert shown["title"] == "TopWords — Bob_* to move"
    [last, scores] = shown["fields"]
    assert last["name"] == "Last move"
    assert last["value"] == "**Ann**: **SIEB** (4) → **8** points (doubled)"
    assert scores["value"].splitlines() == ["**8** Ann · rack: 7", "**0** Bob\\_\\* · rack: 7"]
    assert shown["footer"]["text"] == f"Tiles in the bag: {len(game.state.bag)} · strict mode · game #7"
    german = game.embed("de")
    assert german["title"] == "TopWords — Bob_* ist am Zug"
    assert german["fields"][0]["value"] == "**Ann**: **SIEB** (4) → **8** Punkte (verdoppelt)"
    assert "strenger Modus" in german["footer"]["text"]


def test_the_mover_sees_points_and_new_rack_privately():
    game = Game()
    events = game.act("ann", do="place", tiles=SIEB)
    moved = next(e for e in events if e["type"] == "moved")
    assert table.move_text("en", moved) == "**SIEB** (4) → **8** points (doubled)"
    assert table.rack_text("en", game.view("ann")).startswith("🔤 Your rack: **R T S A U M L**")
    assert "Dein Stellbrett" in table.rack_text("de", game.view("ann"))


def test_a_console_drawn_from_a_view_without_a_rack_shows_whose_turn_and_nothing_to_press():
    """The layer draws a console only for a seat (#42); drawn from a spectator's view all the same, it
    reads no key that view lacks and offers nothing."""
    game = Game()
    mine = table.console(game.record, game.view("ann"), "en")
    assert "Your rack" in (mine.embed.description or "") and mine.items
    watching = table.console(game.record, game.view(None), "en")
    assert watching.embed.description == "It is **Ann**'s turn." and watching.items == []


@pytest.mark.parametrize("lang", ["en", "de"])
def test_no_rack_letter_ever_reaches_the_table(lang):
    """Hidden information: the table is built from the spectator's view; rack events are never shown."""
    # On Bob's rack all game long (a swapped X goes back into the bag); Z and J are left out: German has
    # "Zug" and "Jedes".
    hidden = set(SECRET) - {"Z", "J"}
    game = Game(mode="challenge")
    steps = [
        ("ann", {"do": "place", "tiles": SIEB}),
        ("bob", {"do": "challenge"}),
        ("bob", {"do": "pass", "swap": "X"}),
        ("ann", {"do": "propose_end"}),
        ("bob", {"do": "vote", "accept": False}),
        ("ann", {"do": "pass"}),
    ]
    rack_events = 0
    for player, action in steps:
        events = game.act(player, **action)
        assert not [e for e in events if e["type"] == "rack"]
        rack_events += sum(1 for told in game.private.values() for e in told if e["type"] == "rack")
        shown = embed_text(game.embed(lang))
        buttons = " ".join(f"{i.item.label} {i.item.custom_id}" for i in game.items(lang))
        assert not hidden & set(shown + buttons), (action, shown)
        assert "rack" not in game.view()
    assert rack_events == 2 and game.state.phase == "over"
    # The check means something: the same letters are in Bob's private rack text.
    assert hidden - {"X"} <= set(table.rack_text(lang, game.view("bob")))


def test_a_swap_is_announced_without_the_tile():
    game = Game()
    game.act("ann", do="place", tiles=SIEB)
    game.act("bob", do="pass", swap="Q")
    assert game.private["bob"][0]["returned"] == "Q"
    shown = game.embed()
    assert "**Bob\\_\\*** passed and swapped a tile." in shown["description"]
    assert "Q" not in embed_text(shown)


def test_challenge_and_dispute_buttons_follow_the_rules():
    game = Game(mode="challenge", bad={"SIEB": "not_a_word"})
    assert game.labels() == []
    game.act("ann", do="place", tiles=SIEB)
    assert game.labels() == ["Challenge", "Dispute"]
    game.act("bob", do="challenge")
    shown = game.embed()
    assert (
        "challenged the move of **Ann**: **SIEB** (not in the dictionary) not allowed" in shown["description"]
    )
    assert "The move of **Ann** is taken back (8 points); **Ann** plays again." in shown["description"]
    # Ann may still ask the table to restore the move taken back.
    assert game.labels() == ["Dispute"]
    assert game.labels("de") == ["Einspruch"]


def test_a_failed_challenge_leaves_no_challenge_button():
    game = Game(mode="challenge")
    game.act("ann", do="place", tiles=SIEB)
    game.act("bob", do="challenge")
    assert "every word is allowed, the move stands" in game.embed()["description"]
    assert game.labels() == ["Dispute"]


def test_strict_mode_has_no_challenge_button():
    game = Game(players=("ann", "bob", "cat"))
    game.act("ann", do="place", tiles=SIEB)
    assert game.labels() == ["Dispute"]


def test_two_players_in_strict_mode_get_no_dispute_button():
    """The mover never votes on their own move: nobody would be left to vote, the dictionary decides."""
    game = Game()
    game.act("ann", do="place", tiles=SIEB)
    assert game.labels() == []


def test_a_dispute_vote_shows_the_question_and_vote_buttons():
    game = Game(setup=BAUM_SETUP, players=("ann", "bob", "cat"))
    game.act("ann", do="place", tiles=SIEB)
    game.act("bob", do="place", tiles=BAUM)
    assert game.view("ann")["disputable"] == ["BAUM"]  # the rules say which words, in a player's view
    assert game.view("bob")["disputable"] == []  # his own move
    assert "disputable" not in game.view()
    game.act("ann", do="dispute", word="BAUM")
    shown = game.embed(closes=2_000_000_000.0)
    assert shown["title"] == "TopWords — vote"
    vote = next(f for f in shown["fields"] if f["name"] == "🗳️ Vote")
    assert "**Ann** disputes **BAUM** by **Bob\\_\\***. Allowed?" in vote["value"]
    assert "0 of 1 voted · closes <t:2000000000:R>" in vote["value"]
    assert game.labels() == ["Allowed", "Not allowed"]
    game.act("cat", do="vote", accept=False)  # bob made the move: he does not vote on it
    assert "The table refused **BAUM** (0:1)." in game.embed()["description"]


def test_the_end_vote_asks_everyone_else():
    game = Game()
    game.act("ann", do="propose_end")
    assert game.labels() == ["End the game", "Play on"]
    assert game.labels("de") == ["Spiel beenden", "Weiterspielen"]
    assert "Everyone else must agree" in game.embed()["fields"][0]["value"]
    game.act("bob", do="vote", accept=False)
    assert "Not everyone agreed: the game goes on." in game.embed()["description"]


def test_players_tied_at_the_top_share_the_win():
    game = Game()
    game.act("ann", do="propose_end")
    game.act("bob", do="vote", accept=True)
    shown = game.embed()
    assert "🏆 **Ann** and **Bob\\_\\*** share the win!" in shown["description"]
    assert "agreed: the game ends" not in shown["description"]  # the end says it once
    assert "🏆 **Ann** und **Bob\\_\\*** gewinnen gemeinsam!" in game.embed("de")["description"]


def test_the_end_shows_final_scores_with_rack_penalties_and_the_winner():
    game = Game()
    game.act("ann", do="place", tiles=SIEB)
    game.act("bob", do="propose_end")
    game.act("ann", do="vote", accept=True)
    shown = game.embed()
    assert shown["title"] == "TopWords — game over"
    assert "The players agreed that no new word can be formed." in shown["description"]
    assert "🏆 **Ann** wins!" in shown["description"]
    final = next(f for f in shown["fields"] if f["name"] == "Final scores")
    assert final["value"].splitlines() == [
        "**-27** Ann (−35, rack: 7)",
        "**-35** Bob\\_\\* (−35, rack: 7)",
    ]
    assert game.items() == []
    german = game.embed("de")
    assert "🏆 **Ann** gewinnt!" in german["description"] and "Stellbrett: 7" in german["fields"][-1]["value"]


def test_the_table_fits_discords_embed_limits_with_four_long_names():
    rules = TopWords(Words())
    players = ["p1", "p2", "p3", "p4"]
    state = rules.new_game({}, players, {}, random.Random(3))
    record = SessionRecord(
        id=1, guild_id=1, channel_id=1, game="topwords", status="active", host_id="p1", players=players,
        options={}, seed=3, names={p: "Ü" * 32 for p in players},
    )  # fmt: skip
    events = [{"type": "started"}]
    for lang in ("en", "de"):
        shown = table.table_embed(record, rules.view_for(state, None), events, lang, closes=None).to_dict()
        assert len(shown["title"]) <= 256 and embed_size(shown) <= 6000
        assert all(len(f["value"]) <= 1024 for f in shown["fields"])


def test_new_messages_start_with_a_move_a_pass_a_take_back_a_vote_or_the_end():
    assert table.starts_new_message([{"type": "moved"}, {"type": "rack"}])
    assert table.starts_new_message([{"type": "vote_open"}])
    assert not table.starts_new_message([{"type": "voted"}])
    assert not table.starts_new_message([{"type": "challenged", "success": False}])


def test_the_final_challenge_window_says_when_the_game_ends():
    name = str.capitalize
    event = {"type": "final_challenge", "player": "ann", "seconds": 30}
    view = Game().view()
    [line] = table.news_lines("en", name, view, [event], closes=2_000_000_000.0)
    assert (
        line
        == "**Ann** has placed the last tile: the move may still be challenged; the game ends <t:2000000000:R>."
    )
    [line] = table.news_lines("de", name, view, [event], closes=None)
    assert line.endswith("das Spiel endet mit dem Ende des Zeitfensters.")


def test_a_move_taken_back_can_be_put_to_the_vote_by_its_player():
    game = Game(mode="challenge", bad={"SIEB": "not_a_word"})
    game.act("ann", do="place", tiles=SIEB)
    game.act("bob", do="challenge")
    game.act("ann", do="dispute")
    vote = next(f for f in game.embed()["fields"] if f["name"] == "🗳️ Vote")["value"]
    assert vote.startswith(
        "**Ann** asks the table to restore the move taken back: **SIEB** (not in the dictionary)."
    )
    game.act("bob", do="vote", accept=True)
    shown = game.embed()
    assert "The table allowed **SIEB** (1:0)." in shown["description"]
    assert shown["fields"][0]["value"] == "**Ann**: **SIEB** (4) → **8** points (doubled)"
    assert game.labels() == []  # the table's ruling is final: nothing to challenge or dispute


def test_the_buttons_follow_what_the_rules_offer_in_the_view():
    """The rules say what is open (view["offered"], from table_actions): the table draws it as it is."""
    game = Game(mode="challenge")
    game.act("ann", do="place", tiles=SIEB)
    view = game.view()
    assert view["offered"] == ["challenge", "dispute", "pass", "place", "propose_end"]
    only_dispute = table.table_items(7, {**view, "offered": ["dispute"]}, "en")
    assert [item.item.label for item in only_dispute] == ["Dispute"]


def test_the_cog_reads_views_and_private_events_never_the_rules_state():
    source = inspect.getsource(cog_module) + inspect.getsource(table)
    assert "sessions.state(" not in source and '"private_to"' not in source


def test_the_movers_rack_comes_from_the_events_told_to_them_alone():
    game = Game()
    events = game.act("ann", do="place", tiles=SIEB)
    assert _own_rack_event(events) is None
    assert _own_rack_event(game.private["ann"])["rack"] == game.state.racks["ann"]
    assert "bob" not in game.private


# -- buttons name what they act on ------------------------------------------------------------------------


def args(game: Game) -> dict[str, str | None]:
    return {item.item.label: codec.parse(item.item.custom_id).arg for item in game.items()}


def test_challenge_and_dispute_buttons_carry_the_move_they_act_on():
    game = Game(mode="challenge", setup=BAUM_SETUP)
    game.act("ann", do="place", tiles=SIEB)
    assert args(game) == {"Challenge": "1", "Dispute": "1"}
    game.act("bob", do="place", tiles=BAUM)
    assert args(game) == {"Challenge": "2", "Dispute": "2"}
    # The Challenge button of move 1, clicked after move 2: refused, move 2 is not challenged.
    with pytest.raises(StaleAction) as stale:
        game.act("ann", do="challenge", move=1)
    assert error_text(stale.value, "en") == "The table has moved on since that message: use the latest one."
    assert (
        error_text(stale.value, "de")
        == "Das Spiel ist seit dieser Nachricht weitergegangen: Nimm die neueste."
    )
    assert not game.state.challenges
    assert [i.item.custom_id for i in table.word_items(7, ["BAUM", "AB"], 2)] == [
        "topwords:7:dispute:2.BAUM",
        "topwords:7:dispute:2.AB",
    ]


def test_a_restore_button_carries_the_board_after_the_take_back():
    """The move taken back changes the board's number (moves made and taken back: 2), never back to 0:
    the Dispute button says 2, and the Challenge of move 1 is stale."""
    game = Game(mode="challenge", bad={"SIEB": "not_a_word"})
    game.act("ann", do="place", tiles=SIEB)
    game.act("bob", do="challenge", move=1)
    assert args(game) == {"Dispute": "2"}
    with pytest.raises(StaleAction) as stale:
        game.act("bob", do="challenge", move=1)
    assert "(move 0)" not in stale.value.message
    assert game.view("ann")["disputable"] == []  # a restore names no word
    game.act("ann", do="dispute", move=2)
    assert game.state.vote["kind"] == "restore"


def test_vote_buttons_carry_the_vote_they_answer():
    game = Game()
    game.act("ann", do="propose_end")
    assert args(game) == {"End the game": "yes.1", "Play on": "no.1"}
    game.act("bob", do="vote", accept=False, vote=1)
    game.act("bob", do="propose_end")
    assert args(game)["End the game"] == "yes.2"
    with pytest.raises(StaleAction):
        game.act("ann", do="vote", accept=True, vote=1)


@pytest.mark.parametrize(("arg", "parsed"), [("3", {"move": 3}), ("3.BAUM", {"move": 3, "word": "BAUM"})])
def test_a_dispute_buttons_argument_is_the_move_and_a_word(arg, parsed):
    assert resolve(f"topwords:7:dispute:{arg}")[2] == parsed
    with pytest.raises(StaleAction):  # no board named: refused as stale, never taken as the latest
        resolve("topwords:7:dispute")


def test_a_tie_says_which_way_the_dictionary_decided():
    event = {"type": "vote_result", "kind": "take_back", "words": ["RAT"], "yes": 1, "no": 1}
    event |= {"decided_by": "dictionary"}  # as the game's event says on a tie
    view = Game().view()
    [refused] = table.news_lines("en", str, view, [{**event, "allowed": False}], closes=None)
    assert refused == "Tie on **RAT** (1:1): the dictionary decides — not allowed."
    [allowed] = table.news_lines("de", str, view, [{**event, "allowed": True}], closes=None)
    assert allowed == "Gleichstand bei **RAT** (1:1): Das Wörterbuch entscheidet — erlaubt."


# -- the command tree in German ---------------------------------------------------------------------------


def _command_texts(group):
    """Every description and choice name of a command group, as the decorators give them."""
    texts = [group._locale_description or group.description]
    for command in group.walk_commands():
        texts.append(command._locale_description or command.description)
        for parameter in command.parameters:
            texts.append(parameter.locale_description or parameter.description)
            texts += [choice._locale_name or choice.name for choice in parameter.choices]
    return texts


def test_every_text_of_the_command_tree_is_a_catalogue_key():
    """Found by key, not by matching its English wording: a reworded English text still translates."""
    texts = _command_texts(TopWordsCog.group)
    assert len(texts) >= 17  # the walk found the tree
    own = [text for text in texts if not str(text).startswith("…")]
    for text in own:
        assert isinstance(text, app_commands.locale_str), text
        key = text.extras.get("key")
        # The game's own texts, the shared ones of every command, and the bot levels' names (one text for the
        # lobby's select and `/new level:`).
        assert isinstance(key, str) and key.startswith(("topwords.cmd.", "ui.cmd.", "ui.bot.level.")), key
        assert text.message == t(key, "en")


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_every_text_of_the_command_tree_has_a_translation(lang):
    translator = CommandTranslator()
    for text in _command_texts(TopWordsCog.group):
        done = translator.lookup(text.extras.get("key"), lang)
        assert done and 0 < len(done) <= 100 and done != text.message, (text, done)


def test_a_command_text_without_a_key_stays_english():
    translator = CommandTranslator()
    assert translator.lookup(None, "de") is None
    assert translator.lookup("topwords.cmd.rack", "en") is None  # English is Discord's default text
    assert translator.lookup("topwords.cmd.rack", "de") == t("topwords.cmd.rack", "de")


# -- the lobby ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "options", "shown"),
    [
        ("en", {"mode": "strict"}, "strict mode"),
        ("en", {"mode": "challenge", "turn_seconds": 600}, "challenge mode · 10 min a turn"),
        ("fr", {"mode": "challenge", "turn_seconds": 90}, "mode contestation · 1.5 min par tour"),
        ("de", {"mode": "strict", "turn_seconds": 300}, "strenger Modus · 5 Min. pro Zug"),
        ("de", {}, "strenger Modus"),
    ],
)
def test_the_lobby_describes_the_options_in_the_tables_language(lang, options, shown):
    assert TopWordsCog.describe_options(None, options, lang) == shown  # type: ignore[arg-type]


def test_a_player_who_left_is_ranked_after_those_who_stayed_and_marked_left():
    """RULES-NOTES: ranked after every player who stayed whatever their score, shown as having left."""
    game = Game(
        players=("ann", "bob", "cat"), setup={**SETUP, "first_player": "cat", "racks": {"cat": "SIEBRTS"}}
    )
    game.act("cat", do="place", tiles=SIEB)
    game.act("cat", do="leave")
    scores = next(f for f in game.embed()["fields"] if f["name"] == "Scores")["value"].splitlines()
    assert scores[-1] == "8 Cat · *left the game*"  # the best score, yet last
    game.act("ann", do="propose_end")
    game.act("bob", do="vote", accept=True)
    shown = game.embed()
    final = next(f for f in shown["fields"] if f["name"] == "Final scores")["value"].splitlines()
    assert final[-1] == "8 Cat · *left the game*" and "Cat" not in " ".join(final[:-1])
    assert "Cat" not in shown["description"].split("🏆")[-1]  # the winners are among those who stayed
    assert "*a quitté la partie*" in game.embed("fr")["fields"][-1]["value"]
    assert "*hat das Spiel verlassen*" in game.embed("de")["fields"][-1]["value"]


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
async def test_topwords_end_promises_no_vote_since_topwords_has_none(lang):
    """/topwords end ends the game without a result for the host or Manage Server; a player is refused and
    pointed to propose_end. The command's own description says so and promises no vote."""
    [end] = [command for command in TopWordsCog.group.commands if command.name == "end"]
    key = end._locale_description.extras["key"]
    assert key == "topwords.cmd.end"
    described = t(key, lang)
    assert len(described) <= 100
    assert not any(word in described.lower() for word in ("vote", "abstimm"))
    with pytest.raises(BadAction) as refused:
        await TopWordsCog(None).ask_to_end(None, None)  # type: ignore[arg-type]
    assert refused.value.key == "topwords.not_manager" and "/topwords propose_end" in t(
        refused.value.key, lang
    )
