"""Top Drop's rules (seeds/top-drop-rules.txt and RULES-NOTES.md, Top Drop): the team places all 60 number cards
on one pile, up or down as the Direction Card says, helped by action and wild cards. See docs/rules/topdrop.md.

The hands are secret: each player sees only their own (`view_for`), the draw pile only as a count. Which cards a
refill brings is chance's: `resolve_chance` fills the `turn` action's `drawn`, so the log replays exactly.
An idle player is reminded, then the others vote whether to wait (bot/engine/votes.py); nothing is ever
played for them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from itertools import permutations
from typing import Any

from bot.engine.errors import BadAction, GameOver, IllegalMove, NotAPlayer, NotYourTurn, WrongPhase
from bot.engine.game import JSON, Action, Applied, Outcome, Termination, Timer, shallow_copy
from bot.engine.votes import Rule, cast, everyone_voted, tally
from bot.games.topdrop.cards import (
    ACTIONS,
    COLOR,
    DIRECTIONS,
    FLIP,
    HAND_SIZE,
    HINTS,
    NUMBERS,
    RATINGS,
    SKIP,
    UP,
    WILDS_BY_DIFFICULTY,
    colour_of,
    direction_after,
    follows,
    opposite,
    rating,
)
from bot.games.topdrop.state import (
    ASKED,
    ON_TIME,
    OPENING,
    OVER,
    PLAY,
    REMINDED,
    State,
    checked_options,
    dump,
    load,
)
from bot.i18n import N_

PLAYER_ACTIONS = frozenset({"start", "turn", "hint", "vote", "leave"})
SYSTEM_ACTIONS = frozenset({"remind", "ask_wait", "close_vote", "end"})
VICTORY, DEFEAT = "victory", "defeat"
HISTORY_SHOWN = 5  # turns the view carries
PILE_SHOWN = 5  # cards of the pile the view carries, top last
# The `end` action's `by`: who ended the game early.
END_BY = {"host": Termination.ENDED_BY_HOST, "vote": Termination.ENDED_BY_VOTE}
SETUP_KEYS = frozenset({"first_player", "direction", "hands", "deck", "pile", "action_cards", "wild_cards"})


class TopDrop:
    name = "topdrop"
    min_players = 1  # RULES-NOTES: "a single player plays a hand of 4 alone"
    max_players = 4
    action_names = PLAYER_ACTIONS | SYSTEM_ACTIONS
    slow_actions: frozenset[str] = frozenset()
    # The cards a refill brings are chance's, never a player's: the engine drops `drawn` from live input.
    chance_keys: Mapping[str, frozenset[str]] = {"turn": frozenset({"drawn"})}

    # -- setting up ------------------------------------------------------------------------------------

    def validate_options(self, options: Mapping[str, Any]) -> JSON:
        return checked_options(options)

    def new_game(
        self, options: Mapping[str, Any], players: Sequence[str], setup: Mapping[str, Any], rng: random.Random
    ) -> State:
        checked = checked_options(options)
        if (
            not self.min_players <= len(players) <= self.max_players
            or len(set(players)) != len(players)
            or not all(isinstance(player, str) for player in players)
        ):
            raise BadAction("topdrop.setup.players", low=self.min_players, high=self.max_players)
        unknown = sorted(set(setup) - SETUP_KEYS, key=str)
        if unknown:
            raise BadAction("topdrop.setup.unknown", name=str(unknown[0])[:40])
        direction = setup.get("direction", UP)
        if direction not in DIRECTIONS or not isinstance(direction, str):
            raise BadAction("topdrop.setup.direction")
        pile, hands, deck, stacked = _setup_cards(setup, list(players), rng)
        # RULES-NOTES: one Skip, one Flip and one Color per player; the wild cards by difficulty.
        action_cards = _setup_counts(setup.get("action_cards"), dict.fromkeys(ACTIONS, len(players)))
        wilds = setup.get("wild_cards", WILDS_BY_DIFFICULTY[checked["difficulty"]])
        if type(wilds) is not int or not 0 <= wilds <= max(WILDS_BY_DIFFICULTY.values()):
            raise BadAction("topdrop.setup.wild_cards")
        state = State(
            players=list(players),
            difficulty=checked["difficulty"],
            turn_seconds=checked["turn_seconds"],
            remind_seconds=checked["remind_seconds"],
            vote_seconds=checked["vote_seconds"],
            phase=OPENING,
            turn=0,
            current=None,
            direction=direction,
            pile=pile,
            deck=deck,
            stacked=stacked,
            hands=hands,
            action_cards=action_cards,
            wild_cards=wilds,
            hints=[],
            idle_stage=ON_TIME,
            waits=0,
            vote=None,
            votes=0,
            vote_log=[],
            left=[],
            history=[],
        )
        if "first_player" in setup:  # SCENARIOS.md: setup.first_player forces who starts
            first = setup["first_player"]
            if not isinstance(first, str) or first not in players:
                raise BadAction("topdrop.setup.first_player")
            applied = Applied(state)
            _begin_turn(applied, first)
            state = applied.state
        return state

    # -- chance and freshness --------------------------------------------------------------------------

    def resolve_chance(self, state: State, action: Action, rng: random.Random) -> Action:
        """The refill after a turn (`drawn`): as many cards as bring the hand back up to 4 while the draw pile
        lasts, drawn from the pile (the front of a stacked one). A forced `drawn` stays as it is."""
        if action.get("do") != "turn" or "drawn" in action or state.phase != PLAY:
            return action
        player, cards = action.get("player"), action.get("cards", [])
        if player != state.current or player not in state.hands or not isinstance(cards, list):
            return action
        count = _refill_count(state, player, len(cards))
        action["drawn"] = list(state.deck[:count]) if state.stacked else sorted(rng.sample(state.deck, count))
        return action

    def freshness(self, state: State) -> JSON:
        """The turn (0 in the opening), and the count of wait votes opened: both only count up."""
        return {"turn": state.turn, "vote": state.votes}

    # -- applying an action ----------------------------------------------------------------------------

    def apply(self, state: State, action: Action) -> Applied:
        name = action.get("do")
        player = action.get("player")
        if state.phase == OVER:
            raise GameOver("topdrop.refusal.over")
        if name in SYSTEM_ACTIONS:
            if player is not None:
                raise NotAPlayer("topdrop.refusal.system")
            system: dict[str, Callable[[State, Action], Applied]] = {
                "remind": self._remind,
                "ask_wait": self._ask_wait,
                "close_vote": self._close_vote,
                "end": self._end,
            }
            return system[str(name)](state, action)
        if not isinstance(player, str) or player not in state.players or player in state.left:
            raise NotAPlayer("topdrop.refusal.not_a_player")
        handlers: dict[str, Callable[[State, str, Action], Applied]] = {
            "start": self._start,
            "turn": self._turn,
            "hint": self._hint,
            "vote": self._vote,
            "leave": self._leave,
        }
        if name not in handlers:
            raise BadAction("engine.unknown_action", game=self.name, name=repr(name))
        return handlers[str(name)](state, player, action)

    def _start(self, state: State, player: str, action: Action) -> Applied:
        """SETUP: "Choose which side of the Direction Card is visible. Decide together who will start" — any
        player sends the team's choice; the host starts and the card stays as it lies unless they say."""
        if state.phase != OPENING:
            raise WrongPhase("topdrop.refusal.started_already")
        first = action.get("first", _host(state))
        if not isinstance(first, str) or first not in _seated(state):
            raise BadAction("topdrop.refusal.which_player")
        direction = action.get("direction", state.direction)
        if not isinstance(direction, str) or direction not in DIRECTIONS:
            raise BadAction("topdrop.refusal.which_direction")
        new = shallow_copy(state)
        new.direction = direction
        applied = Applied(new, [{"type": "started", "player": first, "direction": direction, "by": player}])
        _begin_turn(applied, first)
        return applied

    def _turn(self, state: State, player: str, action: Action) -> Applied:
        """One optional action card, then one or two number cards; then the hand is refilled to 4."""
        if state.phase != PLAY:
            raise WrongPhase("topdrop.refusal.not_started")
        if player != state.current:
            raise NotYourTurn("topdrop.refusal.not_your_turn")
        kind, wild, cards = _turn_arguments(action)
        direction = _checked_turn(state, player, kind, wild, cards)
        hand = [card for card in state.hands[player] if card not in cards]
        drawn = _checked_drawn(state, player, len(cards), action.get("drawn", []))
        new = shallow_copy(state)
        new.hands = {**state.hands, player: sorted(hand + drawn)}
        new.deck = [card for card in state.deck if card not in drawn]
        new.pile = [*state.pile, *cards]
        new.direction = direction
        if (
            kind is not None
        ):  # "If you have played an Action or Wild Card, discard it by returning it to the box"
            if wild:
                new.wild_cards = state.wild_cards - 1
            else:
                new.action_cards = {**state.action_cards, kind: state.action_cards[kind] - 1}
        record: dict[str, Any] = {
            "turn": state.turn,
            "player": player,
            "action": kind,
            "wild": wild,
            "cards": list(cards),
            "direction": direction,
            "drew": len(drawn),
        }
        new.history = [*state.history, record]
        applied = Applied(new, [{"type": "played", **record, "deck": len(new.deck)}])
        if drawn:
            applied.tell(player, {"type": "cards_drawn", "cards": list(drawn)})
        _cancel_vote(applied, "played")
        if len(new.pile) == len(NUMBERS):  # Victory: every number card is on the pile
            return _finish(applied, VICTORY, Termination.TEAM_WON)
        return _pass_turn(applied)

    def _hint(self, state: State, player: str, action: Action) -> Applied:
        """ "No spoilers": one of the allowed phrases, at most one per player per turn, shown to the table."""
        phrase = action.get("phrase")
        if not isinstance(phrase, str) or phrase not in HINTS:
            raise BadAction("topdrop.refusal.which_hint")
        if any(hint["turn"] == state.turn and hint["player"] == player for hint in state.hints):
            raise IllegalMove("topdrop.refusal.hinted_already")
        new = shallow_copy(state)
        hint = {"turn": state.turn, "player": player, "phrase": phrase}
        new.hints = [*state.hints, hint]
        return Applied(new, [{"type": "hint", **hint}])

    def _vote(self, state: State, player: str, action: Action) -> Applied:
        """A ballot on "wait for the player?": `wait` true waits, false ends the game."""
        if state.vote is None:
            raise WrongPhase("topdrop.refusal.no_vote")
        wait = action.get("wait")
        if not isinstance(wait, bool):
            raise BadAction("topdrop.refusal.which_ballot")
        ballots = cast(state.vote["voters"], state.vote["ballots"], player, wait)
        new = shallow_copy(state)
        new.vote = {**state.vote, "ballots": ballots}
        applied = Applied(new, [{"type": "voted", "player": player, "vote": state.vote["id"], "wait": wait}])
        if everyone_voted(new.vote["voters"], ballots):
            _decide_vote(applied)
        return applied

    def _leave(self, state: State, player: str, action: Action) -> Applied:
        """Ruling (the rulebook has no leaving): nobody may play another's hand, so a player who leaves holding
        cards ends the game, lost; one whose hand is empty leaves the others playing. In the opening nothing
        is played yet: the hand goes back into the draw pile and the others start without them."""
        new = shallow_copy(state)
        new.left = [*state.left, player]
        hand = state.hands[player]
        applied = Applied(new, [{"type": "left", "player": player, "cards": len(hand)}])
        if not _seated(new):
            return _finish(applied, DEFEAT, Termination.TEAM_STUCK)
        if state.phase == OPENING:
            new.hands = {**state.hands, player: []}
            new.deck = [*state.deck, *hand] if state.stacked else sorted([*state.deck, *hand])
            return applied
        if hand:
            new.stuck = player
            return _finish(applied, DEFEAT, Termination.TEAM_STUCK)
        if state.vote is not None:
            if state.vote["of"] == player:
                _cancel_vote(applied, "left")
            else:
                voters = [voter for voter in state.vote["voters"] if voter != player]
                ballots = {voter: wait for voter, wait in state.vote["ballots"].items() if voter != player}
                new.vote = {**state.vote, "voters": voters, "ballots": ballots}
                if everyone_voted(voters, ballots):
                    _decide_vote(applied)
                    if new.phase == OVER:
                        return applied
        if player == state.current:
            return _pass_turn(applied)
        return applied

    # -- the system's actions: the idle flow and the end -----------------------------------------------

    def _remind(self, state: State, action: Action) -> Applied:
        """The turn ran long: the player on turn is reminded (the table layer tells them)."""
        if state.phase != PLAY or state.idle_stage != ON_TIME:
            raise WrongPhase("topdrop.refusal.not_idle")
        if action.get("turn") != state.turn:
            raise BadAction("topdrop.refusal.which_turn")
        new = shallow_copy(state)
        new.idle_stage = REMINDED
        return Applied(new, [{"type": "reminded", "player": state.current, "turn": state.turn}])

    def _ask_wait(self, state: State, action: Action) -> Applied:
        """Still idle after the reminder: the others vote whether to wait (bot/engine/votes.py)."""
        if state.phase != PLAY or state.idle_stage != REMINDED or not _voters(state):
            raise WrongPhase("topdrop.refusal.not_idle")
        if action.get("turn") != state.turn:
            raise BadAction("topdrop.refusal.which_turn")
        new = shallow_copy(state)
        new.votes = state.votes + 1
        new.vote = {"id": new.votes, "of": state.current, "voters": _voters(state), "ballots": {}}
        new.idle_stage = ASKED
        event = {"type": "wait_vote", "vote": new.votes, "of": state.current, "voters": _voters(state)}
        return Applied(new, [event])

    def _close_vote(self, state: State, action: Action) -> Applied:
        """The vote's time is up: the ballots cast decide."""
        if state.vote is None:
            raise WrongPhase("topdrop.refusal.no_vote")
        if action.get("vote") != state.vote["id"]:
            raise BadAction("topdrop.refusal.which_vote")
        applied = Applied(shallow_copy(state))
        _decide_vote(applied)
        return applied

    def _end(self, state: State, action: Action) -> Applied:
        """The host (or the table's vote: `by`) ends the game early: the team has not placed every card."""
        by = action.get("by", "host")
        ended = END_BY.get(by) if isinstance(by, str) else None
        if ended is None:
            raise BadAction("topdrop.refusal.end_by")
        applied = Applied(shallow_copy(state))
        _cancel_vote(applied, "ended")
        return _finish(applied, DEFEAT, ended)

    # -- what players may do -----------------------------------------------------------------------------

    def legal_actions(self, state: State, player: str) -> list[Action] | None:
        if player not in state.players or player in state.left:
            return None
        if state.phase == OVER:
            return []
        actions: list[Action] = []
        if state.phase == OPENING:
            actions += [
                {"do": "start", "player": player, "turn": state.turn, "first": first, "direction": direction}
                for first in _seated(state)
                for direction in DIRECTIONS
            ]
        elif player == state.current:
            actions += [
                {"do": "turn", "player": player, "turn": state.turn, **move} for move in _moves(state, player)
            ]
        if state.vote is not None and player in state.vote["voters"]:
            actions += [
                {"do": "vote", "player": player, "vote": state.vote["id"], "wait": wait}
                for wait in (True, False)
            ]
        if not _hinted(state, player):
            actions += [
                {"do": "hint", "player": player, "turn": state.turn, "phrase": phrase} for phrase in HINTS
            ]
        return [*actions, {"do": "leave", "player": player}]

    def table_actions(self, state: State, player: str | None) -> frozenset[str]:
        """The buttons: Start in the opening; the turn (from the private hand) and hints in play; the vote's
        ballots while the table is asked. Never read from a hand: every player on turn can play, or the game
        would have ended."""
        if state.phase == OVER:
            return frozenset()
        if player is None:
            offered = {"start" if state.phase == OPENING else "turn", "hint"}
            return frozenset(offered | ({"vote"} if state.vote is not None else set()))
        if player not in state.players or player in state.left:
            return frozenset()
        return frozenset(a["do"] for a in self.legal_actions(state, player) or [] if a["do"] != "leave")

    def outcome(self, state: State) -> Outcome | None:
        """The team's result for every player; `scores` the cards left (lower is better), the same for all."""
        if state.phase != OVER:
            return None
        left = _cards_left(state)
        won = state.result == VICTORY
        return Outcome(
            winners=list(_seated(state)) if won else [],
            scores=dict.fromkeys(state.players, left),
            lower_is_better=True,
            team_result="won" if won else "lost",
            team_rating=RATINGS[rating(left, len(state.deck))],
            left=list(state.left),
            termination=Termination(state.end_reason),
            draw=False,
        )

    def view_for(self, state: State, player: str | None) -> JSON:
        """Everything public, and the viewer's own hand with what they may play: other hands only as counts,
        the draw pile as a count."""
        top = state.pile[-1] if state.pile else None
        over = state.phase == OVER
        left = _cards_left(state)
        vote = state.vote
        view: JSON = {
            "game": self.name,
            "players": list(state.players),
            "host": _host(state),
            "difficulty": state.difficulty,
            "phase": state.phase,
            "turn": state.turn,
            "current": state.current,
            "direction": state.direction,
            "top": None if top is None else _card(top),
            "pile": [_card(card) for card in state.pile[-PILE_SHOWN:]],
            "pile_count": len(state.pile),
            "deck_count": len(state.deck),
            "hand_counts": {p: len(cards) for p, cards in state.hands.items()},
            "action_cards": dict(state.action_cards),
            "wild_cards": state.wild_cards,
            "cards_left": left,
            "hints": [dict(hint) for hint in state.hints if hint["turn"] == state.turn],
            "idle": {"player": state.current, "stage": state.idle_stage} if state.idle_stage else None,
            "vote": None
            if vote is None
            else {
                "id": vote["id"],
                "of": vote["of"],
                "voters": list(vote["voters"]),
                "ballots": dict(vote["ballots"]),
                "tally": tally(vote["ballots"], vote["voters"], Rule.MAJORITY).shown(),
            },
            "history": [dict(record) for record in state.history[-HISTORY_SHOWN:]],
            "last": dict(state.history[-1]) if state.history else None,
            "left": list(state.left),
            "finished": over,
            "result": state.result or None,
            "rating": rating(left, len(state.deck)) if over else None,
            "stuck": state.stuck,
            "abandoned_by": state.abandoned_by,
            "end_reason": state.end_reason or None,
            "winners": list(_seated(state)) if state.result == VICTORY else [],
            "freshness": self.freshness(state),
            "offered": sorted(self.table_actions(state, None)),
        }
        if player in state.players:
            view["you"] = player
            view["hand"] = [_card(card) for card in state.hands[player]]
            view["offered_to_you"] = sorted(self.table_actions(state, player))
            view["hinted"] = _hinted(state, player)
            view["choices"] = (
                _choices(state, player) if player == state.current and state.phase == PLAY else None
            )
        return view

    def timers(self, state: State) -> list[Timer]:
        """The idle flow of the turn: remind the player, then ask the others, then close their vote."""
        if state.phase != PLAY:
            return []
        if state.vote is not None:
            vote = state.vote["id"]
            return [Timer(f"vote:{vote}", state.vote_seconds, {"do": "close_vote", "vote": vote})]
        period = f"{state.turn}:{state.waits}"  # a new waiting period gets a new key: a new deadline
        if state.idle_stage == ON_TIME:
            return [Timer(f"turn:{period}", state.turn_seconds, {"do": "remind", "turn": state.turn})]
        if state.idle_stage == REMINDED and _voters(state):
            return [Timer(f"ask:{period}", state.remind_seconds, {"do": "ask_wait", "turn": state.turn})]
        return []

    # -- storage and replay --------------------------------------------------------------------------------

    def dump(self, state: State) -> JSON:
        return dump(state)

    def load(self, data: JSON) -> State:
        return load(data)

    def replay_output(self, state: State) -> JSON:
        """The SCENARIOS.md keys (result, cards_left among them) and what a scenario may check."""
        over = state.phase == OVER
        left = _cards_left(state)
        return {
            "phase": state.phase,
            "finished": over,
            "winners": list(_seated(state)) if state.result == VICTORY else [],
            "scores": dict.fromkeys(state.players, left),
            "history": [dict(record) for record in state.history],
            "result": state.result or None,
            "cards_left": left,
            "rating": rating(left, len(state.deck)) if over else None,
            "team_rating": RATINGS[rating(left, len(state.deck))] if over else None,
            "turn": state.turn,
            "current": state.current,
            "direction": state.direction,
            "top": state.pile[-1] if state.pile else None,
            "pile": list(state.pile),
            "hands": {p: list(cards) for p, cards in state.hands.items()},
            "deck": list(state.deck),
            "deck_count": len(state.deck),
            "action_cards": dict(state.action_cards),
            "wild_cards": state.wild_cards,
            "hints": [dict(hint) for hint in state.hints],
            "idle_stage": state.idle_stage,
            "vote": None if state.vote is None else dict(state.vote),
            "votes": [dict(record) for record in state.vote_log],
            "left": list(state.left),
            "end_reason": state.end_reason,
            "stuck": state.stuck,
            "abandoned_by": state.abandoned_by,
        }


# -- a turn, checked ------------------------------------------------------------------------------------------


def _turn_arguments(action: Action) -> tuple[str | None, bool, list[int]]:
    """(action card or None, whether a wild card stands for it, the number cards in the order placed)."""
    kind = action.get("action")
    if kind is not None and (not isinstance(kind, str) or kind not in ACTIONS):
        raise BadAction("topdrop.refusal.which_action")
    wild = action.get("wild", False)
    if not isinstance(wild, bool):
        raise BadAction("topdrop.refusal.which_action")
    if wild and kind is None:
        raise BadAction("topdrop.refusal.wild_needs_an_action")
    cards = action.get("cards", [])
    if not isinstance(cards, list) or not all(type(card) is int for card in cards):
        raise BadAction("topdrop.refusal.which_cards")
    return kind, wild, list(cards)


def _checked_turn(state: State, player: str, kind: str | None, wild: bool, cards: list[int]) -> str:
    """The direction after the turn, or the refusal naming the rule the turn breaks."""
    if kind is not None and not state.pile:
        # RULES-NOTES: "The game's first turn places a card on the empty pile (any card goes); no action card or
        # wild may be used on it": a Skip there only wastes a card the team shares.
        raise IllegalMove("topdrop.refusal.first_turn_places_a_card")
    if kind is not None:
        if wild and state.wild_cards <= 0:
            raise IllegalMove("topdrop.refusal.no_wild_left")
        if not wild and state.action_cards.get(kind, 0) <= 0:
            raise IllegalMove("topdrop.refusal.no_action_card_left", action=kind)
    if kind == SKIP:  # Skip: "Don't place any Number Cards and pass your turn to the next player"
        if cards:
            raise IllegalMove("topdrop.refusal.skip_places_nothing")
        return state.direction
    if not 1 <= len(cards) <= 2:  # "Place 1 or 2 cards on the common pile"
        raise IllegalMove("topdrop.refusal.one_or_two_cards")
    hand = state.hands[player]
    if len(set(cards)) != len(cards) or not all(card in hand for card in cards):
        raise IllegalMove("topdrop.refusal.not_in_hand")
    top = state.pile[-1] if state.pile else None
    direction = opposite(state.direction) if kind == FLIP else state.direction
    for index, card in enumerate(cards):
        if index == 0 and kind == COLOR:
            # Color: the first card matches the top card's colour and may go against the Direction Card.
            assert top is not None  # an action card never plays on the empty pile (above)
            if colour_of(card) != colour_of(top):
                raise IllegalMove("topdrop.refusal.color_must_match", card=card, top=top)
        elif not follows(card, top, direction):
            refusal = (
                N_("topdrop.refusal.must_go_up") if direction == UP else N_("topdrop.refusal.must_go_down")
            )
            raise IllegalMove(refusal, card=card, top=top)
        top = card
        direction = direction_after(card, direction)
    return direction


def _checked_drawn(state: State, player: str, played: int, drawn: object) -> list[int]:
    """The refill resolve_chance drew (or a scenario forced): exactly as many distinct cards of the draw pile
    as bring the hand back up to 4 while it lasts."""
    count = _refill_count(state, player, played)
    if (
        not isinstance(drawn, list)
        or len(drawn) != count
        or not all(type(card) is int and card in state.deck for card in drawn)
        or len(set(drawn)) != len(drawn)
    ):
        raise BadAction("topdrop.refusal.drawn", count=count)
    return list(drawn)


def _refill_count(state: State, player: str, played: int) -> int:
    """ "After your turn, draw Number Cards from the draw pile to bring your hand back up to 4 cards";
    "Empty draw pile? … Keep playing without drawing"."""
    return max(0, min(HAND_SIZE - (len(state.hands[player]) - played), len(state.deck)))


def _moves(state: State, player: str) -> list[dict[str, Any]]:
    """Every turn `player` may play now: each action (own card or wild) with each order of one or two cards."""
    hand = state.hands[player]
    sequences = [[card] for card in hand] + [list(pair) for pair in permutations(hand, 2)]
    moves: list[dict[str, Any]] = []
    for kind in (None, *ACTIONS):
        for wild in (False, True) if kind is not None else (False,):
            candidates = [[]] if kind == SKIP else sequences
            for cards in candidates:
                try:
                    _checked_turn(state, player, kind, wild, cards)
                except IllegalMove:
                    continue
                move: dict[str, Any] = {"cards": cards}
                if kind is not None:
                    move.update(action=kind, wild=wild)
                moves.append(move)
    return moves


def _choices(state: State, player: str) -> dict[str, Any]:
    """For the player's console: what each first step allows. `cards` (no action card), `flip`, `color`: each
    first card with the cards that may follow it; `skip`: whether Skip may be used. An action used with its
    own card while one is left, else with a wild card; one with neither left offers nothing."""
    hand = state.hands[player]

    def plays(kind: str | None) -> list[dict[str, Any]]:
        wild = kind is not None and state.action_cards.get(kind, 0) <= 0
        found = []
        for first in hand:
            try:
                direction = _checked_turn(state, player, kind, wild, [first])
            except IllegalMove:
                continue
            then = [card for card in hand if card != first and follows(card, first, direction)]
            found.append({"card": first, "then": then})
        return found

    # No action card on the game's first turn (the empty pile).
    skip = bool(state.pile) and (state.action_cards.get(SKIP, 0) > 0 or state.wild_cards > 0)
    return {"cards": plays(None), "skip": skip, "flip": plays(FLIP), "color": plays(COLOR)}


def can_play(state: State, player: str) -> bool:
    """END OF THE GAME: a player cannot play when no number card follows the direction and no action card helps:
    a Skip or a wild is always usable, a Flip if a card then follows, a Color only if a card in hand has the top
    card's colour."""
    hand = state.hands[player]
    top = state.pile[-1] if state.pile else None
    if any(follows(card, top, state.direction) for card in hand):
        return True
    if state.action_cards.get(SKIP, 0) > 0 or state.wild_cards > 0:
        return True
    if state.action_cards.get(FLIP, 0) > 0 and any(
        follows(card, top, opposite(state.direction)) for card in hand
    ):
        return True
    return (
        state.action_cards.get(COLOR, 0) > 0
        and top is not None
        and any(colour_of(card) == colour_of(top) for card in hand)
    )


# -- turns, votes and the end ----------------------------------------------------------------------------------


def _pass_turn(applied: Applied) -> Applied:
    """ "Play continues clockwise"; "When a player has no cards left, the other players continue playing": the
    next seat still playing with a card in hand takes the turn (the same player again if nobody else has one)."""
    state = applied.state
    seats = state.players
    start = seats.index(state.current) if state.current is not None else -1
    skipped: list[str] = []
    for step in range(1, len(seats) + 1):
        following = seats[(start + step) % len(seats)]
        if following in state.left:
            continue
        if state.hands[following]:
            return _begin_turn(applied, following, skipped)
        skipped.append(following)
    # Nobody holds a card, yet cards are missing from the pile: cannot happen while hands are refilled.
    return _finish(applied, DEFEAT, Termination.TEAM_STUCK)


def _begin_turn(applied: Applied, player: str, skipped: list[str] | None = None) -> Applied:
    """A new turn for `player`; "If a player cannot place any Number Cards onto the common pile, the game ends
    immediately": the team loses the moment the player on turn cannot play."""
    state = applied.state
    state.phase, state.current = PLAY, player
    state.turn += 1
    state.idle_stage, state.waits = ON_TIME, 0
    applied.events.append({"type": "turn", "player": player, "turn": state.turn, "skipped": skipped or []})
    if not can_play(state, player):
        state.stuck = player
        applied.events.append({"type": "stuck", "player": player, "turn": state.turn})
        return _finish(applied, DEFEAT, Termination.TEAM_STUCK)
    return applied


def _decide_vote(applied: Applied) -> None:
    """A majority of the ballots cast: "no" ends the game, a loss by abandonment; "yes", a tie or no ballot
    waits for the player, and the idle flow starts again."""
    state = applied.state
    vote = state.vote
    assert vote is not None
    counted = tally(vote["ballots"], vote["voters"], Rule.MAJORITY)
    record = {"vote": vote["id"], "of": vote["of"], "turn": state.turn, "yes": counted.yes, "no": counted.no}
    record["result"] = "end" if counted.result == "no" else "wait"
    state.vote = None
    state.vote_log = [*state.vote_log, record]
    applied.events.append({"type": "wait_vote_result", **record})
    if counted.result == "no":
        state.abandoned_by = vote["of"]
        _finish(applied, DEFEAT, Termination.ENDED_BY_VOTE)
        return
    state.idle_stage, state.waits = ON_TIME, state.waits + 1


def _cancel_vote(applied: Applied, why: str) -> None:
    """The idle player played (or left, or the game ended): the vote about them is moot."""
    state = applied.state
    vote = state.vote
    if vote is None:
        return
    record = {"vote": vote["id"], "of": vote["of"], "turn": state.turn, "result": "cancelled", "why": why}
    state.vote = None
    state.vote_log = [*state.vote_log, record]
    applied.events.append({"type": "wait_vote_result", **record})


def _finish(applied: Applied, result: str, reason: Termination) -> Applied:
    """The game is over; the engine tells it (its `finished` event carries the outcome)."""
    state = applied.state
    state.phase, state.current, state.result, state.end_reason = OVER, None, result, reason.value
    state.idle_stage, state.vote = ON_TIME, None
    left = _cards_left(state)
    applied.events.append(
        {"type": "game_over", "result": result, "cards_left": left, "rating": rating(left, len(state.deck))}
    )
    return applied


# -- small helpers --------------------------------------------------------------------------------------------


def _seated(state: State) -> list[str]:
    return [p for p in state.players if p not in state.left]


def _host(state: State) -> str | None:
    """The first seat still playing: who starts unless the team says otherwise."""
    seated = _seated(state)
    return seated[0] if seated else None


def _voters(state: State) -> list[str]:
    """Who is asked whether to wait: every player still seated but the one on turn."""
    return [p for p in _seated(state) if p != state.current]


def _hinted(state: State, player: str) -> bool:
    return any(hint["turn"] == state.turn and hint["player"] == player for hint in state.hints)


def _cards_left(state: State) -> int:
    """Cards not on the pile: in hands and in the draw pile (RULES-NOTES)."""
    return len(NUMBERS) - len(state.pile)


def _card(card: int) -> dict[str, Any]:
    return {"card": card, "colour": colour_of(card)}


def _setup_counts(given: object, default: dict[str, int]) -> dict[str, int]:
    """Setup `action_cards` (scenarios): {"skip": n, "flip": n, "color": n}, each 0–4; absent ones default."""
    if given is None:
        return default
    if (
        not isinstance(given, dict)
        or not set(given) <= set(ACTIONS)
        or not all(type(n) is int and 0 <= n <= 4 for n in given.values())
    ):
        raise BadAction("topdrop.setup.action_cards")
    return {**default, **given}


def _setup_cards(
    setup: Mapping[str, Any], players: list[str], rng: random.Random
) -> tuple[list[int], dict[str, list[int]], list[int], bool]:
    """The pile (bottom first), the hands and the draw pile: forced by setup `pile`, `hands`, `deck` (top first:
    then drawn in that order) or dealt from the shuffled cards (SETUP: 4 each, the rest the draw pile).
    Together they always hold each of the 60 cards once."""
    pile = _card_list(setup.get("pile", []))
    given_hands = setup.get("hands")
    given_deck = setup.get("deck")
    deck = _card_list(given_deck) if given_deck is not None else None
    placed = set(pile) | set(deck or [])
    if given_hands is not None:
        if not isinstance(given_hands, dict) or sorted(given_hands) != sorted(players):
            raise BadAction("topdrop.setup.cards")
        hands = {p: _card_list(given_hands[p]) for p in players}
        if any(len(cards) > HAND_SIZE for cards in hands.values()):
            raise BadAction("topdrop.setup.cards")
    else:
        rest = [card for card in NUMBERS if card not in placed]
        rng.shuffle(rest)
        if deck is not None and len(rest) != HAND_SIZE * len(players):
            raise BadAction("topdrop.setup.cards")
        hands = {p: rest[seat * HAND_SIZE : (seat + 1) * HAND_SIZE] for seat, p in enumerate(players)}
    held = [card for cards in hands.values() for card in cards]
    if deck is None:
        deck = [card for card in NUMBERS if card not in placed and card not in held]
    every = pile + held + deck
    if sorted(every) != list(NUMBERS):
        raise BadAction("topdrop.setup.cards")
    stacked = given_deck is not None
    return pile, {p: sorted(cards) for p, cards in hands.items()}, deck if stacked else sorted(deck), stacked


def _card_list(given: object) -> list[int]:
    if not isinstance(given, list) or not all(type(card) is int and card in NUMBERS for card in given):
        raise BadAction("topdrop.setup.cards")
    return list(given)
