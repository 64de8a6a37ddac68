"""The conformance suite (tests/engine/test_conformance.py) against the leaks and repeats it exists to catch.

Each test makes one small change to a game (a view that shows too much, a freshness value that comes back),
runs a few playouts of the suite and asserts that the check in charge reports it. Without that change the
same playouts are clean, so a violation reported is the mutation's: the real games' playouts here are those
of the suite itself (`play` with the same option set of PLAY_OPTIONS, player count and seeds), which its
own tests hold clean; the card game's are held clean below.

The hand of a tiny card game below is a list of numbers: the suite's string-based search cannot see it, the
indistinguishability check must. Its hands are held facing in (only the owner sees one) or facing out
(everyone but the owner, as in a cooperative game).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import pytest

from bot.engine.errors import BadAction, GameOver, NotAPlayer, NotYourTurn
from bot.engine.game import Action, Applied, Outcome, Termination, Timer
from bot.games.topstop import TopStop
from bot.games.topwords import TopWords
from tests.engine.race_game import RaceGame
from tests.engine.test_conformance import (
    ALL_BUT_OWNER,
    NEVER_REPEATS,
    OWNER_ONLY,
    PLAY_OPTIONS,
    SECRETS,
    Report,
    build_game,
    play,
)

# -- a tiny card game whose hands are numbers -----------------------------------------------------------

DECK = list(range(1, 16))
HAND = 3


@dataclass
class CardState:
    players: list[str]
    facing: str  # "in": a hand is its owner's alone; "out": everyone's but its owner's
    hands: dict[str, list[int]]
    deck: list[int]  # the next card drawn is deck[0]
    played: list[list[Any]] = field(default_factory=list)  # [player, card], in order
    turn: int = 0


class CardGame:
    """Players in turn play a card of their hand by its slot and draw; the highest sum played wins."""

    name = "cards"
    min_players = 2
    max_players = 4
    action_names = frozenset({"play"})
    slow_actions: frozenset[str] = frozenset()
    chance_keys: Mapping[str, frozenset[str]] = {}  # the deck is shuffled once, by new_game

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        if set(options) - {"facing"} or options.get("facing", "in") not in ("in", "out"):
            raise BadAction("options: facing in or out")
        return {"facing": options.get("facing", "in")}

    def new_game(
        self, options: Mapping[str, Any], players: Sequence[str], setup: Mapping[str, Any], rng: random.Random
    ) -> CardState:
        deck = list(DECK)
        rng.shuffle(deck)
        hands = {p: deck[HAND * i : HAND * (i + 1)] for i, p in enumerate(players)}
        rest = deck[HAND * len(players) :]
        return CardState(list(players), self.validate_options(options)["facing"], hands, rest)

    def resolve_chance(self, state: CardState, action: Action, rng: random.Random) -> Action:
        return action  # the deck was shuffled by new_game

    def freshness(self, state: CardState) -> dict[str, Any]:
        return {"turn": state.turn}

    def apply(self, state: CardState, action: Action) -> Applied:
        if self.outcome(state) is not None:
            raise GameOver("over")
        player = action.get("player")
        if not isinstance(player, str) or player not in state.players:
            raise NotAPlayer("not playing")
        if player != state.players[state.turn % len(state.players)]:
            raise NotYourTurn("not your turn")
        slot, hand = action.get("slot"), state.hands[player]
        if isinstance(slot, bool) or not isinstance(slot, int) or not 0 <= slot < len(hand):
            raise BadAction("a slot of your hand")
        card, rest = hand[slot], hand[:slot] + hand[slot + 1 :]
        drawn, deck = state.deck[:1], state.deck[1:]
        hands = {**state.hands, player: rest + drawn}
        new = replace(
            state, hands=hands, deck=deck, played=[*state.played, [player, card]], turn=state.turn + 1
        )
        applied = Applied(new, [{"type": "played", "player": player, "card": card}])
        for seer in [player] if state.facing == "in" else [p for p in state.players if p != player]:
            if drawn:
                applied.tell(seer, {"type": "drew", "player": player, "card": drawn[0]})
        return applied

    def legal_actions(self, state: CardState, player: str) -> list[Action] | None:
        if player not in state.players:
            return None
        if self.outcome(state) is not None or player != state.players[state.turn % len(state.players)]:
            return []
        return [{"do": "play", "player": player, "slot": i} for i in range(len(state.hands[player]))]

    def table_actions(self, state: CardState, player: str | None) -> frozenset[str]:
        return frozenset(a["do"] for a in self.legal_actions(state, player) or []) if player else frozenset()

    def outcome(self, state: CardState) -> Outcome | None:
        if any(state.hands.values()):
            return None
        scores = {p: sum(card for who, card in state.played if who == p) for p in state.players}
        best = max(scores.values())
        winners = [p for p, score in scores.items() if score == best]
        return Outcome(winners, scores, termination=Termination.NO_MOVES, draw=len(winners) > 1)

    def view_for(self, state: CardState, player: str | None) -> dict[str, Any]:
        view: dict[str, Any] = {
            "players": list(state.players),
            "turn": state.turn,
            "played": [list(entry) for entry in state.played],
            "deck": len(state.deck),
            "hand_sizes": {p: len(hand) for p, hand in state.hands.items()},
        }
        if state.facing == "in":
            if player in state.hands:
                view["hand"] = list(state.hands[player])
        else:  # a spectator sees every hand, a player every hand but their own
            view["hands"] = {p: list(hand) for p, hand in state.hands.items() if p != player}
        return view

    def timers(self, state: CardState) -> list[Timer]:
        return []

    def dump(self, state: CardState) -> dict[str, Any]:
        return asdict(state)

    def load(self, data: dict[str, Any]) -> CardState:
        return CardState(**copy.deepcopy(data))

    def replay_output(self, state: CardState) -> dict[str, Any]:
        outcome = self.outcome(state)
        return {"finished": outcome is not None, "winners": outcome.winners if outcome else []}


def perturb_cards(
    game: Any, state: CardState, owner: str, rng: random.Random
) -> tuple[CardState, str, str] | None:
    """One card of the owner's hand swapped with the deck's last one (the next draw stays the same)."""
    hand = state.hands[owner]
    if not hand or len(state.deck) < 2:
        return None
    slot = rng.randrange(len(hand))
    new_hand = [*hand[:slot], state.deck[-1], *hand[slot + 1 :]]
    changed = replace(state, hands={**state.hands, owner: new_hand}, deck=[*state.deck[:-1], hand[slot]])
    facing = OWNER_ONLY if state.facing == "in" else ALL_BUT_OWNER
    return changed, facing, f"{owner}'s hand {hand} changed to {new_hand}"


FACINGS = ({"facing": "in"}, {"facing": "out"})


def play_cards(game: CardGame, options: tuple[dict[str, Any], ...] = FACINGS) -> Report:
    return play("cards", game, option_sets=options, counts=[2, 3], seeds=2, perturb=perturb_cards)


def found(report: Report, check: str) -> list[str]:
    return [violation.detail for violation in report.violations.get(check, [])]


@pytest.fixture(scope="module")
def words() -> Iterator[Any]:
    from bot.words import WordService

    yield WordService()


# -- without a mutation, the same playouts are clean --------------------------------------------------------


def test_the_card_game_passes_the_suite_facing_in_and_out() -> None:
    report = play_cards(CardGame())
    assert report.steps and report.finished
    assert not report.violations, {check: v[0].detail for check, v in report.violations.items()}
    assert report.tally["next actions compared with a secret changed"]


def suite_playouts(name: str, game: Any, option_index: int = 0, seeds: int = 2) -> Report:
    """Playouts the suite runs too (PLAY_OPTIONS[name][option_index], three players, its first seeds)."""
    options = (PLAY_OPTIONS[name][option_index],)
    return play(name, game, option_sets=options, counts=[3], seeds=seeds, first_index=option_index)


# -- secrets: each leak below makes the suite fail -------------------------------------------------------------


def test_a_hand_shown_as_numbers_to_everyone_fails_the_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    def leaky(self: CardGame, state: CardState, player: str | None) -> dict[str, Any]:
        return {**original(self, state, player), "hand_sizes": {p: list(h) for p, h in state.hands.items()}}

    original = CardGame.view_for
    monkeypatch.setattr(CardGame, "view_for", leaky)
    leaks = found(play_cards(CardGame(), ({"facing": "in"},)), SECRETS)
    assert any("who may not see it, gets another view_for" in leak for leak in leaks), leaks


def test_a_hand_held_facing_out_shown_to_its_owner_fails_the_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    def leaky(self: CardGame, state: CardState, player: str | None) -> dict[str, Any]:
        view = original(self, state, player)
        if player in state.hands:
            view["top_card"] = state.hands[player][:1]  # one number of the owner's own hand
        return view

    original = CardGame.view_for
    monkeypatch.setattr(CardGame, "view_for", leaky)
    leaks = found(play_cards(CardGame(), ({"facing": "out"},)), SECRETS)
    assert any("gets another view_for" in leak and "top_card" in leak for leak in leaks), leaks


def test_a_drawn_card_in_the_public_events_fails_the_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    def leaky(self: CardGame, state: CardState, action: Action) -> Applied:
        applied = original(self, state, action)
        applied.events.append({"type": "hands", "left": {p: sum(h) for p, h in state.hands.items()}})
        return applied

    original = CardGame.apply
    monkeypatch.setattr(CardGame, "apply", leaky)
    leaks = found(play_cards(CardGame(), ({"facing": "in"},)), SECRETS)
    assert any("the public events of" in leak for leak in leaks), leaks


def test_the_whole_bag_in_every_view_fails_the_suite(monkeypatch: pytest.MonkeyPatch, words: Any) -> None:
    def leaky(self: TopWords, state: Any, player: str | None) -> dict[str, Any]:
        return {**original(self, state, player), "bag": state.bag}

    original = TopWords.view_for
    monkeypatch.setattr(TopWords, "view_for", leaky)
    report = suite_playouts("topwords", build_game("topwords", words))
    leaks = found(report, SECRETS)
    assert any("gets another view_for" in leak and "$.bag" in leak for leak in leaks), leaks


def test_every_rack_as_letters_in_the_public_view_fails_the_suite(
    monkeypatch: pytest.MonkeyPatch, words: Any
) -> None:
    def leaky(self: TopWords, state: Any, player: str | None) -> dict[str, Any]:
        view = original(self, state, player)
        if player is None:
            view["racks"] = {p: list(rack) for p, rack in state.racks.items()}
        return view

    original = TopWords.view_for
    monkeypatch.setattr(TopWords, "view_for", leaky)
    report = suite_playouts("topwords", build_game("topwords", words))
    leaks = found(report, SECRETS)
    assert any("a spectator, who may not see it" in leak and "$.racks" in leak for leak in leaks), leaks


def test_unrevealed_words_in_top_stops_public_view_fail_the_suite(
    monkeypatch: pytest.MonkeyPatch, words: Any
) -> None:
    def leaky(self: TopStop, state: Any, player: str | None) -> dict[str, Any]:
        view = original(self, state, player)
        if player is None and view["round"] is not None:
            view["round"]["written"] = {p: list(ws) for p, ws in state.round.submissions.items()}
        return view

    original = TopStop.view_for
    monkeypatch.setattr(TopStop, "view_for", leaky)
    game = build_game("topstop", words)
    report = suite_playouts("topstop", game)
    leaks = found(report, SECRETS)
    assert any("a spectator, who may not see it" in leak and "written" in leak for leak in leaks), leaks


# -- freshness: a value that comes back makes the suite fail ---------------------------------------------------


def test_a_turn_number_that_comes_back_fails_the_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(RaceGame, "freshness", lambda self, state: {"turn": state.turn % 2})
    report = play("race", RaceGame(), counts=[2], seeds=1)
    repeats = found(report, NEVER_REPEATS)
    assert any("came back" in r for r in repeats) and any("not stale_action" in r for r in repeats), repeats


def test_topwords_counting_the_moves_on_the_board_fails_the_suite(
    monkeypatch: pytest.MonkeyPatch, words: Any
) -> None:
    """The freshness TopWords had: the moves on the board go back down when one is taken back, and a vote's
    id was the votes logged + 1 (a cancelled vote is not logged)."""

    def board_moves(self: TopWords, state: Any) -> dict[str, Any]:
        fresh: dict[str, Any] = {"move": len(state.history)}
        if state.vote is not None:
            fresh["vote"] = len(state.votes) + 1
        return fresh

    monkeypatch.setattr(TopWords, "freshness", board_moves)
    game = build_game("topwords", words)
    report = suite_playouts("topwords", game, option_index=1)  # challenge mode: moves are taken back
    repeats = found(report, NEVER_REPEATS)
    assert any("move=" in r and "came back" in r for r in repeats), repeats
    assert any("move=" in r and "not stale_action" in r for r in repeats), repeats


def test_top_stop_numbering_votes_per_round_fails_the_suite(
    monkeypatch: pytest.MonkeyPatch, words: Any
) -> None:
    def per_round(self: TopStop, state: Any) -> dict[str, Any]:
        fresh = dict(original(self, state))
        if "dispute" in fresh:
            fresh["dispute"] = state.round.opened_disputes
        return fresh

    original = TopStop.freshness
    monkeypatch.setattr(TopStop, "freshness", per_round)
    game = build_game("topstop", words)
    report = suite_playouts("topstop", game)
    repeats = found(report, NEVER_REPEATS)
    assert any("dispute=" in r for r in repeats), repeats
