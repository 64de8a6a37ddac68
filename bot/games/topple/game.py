"""Topple's rules (seeds/topple-rules.txt and RULES-NOTES.md, Topple): roll the die, place a piece on a square
the roll allows, score rows of five and tall stacks, and mind the board's balance. See docs/rules/topple.md.

Chance is the engine's: a roll (`roll`), the opening roll-off (`roll`, or a timer's `rolls`) and whether a
placement topples the board (`topple`, drawn from the square's published risk) are filled in by
`resolve_chance`, so the logged action replays exactly.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeGuard

from bot.engine.errors import BadAction, GameOver, IllegalMove, NotAPlayer, NotYourTurn, WrongPhase
from bot.engine.game import JSON, Action, Applied, Outcome, Termination, Timer, shallow_copy
from bot.games.topple.board import (
    LEVELS,
    RISK_SCALE,
    SIZE,
    Square,
    allowed_squares,
    empty_board,
    moment,
    risk,
    risks,
    safest,
    score_placement,
    tilt,
)
from bot.games.topple.state import (
    COLOURS,
    OPENING,
    OVER,
    PIECES_PER_COLOUR,
    PLACE,
    ROLL,
    YOUNG,
    State,
    checked_options,
    colours_of,
    dump,
    load,
)

PLAYER_ACTIONS = frozenset({"roll", "place", "leave"})
SYSTEM_ACTIONS = frozenset({"timeout", "end"})
DIE = range(1, 7)
TOPPLE_PENALTY = -10  # TOPPLING: "The player who caused the topple loses 10 points."
TOPPLE_BONUS = 3  # "the player whose turn it was immediately before scores a 3-point bonus"
HISTORY_SHOWN = 5  # placements the view carries
# The `end` action's `by`: who ended the game early.
END_BY = {"host": Termination.ENDED_BY_HOST, "vote": Termination.ENDED_BY_VOTE}
# Where the board leans, by eighths of a turn from east, counter-clockwise (south is down the board).
COMPASS = ("e", "ne", "n", "nw", "w", "sw", "s", "se")


class Topple:
    name = "topple"
    min_players = 2
    max_players = 4
    action_names = PLAYER_ACTIONS | SYSTEM_ACTIONS
    slow_actions: frozenset[str] = frozenset()
    # A roll and a topple are chance's, never a player's: the engine drops them from live input.
    chance_keys: Mapping[str, frozenset[str]] = {
        "roll": frozenset({"roll"}),
        "place": frozenset({"topple"}),
        "timeout": frozenset({"roll", "rolls", "topple"}),
    }

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
            raise BadAction("topple.setup.players", low=self.min_players, high=self.max_players)
        unknown = sorted(set(setup) - {"first_player", "board"}, key=str)
        if unknown:
            raise BadAction("topple.setup.unknown", name=str(unknown[0])[:40])
        colours = colours_of(players)
        in_play = [colour for player in players for colour in colours[player]]
        board = _setup_board(setup.get("board"), in_play)
        state = State(
            players=list(players),
            colours=colours,
            variant=checked["variant"],
            target=checked["target"],
            turn_seconds=checked["turn_seconds"],
            phase=OPENING,
            turn=1,
            round=0,
            current=None,
            roll=None,
            board=board,
            supply={
                colour: PIECES_PER_COLOUR - sum(s.count(colour) for r in board for s in r)
                for colour in in_play
            },
            scores=dict.fromkeys(players, 0),
            opening={player: None for player in players},
            opening_rolls=[],
            last_placer=None,
            out=[],
            left=[],
            history=[],
            rounds=[],
            winners=[],
        )
        if "first_player" in setup:
            first = setup["first_player"]
            if not isinstance(first, str) or first not in players:
                raise BadAction("topple.setup.first_player")
            state.opening = {}
            state.round, state.current, state.phase = 1, first, ROLL
        return state

    # -- chance and freshness --------------------------------------------------------------------------

    def resolve_chance(self, state: State, action: Action, rng: random.Random) -> Action:
        """Fill in the die (`roll`; a timer's roll-off: `rolls`) and whether a placement topples (`topple`,
        true with the square's published risk). A forced outcome (a scenario's, the log's) stays as it is;
        an action the rules will refuse gets no topple drawn."""
        name = action.get("do")
        if name == "roll" and "roll" not in action:
            action["roll"] = rng.choice(DIE)
        elif name == "place" and "topple" not in action and state.phase == PLACE:
            square = _square(action.get("square"))
            if square is not None and state.roll is not None and square in allowed_squares(state.roll):
                action["topple"] = _draw_topple(state, square, rng)
        elif name == "timeout" and action.get("turn") == state.turn and state.phase != OVER:
            if state.phase == OPENING:
                if "rolls" not in action:
                    action["rolls"] = {p: rng.choice(DIE) for p in state.players if _yet_to_roll(state, p)}
                return action
            if state.phase == ROLL and "roll" not in action:
                action["roll"] = rng.choice(DIE)
            roll = state.roll if state.phase == PLACE else action.get("roll")
            if "topple" not in action and _is_die(roll):
                action["topple"] = _draw_topple(state, safest(state.board, allowed_squares(roll)), rng)
        return action

    def freshness(self, state: State) -> JSON:
        """Every roll-off and every turn has its own number: a button of an older one is stale."""
        return {"turn": state.turn}

    # -- applying an action ----------------------------------------------------------------------------

    def apply(self, state: State, action: Action) -> Applied:
        name = action.get("do")
        player = action.get("player")
        if state.phase == OVER:
            raise GameOver("topple.refusal.over")
        if name in SYSTEM_ACTIONS:
            if player is not None:
                raise NotAPlayer("topple.refusal.system")
            return self._timeout(state, action) if name == "timeout" else self._end(state, action)
        if not isinstance(player, str) or player not in state.players or player in state.left:
            raise NotAPlayer("topple.refusal.not_a_player")
        if player in state.out:
            raise NotAPlayer("topple.refusal.out")
        handlers: dict[str, Callable[[State, str, Action], Applied]] = {
            "leave": self._leave,
            "roll": self._roll,
            "place": self._place,
        }
        if name not in handlers:
            raise BadAction("engine.unknown_action", game=self.name, name=repr(name))
        return handlers[str(name)](state, player, action)

    def _roll(self, state: State, player: str, action: Action) -> Applied:
        if state.phase == OPENING:
            if player not in state.opening:
                raise IllegalMove("topple.refusal.not_in_roll_off")
            if state.opening[player] is not None:
                raise WrongPhase("topple.refusal.rolled_already")
            roll = _checked_roll(action.get("roll"))
            applied = Applied(shallow_copy(state))
            applied.state.opening = {**state.opening, player: roll}
            applied.events.append({"type": "opening_roll", "player": player, "roll": roll})
            _settle_opening(applied)
            return applied
        if player != state.current:
            raise NotYourTurn("topple.refusal.not_your_turn")
        if state.phase != ROLL:
            raise WrongPhase("topple.refusal.rolled_already")
        roll = _checked_roll(action.get("roll"))
        new = shallow_copy(state)
        new.roll, new.phase = roll, PLACE
        allowed = [list(square) for square in allowed_squares(roll)]
        return Applied(new, [{"type": "rolled", "player": player, "roll": roll, "allowed": allowed}])

    def _place(self, state: State, player: str, action: Action) -> Applied:
        if state.phase == OPENING or player != state.current:
            raise NotYourTurn("topple.refusal.not_your_turn")
        if state.phase != PLACE or state.roll is None:
            raise WrongPhase("topple.refusal.roll_first")
        square = _square(action.get("square"))
        if square is None:
            raise BadAction("topple.refusal.square")
        if square not in allowed_squares(state.roll):
            raise IllegalMove("topple.refusal.not_allowed", roll=state.roll)
        colour = _checked_colour(state, player, action.get("colour"))
        toppled = action.get("topple")
        if not isinstance(toppled, bool):
            raise BadAction("topple.refusal.topple")
        return _placed(Applied(shallow_copy(state)), player, square, colour, toppled, timed_out=False)

    def _timeout(self, state: State, action: Action) -> Applied:
        """The turn ran out: in the opening the bot rolls for every contender who has not; on a turn it rolls
        (if the player had not) and places on the lowest-risk square the roll allows."""
        if action.get("turn") != state.turn:
            raise BadAction("topple.refusal.which_turn")
        applied = Applied(shallow_copy(state))
        if state.phase == OPENING:
            rolls = action.get("rolls")
            waiting = [p for p in state.players if _yet_to_roll(state, p)]
            if not isinstance(rolls, dict) or sorted(rolls) != sorted(waiting):
                raise BadAction("topple.refusal.rolls")
            opening = dict(state.opening)
            for contender in waiting:
                opening[contender] = _checked_roll(rolls[contender])
                applied.events.append(
                    {"type": "opening_roll", "player": contender, "roll": opening[contender]}
                )
            applied.state.opening = opening
            _settle_opening(applied)
            return applied
        player = str(state.current)
        applied.events.append({"type": "timed_out", "player": player})
        if state.phase == ROLL:
            roll = _checked_roll(action.get("roll"))
            new = applied.state
            new.roll, new.phase = roll, PLACE
            allowed = [list(square) for square in allowed_squares(roll)]
            applied.events.append({"type": "rolled", "player": player, "roll": roll, "allowed": allowed})
        new = applied.state
        assert new.roll is not None
        toppled = action.get("topple")
        if not isinstance(toppled, bool):
            raise BadAction("topple.refusal.topple")
        square = safest(new.board, allowed_squares(new.roll))
        colour = max(_colours_with_pieces(new, player), key=lambda c: (new.supply[c], -COLOURS.index(c)))
        return _placed(applied, player, square, colour, toppled, timed_out=True)

    def _leave(self, state: State, player: str, action: Action) -> Applied:
        new = shallow_copy(state)
        new.left = [*state.left, player]
        new.supply = {c: n for c, n in state.supply.items() if c not in state.colours[player]}
        applied = Applied(new, [{"type": "left", "player": player}])
        if len(_active(new)) < 2:
            return _finish(applied, _best(new), Termination.LAST_PLAYER_STANDING)
        if state.phase == OPENING:
            new.opening = {p: roll for p, roll in state.opening.items() if p != player}
            if not new.opening:  # every contender of a tie left: the others roll off again
                new.opening = {p: None for p in _active(new)}
                new.turn += 1
            _settle_opening(applied)
        elif player == state.current:
            _next_turn(applied)
        return applied

    def _end(self, state: State, action: Action) -> Applied:
        """The host (or the table's vote: `by`) ends the game: the best score wins."""
        ended = END_BY.get(action.get("by", "host")) if isinstance(action.get("by", "host"), str) else None
        if ended is None:
            raise BadAction("topple.refusal.end_by")
        new = shallow_copy(state)
        return _finish(Applied(new, []), _best(new), ended)

    # -- what players may do -----------------------------------------------------------------------------

    def legal_actions(self, state: State, player: str) -> list[Action] | None:
        if player not in state.players or player in state.left:
            return None
        if state.phase == OVER or player in state.out:
            return []
        turn = {"player": player, "turn": state.turn}
        actions: list[Action] = []
        if _yet_to_roll(state, player) or (state.phase == ROLL and player == state.current):
            actions.append({"do": "roll", **turn})
        if state.phase == PLACE and player == state.current and state.roll is not None:
            colours = _colours_with_pieces(state, player)
            for row, col in allowed_squares(state.roll):
                if len(state.colours[player]) == 1:
                    actions.append({"do": "place", **turn, "square": [row, col]})
                else:
                    actions += [{"do": "place", **turn, "square": [row, col], "colour": c} for c in colours]
        return [*actions, {"do": "leave", "player": player}]

    def table_actions(self, state: State, player: str | None) -> frozenset[str]:
        """The buttons: Roll while a roll is awaited (the roll-off, a turn's start), the squares once rolled."""
        if state.phase == OVER:
            return frozenset()
        if player is None:
            return frozenset({"place"} if state.phase == PLACE else {"roll"})
        return frozenset(a["do"] for a in self.legal_actions(state, player) or [] if a["do"] != "leave")

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != OVER:
            return None
        return Outcome(
            winners=list(state.winners),
            scores=dict(state.scores),
            left=list(state.left),
            termination=Termination(state.end_reason),
            draw=len(state.winners) != 1,
        )

    def view_for(self, state: State, player: str | None) -> JSON:
        """Everything: Topple has no secret. The risks and the tilt are the model's, so a cog only shows them."""
        east, south = moment(state.board)
        view: JSON = {
            "game": self.name,
            "players": list(state.players),
            "colours": {p: list(colours) for p, colours in state.colours.items()},
            "variant": state.variant,
            "target": state.target,
            "phase": state.phase,
            "round": state.round,
            "turn": state.turn,
            "current": state.current,
            "roll": state.roll,
            "board": [[list(stack) for stack in row] for row in state.board],
            "levels": [list(row) for row in LEVELS],
            "tilt": {"east": east, "south": south, "amount": round(tilt(state.board), 2), "towards": _towards(east, south)},
            "risks": risks(state.board),
            "allowed": [list(square) for square in allowed_squares(state.roll)] if state.phase == PLACE and state.roll else [],
            "choices": _choices(state),
            "supply": dict(state.supply),
            "pieces_left": {p: sum(state.supply.get(c, 0) for c in state.colours[p]) for p in state.players},
            "scores": dict(state.scores),
            "opening": dict(state.opening),
            "opening_rolls": [dict(rolls) for rolls in state.opening_rolls],
            "out": list(state.out),
            "left": list(state.left),
            "history": [dict(record) for record in state.history[-HISTORY_SHOWN:]],
            "last": dict(state.history[-1]) if state.history else None,
            "rounds": [dict(record) for record in state.rounds],
            "finished": state.phase == OVER,
            "winners": list(state.winners),
            "end_reason": state.end_reason or None,
            "freshness": self.freshness(state),
            "offered": sorted(self.table_actions(state, None)),
        }  # fmt: skip
        if player in state.players:
            view["you"] = player
            view["offered_to_you"] = sorted(self.table_actions(state, player))
        return view

    def timers(self, state: State) -> list[Timer]:
        if state.phase == OVER:
            return []
        return [Timer(f"turn:{state.turn}", state.turn_seconds, {"do": "timeout", "turn": state.turn})]

    # -- storage and replay --------------------------------------------------------------------------------

    def dump(self, state: State) -> JSON:
        return dump(state)

    def load(self, data: JSON) -> State:
        return load(data)

    def replay_output(self, state: State) -> JSON:
        """The SCENARIOS.md keys, and what a scenario may check: the board, supplies, rounds, the roll-offs."""
        return {
            "phase": state.phase,
            "finished": state.phase == OVER,
            "winners": list(state.winners),
            "scores": dict(state.scores),
            "history": [dict(record) for record in state.history],
            "variant": state.variant,
            "target": state.target,
            "round": state.round,
            "turn": state.turn,
            "current": state.current,
            "roll": state.roll,
            "board": [[list(stack) for stack in row] for row in state.board],
            "supply": dict(state.supply),
            "tilt": round(tilt(state.board), 2),
            "risks": risks(state.board),
            "opening_rolls": [dict(rolls) for rolls in state.opening_rolls],
            "rounds": [dict(record) for record in state.rounds],
            "out": list(state.out),
            "left": list(state.left),
            "end_reason": state.end_reason,
        }


# -- the steps of a turn ------------------------------------------------------------------------------------


def _placed(
    applied: Applied, player: str, square: Square, colour: str, toppled: bool, *, timed_out: bool
) -> Applied:
    """A piece goes onto `square`: it scores, or it topples the board and the round ends."""
    state = applied.state
    before = state.board
    row, col = square
    record: dict[str, Any] = {
        "round": state.round,
        "turn": state.turn,
        "player": player,
        "roll": state.roll,
        "square": [row, col],
        "colour": colour,
        "risk": risk(before, square),
    }
    board = list(before)
    board[row] = [*before[row][:col], [*before[row][col], colour], *before[row][col + 1 :]]
    state.board = board
    state.supply = {**state.supply, colour: state.supply[colour] - 1}
    previous, state.last_placer = state.last_placer, player
    scores = dict(state.scores)
    if toppled:
        if state.variant == YOUNG:
            record["points"] = 0
            record["out"] = True
            state.out = [*state.out, player]
            for other in _active(
                state
            ):  # YOUNG PEOPLE VERSION: whoever topples is out; the others outlast them
                scores[other] += 1
        else:
            record["points"] = TOPPLE_PENALTY
            scores[player] += TOPPLE_PENALTY
            if previous is not None and previous != player and previous not in state.left:
                record["bonus"] = {"player": previous, "points": TOPPLE_BONUS}
                scores[previous] += TOPPLE_BONUS
    elif state.variant == YOUNG:
        record["points"] = 0
    else:
        scoring = score_placement(before, square, colour)
        record["points"] = scoring.total
        record["scoring"] = scoring.record()
        scores[player] += scoring.total
    record["toppled"] = toppled
    if timed_out:
        record["timed_out"] = True
    state.scores = scores
    state.history = [*state.history, record]
    applied.events.append({"type": "placed", **record})
    if toppled:
        return _end_round(applied, "topple")
    return _next_turn(applied)


def _next_turn(applied: Applied) -> Applied:
    """The next seat still playing with a piece to place takes the turn; when nobody has one, the round ends."""
    state = applied.state
    seats = state.players
    start = seats.index(state.current) if state.current is not None else 0
    for step in range(1, len(seats) + 1):
        following = seats[(start + step) % len(seats)]
        if following in _active(state) and _colours_with_pieces(state, following):
            break
    else:
        return _end_round(applied, "all_placed")
    state.current, state.roll, state.phase = following, None, ROLL
    state.turn += 1
    applied.events.append({"type": "turn", "player": following, "turn": state.turn, "round": state.round})
    return applied


def _end_round(applied: Applied, reason: str) -> Applied:
    """WINNING THE GAME: a round ends at a topple or when every piece is placed; the game ends only then."""
    state = applied.state
    points: dict[str, int] = dict.fromkeys(state.players, 0)
    for record in state.history:
        if record["round"] == state.round:
            points[record["player"]] += record["points"]
            if "bonus" in record:
                points[record["bonus"]["player"]] += record["bonus"]["points"]
    summary = {
        "round": state.round,
        "ended": reason,
        "toppler": state.last_placer if reason == "topple" else None,
        "points": points,
        "scores": dict(state.scores),
    }
    state.rounds = [*state.rounds, summary]
    applied.events.append({"type": "round_over", **summary, "board": state.board})
    active = _active(state)
    if state.variant == YOUNG:
        if len(active) < 2:
            return _finish(applied, active, Termination.LAST_PLAYER_STANDING)
    elif any(state.scores[p] >= state.target for p in active):
        return _finish(applied, _best(state), Termination.TARGET_REACHED)
    # A new round: the board is cleared, the pieces handed back, and the seat after whoever placed last opens.
    state.round += 1
    state.board = empty_board()
    state.supply = {colour: PIECES_PER_COLOUR for p in active for colour in state.colours[p]}
    seats = state.players
    last = seats.index(str(state.last_placer))
    opener = next(
        seats[(last + step) % len(seats)]
        for step in range(1, len(seats) + 1)
        if seats[(last + step) % len(seats)] in active
    )
    state.current, state.roll, state.phase = opener, None, ROLL
    state.turn += 1
    applied.events.append(
        {"type": "round_started", "round": state.round, "player": opener, "turn": state.turn}
    )
    return applied


def _settle_opening(applied: Applied) -> None:
    """PREPARATION 2: when every contender has rolled, the highest roll goes first; a tie rolls again."""
    state = applied.state
    if not state.opening or any(roll is None for roll in state.opening.values()):
        return
    rolls = {p: int(roll) for p, roll in state.opening.items() if roll is not None}
    state.opening_rolls = [*state.opening_rolls, rolls]
    best = max(rolls.values())
    tied = [p for p in state.players if rolls.get(p) == best]
    state.turn += 1
    if len(tied) > 1:
        state.opening = {p: None for p in tied}
        applied.events.append({"type": "opening_tie", "players": tied, "roll": best, "turn": state.turn})
        return
    state.opening = {}
    state.round, state.current, state.roll, state.phase = 1, tied[0], None, ROLL
    applied.events.append({"type": "first_player", "player": tied[0], "roll": best, "turn": state.turn})


def _finish(applied: Applied, winners: list[str], reason: Termination) -> Applied:
    state = applied.state
    state.phase, state.current, state.roll = OVER, None, None
    state.opening = {}
    state.winners = winners
    state.end_reason = reason.value
    return applied


# -- small helpers --------------------------------------------------------------------------------------------


def _active(state: State) -> list[str]:
    """The players still in the game, in seat order: not left, not toppled out (young version)."""
    return [p for p in state.players if p not in state.left and p not in state.out]


def _best(state: State) -> list[str]:
    """The highest total among those who stayed (ties share the win; RULES-NOTES leaves ties to us)."""
    staying = [p for p in state.players if p not in state.left]
    best = max(state.scores[p] for p in staying)
    return [p for p in staying if state.scores[p] == best]


def _yet_to_roll(state: State, player: str) -> bool:
    return state.phase == OPENING and player in state.opening and state.opening[player] is None


def _colours_with_pieces(state: State, player: str) -> list[str]:
    return [c for c in state.colours[player] if state.supply.get(c, 0) > 0]


def _is_die(value: object) -> TypeGuard[int]:
    return type(value) is int and value in DIE


def _checked_roll(value: object) -> int:
    if not _is_die(value):
        raise BadAction("topple.refusal.roll")
    return value


def _square(value: object) -> Square | None:
    """[row, col] with both 0–4, else None."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        return None
    row, col = value
    if type(row) is not int or type(col) is not int or not (0 <= row < SIZE and 0 <= col < SIZE):
        return None
    return row, col


def _checked_colour(state: State, player: str, colour: object) -> str:
    """TWO-PLAYER VERSION: a player with two colours names the one placed; one with a single colour may."""
    mine = state.colours[player]
    if colour is None and len(mine) == 1:
        colour = mine[0]
    if not isinstance(colour, str):
        raise BadAction("topple.refusal.which_colour")
    if colour not in mine:
        raise IllegalMove("topple.refusal.not_your_colour")
    if state.supply.get(colour, 0) <= 0:
        raise IllegalMove("topple.refusal.no_pieces_left")
    return colour


def _draw_topple(state: State, square: Square, rng: random.Random) -> bool:
    """True with the square's published risk: a draw of 0–9999 below the risk in ten-thousandths."""
    return rng.randrange(RISK_SCALE) < risk(state.board, square)


def _choices(state: State) -> list[dict[str, Any]]:
    """Once rolled, each allowed square with its risk and what it would score per colour (standard game)."""
    if state.phase != PLACE or state.roll is None or state.current is None:
        return []
    colours = _colours_with_pieces(state, state.current)
    return [
        {
            "square": [row, col],
            "risk": risk(state.board, (row, col)),
            "points": {}
            if state.variant == YOUNG
            else {c: score_placement(state.board, (row, col), c).total for c in colours},
        }
        for row, col in allowed_squares(state.roll)
    ]


def _towards(east: int, south: int) -> str | None:
    """The compass point the board leans to (north is the top row), None when it is level."""
    if east == 0 and south == 0:
        return None
    eighth = round(math.atan2(-south, east) / (math.pi / 4)) % 8
    return COMPASS[eighth]


def _setup_board(given: object, in_play: list[str]) -> list[list[list[str]]]:
    """Setup `board` (scenarios): a starting position, 5 rows of 5 stacks of colours in play, bottom first;
    its pieces come out of their colours' supplies (at most 12 each)."""
    if given is None:
        return empty_board()
    if (
        not isinstance(given, list)
        or len(given) != SIZE
        or not all(isinstance(row, list) and len(row) == SIZE for row in given)
        or not all(
            isinstance(stack, list) and all(c in in_play for c in stack) for row in given for stack in row
        )
    ):
        raise BadAction("topple.setup.board")
    board = [[list(stack) for stack in row] for row in given]
    if any(sum(stack.count(c) for row in board for stack in row) > PIECES_PER_COLOUR for c in in_play):
        raise BadAction("topple.setup.board")
    return board
