"""The contract every game's pure rules implement, and the deterministic step both live play and replay use."""

from __future__ import annotations

import copy
import math
import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from enum import StrEnum
from typing import Any, Protocol, TypeVar

import orjson

from bot.engine.errors import BadAction, StaleAction
from bot.i18n import N_

T = TypeVar("T")

# Actions and events are plain JSON objects so that they can be logged, stored and replayed as they are.
# An action: {"do": NAME, "player": ID | absent for the system, ...arguments}.
# An event: {"type": NAME, ...}. Public events go to the table; private ones (hidden information) are
# addressed to one player in `Applied.private` and only ever reach that player's own interaction.
Action = dict[str, Any]
Event = dict[str, Any]
JSON = dict[str, Any]

SEED_BITS = 128
# The moment the bot received an action (seconds by the session manager's clock), stamped on every live
# action before it waits for the session's lock and logged with it: a game judges "too late" by it, never by
# a clock, so a replay of the log judges alike. An action without it (a scenario, a log from before the
# stamp) is under no deadline.
RECEIVED_AT = "received_at"
# One refusal text for a click on an earlier message, whatever the game.
# The key of the refusal of a click made on an older table (a game may raise it too).
STALE_MESSAGE = N_("engine.stale")


def new_seed() -> int:
    """A session's seed: 128 bits from the OS, so nobody can guess the bag or a rack from what is public."""
    return secrets.randbits(SEED_BITS)


@dataclass(frozen=True)
class Timer:
    """A deadline the game asks for: after `seconds`, the system action `action` is applied.

    `key` identifies the timer across state changes (e.g. "writing:3"): a key that stays in
    `timers(state)` keeps its first deadline; a key that disappears is cancelled.
    """

    key: str
    seconds: float
    action: Action


class Termination(StrEnum):
    """Why a game ended: a closed set (as python-chess's Termination), told with the outcome."""

    TARGET_REACHED = "target_reached"  # a score reached the game's target (Top Stop, Topple)
    WENT_OUT = "went_out"  # a player has nothing left to play (TopWords' empty rack, Toppo's call)
    ALL_PASSED = "all_passed"  # every player passed in a row (TopWords)
    NO_MOVES = "no_moves"  # nobody can move any more (TopWords: the table agrees no word can be formed)
    TEAM_WON = "team_won"  # a cooperative game's goal is met (Top Drop: every card placed)
    TEAM_STUCK = "team_stuck"  # a cooperative game cannot go on (Top Drop: a player cannot place a card)
    LAST_PLAYER_STANDING = "last_player_standing"  # the others left or were knocked out (toppled out)
    ENDED_BY_HOST = "ended_by_host"  # the host (or a moderator) ended the game early
    ENDED_BY_VOTE = "ended_by_vote"  # the table voted to end the game early


@dataclass(frozen=True)
class Outcome:
    """What a finished game means, for results and leaderboards.

    `winners` may be several (a tie). `lower_is_better` for penalty-point games (Toppo). A cooperative
    game (Top Drop) sets `team_result` ("won" | "lost") and may rate the table's play (`team_rating`):
    every player then shares the team's result. Players who `left` the game rank after every player who
    stayed, whatever their score, and never win. Every game says why it ended (`termination`) and whether
    it is a `draw`: no single player won (the winners share first place); a cooperative game is no draw.
    """

    winners: list[str]
    scores: dict[str, int]
    lower_is_better: bool = False
    team_result: str | None = None
    team_rating: int | None = None
    left: list[str] = field(default_factory=list)
    termination: Termination = field(kw_only=True)
    draw: bool = field(kw_only=True)

    def event(self) -> Event:
        """The `finished` event: the whole outcome as plain JSON, so a cog never reads the view for it."""
        return {
            "type": "finished",
            "winners": list(self.winners),
            "scores": dict(self.scores),
            "lower_is_better": self.lower_is_better,
            "team_result": self.team_result,
            "team_rating": self.team_rating,
            "left": list(self.left),
            "draw": self.draw,
            "termination": self.termination.value,
        }

    def ranks(self) -> dict[str, int]:
        """Competition ranking (1, 2, 2, 4) by score in the game's direction, those who left last."""
        sign = 1 if self.lower_is_better else -1
        keys = {player: (player in self.left, sign * score) for player, score in self.scores.items()}
        return {player: 1 + sum(1 for other in keys.values() if other < key) for player, key in keys.items()}

    def result_of(self, player: str) -> str:
        """'won' or 'lost' for this player; in a cooperative game, the team's result."""
        if self.team_result is not None:
            return self.team_result
        return "won" if player in self.winners else "lost"


@dataclass(frozen=True)
class UsedWord:
    """A word a move made public, recorded in the used-word history."""

    round: int
    player: str
    word: str
    lemma_key: str


@dataclass(frozen=True)
class WordRuling:
    """A table's vote on a word's dictionary verdict: the server remembers it for later games in its language
    (`word` as the rules compare words: case-folded)."""

    word: str
    valid: bool


def checked_server_words(data: object) -> dict[str, dict[str, Any]]:
    """Setup `server_words`: {word: {"valid": bool, "day": "YYYY-MM-DD", ...}}, words as the rules compare them
    (normalised, case-folded)."""
    if not isinstance(data, Mapping) or not all(
        isinstance(word, str)
        and isinstance(entry, Mapping)
        and isinstance(entry.get("valid"), bool)
        and isinstance(entry.get("day"), str)
        for word, entry in data.items()
    ):
        raise BadAction("engine.server_words")
    return {word: {"valid": entry["valid"], "day": entry["day"]} for word, entry in data.items()}


@dataclass
class Applied:
    """The result of one step: the new state, public events, private events per player, words to record."""

    state: Any
    events: list[Event] = field(default_factory=list)
    used_words: list[UsedWord] = field(default_factory=list)
    private: dict[str, list[Event]] = field(default_factory=dict)
    rulings: list[WordRuling] = field(default_factory=list)

    def tell(self, player: str, event: Event) -> None:
        """An event only `player` may see (their rack, their words)."""
        self.private.setdefault(player, []).append(event)


class Game(Protocol):
    """Pure rules of one game: no discord, no I/O, no asyncio, no clock.

    State is plain data: dataclasses of lists, dicts, str, int, float, bool and None, so that the engine
    serialises it as it is (`state_json(state)` equals `dump(state)`) and `load(dump(s)) == s`. A part the
    rules no longer change may be held compactly (Top Stop's finished rounds, compressed): an object with
    `json_fragment()`, which returns its JSON as an `orjson.Fragment` (see `state_json`).
    """

    name: str
    min_players: int
    max_players: int
    action_names: frozenset[str]  # every `do` the game knows; anything else is refused as bad_action
    # Actions whose rules take long (a dictionary checks every word of every player): the engine applies them
    # in a worker thread, so that the event loop keeps answering the other tables meanwhile.
    slow_actions: frozenset[str]
    # Per action name, the arguments that are chance outcomes (a spin's letter, a roll, where a tile goes
    # back into the bag): `resolve_chance` draws them, and the engine drops them from live input, so no
    # player ever chooses one. Scenarios and replays may force them.
    chance_keys: Mapping[str, frozenset[str]]

    def validate_options(self, options: Mapping[str, Any]) -> JSON:
        """The options with their defaults filled in, or BadAction naming what is wrong."""
        ...

    def new_game(
        self, options: Mapping[str, Any], players: Sequence[str], setup: Mapping[str, Any], rng: random.Random
    ) -> Any:
        """Initial state; chance outcomes not forced by `setup` come from `rng`."""
        ...

    def resolve_chance(self, state: Any, action: Action, rng: random.Random) -> Action:
        """Fill every chance argument the action leaves out (letter, roll, card) so the log is exact."""
        ...

    def freshness(self, state: Any) -> JSON:
        """What an action made now is made against, e.g. {"round": 3, "dispute": 1} or {"move": 12}.

        A button carries these values; an action naming one of these keys with another value is refused
        as `stale_action` (by `step`, before `apply`), so a click on an old message never acts on a new one.
        A value, once replaced (or gone with its key), never comes back, key by key: count up (a turn
        number, a game-wide vote counter, a re-spin count), never derive it from what can shrink (the moves
        on the board, after one is taken back) or start again (a vote number per round).
        """
        ...

    def apply(self, state: Any, action: Action) -> Applied:
        """Apply a complete action or raise a GameError; never mutates `state`.

        A deadline is judged by `received_at(action)`, never by a clock: a window's end is the stamp of the
        action that opened it plus its length (kept in the state), and an action stamped later is refused,
        however late the session's lock lets it through."""
        ...

    def legal_actions(self, state: Any, player: str) -> list[Action] | None:
        """The actions `player` may take now: all of them where the set is finite; where an argument is
        free (words to write, tiles to place), one example per kind with that argument filled in.
        None when the player may do nothing at all because they are not seated."""
        ...

    def table_actions(self, state: Any, player: str | None) -> frozenset[str]:
        """The action names the table should offer `player` now (None: anyone watching), for the UI's
        buttons: the UI never re-derives a rule."""
        ...

    def outcome(self, state: Any) -> Outcome | None:
        """None while the game goes on."""
        ...

    def view_for(self, state: Any, player: str | None) -> JSON:
        """The state as `player` may see it (None: a spectator): every secret of others removed."""
        ...

    def timers(self, state: Any) -> list[Timer]:
        """The deadlines the current state runs on."""
        ...

    def dump(self, state: Any) -> JSON:
        """The state as JSON; `load(dump(s)) == s`."""
        ...

    def load(self, data: JSON) -> Any:
        """Inverse of dump."""
        ...

    def replay_output(self, state: Any) -> JSON:
        """The scenario output (SCENARIOS.md): players, phase, finished, winners, scores, history, …"""
        ...


class SamplesActions(Protocol):
    """Optional, beside `Game`: a game whose actions take free arguments (words to write, tiles to place)
    may offer random but realistic ones, so that random play (the conformance suite's playouts) reaches what
    only such actions lead to (judging, disputes, votes)."""

    def sample_action(self, state: Any, player: str, rng: random.Random) -> Action | None:
        """An action `player` could send now with its free arguments drawn from `rng` (valid or not, as a
        player might write them), or None when there is none to draw. The rules still judge it."""
        ...


class _SeededOnFirstDraw(random.Random):
    """random.Random(seed) that seeds itself on its first draw: most actions draw nothing, and seeding
    (about 10 µs) would cost more than checking them. Every draw is the one random.Random(seed) makes."""

    def __init__(self, seed: str) -> None:  # random.Random.__init__ (the seeding) is deferred on purpose
        self._pending: str | None = seed

    def _seed_now(self) -> None:
        if self._pending is not None:
            super().seed(self._pending)
            self._pending = None

    def random(self) -> float:
        self._seed_now()
        return super().random()

    def getrandbits(self, k: int, /) -> int:
        self._seed_now()
        return super().getrandbits(k)


def shallow_copy(instance: T) -> T:
    """A new instance sharing every field's value with `instance` (six times cheaper than `copy.copy`, far
    cheaper than a deep copy): how `apply` builds a new state without touching its input. The caller then
    replaces, never mutates, the lists and dicts it changes. (A dataclass with slots copies field by field.)"""
    cls = type(instance)
    new = object.__new__(cls)
    if hasattr(instance, "__dict__"):
        new.__dict__.update(instance.__dict__)
    else:
        for name in _slot_names(cls):
            object.__setattr__(new, name, getattr(instance, name))
    return new


_SLOTS: dict[type, tuple[str, ...]] = {}


def _slot_names(cls: type) -> tuple[str, ...]:
    names = _SLOTS.get(cls)
    if names is None:
        names = _SLOTS[cls] = tuple(name for klass in cls.__mro__ for name in getattr(klass, "__slots__", ()))
    return names


_ATOMS = (str, int, float, bool, type(None))
_FIELDS: dict[type, tuple[str, ...] | None] = {}


def as_dict(instance: Any) -> dict[str, Any]:
    """`dataclasses.asdict` of a state (dataclasses become dicts, containers new ones of their kind), without
    its generic walk: `dump` runs on every state the conformance playouts reach, and asdict was half of them."""
    if not is_dataclass(instance) or isinstance(instance, type):
        raise TypeError(f"as_dict() takes a dataclass instance, not {type(instance).__name__}")
    data: dict[str, Any] = _plain(instance)
    return data


def _plain(value: Any) -> Any:
    cls = type(value)
    if cls in _ATOMS:
        return value
    names = _FIELDS.get(cls, ())
    if names == ():
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls)) if is_dataclass(cls) else None
    if names is not None:
        return {name: _plain(getattr(value, name)) for name in names}
    if isinstance(value, list):
        items = [_plain(item) for item in value]
        return items if cls is list else cls(items)
    if isinstance(value, dict):
        pairs = {_plain(key): _plain(item) for key, item in value.items()}
        return pairs if cls is dict else cls(pairs)
    if isinstance(value, tuple):
        items = [_plain(item) for item in value]
        return cls(*items) if hasattr(value, "_fields") else cls(items)
    return copy.deepcopy(value)


def state_json(state: Any) -> bytes:
    """The state as JSON, as the engine stores it: orjson walks the dataclasses as they are, and a part held
    compactly gives its own JSON (`json_fragment()`), copied in as it is."""
    return orjson.dumps(state, default=_compact_part)


def _compact_part(value: Any) -> orjson.Fragment:
    fragment = getattr(value, "json_fragment", None)
    if fragment is None:
        raise TypeError(f"{type(value).__name__} is not JSON")
    result: orjson.Fragment = fragment()
    return result


def chance_rng(seed: int, version: int) -> random.Random:
    """The RNG for the chance outcomes of the action applied at `version`: reproducible from the seed."""
    return _SeededOnFirstDraw(f"{seed}:{version}")


def received_at(action: Action) -> float | None:
    """When the bot received `action` (RECEIVED_AT), or None: no stamp, so no deadline applies."""
    value = action.get(RECEIVED_AT)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadAction("engine.received_at")
    try:
        moment = float(value)
    except OverflowError:
        raise BadAction("engine.received_at") from None
    if not math.isfinite(moment):
        raise BadAction("engine.received_at")
    return moment


def live_action(game: Game, action: Action, received: float) -> Action:
    """A player's (or a cog's) action as the engine takes it: without any chance outcome it names (the
    engine draws those) and stamped with the moment the bot received it (any stamp it carried is replaced)."""
    name = action.get("do")
    chance = game.chance_keys.get(name, frozenset()) if isinstance(name, str) else frozenset()
    live = {key: value for key, value in action.items() if key not in chance and key != RECEIVED_AT}
    live[RECEIVED_AT] = received
    return live


def check_action(game: Game, state: Any, action: Action) -> None:
    """The checks every game shares: a known action name, made against the state as it is now, and a
    well-formed moment of receipt."""
    name = action.get("do")
    if not isinstance(name, str) or name not in game.action_names:
        raise BadAction("engine.unknown_action", game=game.name, name=repr(name))
    received_at(action)
    for key, current in game.freshness(state).items():
        if key not in action:
            continue
        made_against = action[key]
        if type(made_against) is not type(current):  # bool is not int here: True is no round number
            raise BadAction("engine.wrong_type", key=key, type=type(current).__name__)
        if made_against != current:
            raise StaleAction(STALE_MESSAGE)


def step(game: Game, state: Any, seed: int, version: int, action: Action) -> tuple[Action, Applied]:
    """Check, resolve chance, then apply: the one path from an action to a new state."""
    check_action(game, state, action)
    complete = game.resolve_chance(state, dict(action), chance_rng(seed, version))
    return complete, game.apply(state, complete)
