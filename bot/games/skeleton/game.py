"""Skeleton's rules: on your turn draw a hidden card, then play a card from your hand onto the public pile
(its rank in points) or pass; the first to the target wins. See docs/rules/skeleton.md.

The smallest game that shows every part of the engine contract (bot/engine/game.py): a secret (each hand),
chance (the card drawn, chosen by `resolve_chance` so that the log replays), freshness (the turn number every
button carries), a timer (an idle turn: the bot draws for the player, face down, and passes) and an outcome.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from bot.engine.errors import BadAction, GameOver, IllegalMove, NotAPlayer, NotYourTurn, WrongPhase
from bot.engine.game import JSON, Action, Applied, Outcome, Termination, Timer, shallow_copy
from bot.games.skeleton.state import DECK, State, checked_options, dump, load, value

PLAYER_ACTIONS = frozenset({"draw", "play", "pass", "leave"})
SYSTEM_ACTIONS = frozenset({"timeout", "end"})


class Skeleton:
    name = "skeleton"
    min_players = 2
    max_players = 4
    action_names = PLAYER_ACTIONS | SYSTEM_ACTIONS
    slow_actions: frozenset[str] = frozenset()
    # The card a draw brings is chance's: a player's own `card` is dropped by the engine.
    chance_keys: Mapping[str, frozenset[str]] = {"draw": frozenset({"card"}), "timeout": frozenset({"card"})}

    # -- setting up ------------------------------------------------------------------------------------

    def validate_options(self, options: Mapping[str, Any]) -> JSON:
        return checked_options(options)

    def new_game(
        self, options: Mapping[str, Any], players: Sequence[str], setup: Mapping[str, Any], rng: random.Random
    ) -> State:
        checked = checked_options(options)
        if not self.min_players <= len(players) <= self.max_players or len(set(players)) != len(players):
            raise BadAction("skeleton.setup.players", low=self.min_players, high=self.max_players)
        unknown = sorted(set(setup) - {"first_player"})
        if unknown:
            raise BadAction("skeleton.setup.unknown", name=unknown[0])
        first = setup.get("first_player", rng.choice(list(players)))
        if first not in players:
            raise BadAction("skeleton.setup.first_player")
        return State(
            players=list(players),
            target=checked["target"],
            turn_seconds=checked["turn_seconds"],
            deck=sorted(DECK),
            hands={player: [] for player in players},
            scores=dict.fromkeys(players, 0),
            pile=[],
            current=first,
            turn=1,
            phase="draw",
            left=[],
            history=[],
            winners=[],
        )

    # -- chance and freshness --------------------------------------------------------------------------

    def resolve_chance(self, state: State, action: Action, rng: random.Random) -> Action:
        """A draw (the player's, or the bot's for an idle player) names its card in the log; a forced card
        (a scenario's) stays as it is, and `apply` checks that the deck holds it."""
        draws = action.get("do") == "draw" or (action.get("do") == "timeout" and state.phase == "draw")
        if draws and "card" not in action and state.deck:
            action["card"] = rng.choice(state.deck)
        return action

    def freshness(self, state: State) -> JSON:
        return {"turn": state.turn}

    # -- applying an action ----------------------------------------------------------------------------

    def apply(self, state: State, action: Action) -> Applied:
        name = action["do"]
        player = action.get("player")
        if state.phase == "over":
            raise GameOver("skeleton.refusal.over")
        if name in SYSTEM_ACTIONS:
            if player is not None:
                raise NotAPlayer("skeleton.refusal.system")
            return self._timeout(state, action) if name == "timeout" else self._end(state, action)
        if not isinstance(player, str) or player not in state.players or player in state.left:
            raise NotAPlayer("skeleton.refusal.not_a_player")
        if name == "leave":
            return self._leave(state, player)
        if player != state.current:
            raise NotYourTurn("skeleton.refusal.not_your_turn")
        if name == "draw":
            if state.phase != "draw":
                raise WrongPhase("skeleton.refusal.drawn_already")
            applied = Applied(state)
            self._draw(applied, player, action.get("card"))
            applied.state.phase = "play"
            return applied
        if state.phase != "play":
            raise WrongPhase("skeleton.refusal.draw_first")
        if name == "play":
            card = action.get("card")
            if not isinstance(card, str):
                raise BadAction("skeleton.refusal.which_card")
            if card not in state.hands[player]:
                raise IllegalMove("skeleton.refusal.not_in_hand")
            return self._play(state, player, card)
        return self._end_turn(Applied(shallow_copy(state)), {"player": player, "passed": True})

    def _draw(self, applied: Applied, player: str, card: object) -> None:
        """`card` goes from the deck into the player's hand, told to them alone (the table sees a draw)."""
        state = applied.state = shallow_copy(applied.state)
        if not state.deck:
            return
        if not isinstance(card, str) or card not in state.deck:
            raise BadAction("skeleton.refusal.not_in_deck")
        state.deck = [other for other in state.deck if other != card]
        state.hands = {**state.hands, player: [*state.hands[player], card]}
        applied.events.append({"type": "drew", "player": player, "deck": len(state.deck)})
        applied.tell(player, {"type": "card_drawn", "card": card})

    def _play(self, state: State, player: str, card: str) -> Applied:
        new = shallow_copy(state)
        hand = list(state.hands[player])
        hand.remove(card)
        new.hands = {**state.hands, player: hand}
        new.pile = [*state.pile, card]
        new.scores = {**state.scores, player: state.scores[player] + value(card)}
        applied = Applied(new, [{"type": "played", "player": player, "card": card, "points": value(card)}])
        if new.scores[player] >= new.target:
            return self._finish(applied, [player], Termination.TARGET_REACHED)
        return self._end_turn(applied, {"player": player, "played": card})

    def _timeout(self, state: State, action: Action) -> Applied:
        """The turn's time ran out: the bot draws for the idle player if they had not (a card only they
        hear of), then passes for them."""
        if action.get("turn") != state.turn:
            raise BadAction("skeleton.refusal.which_turn")
        player = state.current
        applied = Applied(shallow_copy(state), [{"type": "timed_out", "player": player}])
        drawn = state.phase == "draw" and bool(state.deck)
        if state.phase == "draw":
            self._draw(applied, player, action.get("card"))
        return self._end_turn(applied, {"player": player, "passed": True, "timed_out": True, "drew": drawn})

    def _leave(self, state: State, player: str) -> Applied:
        new = shallow_copy(state)
        new.left = [*state.left, player]
        applied = Applied(new, [{"type": "left", "player": player}])
        if len(new.players) - len(new.left) < self.min_players:
            return self._finish(applied, self._best(new), Termination.LAST_PLAYER_STANDING)
        if player == state.current:
            return self._end_turn(applied, {"player": player, "left": True})
        return applied

    def _end(self, state: State, action: Action) -> Applied:
        """The host (or the table's vote: `by`) ends the game: the best score wins."""
        ended = {"host": Termination.ENDED_BY_HOST, "vote": Termination.ENDED_BY_VOTE}.get(
            action.get("by", "host")
        )
        if ended is None:
            raise BadAction("skeleton.refusal.end_by")
        return self._finish(Applied(shallow_copy(state)), self._best(state), ended)

    def _end_turn(self, applied: Applied, record: dict[str, Any]) -> Applied:
        """The next seat still playing takes the turn; when no card is left anywhere, the best score wins."""
        state = applied.state
        state.history = [*state.history, {"turn": state.turn, **record}]
        if not state.deck and not any(state.hands[p] for p in state.players if p not in state.left):
            return self._finish(applied, self._best(state), Termination.NO_MOVES)
        seats = state.players
        index = seats.index(state.current)
        for step in range(1, len(seats) + 1):
            following = seats[(index + step) % len(seats)]
            if following not in state.left:
                break
        state.current = following
        state.turn += 1
        state.phase = "draw" if state.deck else "play"
        applied.events.append({"type": "turn", "player": following, "turn": state.turn})
        return applied

    def _finish(self, applied: Applied, winners: list[str], reason: Termination) -> Applied:
        """The game is over; the engine tells it (its `finished` event carries the outcome)."""
        state = applied.state
        state.phase = "over"
        state.winners = winners
        state.end_reason = reason.value
        return applied

    @staticmethod
    def _best(state: State) -> list[str]:
        staying = [p for p in state.players if p not in state.left]
        best = max(state.scores[p] for p in staying)
        return [p for p in staying if state.scores[p] == best]

    # -- what players may do -----------------------------------------------------------------------------

    def legal_actions(self, state: State, player: str) -> list[Action] | None:
        if player not in state.players or player in state.left:
            return None
        if state.phase == "over":
            return []
        turn = {"player": player, "turn": state.turn}
        actions: list[Action] = [{"do": "leave", "player": player}]
        if player != state.current:
            return actions
        if state.phase == "draw":
            return [{"do": "draw", **turn}, *actions]
        plays = [{"do": "play", **turn, "card": card} for card in sorted(set(state.hands[player]))]
        return [*plays, {"do": "pass", **turn}, *actions]

    def table_actions(self, state: State, player: str | None) -> frozenset[str]:
        """The buttons: the player on turn draws, then plays (from the private hand) or passes."""
        if state.phase == "over" or (player is not None and player != state.current):
            return frozenset()
        if state.phase == "draw":
            return frozenset({"draw"})
        has_cards = bool(state.hands[state.current])
        return frozenset({"play", "pass"} if has_cards else {"pass"})

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != "over":
            return None
        return Outcome(
            winners=list(state.winners),
            scores=dict(state.scores),
            left=list(state.left),
            termination=Termination(state.end_reason),
            draw=len(state.winners) != 1,
        )

    def view_for(self, state: State, player: str | None) -> JSON:
        """Everything public, and the viewer's own hand: other hands only as counts, the deck as a count."""
        view: JSON = {
            "game": self.name,
            "players": list(state.players),
            "host": next((p for p in state.players if p not in state.left), None),
            "target": state.target,
            "current": state.current if state.phase != "over" else None,
            "turn": state.turn,
            "phase": state.phase,
            "scores": dict(state.scores),
            "pile": list(state.pile[-5:]),
            "pile_count": len(state.pile),
            "deck_count": len(state.deck),
            "hand_counts": {p: len(cards) for p, cards in state.hands.items()},
            "left": list(state.left),
            "history": [dict(record) for record in state.history[-5:]],
            "finished": state.phase == "over",
            "winners": list(state.winners),
            "freshness": self.freshness(state),
            "offered": sorted(self.table_actions(state, None)),
        }
        if player in state.hands:
            view["hand"] = list(state.hands[player])
            view["offered_to_you"] = sorted(self.table_actions(state, player))
        return view

    def timers(self, state: State) -> list[Timer]:
        if state.phase == "over":
            return []
        return [Timer(f"turn:{state.turn}", state.turn_seconds, {"do": "timeout", "turn": state.turn})]

    # -- storage and replay --------------------------------------------------------------------------------

    def dump(self, state: State) -> JSON:
        return dump(state)

    def load(self, data: JSON) -> State:
        return load(data)

    def replay_output(self, state: State) -> JSON:
        """The SCENARIOS.md keys, and everything a scenario may check: hands, deck, pile, whose turn."""
        return {
            "phase": state.phase,
            "finished": state.phase == "over",
            "winners": list(state.winners),
            "scores": dict(state.scores),
            "history": [dict(record) for record in state.history],
            "turn": state.turn,
            "current": state.current if state.phase != "over" else None,
            "hands": {p: list(cards) for p, cards in state.hands.items()},
            "deck_count": len(state.deck),
            "pile": list(state.pile),
            "left": list(state.left),
        }
