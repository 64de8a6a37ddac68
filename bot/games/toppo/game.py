"""Toppo's rules (seeds/toppo-rules.txt and RULES-NOTES.md, Toppo): everyone reveals lines from their own
deck at once and races to top the display, match its cards, or call toppo with fewer than ten cards left.
See docs/rules/toppo.md.

Real time is arrival order: the session manager applies actions one at a time as the bot received them, so
the first of two claims on the same display wins and the second is judged against the display it finds, or
refused as stale when it names the display it was made against (`seen`). Every interruption (a top, a wrong
claim) stops play until the player who must begin reveals (`restart`); a `reveal` by anyone else before
that is an early start, a false start (+1 card): the right to begin stays where it was.

Chance is the engine's: the deal of the first game comes from new_game's rng; a later game's deal is the
`deal` outcome of the action that starts it, and a stack that runs out is refilled with the topped cards in
the `refill` order; both are filled in by `resolve_chance`, so the logged action replays exactly.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bot.engine.errors import BadAction, GameOver, IllegalMove, NotAPlayer, NotYourTurn, WrongPhase
from bot.engine.game import JSON, Action, Applied, Outcome, Termination, Timer, shallow_copy
from bot.engine.votes import Rule, Tally, cast, tally
from bot.games.toppo.cards import parsed, same_cards, sets_for, shown, tops
from bot.games.toppo.deal import PARTS, complete_deal, forced_parts, shown_deal
from bot.games.toppo.state import (
    CHOOSING,
    OVER,
    PLAYING,
    WAITING,
    State,
    checked_options,
    dump,
    load,
    sizes_for,
)
from bot.i18n import N_

PLAYER_ACTIONS = frozenset(
    {"reveal", "restart", "top", "match", "renew", "toppo", "propose_replace", "vote", "choose", "leave"}
)
SYSTEM_ACTIONS = frozenset({"timeout", "close_vote", "end"})
CLAIM_PENALTY = 5  # "+5": a wrong top, a wrong match, a wrong toppo
EARLY_START_PENALTY = 1  # "+1": beginning before the player who must begin
TOPPO_UNDER = 10  # "fewer than ten cards remaining in his deck (including the cards in his line)"
MIN_PLAYERS, MAX_PLAYERS = 2, 8
HISTORY_SHOWN = 5  # records the view carries
END_BY = {"host": Termination.ENDED_BY_HOST, "vote": Termination.ENDED_BY_VOTE}
SETUP_KEYS = frozenset({"first_player", *PARTS})
# Actions that may draw penalty cards or a new display from the stack, and so refill it.
# The freshness each player's action carries, as the console's buttons do (docs/rules/toppo.md, "Buttons"):
# `legal_actions` offers them so.
CARRIES: dict[str, tuple[str, ...]] = {
    "reveal": ("play",),
    "restart": ("play",),
    "top": ("seen", "play"),
    "match": ("seen", "play"),
    "renew": ("seen", "play"),
    "toppo": (),
    "propose_replace": ("seen", "play"),
    "vote": ("vote",),
    "choose": ("play",),
}
DRAWING = frozenset({"reveal", "top", "match", "toppo", "propose_replace", "vote", "close_vote"})
# Refusals of malformed cards: a forced setup, a logged deal, a logged refill.
BAD_SETUP_CARDS = N_("toppo.setup.cards")
BAD_DEAL = N_("toppo.refusal.deal")
BAD_REFILL = N_("toppo.refusal.refill")


class Toppo:
    name = "toppo"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    action_names = PLAYER_ACTIONS | SYSTEM_ACTIONS
    slow_actions: frozenset[str] = frozenset()
    # The shuffles are chance's, never a player's: a refilled stack's order and a new game's deal.
    chance_keys: Mapping[str, frozenset[str]] = {
        **{name: frozenset({"refill"}) for name in DRAWING},
        "choose": frozenset({"deal"}),
        "timeout": frozenset({"deal"}),
    }

    # -- setting up ------------------------------------------------------------------------------------

    def validate_options(self, options: Mapping[str, Any]) -> JSON:
        return checked_options(options)

    def new_game(
        self, options: Mapping[str, Any], players: Sequence[str], setup: Mapping[str, Any], rng: random.Random
    ) -> State:
        checked = checked_options(options)
        if (
            not MIN_PLAYERS <= len(players) <= MAX_PLAYERS
            or len(set(players)) != len(players)
            or not all(isinstance(player, str) for player in players)
        ):
            raise BadAction("toppo.setup.players", low=MIN_PLAYERS, high=MAX_PLAYERS)
        unknown = sorted(set(setup) - SETUP_KEYS, key=str)
        if unknown:
            raise BadAction("toppo.setup.unknown", name=str(unknown[0])[:40])
        forced = forced_parts(setup, players, BAD_SETUP_CARDS)
        size = len(forced["display"]) if "display" in forced else checked["display"]
        allowed = sizes_for(len(players))
        if size not in allowed:
            raise BadAction("toppo.setup.display", sizes=", ".join(map(str, allowed)))
        first = setup["first_player"] if "first_player" in setup else rng.choice(list(players))
        if first not in players:
            raise BadAction("toppo.setup.first_player")
        sets = sets_for(len(players))
        dealt = complete_deal(players, sets, checked["deck"], size, forced, rng, BAD_SETUP_CARDS)
        return State(
            players=list(players),
            sets=sets,
            deck_size=checked["deck"],
            games=checked["games"],
            restart_seconds=checked["restart_seconds"],
            choose_seconds=checked["choose_seconds"],
            vote_seconds=checked["vote_seconds"],
            phase=WAITING,
            game_no=1,
            display_size=size,
            display=dealt["display"],
            topped=dealt["topped"],
            stack=dealt["stack"],
            decks=dealt["decks"],
            lines={player: [] for player in players},
            matched=[],
            awaited=first,
            start_player=first,
            chooser=None,
            display_no=0,
            play_no=0,
            vote_no=0,
            vote=None,
            penalty_cards=dict.fromkeys(players, 0),
            totals=dict.fromkeys(players, 0),
            results=[],
            history=[],
            last_top=None,
            left=[],
            winners=[],
        )

    # -- chance and freshness --------------------------------------------------------------------------

    def resolve_chance(self, state: State, action: Action, rng: random.Random) -> Action:
        """Fill in a new game's `deal` (its forced parts kept) and, when an action is about to draw more
        cards from the stack than it holds, the `refill` order of the topped cards. A complete outcome (the
        log's, a scenario's) stays as it is; an action the rules will refuse draws nothing."""
        name = action.get("do")
        if name in ("choose", "timeout") and state.phase == CHOOSING:
            size = action.get("display") if name == "choose" else _kept_size(state)
            given = action.get("deal", {})
            if type(size) is int and size in sizes_for(len(_active(state))) and isinstance(given, Mapping):
                try:
                    forced = forced_parts(given, _active(state), BAD_DEAL)
                    dealt = complete_deal(
                        _active(state), state.sets, state.deck_size, size, forced, rng, BAD_DEAL
                    )
                except BadAction:
                    return action  # apply refuses the malformed deal
                action["deal"] = shown_deal(dealt)
        elif (
            name in DRAWING
            and "refill" not in action
            and state.topped
            and _stack_draws(state, action) > len(state.stack)
        ):
            order = sorted(state.topped)
            rng.shuffle(order)
            action["refill"] = shown(order)
        return action

    def freshness(self, state: State) -> JSON:
        """`seen`: the display acted on (top, match, renew); `play`: the stretch of play since the last
        interruption (every button of the console); `vote`: the open vote on replacing the display."""
        fresh: JSON = {"seen": state.display_no, "play": state.play_no}
        if state.vote is not None:
            fresh["vote"] = state.vote_no
        return fresh

    # -- applying an action ----------------------------------------------------------------------------

    def apply(self, state: State, action: Action) -> Applied:
        name = action.get("do")
        player = action.get("player")
        if state.phase == OVER:
            raise GameOver("toppo.refusal.over")
        if name in SYSTEM_ACTIONS:
            if player is not None:
                raise NotAPlayer("toppo.refusal.system")
            system: dict[str, Callable[[State, Action], Applied]] = {
                "timeout": self._timeout,
                "close_vote": self._close_vote,
                "end": self._end,
            }
            return system[str(name)](state, action)
        if not isinstance(player, str) or player not in state.players or player in state.left:
            raise NotAPlayer("toppo.refusal.not_a_player")
        handlers: dict[str, Callable[[State, str, Action], Applied]] = {
            "reveal": self._reveal,
            "restart": self._restart,
            "top": self._top,
            "match": self._match,
            "renew": self._renew,
            "toppo": self._toppo,
            "propose_replace": self._propose_replace,
            "vote": self._vote,
            "choose": self._choose,
            "leave": self._leave,
        }
        if name not in handlers:
            raise BadAction("engine.unknown_action", game=self.name, name=repr(name))
        return handlers[str(name)](state, player, action)

    # The line: reveal, restart, renew.

    def _reveal(self, state: State, player: str, action: Action) -> Applied:
        """Reveal the top card of the deck onto the line, one at a time. While play waits for someone else
        to begin, a reveal is an early start: the card and one penalty card go under the deck, and play
        still waits for the same player."""
        _require_play(state)
        if state.phase == WAITING:
            if player == state.awaited:
                return _begin(Applied(shallow_copy(state)), player, timed_out=False)
            return _early_start(state, player, action)
        line, deck = state.lines[player], state.decks[player]
        applied = Applied(shallow_copy(state))
        new = applied.state
        if player in state.matched:  # what is left of a matched line goes under the deck: a new line starts
            deck = [*deck, *line]
            line = []
            new.matched = [p for p in state.matched if p != player]
        elif len(line) >= state.display_size:
            raise WrongPhase("toppo.refusal.line_full")
        if not deck:
            raise IllegalMove("toppo.refusal.deck_empty")
        new.decks = {**state.decks, player: deck[1:]}
        new.lines = {**state.lines, player: [*line, deck[0]]}
        applied.events.append(
            {"type": "revealed", "player": player, "card": shown(deck[:1])[0], "position": len(line)}
        )
        return applied

    def _restart(self, state: State, player: str, action: Action) -> Applied:
        """Restart: after an interruption the player who must begin starts play again with a reveal."""
        _require_play(state)
        if state.phase != WAITING:
            raise WrongPhase("toppo.refusal.playing")
        if player != state.awaited:
            raise NotYourTurn("toppo.refusal.not_yours_to_begin", player=str(state.awaited))
        return _begin(Applied(shallow_copy(state)), player, timed_out=False)

    def _renew(self, state: State, player: str, action: Action) -> Applied:
        """3. Renew: a full line goes under the deck; the next line is revealed card by card."""
        _require_playing(state)
        line = state.lines[player]
        if player in state.matched or len(line) < state.display_size:
            raise WrongPhase("toppo.refusal.line_not_full")
        new = shallow_copy(state)
        new.decks = {**state.decks, player: [*state.decks[player], *line]}
        new.lines = {**state.lines, player: []}
        return Applied(new, [{"type": "renewed", "player": player}])

    # The claims: top, match, toppo.

    def _top(self, state: State, player: str, action: Action) -> Applied:
        """1. Top: each card of the line, in the order the player chose, coincides in symbol or colour with
        the display card at its position. Right: the line covers the display and play is interrupted, the
        topper to begin. Wrong (the order included): the line and five penalty cards go under the deck."""
        _require_playing(state)
        order = _checked_order(state, player, action.get("order"))
        line = state.lines[player]
        placed = [line[index] for index in order]
        right = all(tops(mine, theirs) for mine, theirs in zip(placed, state.display, strict=True))
        record: dict[str, Any] = {
            "game": state.game_no,
            "player": player,
            "claim": "top",
            "right": right,
            "line": shown(line),
            "order": list(order),
            "display": shown(state.display),
        }
        applied = Applied(shallow_copy(state))
        new = applied.state
        if not right:
            return _penalised(applied, player, CLAIM_PENALTY, action.get("refill"), record, "wrong_top")
        new.topped = [*state.topped, *state.display]
        new.display = placed
        new.lines = {**state.lines, player: []}
        new.display_no += 1
        new.last_top = player
        _drop_vote(applied)
        record["penalty"] = 0
        new.history = [*state.history, record]
        applied.events.append({"type": "topped", **record, "display_no": new.display_no})
        return _interrupt(applied, player, "top")

    def _match(self, state: State, player: str, action: Action) -> Applied:
        """2. Matching: a card of the line identical in symbol and colour to a display card goes onto it;
        the rest of the line goes under the deck (kept while another of its cards is identical to a display
        card, to be matched one by one). A wrong match: the card back, the line and five penalty cards under
        the deck, and play is interrupted."""
        _require_playing(state)
        line = state.lines[player]
        if player not in state.matched and len(line) < state.display_size:
            raise WrongPhase("toppo.refusal.line_not_full")
        index, slot = action.get("card"), action.get("slot")
        if type(index) is not int or not 0 <= index < len(line):
            raise BadAction("toppo.refusal.which_card")
        if type(slot) is not int or not 0 <= slot < state.display_size:
            raise BadAction("toppo.refusal.which_slot", high=state.display_size)
        card = line[index]
        right = card == state.display[slot]
        record: dict[str, Any] = {
            "game": state.game_no,
            "player": player,
            "claim": "match",
            "right": right,
            "card": shown([card])[0],
            "slot": slot,
            "display": shown(state.display),
        }
        applied = Applied(shallow_copy(state))
        new = applied.state
        if not right:
            return _penalised(applied, player, CLAIM_PENALTY, action.get("refill"), record, "wrong_match")
        new.topped = [*state.topped, state.display[slot]]
        new.display = [*state.display[:slot], card, *state.display[slot + 1 :]]
        new.display_no += 1
        _drop_vote(applied)
        rest = [*line[:index], *line[index + 1 :]]
        if rest and any(other in new.display for other in rest):
            new.lines = {**state.lines, player: rest}
            new.matched = [*(p for p in state.matched if p != player), player]
        else:
            new.lines = {**state.lines, player: []}
            new.decks = {**state.decks, player: [*state.decks[player], *rest]}
            new.matched = [p for p in state.matched if p != player]
        record["penalty"] = 0
        new.history = [*state.history, record]
        applied.events.append(
            {"type": "matched", **record, "display_no": new.display_no, "kept": player in new.matched}
        )
        return applied

    def _toppo(self, state: State, player: str, action: Action) -> Applied:
        """Toppo: with fewer than ten cards (deck and line) the caller ends the game and takes no penalty
        point; everyone else takes one per card. With ten or more: five penalty cards, an interruption."""
        _require_play(state)
        cards = _cards(state, player)
        right = cards < TOPPO_UNDER
        record: dict[str, Any] = {
            "game": state.game_no,
            "player": player,
            "claim": "toppo",
            "right": right,
            "cards": cards,
        }
        applied = Applied(shallow_copy(state))
        if not right:
            return _penalised(applied, player, CLAIM_PENALTY, action.get("refill"), record, "wrong_toppo")
        record["penalty"] = 0
        applied.state.history = [*state.history, record]
        applied.events.append({"type": "toppo", **record})
        return _game_over(applied, player)

    # Replacing a stuck display by agreement.

    def _propose_replace(self, state: State, player: str, action: Action) -> Applied:
        """Special Cases: the players may agree to replace a display nobody can top; the proposer's ballot
        is yes."""
        _require_play(state)
        if state.vote is not None:
            raise WrongPhase("toppo.refusal.vote_open")
        applied = Applied(shallow_copy(state))
        new = applied.state
        new.vote_no += 1
        new.vote = {"vote": new.vote_no, "display_no": state.display_no, "proposer": player, "ballots": {}}
        applied.events.append({"type": "vote_opened", "vote": new.vote_no, "player": player})
        return _ballot(applied, player, True, action.get("refill"))

    def _vote(self, state: State, player: str, action: Action) -> Applied:
        if state.vote is None:
            raise WrongPhase("toppo.refusal.no_vote")
        accept = action.get("accept")
        if not isinstance(accept, bool):
            raise BadAction("toppo.refusal.accept")
        return _ballot(Applied(shallow_copy(state)), player, accept, action.get("refill"))

    def _close_vote(self, state: State, action: Action) -> Applied:
        """The vote's time is up: it is decided on the ballots cast."""
        if state.vote is None or action.get("vote") != state.vote_no:
            raise BadAction("toppo.refusal.which_vote")
        applied = Applied(shallow_copy(state))
        _decide(applied, action.get("refill"), final=True)
        return applied

    # The series.

    def _choose(self, state: State, player: str, action: Action) -> Applied:
        """3, 4 or 5 Cards: the start player of the next game (the highest running total) chooses how many
        cards the display has (two players: 3 or 4); then every card is shuffled and dealt again."""
        if state.phase != CHOOSING:
            raise WrongPhase("toppo.refusal.not_choosing")
        if player != state.chooser:
            raise NotYourTurn("toppo.refusal.not_the_chooser", player=str(state.chooser))
        size = action.get("display")
        allowed = sizes_for(len(_active(state)))
        if type(size) is not int or size not in allowed:
            raise BadAction("toppo.refusal.display", sizes=", ".join(map(str, allowed)))
        return _deal_next(state, size, action.get("deal"), timed_out=False)

    def _timeout(self, state: State, action: Action) -> Applied:
        """The player who must begin has not: the bot begins for them. The start player has not chosen: the
        last game's display size is kept."""
        if action.get("play") != state.play_no:
            raise BadAction("toppo.refusal.which_play")
        if state.phase == WAITING and state.awaited is not None:
            return _begin(Applied(shallow_copy(state)), state.awaited, timed_out=True)
        if state.phase == CHOOSING:
            return _deal_next(state, _kept_size(state), action.get("deal"), timed_out=True)
        raise WrongPhase("toppo.refusal.playing")

    def _leave(self, state: State, player: str, action: Action) -> Applied:
        """A player leaves: their line goes under their deck, their cards stay out of play. Below two
        players the series ends."""
        applied = Applied(shallow_copy(state))
        new = applied.state
        new.left = [*state.left, player]
        new.decks = {**state.decks, player: [*state.decks[player], *state.lines[player]]}
        new.lines = {**state.lines, player: []}
        new.matched = [p for p in state.matched if p != player]
        applied.events.append({"type": "left", "player": player})
        if len(_active(new)) < MIN_PLAYERS:
            return _finish(applied, Termination.LAST_PLAYER_STANDING)
        if state.phase == WAITING and state.awaited == player:  # nobody left to wait for: everyone plays
            new.phase, new.awaited = PLAYING, None
            applied.events.append({"type": "play_resumed", "play": new.play_no})
        if state.phase == CHOOSING and state.chooser == player:
            new.chooser = _next_start_player(new)
            applied.events.append(
                {"type": "choosing", "player": new.chooser, "sizes": list(sizes_for(len(_active(new))))}
            )
        return applied

    def _end(self, state: State, action: Action) -> Applied:
        """The host (or the table's vote: `by`) ends the series: the lowest running total wins."""
        by = action.get("by", "host")
        ended = END_BY.get(by) if isinstance(by, str) else None
        if ended is None:
            raise BadAction("toppo.refusal.end_by")
        return _finish(Applied(shallow_copy(state)), ended)

    # -- what players may do -----------------------------------------------------------------------------

    def legal_actions(self, state: State, player: str) -> list[Action] | None:
        if player not in state.players or player in state.left:
            return None
        if state.phase == OVER:
            return []
        me = {"player": player}
        kinds = _kinds(state, player)
        actions: list[Action] = []
        line = state.lines[player]
        for kind in ("reveal", "restart", "renew", "toppo", "propose_replace"):
            if kind in kinds:
                actions.append({"do": kind, **me})
        if "top" in kinds:
            actions += [
                {"do": "top", **me, "order": list(order)}
                for order in itertools.permutations(range(state.display_size))
            ]
        if "match" in kinds:
            actions += [
                {"do": "match", **me, "card": index, "slot": slot}
                for index in range(len(line))
                for slot in range(state.display_size)
            ]
        if "vote" in kinds:
            actions += [{"do": "vote", **me, "accept": accept} for accept in (True, False)]
        if "choose" in kinds:
            actions += [{"do": "choose", **me, "display": size} for size in sizes_for(len(_active(state)))]
        # Each action as the console's button sends it: with the freshness it is made against.
        fresh = self.freshness(state)
        carried = [{**a, **{key: fresh[key] for key in CARRIES[a["do"]] if key in fresh}} for a in actions]
        return [*carried, {"do": "leave", **me}]

    def sample_action(self, state: State, player: str, rng: random.Random) -> Action | None:
        """A player's sharp eye, for random play: a top in an order that tops, else a right match."""
        if state.phase != PLAYING or player not in state.lines or player in state.left:
            return None
        line = state.lines[player]
        if player not in state.matched and len(line) == state.display_size:
            for order in itertools.permutations(range(state.display_size)):
                if all(tops(line[i], card) for i, card in zip(order, state.display, strict=True)):
                    return {"do": "top", "player": player, "order": list(order)}
        if player in state.matched or len(line) == state.display_size:
            for index, card in enumerate(line):
                if card in state.display:
                    return {"do": "match", "player": player, "card": index, "slot": state.display.index(card)}
        return None

    def table_actions(self, state: State, player: str | None) -> frozenset[str]:
        """The buttons: what `player` may do now (what any seated player may do, for a spectator)."""
        if state.phase == OVER:
            return frozenset()
        if player is None:
            return frozenset().union(*(_kinds(state, p) for p in _active(state)))
        if player not in state.players or player in state.left:
            return frozenset()
        return _kinds(state, player)

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != OVER:
            return None
        return Outcome(
            winners=list(state.winners),
            scores=dict(state.totals),
            lower_is_better=True,
            left=list(state.left),
            termination=Termination(state.end_reason),
            draw=len(state.winners) != 1,
        )

    def view_for(self, state: State, player: str | None) -> JSON:
        """Everything on the table: the display, every line (face up), deck sizes, penalties and totals.
        The decks and the stack are face down for everyone, their owners included: only their sizes show."""
        vote = state.vote
        view: JSON = {
            "game": self.name,
            "players": list(state.players),
            "host": next((p for p in state.players if p not in state.left), None),
            "phase": state.phase,
            "game_no": state.game_no,
            "games": state.games,
            "sets": state.sets,
            "display_size": state.display_size,
            "display": shown(state.display),
            "display_no": state.display_no,
            "play_no": state.play_no,
            "awaited": state.awaited,
            "start_player": state.start_player,
            "chooser": state.chooser,
            "sizes": list(sizes_for(len(_active(state)))),
            "lines": {p: shown(cards) for p, cards in state.lines.items()},
            "matched": list(state.matched),
            "decks": {p: len(cards) for p, cards in state.decks.items()},
            "cards": {p: _cards(state, p) for p in state.players},
            "stack_count": len(state.stack),
            "topped_count": len(state.topped),
            "penalty_cards": dict(state.penalty_cards),
            "totals": dict(state.totals),
            "last_top": state.last_top,
            "vote": None
            if vote is None
            else {
                "vote": vote["vote"],
                "proposer": vote["proposer"],
                "ballots": dict(vote["ballots"]),
                "tally": _tally(state).shown(),
            },
            "results": [dict(record) for record in state.results],
            "history": [dict(record) for record in state.history[-HISTORY_SHOWN:]],
            "left": list(state.left),
            "finished": state.phase == OVER,
            "end_reason": state.end_reason,  # why it ended (a Termination's value), for every redraw
            "winners": list(state.winners),
            "freshness": self.freshness(state),
            "offered": sorted(self.table_actions(state, None)),
        }
        if player in state.players:
            view["you"] = player
            view["offered_to_you"] = sorted(self.table_actions(state, player))
        return view

    def timers(self, state: State) -> list[Timer]:
        found = []
        if state.phase == WAITING and state.awaited is not None:
            found.append(
                Timer(
                    f"restart:{state.play_no}",
                    state.restart_seconds,
                    {"do": "timeout", "play": state.play_no},
                )
            )
        elif state.phase == CHOOSING:
            found.append(
                Timer(
                    f"choose:{state.game_no}", state.choose_seconds, {"do": "timeout", "play": state.play_no}
                )
            )
        if state.vote is not None and state.phase in (WAITING, PLAYING):
            found.append(
                Timer(
                    f"vote:{state.vote_no}", state.vote_seconds, {"do": "close_vote", "vote": state.vote_no}
                )
            )
        return found  # fmt: skip

    # -- storage and replay --------------------------------------------------------------------------------

    def dump(self, state: State) -> JSON:
        return dump(state)

    def load(self, data: JSON) -> State:
        return load(data)

    def replay_output(self, state: State) -> JSON:
        """The SCENARIOS.md keys, and what a scenario may check: decks, lines, the display, the stack."""
        return {
            "phase": state.phase,
            "finished": state.phase == OVER,
            "winners": list(state.winners),
            "scores": dict(state.totals),
            "penalty_points": dict(state.totals),
            "cards": {p: _cards(state, p) for p in state.players},
            "history": [dict(record) for record in state.history],
            "game_no": state.game_no,
            "display_size": state.display_size,
            "display": shown(state.display),
            "display_no": state.display_no,
            "play_no": state.play_no,
            "awaited": state.awaited,
            "start_player": state.start_player,
            "chooser": state.chooser,
            "decks": {p: shown(cards) for p, cards in state.decks.items()},
            "deck_counts": {p: len(cards) for p, cards in state.decks.items()},
            "lines": {p: shown(cards) for p, cards in state.lines.items()},
            "matched": list(state.matched),
            "stack_count": len(state.stack),
            "topped_count": len(state.topped),
            "penalty_cards": dict(state.penalty_cards),
            "last_top": state.last_top,
            "vote": None if state.vote is None else {**state.vote, "ballots": dict(state.vote["ballots"])},
            "results": [dict(record) for record in state.results],
            "sets": state.sets,
            "left": list(state.left),
            "end_reason": state.end_reason,
        }


# -- the steps of play ------------------------------------------------------------------------------------


def _begin(applied: Applied, player: str, *, timed_out: bool) -> Applied:
    """The player who must begin begins: play runs again for everyone, with their first card revealed."""
    new = applied.state
    new.phase, new.awaited = PLAYING, None
    deck = new.decks[player]
    event: dict[str, Any] = {"type": "restarted", "player": player, "play": new.play_no, "card": None}
    if deck:
        new.decks = {**new.decks, player: deck[1:]}
        new.lines = {**new.lines, player: [*new.lines[player], deck[0]]}
        event["card"] = shown(deck[:1])[0]
    if timed_out:
        event["timed_out"] = True
    applied.events.append(event)
    return applied


def _early_start(state: State, player: str, action: Action) -> Applied:
    """Penalty: beginning before the player who must begin (the start player, the topper, the penalised
    player). A false start (RULES-NOTES, Toppo): the card revealed and one penalty card go under the deck,
    and the right to begin stays where it was. Play had not begun, so no line is interrupted and the stretch
    of play goes on: the awaited player's Begin button and restart timer stand."""
    deck = state.decks[player]
    if not deck:
        raise IllegalMove("toppo.refusal.deck_empty")
    applied = Applied(shallow_copy(state))
    applied.state.decks = {**state.decks, player: [*deck[1:], deck[0]]}
    record = {"game": state.game_no, "player": player, "claim": "early_start", "awaited": state.awaited}
    _take_penalty(applied, player, EARLY_START_PENALTY, action.get("refill"), record, "early_start")
    return applied


def _penalised(
    applied: Applied, player: str, count: int, refill: object, record: dict[str, Any], reason: str
) -> Applied:
    """A wrong claim: the player's line and `count` penalty cards go under their deck; play is interrupted
    and the penalised player must begin."""
    _take_penalty(applied, player, count, refill, record, reason)
    return _interrupt(applied, player, reason)


def _take_penalty(
    applied: Applied, player: str, count: int, refill: object, record: dict[str, Any], reason: str
) -> None:
    """The player's line and `count` penalty cards from the stack go under their deck, on the record."""
    new = applied.state
    drawn = _draw(applied, count, refill)
    new.decks = {**new.decks, player: [*new.decks[player], *new.lines[player], *drawn]}
    new.lines = {**new.lines, player: []}
    new.penalty_cards = {**new.penalty_cards, player: new.penalty_cards[player] + len(drawn)}
    record = {**record, "penalty": len(drawn)}
    new.history = [*new.history, record]
    applied.events.append({"type": "penalised", "reason": reason, **record})


def _interrupt(applied: Applied, player: str, reason: str) -> Applied:
    """Interrupt: every line goes under its own deck, and play waits for `player` to begin."""
    new = applied.state
    decks, lines = dict(new.decks), dict(new.lines)
    for other, line in new.lines.items():
        if line:
            decks[other] = [*decks[other], *line]
            lines[other] = []
    new.decks, new.lines, new.matched = decks, lines, []
    new.phase, new.awaited = WAITING, player
    new.play_no += 1
    applied.events.append({"type": "interrupted", "reason": reason, "awaited": player, "play": new.play_no})
    return applied


def _draw(applied: Applied, count: int, refill: object) -> list[str]:
    """`count` cards from the top of the stack; when it runs out, the topped cards, shuffled in the
    `refill` order, become the new stack. Fewer when even those run out."""
    new: State = applied.state
    drawn, stack = new.stack[:count], new.stack[count:]
    if len(drawn) < count and new.topped:
        order = parsed(refill, BAD_REFILL)
        if not same_cards(order, new.topped):
            raise BadAction(BAD_REFILL)
        applied.events.append({"type": "stack_refilled", "cards": len(order)})
        new.topped = []
        more = count - len(drawn)
        drawn, stack = [*drawn, *order[:more]], order[more:]
    new.stack = stack
    return drawn


def _drop_vote(applied: Applied) -> None:
    """The display changed: a vote on replacing the one before is void."""
    new = applied.state
    if new.vote is not None:
        applied.events.append({"type": "vote_dropped", "vote": new.vote["vote"]})
        new.vote = None


def _ballot(applied: Applied, player: str, accept: bool, refill: object) -> Applied:
    new = applied.state
    vote = dict(new.vote or {})
    vote["ballots"] = cast(_active(new), vote["ballots"], player, accept)
    new.vote = vote
    applied.events.append({"type": "voted", "vote": vote["vote"], "player": player, "accept": accept})
    _decide(applied, refill, final=False)
    return applied


def _decide(applied: Applied, refill: object, *, final: bool) -> None:
    """The vote is decided when every player voted, when a majority of all players agreed (or can no longer
    agree), or at its close: then a majority of the ballots, cast by at least half the players, replaces
    the display with new cards from the stack."""
    new = applied.state
    counted = _tally(new)
    if not _decided(counted, final):
        return
    number = new.vote["vote"] if new.vote else 0
    new.vote = None
    applied.events.append(
        {"type": "vote_closed", "vote": number, "passed": counted.passed, **counted.shown()}
    )
    if not counted.passed:
        return
    drawn = _draw(applied, new.display_size, refill)
    new.topped = [*new.topped, *new.display[: len(drawn)]]
    new.display = [*drawn, *new.display[len(drawn) :]]
    new.display_no += 1
    record = {"game": new.game_no, "claim": "replace", "display": shown(new.display)}
    new.history = [*new.history, record]
    applied.events.append({"type": "display_replaced", **record, "display_no": new.display_no})


def _decided(counted: Tally, final: bool) -> bool:
    return (
        final
        or counted.everyone_voted
        or 2 * counted.yes > counted.eligible
        or 2 * counted.no >= counted.eligible
    )


def _tally(state: State) -> Tally:
    ballots = state.vote["ballots"] if state.vote is not None else {}
    return tally(ballots, _active(state), Rule.QUORUM)


def _game_over(applied: Applied, caller: str) -> Applied:
    """The game ends at a right toppo: one penalty point per card left (deck and line) to everyone but the
    caller. New Game: the running totals; the highest total starts the next game and chooses its display."""
    new = applied.state
    points = {p: 0 if p == caller else _cards(new, p) for p in new.players}
    new.totals = {p: new.totals[p] + points[p] for p in new.players}
    result = {
        "game": new.game_no,
        "display": new.display_size,
        "start_player": new.start_player,
        "caller": caller,
        "points": points,
        "totals": dict(new.totals),
    }
    new.results = [*new.results, result]
    new.play_no += 1
    new.awaited = None
    _drop_vote(applied)
    applied.events.append({"type": "game_over", **result})
    if new.game_no >= new.games:
        return _finish(applied, Termination.WENT_OUT)
    new.phase = CHOOSING
    new.chooser = _next_start_player(new)
    applied.events.append(
        {"type": "choosing", "player": new.chooser, "sizes": list(sizes_for(len(_active(new))))}
    )
    return applied


def _deal_next(state: State, size: int, deal: object, *, timed_out: bool) -> Applied:
    """New Game: every card shuffled (the `deal`), a new deck for each player, the chosen display."""
    active = _active(state)
    if not isinstance(deal, Mapping):
        raise BadAction(BAD_DEAL)
    forced = forced_parts(deal, active, BAD_DEAL)
    if set(forced) != set(PARTS) or set(forced["decks"]) != set(active):
        raise BadAction(BAD_DEAL)
    dealt = complete_deal(active, state.sets, state.deck_size, size, forced, random.Random(0), BAD_DEAL)
    applied = Applied(shallow_copy(state))
    new = applied.state
    chooser = str(state.chooser)
    new.phase, new.game_no, new.display_size = WAITING, state.game_no + 1, size
    new.display, new.stack, new.topped = dealt["display"], dealt["stack"], dealt["topped"]
    new.decks = {p: dealt["decks"].get(p, []) for p in state.players}
    new.lines = {p: [] for p in state.players}
    new.matched = []
    new.awaited = new.start_player = chooser
    new.chooser = None
    new.display_no += 1
    new.play_no += 1
    new.penalty_cards = dict.fromkeys(state.players, 0)
    new.last_top = None
    event: dict[str, Any] = {
        "type": "dealt",
        "game": new.game_no,
        "start_player": chooser,
        "display": shown(new.display),
        "display_no": new.display_no,
        "play": new.play_no,
    }
    if timed_out:
        event["timed_out"] = True
    applied.events.append(event)
    return applied


def _finish(applied: Applied, reason: Termination) -> Applied:
    """The series is over: the lowest running total among the players who stayed wins (ties share it)."""
    new = applied.state
    staying = _active(new)
    best = min(new.totals[p] for p in staying)
    new.phase, new.awaited, new.chooser, new.vote = OVER, None, None, None
    new.matched = []
    new.winners = [p for p in staying if new.totals[p] == best]
    new.end_reason = reason.value
    return applied


# -- small helpers --------------------------------------------------------------------------------------------


def _active(state: State) -> list[str]:
    """The players still in the series, in seat order."""
    return [p for p in state.players if p not in state.left]


def _cards(state: State, player: str) -> int:
    """A player's cards: deck and line (Toppo counts both)."""
    return len(state.decks[player]) + len(state.lines[player])


def _kept_size(state: State) -> int:
    """The display size kept when the start player does not choose: the last one, if the table allows it."""
    allowed = sizes_for(len(_active(state)))
    return state.display_size if state.display_size in allowed else max(allowed)


def _next_start_player(state: State) -> str:
    """The highest running total starts the next game; on a tie, the first of the tied seated after the
    last start player."""
    active = _active(state)
    highest = max(state.totals[p] for p in active)
    seats = state.players
    after = seats.index(state.start_player)
    rotated = [seats[(after + step) % len(seats)] for step in range(1, len(seats) + 1)]
    return next(p for p in rotated if p in active and state.totals[p] == highest)


def _require_play(state: State) -> None:
    """Reveals, claims and votes belong to a game under way (playing, or waiting for someone to begin)."""
    if state.phase not in (WAITING, PLAYING):
        raise WrongPhase("toppo.refusal.between_games")


def _require_playing(state: State) -> None:
    _require_play(state)
    if state.phase == WAITING:
        raise WrongPhase("toppo.refusal.waiting", player=str(state.awaited))


def _checked_order(state: State, player: str, order: object) -> list[int]:
    """A top's order: for each display position, the index of the line card placed on it (a permutation)."""
    line = state.lines[player]
    if player in state.matched or len(line) < state.display_size:
        raise WrongPhase("toppo.refusal.line_not_full")
    if (
        not isinstance(order, list)
        or not all(type(index) is int for index in order)
        or sorted(order) != list(range(state.display_size))
    ):
        raise BadAction("toppo.refusal.order", size=state.display_size)
    return list(order)


def _kinds(state: State, player: str) -> frozenset[str]:
    """The kinds of action `player` may take now (legal_actions lists each with its arguments)."""
    if state.phase == CHOOSING:
        return frozenset({"choose"}) if player == state.chooser else frozenset()
    if state.phase not in (WAITING, PLAYING):
        return frozenset()
    kinds = {"toppo", "vote" if state.vote is not None else "propose_replace"}
    line, deck = state.lines[player], state.decks[player]
    if state.phase == WAITING:
        if player == state.awaited:
            kinds |= {"restart", "reveal"}
        elif deck:
            kinds.add("reveal")  # an early start: allowed, and penalised
        return frozenset(kinds)
    full = len(line) == state.display_size and player not in state.matched
    if full:
        kinds |= {"top", "match", "renew"}
    elif player in state.matched:
        kinds.add("match")
        kinds.add("reveal")  # what is left goes under the deck, and a new line starts
    elif deck:
        kinds.add("reveal")
    return frozenset(kinds)


def _stack_draws(state: State, action: Action) -> int:
    """How many cards `action` is about to draw from the stack (penalty cards, a new display), judged as
    apply will judge it; 0 for an action that draws none or will be refused."""
    player, name = action.get("player"), action.get("do")
    if state.phase not in (WAITING, PLAYING):
        return 0
    if name == "close_vote":
        if player is None and state.vote is not None and action.get("vote") == state.vote_no:
            return _replacing(state, state.vote["ballots"], final=True)
        return 0
    if not isinstance(player, str) or player not in _active(state):
        return 0
    line = state.lines[player]
    if name == "reveal":
        return (
            EARLY_START_PENALTY
            if state.phase == WAITING and player != state.awaited and state.decks[player]
            else 0
        )
    if name == "toppo":
        return CLAIM_PENALTY if _cards(state, player) >= TOPPO_UNDER else 0
    if name in ("propose_replace", "vote"):
        accept = True if name == "propose_replace" else action.get("accept")
        open_now = state.vote is not None
        if not isinstance(accept, bool) or open_now != (name == "vote"):
            return 0
        ballots = {**(state.vote["ballots"] if state.vote is not None else {}), player: accept}
        return _replacing(state, ballots, final=False)
    if state.phase != PLAYING:
        return 0
    if name == "top":
        try:
            order = _checked_order(state, player, action.get("order"))
        except (BadAction, WrongPhase):
            return 0
        right = all(tops(line[i], card) for i, card in zip(order, state.display, strict=True))
        return 0 if right else CLAIM_PENALTY
    if name == "match":
        index, slot = action.get("card"), action.get("slot")
        if player not in state.matched and len(line) < state.display_size:
            return 0
        if type(index) is not int or not 0 <= index < len(line):
            return 0
        if type(slot) is not int or not 0 <= slot < state.display_size:
            return 0
        return 0 if line[index] == state.display[slot] else CLAIM_PENALTY
    return 0


def _replacing(state: State, ballots: Mapping[str, bool], *, final: bool) -> int:
    """The cards a vote with these ballots draws: a new display if it passes now, else none."""
    counted = tally(ballots, _active(state), Rule.QUORUM)
    return state.display_size if _decided(counted, final) and counted.passed else 0
