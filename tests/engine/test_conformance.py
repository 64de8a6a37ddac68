"""Every game against the rules engine contract (bot/engine/game.py), in random playouts run as live play runs them.

Subjects: every registered game (bot.games.GAME_PACKAGES, built by make_game with the real words service,
loaded once for this module) and the engine tests' RaceGame. For each, several seeded playouts per player
count (from min_players, capped) and per option set (PLAY_OPTIONS: fast but real; Top Stop checks words
with the real dictionaries) apply, step after step, an action chosen among every seated player's
`legal_actions` and the system actions of `timers`, through `bot.engine.game.step` with the session's
seed and version, exactly as live play does. Every reached state and every step is checked:

  round_trip   load(dump(s)) == s, also through the JSON text the store keeps; state_json(s) == dump(s)
  acyclic      no state holds a reference cycle: a replaced state is freed at once by reference counting,
               which the engine's paced collections rely on (bot.monitor.YoungCollections)
  no_mutation  neither apply (accepted or refused) nor a query (views, legal actions, timers…) changes s
  refusals     what legal_actions does not offer is refused: another player's action, a system action
               sent by a player, an outsider's action, an action with a stale freshness value
  never_repeats  a freshness value, once replaced (or gone with its key), never comes back; every earlier
               value is replayed, on an action legal now, against the later states: refused as stale_action
  replay       the logged complete actions replay from new_game to equal states and equal events,
               and a state restored from its JSON snapshot continues exactly as the live one did
  secrets      what only player p sees (in view_for(s, p) and in Applied.private[p]) is nowhere in the
               spectator's or an outsider's view, nor in the public events; and, as a player would look for
               it, indistinguishability: a state that differs only in one player's secret (SECRET_PERTURBERS:
               only the owner sees it, or everyone but the owner) gives everyone who may not see it the
               same views, and the same public events and private events for the same next action unless
               that action reveals it (values of every kind: numbers, single letters, lists)
  legal        every action legal_actions offers is accepted; table_actions names known actions
  timers       timers are well formed and their actions are accepted
  outcome      outcome is None until the game ends, then covers the players; a game never gets stuck
  malformed    a legal action with an argument missing or of the wrong type is refused with a GameError
  bad_do       an unknown, non-string or missing `do` is refused with BadAction

Actions with free arguments (words to write) are also drawn from the game's `sample_action(state, player,
rng)` when it has one (bot.engine.game.SamplesActions), so that playouts reach what real words lead to
(judging, disputes, votes); `Report.tally` counts what the playouts reached (TALLIES).

Each check is a test per game: a failure names the rule and the shortest reproduction found (players,
options, seed and the complete actions to replay with `replay_log`). More playouts, e.g. before a
release: CONFORMANCE_SEEDS=20 .venv/bin/python -m pytest tests/engine/test_conformance.py
"""

from __future__ import annotations

import copy
import fcntl
import functools
import importlib
import json
import os
import pickle
import random
import re
import sys
import traceback
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine.bots import LEVELS, Move, Policy, Seen, bot_id, bot_rng
from bot.engine.errors import BadAction, GameError, StaleAction
from bot.engine.game import Action, Applied, Game, Outcome, Timer, chance_rng, state_json, step
from bot.games import GAME_PACKAGES, every_game, make_game
from tests.engine.race_game import RaceGame

# -- what is played -----------------------------------------------------------------------------------

# Options that keep a playout short but real: each game declares its own (bot/games/registry.py).
PLAY_OPTIONS: dict[str, tuple[Mapping[str, Any], ...]] = {
    **{info.name: info.play_options for info in every_game()},
    "race": ({"target": 12},),
}
SEEDS = int(os.environ.get("CONFORMANCE_SEEDS", "2"))  # playouts per option set and player count
MAX_STEPS = 100  # applied actions per playout
EXTRA_COUNTS = 1  # player counts played: min_players … min_players + EXTRA_COUNTS, and max_players …
MAX_COUNT = 6  # … capped here (a 12-player Top Stop table costs seconds per playout)
LEGAL_SAMPLE = 1  # legal actions tried per state besides the chosen one
TRY_CHANCE = 0.35  # how often each kind of refusal (and a malformed action) is tried at a state
SECRET_CHANCE = 0.3  # how often a state is compared with one that differs only in a player's secret
SAMPLE_SHARE = (
    0.75  # the share of a sampled action in the weight of its kind (the legal examples share the rest)
)
RESTORE_EVERY = 3  # replay continues from the JSON snapshot (as after a restart) at every third step
TIMER_CHANCE = 0.15  # how often a due timer fires while players could still act
# Actions that end a game or a seat: chosen in about one step in RARE_SHARE, so that playouts get past
# the first rounds yet some still end this way.
RARE = frozenset({"leave", "end", "resign", "concede", "propose_end", "abandon"})
RARE_SHARE = 60
# Passing is chosen less often than moving, or a table where everyone passes in a row ends at once.
PASSIVE = frozenset({"pass"})
PASSIVE_WEIGHT = 0.2
# Actions after which a player is no longer seated (legal_actions may then be None for them).
DEPARTURES = frozenset({"leave", "resign", "concede", "abandon"})

# Discord user ids, as live play seats them.
PLAYER_IDS = [str(710_000_000_000_000_000 + i) for i in range(1, 13)]
OUTSIDER = "719999999999999999"


def build_game(name: str, words: Any) -> Game:
    if name == "race":
        game: Game = RaceGame()  # type: ignore[assignment]
        return game
    return make_game(name, words)


SUBJECTS = [*GAME_PACKAGES, "race"]

# -- secrets as a player would look for them: a state that differs only in one player's secret ----------

OWNER_ONLY = "owner"  # only the owner sees it (a rack, words not yet revealed)
ALL_BUT_OWNER = "others"  # everyone but the owner sees it (a cooperative game's hand, held facing out)
# (game, state, owner, rng) -> (a state that differs from `state` only in the owner's secret, who sees the
# secret: OWNER_ONLY or ALL_BUT_OWNER, what changed) or None when the owner holds no secret there now.
Perturber = Callable[[Game, Any, str, random.Random], "tuple[Any, str, str] | None"]


def perturb_race(game: Game, state: Any, owner: str, rng: random.Random) -> tuple[Any, str, str] | None:
    """The owner's private note."""
    note = state.notes.get(owner)
    new = (note or "") + rng.choice("ab1")
    changed = replace(state, notes={**state.notes, owner: new})
    return changed, OWNER_ONLY, f"{owner}'s note {note!r} changed to {new!r}"


def game_hooks(name: str) -> Any:
    """A game's own conformance hooks, beside its tests (tests/games/<game>/conformance_hooks.py):
    `perturb_secret` (a Perturber), `tally(sent, applied) -> Counter` and `MUST_REACH` (what its playouts
    must reach); None for a game without any."""
    try:
        return importlib.import_module(f"tests.games.{name}.conformance_hooks")
    except ModuleNotFoundError as missing:
        if missing.name not in (f"tests.games.{name}", f"tests.games.{name}.conformance_hooks"):
            raise
        return None


def _perturbers() -> dict[str, Perturber]:
    found = {name: getattr(game_hooks(name), "perturb_secret", None) for name in GAME_PACKAGES}
    return {**{name: hook for name, hook in found.items() if hook is not None}, "race": perturb_race}


SECRET_PERTURBERS: dict[str, Perturber] = _perturbers()

# -- what the playouts reached, per game ------------------------------------------------------------------


def _tallies() -> dict[str, Callable[[Action, Applied], Counter[str]]]:
    found = {name: getattr(game_hooks(name), "tally", None) for name in GAME_PACKAGES}
    return {name: hook for name, hook in found.items() if hook is not None}


TALLIES: dict[str, Callable[[Action, Applied], Counter[str]]] = _tallies()

# -- checks ---------------------------------------------------------------------------------------------

ROUND_TRIP = "round_trip"
ACYCLIC = "acyclic"
NO_MUTATION = "no_mutation"
REFUSALS = "refusals"
NEVER_REPEATS = "never_repeats"
REPLAY = "replay"
SECRETS = "secrets"
LEGAL = "legal"
TIMERS = "timers"
OUTCOME = "outcome"
MALFORMED = "malformed"
BAD_DO = "bad_do"
SETUP = "setup"
BOTS = "bots"
BOT_FIRST = 0.7  # how often, in a playout with bot seats, the bots move before anyone else may

JUNK_DO: list[Any] = ["no_such_action", "", "SPIN", ["spin"], {"do": "x"}, 7, 2.5, None, True]
JUNK_VALUES: list[Any] = [None, "", "zz", -1, 0, 1.5, True, [], {}, [[]], {"x": 1}]


@dataclass
class Violation:
    check: str
    game: str
    players: list[str]
    options: dict[str, Any]
    seed: int
    actions: list[Action]  # the complete actions applied before, as logged
    detail: str

    def render(self) -> str:
        lines = [
            f"game {self.game!r}, {len(self.players)} players {self.players}, options {self.options}, seed {self.seed}",
            f"after {len(self.actions)} action(s) applied with step(game, state, seed, version, action):",
            *(
                f"  {i}: {json.dumps(a, ensure_ascii=False, default=repr)}"
                for i, a in enumerate(self.actions)
            ),
            self.detail,
            "Reproduce: from tests.engine.test_conformance import replay_log; game, state = replay_log("
            f"{self.game!r}, {self.players!r}, {self.options!r}, {self.seed}, ACTIONS)  # ACTIONS: the list above",
        ]
        return "\n".join(lines)


@dataclass
class Report:
    """What the playouts of one game found, per check."""

    playouts: int = 0
    steps: int = 0
    finished: int = 0
    violations: dict[str, list[Violation]] = field(default_factory=dict)
    tally: Counter[str] = field(default_factory=Counter)  # what the playouts reached (TALLIES) and checked

    def add(self, violation: Violation) -> None:
        self.violations.setdefault(violation.check, []).append(violation)


# -- small helpers ----------------------------------------------------------------------------------------


def short(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def error_text(error: BaseException) -> str:
    """The exception and where it was raised (the last frames), for a failure message."""
    frames = traceback.extract_tb(error.__traceback__)[-3:]
    where = " <- ".join(f"{f.filename.rsplit('/', 3)[-1]}:{f.lineno} {f.name}" for f in reversed(frames))
    return f"{type(error).__name__}: {short(str(error))} (at {where})"


def plain(value: Any) -> Any:
    """A dataclass as a dict of its fields, recursively; containers keep their types (to show tuple vs list)."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(plain(v) for v in value)
    return value


def difference(a: Any, b: Any, path: str = "$") -> str:
    """Where two values first differ, as a path and both sides."""
    if type(a) is not type(b):
        return f"{path}: {short(a)} ({type(a).__name__}) != {short(b)} ({type(b).__name__})"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b), key=repr):
            if key not in a or key not in b:
                return f"{path}: key {key!r} only on the {'right' if key not in a else 'left'}"
            found = difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return ""
    if isinstance(a, list | tuple):
        if len(a) != len(b):
            return f"{path}: length {len(a)} != {len(b)}: {short(a)} != {short(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return ""
    return "" if a == b else f"{path}: {short(a)} != {short(b)}"


def canonical(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def snapshot(game: Game, state: Any) -> bytes | None:
    try:
        return canonical(game.dump(state))
    except Exception:
        return None


def leaves(
    value: Any,
    *,
    keys: bool = False,
    skip: frozenset[str] = frozenset(),
    schema: frozenset[str] = frozenset(),
) -> list[tuple[str, str]]:
    """(path, string) for every string in a JSON value; dict keys too if asked, but for the `schema` names (the
    field names the rules write themselves); keys in `skip` are not entered."""
    found: list[tuple[str, str]] = []
    add = found.append

    # Appending in one recursion, not nested generators: every view of every state is walked (a third of the
    # playouts' time went to resuming generators).
    def walk(node: Any, path: str) -> None:
        if isinstance(node, str):
            add((path, node))
        elif isinstance(node, dict):
            for key, item in node.items():
                if keys and isinstance(key, str) and key not in schema:
                    add((f"{path}.<key>", key))
                if key not in skip:
                    walk(item, f"{path}.{key}")
        elif isinstance(node, list | tuple):
            for i, item in enumerate(node):
                walk(item, f"{path}[{i}]")

    walk(value, "$")
    return found


WORD = re.compile(r"\w+")


def find_cycle(root: Any) -> str | None:
    """A path from `root` to an object that contains itself (through dataclass fields and containers)."""
    on_path: set[int] = set()
    done: set[int] = set()

    def children(value: Any) -> list[tuple[str, Any]]:
        if is_dataclass(value) and not isinstance(value, type):
            return [(f".{f.name}", getattr(value, f.name)) for f in fields(value)]
        if isinstance(value, dict):
            return [(f"[{key!r}]", item) for key, item in value.items()]
        if isinstance(value, list | tuple | set | frozenset):
            return [(f"[{i}]", item) for i, item in enumerate(value)]
        return []

    def visit(value: Any, path: str) -> str | None:
        key = id(value)
        if key in on_path:
            return path
        if key in done or isinstance(value, str | int | float | bool | bytes | type(None)):
            return None
        on_path.add(key)
        for part, child in children(value):
            found = visit(child, path + part)
            if found is not None:
                return found
        on_path.discard(key)
        done.add(key)
        return None

    return visit(root, "state")


@functools.cache
def schema_names(game_class: type) -> frozenset[str]:
    """Every quoted name in the source of the rules' package: the field names of its events and views. A
    word a player writes that happens to be one ("type", "count") is no secret leaked as a key."""
    module = sys.modules[game_class.__module__]
    folder = Path(module.__file__ or "").parent
    files = [Path(module.__file__ or "")] if folder.name == "engine" else sorted(folder.glob("*.py"))
    return frozenset(name for file in files for name in SCHEMA_NAME.findall(file.read_text()))


SCHEMA_NAME = re.compile(r"""["']([a-z_]+)["']""")


def public_index(
    value: Any, skip: frozenset[str] = frozenset(), schema: frozenset[str] = frozenset()
) -> dict[str, str]:
    """Every string of a public value, and every word inside each, mapped to where it is."""
    index: dict[str, str] = {}
    for path, text in leaves(value, keys=True, skip=skip, schema=schema):
        index.setdefault(text, path)
        for word in WORD.findall(text):
            index.setdefault(word, path)
    return index


def verdict(result: object) -> str:
    """How the rules took an action tried by a check: accepted, or the refusal's class."""
    return "accepted" if not isinstance(result, Exception) else f"refused with {type(result).__name__}"


def as_sent_by(action: Action, player: str | None) -> Action:
    """What live play sends: the actor is the interaction's user, never what the action claims."""
    sent = {key: value for key, value in action.items() if key != "player"}
    if player is not None:
        sent["player"] = player
    return sent


def stale_value(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "-old"
    return ["stale", value]


def replay_log(
    name: str,
    players: list[str],
    options: dict[str, Any],
    seed: int,
    actions: list[Action],
    words: Any = None,
) -> tuple[Game, Any]:
    """The game and the state after `actions` (complete actions, as a failure lists them), as live play
    gets there: new_game with random.Random(seed), then step at versions 0, 1, …"""
    if words is None and name in GAME_PACKAGES:
        from bot.words import WordService

        words = WordService()
    game = build_game(name, words)
    state = game.new_game(options, players, {}, random.Random(seed))
    for version, action in enumerate(actions):
        state = step(game, state, seed, version, action)[1].state
    return game, state


# -- one playout --------------------------------------------------------------------------------------------


@dataclass
class Record:
    """One applied step, as logged."""

    sent: Action
    complete: Action
    before: bytes  # the state's dump before
    after: bytes  # the state's dump after
    events: bytes
    private: bytes


class Playout:
    def __init__(
        self,
        name: str,
        game: Game,
        options: dict[str, Any],
        count: int,
        seed: int,
        report: Report,
        perturb: Perturber | None = None,
        bots: Mapping[str, Policy] | None = None,
    ) -> None:
        self.name, self.game, self.options, self.seed, self.report = name, game, options, seed, report
        self.players = PLAYER_IDS[:count]
        # Bot seats (docs/bots.md), by their ids as live play seats them, each played by the game's policy.
        self.bots = dict(bots or {})
        if self.bots:
            self.players = [*PLAYER_IDS[: count - len(self.bots)], *self.bots]
        self.rng = random.Random(f"choices:{seed}")
        self.records: list[Record] = []
        self.initial: Any = None
        self.departed: set[str] = set()
        # The state being checked, with its dump and a deep copy of it.
        self._snapshot: tuple[Any, bytes | None] = (None, None)
        self._reference: tuple[Any, Any] = (None, None)
        # The views' secrets of the state last checked, the strings each player sees, the spectator's.
        self._secrets: tuple[Any, list[tuple[str, str, str]]] = (None, [])
        self._seen: dict[str, set[str]] = {}
        self._spectator: dict[str, str] = {}
        # Freshness: the values at the state before, and every value replaced so far per key (with the
        # step it was replaced at), those not yet replayed first.
        self._fresh_before: dict[str, Any] | None = None
        self._replaced: dict[str, dict[bytes, tuple[Any, int]]] = {}
        self._unreplayed: list[tuple[str, Any, int]] = []
        self.perturb = SECRET_PERTURBERS.get(name) if perturb is None else perturb
        self.sampler = getattr(game, "sample_action", None)

    # -- recording --

    def fail(self, check: str, detail: str) -> None:
        self.report.add(
            Violation(
                check,
                self.name,
                list(self.players),
                dict(self.options),
                self.seed,
                [r.complete for r in self.records],
                detail,
            )
        )

    def guard(self, check: str, what: str, run: Callable[[], Any]) -> Any:
        """Run a query of the game; an exception is a violation of `check`."""
        try:
            return run()
        except Exception as error:
            self.fail(check, f"{what} raised {error_text(error)}")
            return None

    # -- stepping --

    def attempt(
        self, state: Any, action: Action, check: str
    ) -> tuple[Action, Applied] | GameError | Exception:
        """step() as live play calls it; a non-GameError exception is a violation of `check`, and the
        state must be unchanged whatever happens."""
        before = self.snap(state)
        result: tuple[Action, Applied] | GameError | Exception
        try:
            result = step(self.game, state, self.seed, len(self.records), dict(action))
        except GameError as error:
            result = error
        except Exception as error:
            self.fail(check, f"step(…, {short(action)}) raised {error_text(error)}, not a GameError")
            result = error
        if self.unchanged(state):
            return result
        after = snapshot(self.game, state)
        if before is not None and after != before:
            self._snapshot = (state, after)
            self._reference = (None, None)
            outcome = "refused" if isinstance(result, Exception) else "accepted"
            self.fail(
                NO_MUTATION,
                f"applying {short(action)} ({outcome}) changed its input state: "
                + difference(orjson.loads(before), orjson.loads(after or b"null")),
            )
        return result

    def snap(self, state: Any) -> bytes | None:
        """The state's dump, computed once per state checked."""
        if self._snapshot[0] is not state:
            self._snapshot = (state, snapshot(self.game, state))
            self.unchanged(state)
        return self._snapshot[1]

    def unchanged(self, state: Any) -> bool:
        """Quick check: the state still equals the deep copy taken when it was reached (a dump is slower;
        it decides whenever this cannot)."""
        if self._reference[0] is not state:
            try:
                reference = copy.deepcopy(state)
            except Exception:
                reference = None
            self._reference = (state, reference)
        try:
            return self._reference[1] is not None and bool(state == self._reference[1])
        except Exception:
            return False

    def run(self) -> None:
        game = self.game
        self.report.playouts += 1
        try:
            state = game.new_game(self.options, self.players, {}, random.Random(self.seed))
        except Exception as error:
            self.fail(
                SETUP, f"new_game({self.options}, {len(self.players)} players) raised {error_text(error)}"
            )
            return
        self.initial = state
        for _ in range(MAX_STEPS):
            legal = self.check_state(state)
            if legal is None:
                break  # the game is over (or stuck: reported)
            applied = self.choose_and_apply(state, legal)
            if applied is None:
                break
            state = applied
        self.check_replay()

    def bot_move(self, state: Any, legal: dict[str, list[Action]]) -> Any:
        """A bot seat's move, as the table layer's driver makes it: its policy sees only its own view, its
        legal actions and its buttons, with the seat's own random source; what it chooses must be accepted.
        The new state, or None when no bot moves now (then the people and the timers act)."""
        game = self.game
        seats = [seat for seat in self.bots if seat not in self.departed and seat in legal]
        self.rng.shuffle(seats)
        for seat in seats:
            seen = Seen(
                seat=seat,
                view=game.view_for(state, seat),
                legal=tuple(legal.get(seat) or ()),
                offered=game.table_actions(state, seat),
            )
            rng = bot_rng(self.seed + sum(map(ord, seat)), len(self.records))
            move = self.guard(
                BOTS, f"{seat}'s policy", lambda p=self.bots[seat], s=seen, r=rng: p.choose(s, r)
            )
            if move is None:
                continue
            if (
                not isinstance(move, Move)
                or not isinstance(move.delay, int | float)
                or not 0 <= move.delay < 60
            ):
                self.fail(BOTS, f"{seat}'s policy chose {short(move)}: not a Move with a delay in seconds")
                continue
            sent = as_sent_by(move.action, seat)
            result = self.attempt(state, sent, BOTS)
            if isinstance(result, GameError):
                self.fail(
                    BOTS, f"{seat}'s bot move {short(sent)} was refused: {result.code}: {result.message}"
                )
                continue
            if isinstance(result, Exception):
                continue
            complete, applied = result
            self.check_step(state, sent, complete, applied)
            self.report.tally["bot moves"] += 1
            if sent.get("do") in DEPARTURES:
                self.departed.add(seat)
            self.report.steps += 1
            return applied.state
        return None

    def seen_by(self, state: Any, seat: str) -> Seen:
        game = self.game
        return Seen(
            seat=seat,
            view=game.view_for(state, seat),
            legal=tuple(game.legal_actions(state, seat) or ()),
            offered=game.table_actions(state, seat),
        )

    def check_no_peeking(self, state: Any, other: Any, seat: str, what: str) -> None:
        """A bot chooses the same move, with the same random source, in a state that differs only in a secret
        its seat may not see: it decides from its own view and actions alone."""
        policy, version = self.bots[seat], len(self.records)
        moves = [
            self.guard(
                BOTS,
                f"{seat}'s policy",
                lambda s=s: policy.choose(self.seen_by(s, seat), bot_rng(1, version)),
            )
            for s in (state, other)
        ]
        self.report.tally["bot choices compared with a secret changed"] += 1
        if moves[0] != moves[1]:
            self.fail(
                BOTS,
                f"{what}: {seat}'s bot, who may not see it, chose {short(moves[1])}, not {short(moves[0])}",
            )

    def choose_and_apply(self, state: Any, legal: dict[str, list[Action]]) -> Any:
        if self.bots:
            # A bot moves when it has a move, most of the time before the people (as its pace allows).
            if self.rng.random() < BOT_FIRST:
                moved = self.bot_move(state, legal)
                if moved is not None:
                    return moved
            legal = {player: actions for player, actions in legal.items() if player not in self.bots}
        timers: list[Timer] = self.guard(TIMERS, "timers(state)", lambda: list(self.game.timers(state))) or []
        freshness = self.guard(LEGAL, "freshness(state)", lambda: self.game.freshness(state))
        player_moves = [(p, a) for p, actions in legal.items() for a in actions]
        sampled = self.samples(state, legal)
        player_moves += sampled
        while player_moves or timers:
            usual = [a for _, a in player_moves if a.get("do") not in RARE]
            # Players act before the deadline most of the time; with nothing but rare moves, the timer runs out.
            chance = TIMER_CHANCE if usual else 1 - 1 / RARE_SHARE
            is_sample = False
            if timers and (not player_moves or self.rng.random() < chance):
                timer = timers.pop(self.rng.randrange(len(timers)))
                sent, check = as_sent_by(timer.action, None), TIMERS
                what = f"the action of timer {timer.key!r}"
            else:
                # Each kind of action a player has weighs the same however many variants it is offered in;
                # a sampled action takes SAMPLE_SHARE of its kind's weight.
                drawn = {(p, a.get("do")) for p, a in player_moves if any(a is b for _, b in sampled)}
                variants = Counter(
                    (p, a.get("do")) for p, a in player_moves if not any(a is b for _, b in sampled)
                )
                rare = len(player_moves) - len(usual)
                # Each kind weighs 1 however many variants it offers (below): the rare actions together weigh
                # 1/RARE_SHARE of the kinds, not of the variants, or a game with many variants would end early.
                kinds = len({(p, a.get("do")) for p, a in player_moves if a.get("do") not in RARE})
                seldom = max(kinds, 1) / (RARE_SHARE * max(rare, 1))
                weights = []
                for p, a in player_moves:
                    kind = (p, a.get("do"))
                    base = PASSIVE_WEIGHT if a.get("do") in PASSIVE else 1.0
                    if a.get("do") in RARE:
                        weights.append(seldom)
                    elif any(a is b for _, b in sampled):
                        weights.append(base * (SAMPLE_SHARE if variants[kind] else 1.0))
                    else:
                        weights.append(base * (1 - SAMPLE_SHARE if kind in drawn else 1.0) / variants[kind])
                index = self.rng.choices(range(len(player_moves)), weights)[0]
                player, action = player_moves.pop(index)
                is_sample = any(action is b for _, b in sampled)
                sent, check = as_sent_by(action, player), LEGAL
                what = f"{player}'s {'sampled' if is_sample else 'legal'} action"
                if isinstance(freshness, dict) and self.rng.random() < 0.5:
                    sent = {**sent, **freshness}  # as a button of the current message carries them
                    what += " carrying the current freshness values"
            result = self.attempt(state, sent, check)
            if isinstance(result, GameError):
                if is_sample:  # a sampler draws as players write: the rules may refuse it
                    self.report.tally["sampled actions refused"] += 1
                    continue
                self.fail(check, f"{what} {short(sent)} was refused: {result.code}: {result.message}")
                continue
            if isinstance(result, Exception):
                continue
            complete, applied = result
            self.check_step(state, sent, complete, applied)
            if is_sample:
                self.report.tally["sampled actions applied"] += 1
            tally = TALLIES.get(self.name)
            if tally is not None:
                self.report.tally.update(tally(sent, applied))
            if sent.get("do") in DEPARTURES and "player" in sent:
                self.departed.add(sent["player"])
            self.report.steps += 1
            return applied.state
        return None

    # -- checks of a state --

    def check_state(self, state: Any) -> dict[str, list[Action]] | None:
        """Check a reached state; the players' legal actions, or None when no action should follow."""
        game = self.game
        before = self.snap(state)
        self.unchanged(state)  # takes the deep copy the tries below are compared with
        self.check_round_trip(state)
        self.check_acyclic(state)
        legal = self.check_legal(state)
        views = self.check_views(state)
        outcome = self.guard(OUTCOME, "outcome(state)", lambda: game.outcome(state))
        self.check_outcome(state, outcome, legal)
        timers = self.check_timers(state)
        self.check_never_repeats(state, legal if outcome is None else {}, timers if outcome is None else [])
        if outcome is None:
            self.try_legal(state, legal)
            self.try_refusals(state, legal, timers)
            self.try_malformed(state, legal)
            if views is not None:
                self.check_indistinguishable(state, views, legal, timers)
        self.try_bad_do(state)
        if views is not None and self.records:
            self.check_step_secrets(state, views)
        after = before if self.unchanged(state) else snapshot(game, state)
        if after != before:
            self.fail(
                NO_MUTATION,
                "a query (view_for, legal_actions, table_actions, outcome, timers, freshness or a refused "
                "or tried action) changed the state: "
                + difference(orjson.loads(before or b"null"), orjson.loads(after or b"null")),
            )
        if outcome is not None:
            self.report.finished += 1
            return None
        if not any(legal.values()) and not timers:
            self.fail(OUTCOME, "outcome(state) is None, but no player has a legal action and no timer runs")
            return None
        return legal

    def samples(self, state: Any, legal: dict[str, list[Action]]) -> list[tuple[str, Action]]:
        """The game's sampled actions (free arguments drawn as players would write them), one per seated
        player, when the game has a sampler."""
        sampler = self.sampler
        if sampler is None:
            return []
        found = []
        for player in legal:
            action = self.guard(
                LEGAL,
                f"sample_action(state, {player!r}, rng)",
                lambda p=player: sampler(state, p, random.Random(self.rng.getrandbits(64))),
            )
            if action is None:
                continue
            problem = self._action_problem(action, self.game.action_names, player)
            if problem:
                self.fail(LEGAL, f"sample_action(state, {player!r}, rng) gives {short(action)}: {problem}")
            else:
                found.append((player, action))
        return found

    def check_never_repeats(self, state: Any, legal: dict[str, list[Action]], timers: list[Timer]) -> None:
        """No freshness value comes back once replaced; each replaced value, carried by an action legal
        now (as the button of an older message would carry it), is refused as stale_action."""
        fresh = self.guard(NEVER_REPEATS, "freshness(state)", lambda: self.game.freshness(state))
        if not isinstance(fresh, dict):
            return
        version = len(self.records)
        before, self._fresh_before = self._fresh_before, fresh
        for key, value in (before or {}).items():
            if key not in fresh or canonical(fresh[key]) != canonical(value):
                replaced = self._replaced.setdefault(key, {})
                if canonical(value) not in replaced:
                    replaced[canonical(value)] = (value, version)
                    self._unreplayed.append((key, value, version))
        for key, value in fresh.items():
            earlier = self._replaced.get(key, {}).get(canonical(value))
            if earlier is not None:
                self.fail(
                    NEVER_REPEATS,
                    f"freshness {key}={value!r} came back: it was replaced after step {earlier[1]} "
                    f"(freshness now {short(fresh)}), so a button of that older message acts again",
                )
        offered: list[tuple[str | None, Action]] = [(p, a) for p, actions in legal.items() for a in actions]
        offered += [(None, t.action) for t in timers]
        if not offered:
            return
        # Every replaced value once as soon as its key is back, then one earlier value per key at random.
        tries = [entry for entry in self._unreplayed if entry[0] in fresh]
        self._unreplayed = [entry for entry in self._unreplayed if entry[0] not in fresh]
        for key in fresh:
            known = list(self._replaced.get(key, {}).values())
            if known and self.rng.random() < TRY_CHANCE:
                value, when = self.rng.choice(known)
                tries.append((key, value, when))
        for key, value, when in tries:
            player, action = self.rng.choice(offered)
            sent = {**as_sent_by(action, player), **fresh, key: value}
            self.report.tally["earlier freshness values replayed"] += 1
            result = self.attempt(state, sent, NEVER_REPEATS)
            if not isinstance(result, StaleAction):
                got = verdict(result)
                self.fail(
                    NEVER_REPEATS,
                    f"{short(sent)} carries {key}={value!r}, replaced after step {when} ({key} is "
                    f"{fresh[key]!r} now), as a button of an older message would, and was {got}, not stale_action",
                )

    def check_indistinguishable(
        self, state: Any, views: Mapping[str | None, Any], legal: dict[str, list[Action]], timers: list[Timer]
    ) -> None:
        """Secrets as a player would look for them: a state that differs only in one player's secret gives
        everyone who may not see it the same views, and the same events for the same next action."""
        perturb = self.perturb
        if perturb is None or self.rng.random() > SECRET_CHANCE:
            return
        game, owner = self.game, self.rng.choice(self.players)
        made = self.guard(
            SECRETS,
            f"the secret perturber of {self.name!r} for {owner!r}",
            lambda: perturb(game, state, owner, random.Random(self.rng.getrandbits(64))),
        )
        if made is None:
            return
        other, facing, what = made
        self.report.tally["states compared with a secret changed"] += 1
        if facing == OWNER_ONLY:
            blind: list[str | None] = [q for q in [*self.players, None, OUTSIDER] if q != owner]
        else:
            blind = [owner]  # everyone but the owner sees it: the owner's own view must not change
        who = {None: "a spectator", OUTSIDER: "an outsider"}
        for viewer in blind:
            theirs = self.guard(
                SECRETS, f"view_for(changed state, {viewer!r})", lambda v=viewer: game.view_for(other, v)
            )
            if theirs is not None and canonical(theirs) != canonical(views[viewer]):
                self.fail(
                    SECRETS,
                    f"{what}: {who.get(viewer, viewer)}, who may not see it, gets another view_for: "
                    + difference(views[viewer], theirs),
                )
                return
        for seat in [viewer for viewer in blind if viewer in self.bots]:
            self.check_no_peeking(state, other, str(seat), what)
        offered: list[tuple[str | None, Action]] = [(p, a) for p, actions in legal.items() for a in actions]
        offered += [(None, t.action) for t in timers]
        if not offered:
            return
        player, action = self.rng.choice(offered)
        sent = as_sent_by(action, player)
        results: list[tuple[Action, Applied] | Exception] = []
        for start in (state, other):
            try:
                results.append(step(game, start, self.seed, len(self.records), dict(sent)))
            except Exception as error:  # GameError or not: the other checks report the latter
                results.append(error)
        one, two = results
        if isinstance(one, Exception) or isinstance(two, Exception):
            if (type(one) is not type(two)) and player in blind:
                self.fail(
                    SECRETS,
                    f"{what}: {player}, who may not see it, sends {short(sent)}: "
                    f"{'accepted' if not isinstance(one, Exception) else type(one).__name__} in one state, "
                    f"{'accepted' if not isinstance(two, Exception) else type(two).__name__} in the other",
                )
            return
        (_, first), (_, second) = one, two
        for viewer in blind:
            if canonical(game.view_for(first.state, viewer)) != canonical(
                game.view_for(second.state, viewer)
            ):
                return  # the action revealed the secret (a reveal, a card played): its events may tell it
        self.report.tally["next actions compared with a secret changed"] += 1
        if canonical(first.events) != canonical(second.events):
            self.fail(
                SECRETS,
                f"{what}: the public events of {short(sent)} differ, though the views after it still hide it: "
                + difference(orjson.loads(canonical(first.events)), orjson.loads(canonical(second.events))),
            )
            return
        for viewer in blind:
            if viewer is not None and canonical(first.private.get(viewer, [])) != canonical(
                second.private.get(viewer, [])
            ):
                self.fail(
                    SECRETS,
                    f"{what}: {viewer}'s private events of {short(sent)} differ: "
                    + difference(first.private.get(viewer, []), second.private.get(viewer, [])),
                )
                return

    def check_acyclic(self, state: Any) -> None:
        cycle = find_cycle(state)
        if cycle is not None:
            self.fail(ACYCLIC, f"the state refers back to itself: {cycle}")

    def check_round_trip(self, state: Any) -> None:
        game = self.game
        data = self.guard(ROUND_TRIP, "dump(state)", lambda: game.dump(state))
        if data is None:
            return
        try:
            text = json.dumps(data, allow_nan=False)
        except (TypeError, ValueError) as error:
            self.fail(ROUND_TRIP, f"dump(state) is not JSON: {error_text(error)}")
            return
        parsed = json.loads(text)
        if parsed != data:
            self.fail(
                ROUND_TRIP, "json.loads(json.dumps(dump(state))) != dump(state): " + difference(parsed, data)
            )
        loaded = self.guard(ROUND_TRIP, "load(dump(state))", lambda: game.load(data))
        if loaded is not None and loaded != state:
            self.fail(ROUND_TRIP, "load(dump(s)) != s: " + difference(plain(loaded), plain(state)))
        stored = self.guard(ROUND_TRIP, "load(stored JSON)", lambda: game.load(json.loads(text)))
        if stored is not None and stored != state:
            self.fail(
                ROUND_TRIP,
                "load(json.loads(json.dumps(dump(s)))) != s: " + difference(plain(stored), plain(state)),
            )
        try:
            direct = orjson.loads(state_json(state))
        except Exception as error:
            self.fail(ROUND_TRIP, f"state_json(state) failed: {error_text(error)}")
            return
        if direct != data:
            self.fail(ROUND_TRIP, "state_json(state) != dump(state): " + difference(direct, data))

    def check_legal(self, state: Any) -> dict[str, list[Action]]:
        game = self.game
        legal: dict[str, list[Action]] = {}
        names = game.action_names
        for player in self.players:
            actions = self.guard(
                LEGAL, f"legal_actions(state, {player!r})", lambda p=player: game.legal_actions(state, p)
            )
            if actions is None:
                if player not in self.departed:
                    self.fail(
                        LEGAL,
                        f"legal_actions(state, {player!r}) is None for a seated player (None is for players "
                        "not seated; an action with a free argument is offered with one example)",
                    )
                continue
            if not isinstance(actions, list):
                self.fail(LEGAL, f"legal_actions(state, {player!r}) is {short(actions)}, not a list")
                continue
            kept = []
            for action in actions:
                problem = self._action_problem(action, names, player)
                if problem:
                    self.fail(LEGAL, f"legal_actions(state, {player!r}) offers {short(action)}: {problem}")
                else:
                    kept.append(action)
            legal[player] = kept
        outsider = self.guard(
            LEGAL, "legal_actions(state, outsider)", lambda: game.legal_actions(state, OUTSIDER)
        )
        if outsider is not None:
            self.fail(
                LEGAL,
                f"legal_actions(state, {OUTSIDER!r}) for someone not playing is {short(outsider)}, not None",
            )
        for viewer in [*self.players, None, OUTSIDER]:
            offered = self.guard(
                LEGAL, f"table_actions(state, {viewer!r})", lambda v=viewer: game.table_actions(state, v)
            )
            if offered is None:
                continue
            if not isinstance(offered, set | frozenset) or not all(isinstance(n, str) for n in offered):
                self.fail(LEGAL, f"table_actions(state, {viewer!r}) is {short(offered)}, not a set of names")
            elif not set(offered) <= set(names):
                self.fail(
                    LEGAL,
                    f"table_actions(state, {viewer!r}) names {sorted(set(offered) - set(names))}, not in action_names",
                )
        return legal

    @staticmethod
    def _action_problem(action: Any, names: frozenset[str], player: str) -> str:
        if not isinstance(action, dict):
            return "not a dict"
        if action.get("do") not in names:
            return f"do {action.get('do')!r} is not in action_names"
        if action.get("player", player) != player:
            return "it names another player"
        try:
            if json.loads(json.dumps(action)) != action:
                return "it does not survive JSON (a custom_id or the log would change it)"
        except (TypeError, ValueError):
            return "it is not JSON"
        return ""

    def check_views(self, state: Any) -> dict[str | None, Any] | None:
        """Views of every player, a spectator and an outsider; each player's own secrets must stay theirs."""
        game = self.game
        views: dict[str | None, Any] = {}
        for viewer in [*self.players, None, OUTSIDER]:
            view = self.guard(
                SECRETS, f"view_for(state, {viewer!r})", lambda v=viewer: game.view_for(state, v)
            )
            if view is None:
                return None
            try:
                json.dumps(view, allow_nan=False)
            except (TypeError, ValueError) as error:
                self.fail(SECRETS, f"view_for(state, {viewer!r}) is not JSON: {error_text(error)}")
                return None
            views[viewer] = view
        # A key the rules write themselves ("game", "round") is no word leaked, whoever writes that word.
        schema = schema_names(type(game))
        public = {**public_index(views[OUTSIDER], schema=schema), **public_index(views[None], schema=schema)}
        self._spectator = public
        for player, secret, where in self.view_secrets(state, views):
            if secret in public:
                self.fail(
                    SECRETS,
                    f"{secret!r} is in view_for(state, {player!r}) only ({where}), yet a spectator or an outsider "
                    f"sees it at {public[secret]}",
                )
        return views

    def view_secrets(self, state: Any, views: Mapping[str | None, Any]) -> list[tuple[str, str, str]]:
        """(player, string, path): strings of at least 2 characters in p's view and in no other player's."""
        if self._secrets[0] is state:
            return self._secrets[1]
        ids = {*self.players, OUTSIDER}
        found = {p: list(leaves(views[p])) for p in self.players}
        seen = {p: {text for _, text in found[p]} for p in self.players}
        secrets = []
        # A solo table (Top Drop) has no other player to tell the player's own values from the public ones:
        # its secrets are checked by the perturber (indistinguishability) and its private events alone.
        for player in self.players if len(self.players) > 1 else []:
            mine = {text for text in seen[player] if len(text) >= 2 and text not in ids}
            for q in self.players:
                if q != player:
                    mine -= seen[q]
            secrets += [(player, text, path) for path, text in found[player] if text in mine]
        self._secrets = (state, secrets)
        self._seen = seen
        return secrets

    def check_outcome(self, state: Any, outcome: Any, legal: dict[str, list[Action]]) -> None:
        game = self.game
        output = self.guard(OUTCOME, "replay_output(state)", lambda: game.replay_output(state))
        if output is not None:
            try:
                json.dumps(output, allow_nan=False)
            except (TypeError, ValueError) as error:
                self.fail(OUTCOME, f"replay_output(state) is not JSON: {error_text(error)}")
            if (
                isinstance(output, dict)
                and "finished" in output
                and output["finished"] != (outcome is not None)
            ):
                self.fail(
                    OUTCOME,
                    f"replay_output says finished={output['finished']!r} but outcome(state) is {short(outcome)}",
                )
        if outcome is None:
            return
        if not isinstance(outcome, Outcome):
            self.fail(OUTCOME, f"outcome(state) is {short(outcome)}, not an Outcome")
            return
        problems = []
        if not set(self.players) <= set(outcome.scores):
            problems.append(f"scores miss {sorted(set(self.players) - set(outcome.scores))}")
        if not all(isinstance(s, int) and not isinstance(s, bool) for s in outcome.scores.values()):
            problems.append("a score is not a whole number")
        if not set(outcome.winners) <= set(self.players):
            problems.append(f"winners {outcome.winners} are not all players")
        if outcome.team_result not in (None, "won", "lost"):
            problems.append(f"team_result {outcome.team_result!r}")
        elif outcome.team_result is None and not problems:
            ranks = outcome.ranks()
            if any(ranks[w] != 1 for w in outcome.winners if w in ranks):
                problems.append(
                    f"winners {outcome.winners} are not all ranked first by the scores {outcome.scores}"
                )
        if (
            isinstance(output, dict)
            and "winners" in output
            and sorted(output["winners"]) != sorted(outcome.winners)
        ):
            problems.append(
                f"replay_output winners {output['winners']} differ from the outcome's {outcome.winners}"
            )
        offered = {p: a for p, a in legal.items() if a}
        if offered:
            problems.append(f"players still have legal actions: {short(offered)}")
        if problems:
            self.fail(OUTCOME, f"the finished game's outcome {short(outcome)}: " + "; ".join(problems))
        # Nothing is accepted once the game is over: replay the last step's kinds of action.
        if self.records:
            last = self.records[-1].sent
            result = self.attempt(state, last, OUTCOME)
            if not isinstance(result, Exception):
                self.fail(OUTCOME, f"after the end, {short(last)} is still accepted")

    def check_timers(self, state: Any) -> list[Timer]:
        timers = self.guard(TIMERS, "timers(state)", lambda: self.game.timers(state))
        if timers is None:
            return []
        keys = [getattr(t, "key", None) for t in timers]
        for timer in timers:
            problem = ""
            if not isinstance(timer, Timer):
                problem = "not a Timer"
            elif not isinstance(timer.key, str) or not timer.key:
                problem = "its key is not a non-empty string"
            elif keys.count(timer.key) > 1:
                problem = "its key is not unique"
            elif (
                isinstance(timer.seconds, bool)
                or not isinstance(timer.seconds, int | float)
                or not timer.seconds > 0
            ):
                problem = "seconds is not a positive number"
            elif not isinstance(timer.action, dict) or timer.action.get("do") not in self.game.action_names:
                problem = "its action's do is not in action_names"
            elif "player" in timer.action:
                problem = "a system action names a player (live play drops it: a timer acts as the system)"
            elif json.loads(json.dumps(timer.action)) != timer.action:
                problem = "its action does not survive JSON (the session stores it)"
            if problem:
                self.fail(TIMERS, f"timers(state) has {short(timer)}: {problem}")
        return list(timers)

    # -- tries --

    def try_legal(self, state: Any, legal: dict[str, list[Action]]) -> None:
        """A few of the offered actions besides the one chosen: each must be accepted."""
        offered = [(p, a) for p, actions in legal.items() for a in actions]
        for player, action in self.rng.sample(offered, min(LEGAL_SAMPLE, len(offered))):
            sent = as_sent_by(action, player)
            result = self.attempt(state, sent, LEGAL)
            if isinstance(result, GameError):
                self.fail(
                    LEGAL,
                    f"{player}'s legal action {short(sent)} was refused: {result.code}: {result.message}",
                )
            elif not isinstance(result, Exception):
                self.check_events(result[1])

    def try_refusals(self, state: Any, legal: dict[str, list[Action]], timers: list[Timer]) -> None:
        rng = self.rng
        kinds = {p: {a.get("do") for a in actions} for p, actions in legal.items()}
        seated = [p for p in legal if p not in self.departed]
        if len(seated) >= 2 and rng.random() < TRY_CHANCE:
            player = rng.choice(seated)
            foreign = [
                (q, a) for q in seated if q != player for a in legal[q] if a.get("do") not in kinds[player]
            ] + [("the system", t.action) for t in timers if t.action.get("do") not in kinds[player]]
            if foreign:
                owner, action = rng.choice(foreign)
                sent = as_sent_by(action, player)
                result = self.attempt(state, sent, REFUSALS)
                if not isinstance(result, Exception):
                    self.fail(
                        REFUSALS,
                        f"{player} sent {short(sent)}, an action of {owner}'s that legal_actions(state, {player!r}) "
                        f"does not offer (it offers {sorted(map(str, kinds[player]))}), and it was accepted",
                    )
        offered = [(p, a) for p, actions in legal.items() for a in actions]
        if offered and rng.random() < TRY_CHANCE:
            _, action = rng.choice(offered)
            sent = as_sent_by(action, OUTSIDER)
            if not isinstance(self.attempt(state, sent, REFUSALS), Exception):
                self.fail(REFUSALS, f"{OUTSIDER}, who is not playing, sent {short(sent)} and it was accepted")
        freshness = self.guard(REFUSALS, "freshness(state)", lambda: self.game.freshness(state))
        if not isinstance(freshness, dict):
            if freshness is not None:
                self.fail(REFUSALS, f"freshness(state) is {short(freshness)}, not a dict")
            return
        try:
            json.dumps(freshness)
        except TypeError as error:
            self.fail(REFUSALS, f"freshness(state) is not JSON: {error_text(error)}")
        if freshness and offered and rng.random() < TRY_CHANCE:
            player, action = rng.choice(offered)
            key = rng.choice(sorted(freshness))
            sent = {**as_sent_by(action, player), **freshness, key: stale_value(freshness[key])}
            result = self.attempt(state, sent, REFUSALS)
            if not isinstance(result, StaleAction):
                got = verdict(result)
                self.fail(
                    REFUSALS, f"{short(sent)} names a stale {key} (now {freshness[key]!r}) but was {got}"
                )

    def try_malformed(self, state: Any, legal: dict[str, list[Action]]) -> None:
        rng = self.rng
        offered = [(p, a) for p, actions in legal.items() for a in actions]
        if not offered or rng.random() > TRY_CHANCE:
            return
        player, action = rng.choice(offered)
        sent = as_sent_by(action, player)
        arguments = [k for k in sent if k != "do"]
        key = rng.choice(arguments)
        if key != "player" and rng.random() < 0.7:
            junk = rng.choice(JUNK_VALUES)
            variant = {**sent, key: junk}
            how = f"{key}={junk!r}"
        else:
            variant = {k: v for k, v in sent.items() if k != key}
            how = f"without {key}"
        result = self.attempt(state, variant, MALFORMED)
        if isinstance(result, Exception):
            return
        # Accepted: the odd value must still make a state that round-trips.
        new = result[1].state
        try:
            data = self.game.dump(new)
            ok = json.loads(json.dumps(data, allow_nan=False)) == data and self.game.load(data) == new
            if ok:
                state_json(new)
        except Exception as error:
            self.fail(
                MALFORMED,
                f"{short(variant)} ({how}) was accepted into a state that fails to dump: {error_text(error)}",
            )
            return
        if not ok:
            self.fail(
                MALFORMED, f"{short(variant)} ({how}) was accepted into a state that does not round-trip"
            )

    def try_bad_do(self, state: Any) -> None:
        junk = self.rng.choice([*JUNK_DO, "<missing>"])
        action: Action = {"player": self.rng.choice(self.players)}
        if junk != "<missing>":
            action["do"] = junk
        result = self.attempt(state, action, BAD_DO)
        if not isinstance(result, BadAction):
            got = verdict(result)
            self.fail(BAD_DO, f"{short(action)} was {got}, not refused with BadAction")

    # -- checks of a step --

    def check_events(self, applied: Applied) -> bool:
        ok = True
        if not isinstance(applied.events, list) or not all(
            isinstance(e, dict) and isinstance(e.get("type"), str) for e in applied.events
        ):
            self.fail(REPLAY, f"events {short(applied.events)} are not a list of {{'type': …}} objects")
            ok = False
        private = applied.private
        if not isinstance(private, dict) or not all(
            isinstance(events, list)
            and all(isinstance(e, dict) and isinstance(e.get("type"), str) for e in events)
            for events in private.values()
        ):
            self.fail(SECRETS, f"Applied.private {short(private)} is not {{player: [{{'type': …}}]}}")
            ok = False
        elif not set(private) <= set(self.players):
            self.fail(
                SECRETS,
                f"Applied.private is addressed to {sorted(set(private) - set(self.players))}, not players",
            )
        for label, value in (("events", applied.events), ("private events", private)):
            try:
                if json.loads(json.dumps(value, allow_nan=False)) != value:
                    self.fail(
                        REPLAY, f"the {label} do not survive JSON (the log stores them): {short(value)}"
                    )
                    ok = False
            except (TypeError, ValueError) as error:
                self.fail(REPLAY, f"the {label} are not JSON: {error_text(error)}")
                ok = False
        if ok:
            marked = [e for e in applied.events if "private_to" in e]
            if marked:
                self.fail(
                    SECRETS,
                    f"public events carry private_to (private events go in Applied.private): {short(marked)}",
                )
        return ok

    def check_step(self, state: Any, sent: Action, complete: Action, applied: Applied) -> None:
        game = self.game
        ok = self.check_events(applied)
        try:
            if json.loads(json.dumps(complete)) != complete:
                self.fail(
                    REPLAY, f"the complete action {short(complete)} does not survive JSON (the log stores it)"
                )
        except (TypeError, ValueError) as error:
            self.fail(REPLAY, f"the complete action {short(complete)} is not JSON: {error_text(error)}")
        version = len(self.records)
        again = self.guard(
            REPLAY,
            "resolve_chance on a complete action",
            lambda: game.resolve_chance(state, dict(complete), chance_rng(self.seed + 1, version + 1)),
        )
        if again is not None and again != complete:
            self.fail(
                REPLAY,
                f"resolve_chance changed the complete action {short(complete)} to {short(again)}: a logged or "
                "forced chance outcome must stay as it is",
            )
        self.records.append(
            Record(
                sent=sent,
                complete=complete,
                before=self.snap(state) or b"null",
                after=self.snap(applied.state) or b"null",
                events=canonical(applied.events) if ok else b"null",
                private=canonical(applied.private) if ok else b"null",
            )
        )
        self._last_applied = applied if ok else None

    def check_step_secrets(self, state: Any, views: Mapping[str | None, Any]) -> None:
        """The step that led here: nothing only one player may know is in its public events or the
        spectator's view (p's private events and p's own-only view values, minus what others see now)."""
        applied = getattr(self, "_last_applied", None)
        if applied is None:
            return
        self._last_applied = None
        ids = {*self.players, OUTSIDER}
        candidates = [(p, text, f"its view {path}") for p, text, path in self.view_secrets(state, views)]
        seen, spectator = self._seen, self._spectator
        public_events = public_index(
            applied.events, skip=frozenset({"type"}), schema=schema_names(type(self.game))
        )
        for player, events in applied.private.items():
            for path, text in leaves(events, skip=frozenset({"type"})):
                candidates.append((player, text, f"Applied.private[{player!r}] {path}"))
        done = set()
        for player, text, where in candidates:
            if len(text) < 2 or text in ids or (player, text) in done:
                continue
            if any(text in seen[q] for q in self.players if q != player):
                continue  # another player sees it too: not only this player's
            done.add((player, text))
            if text in public_events:
                self.fail(
                    SECRETS,
                    f"{text!r}, only {player}'s to know ({where}), is in the public events of the step "
                    f"{short(self.records[-1].sent)} at {public_events[text]}: {short(applied.events)}",
                )
            elif text in spectator and where.startswith("Applied"):
                self.fail(
                    SECRETS,
                    f"{text!r}, told privately to {player} ({where}), is in the spectator's view at {spectator[text]}",
                )

    # -- replay --

    def check_replay(self) -> None:
        """Replay the log from new_game; and continue from each JSON snapshot as a restarted bot would."""
        if not self.records:
            return
        game = self.game
        state = self.guard(
            REPLAY,
            "new_game (replay)",
            lambda: game.new_game(self.options, self.players, {}, random.Random(self.seed)),
        )
        if state is None:
            return
        if state != self.initial:
            self.fail(
                REPLAY,
                "new_game with the same seed gives another state: "
                + difference(plain(state), plain(self.initial)),
            )
            return
        logged, self.records = self.records, []
        try:
            for version, record in enumerate(logged):
                fresh = self._replay_step(
                    state, version, record, record.complete, "the logged complete action"
                )
                restored = None
                if version % RESTORE_EVERY == 0 or version == len(logged) - 1:
                    restored = self.guard(
                        REPLAY, "load(snapshot)", lambda r=record: game.load(json.loads(r.before))
                    )
                if restored is not None:
                    self._replay_step(
                        restored, version, record, record.sent, "the sent action on the restored snapshot"
                    )
                if fresh is None:
                    return
                state = fresh
                self.records.append(record)
        finally:
            self.records = logged

    def _replay_step(self, state: Any, version: int, record: Record, action: Action, what: str) -> Any:
        try:
            complete, applied = step(self.game, state, self.seed, version, dict(action))
        except Exception as error:
            self.fail(
                REPLAY, f"replaying {what} {short(action)} at version {version} raised {error_text(error)}"
            )
            return None
        problems = []
        if complete != record.complete:
            problems.append(f"complete action {short(complete)} != logged {short(record.complete)}")
        if canonical(applied.events) != record.events:
            problems.append(
                "events differ: "
                + difference(orjson.loads(canonical(applied.events)), orjson.loads(record.events))
            )
        if canonical(applied.private) != record.private:
            problems.append(
                "private events differ: "
                + difference(orjson.loads(canonical(applied.private)), orjson.loads(record.private))
            )
        after = snapshot(self.game, applied.state)
        if after != record.after:
            problems.append(
                "state differs: " + difference(orjson.loads(after or b"null"), orjson.loads(record.after))
            )
        if problems:
            self.fail(REPLAY, f"replaying {what} at version {version}: " + "; ".join(problems))
            return None
        return applied.state


# -- running the playouts once per game ------------------------------------------------------------------


def player_counts(game: Game) -> list[int]:
    low, high = game.min_players, game.max_players
    return sorted({*range(low, min(high, low + EXTRA_COUNTS) + 1), max(low, min(high, MAX_COUNT))})


def seeds_for(name: str, options_index: int, count: int) -> list[int]:
    source = random.Random(f"{name}:{options_index}:{count}")
    return [source.getrandbits(128) for _ in range(SEEDS)]


@pytest.fixture(scope="module")
def words() -> Any:
    """The real words service, loaded once for this module (each language on first use)."""
    from bot.words import WordService

    return WordService()


class Reports:
    """Each game's playouts, run once per test run: the checks of one game are tests that xdist hands to
    different workers, so the first worker to ask plays them and leaves the report in the folder the
    workers share; the others wait for it and read it back (the playouts are seeded: the same anywhere)."""

    kind = "rules"

    def __init__(self, words: Any, folder: Path) -> None:
        self.words = words
        self.folder = folder
        self.done: dict[str, Report] = {}

    def get(self, name: str) -> Report:
        if name not in self.done:
            self.done[name] = self._shared(name)
        return self.done[name]

    def _shared(self, name: str) -> Report:
        path = self.folder / f"conformance-{self.kind}-{name}.pickle"
        with open(path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            if path.exists():
                report: Report = pickle.loads(path.read_bytes())
                return report
            report = self.compute(name)
            path.write_bytes(pickle.dumps(report))
            return report

    def compute(self, name: str) -> Report:
        report = play(name, build_game(name, self.words))
        print(f"\n{name}: {report.playouts} playouts, {report.steps} steps, {report.finished} finished; "
              + ", ".join(f"{what}: {n}" for what, n in sorted(report.tally.items())))  # fmt: skip
        return report


@pytest.fixture(scope="module")
def shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of this test run that every xdist worker sees (each worker's base folder is inside it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def play(
    name: str,
    game: Game,
    option_sets: tuple[dict[str, Any], ...] | None = None,
    counts: list[int] | None = None,
    seeds: int | None = None,
    perturb: Perturber | None = None,
    first_index: int = 0,
    bot_seats: int = 0,
) -> Report:
    """The playouts of one game (by default every option set of PLAY_OPTIONS, player count and seed); the
    seeds of option set i are those of PLAY_OPTIONS[name][first_index + i]."""
    report = Report()
    chosen = PLAY_OPTIONS.get(name, ({},)) if option_sets is None else option_sets
    for index, options in enumerate(chosen, start=first_index):
        for count in player_counts(game) if counts is None else counts:
            for seed in seeds_for(name, index, count)[:seeds]:
                bots = with_bots(name, count, bot_seats, seed)
                playout = Playout(name, game, dict(options), count, seed, report, perturb, bots)
                try:
                    playout.run()
                except Exception as error:  # a query the playout does not guard: still a finding
                    playout.fail(SETUP, f"the playout stopped: {error_text(error)}")
    return report


@pytest.fixture(scope="module")
def reports(words: Any, shared_folder: Path) -> Reports:
    return Reports(words, shared_folder)


# -- bot seats: the same playouts with some seats played by the game's policies --------------------------

BOT_SUBJECTS = [info.name for info in every_game() if info.bots is not None]
_WORDS: list[Any] = []  # the words service the policies are given (the module's, once loaded)


def with_bots(name: str, count: int, seats: int, seed: int) -> dict[str, Policy]:
    """`seats` bot seats (all but one seat at most: a game needs a person), their levels drawn by the seed."""
    info = next((info for info in every_game() if info.name == name), None)
    if not seats or info is None or info.bots is None:
        return {}
    levels = random.Random(f"levels:{seed}")
    return {
        bot_id(n): info.bots(levels.choice(LEVELS), _WORDS[0] if _WORDS else None)
        for n in range(1, min(seats, count - 1) + 1)
    }


class BotReports(Reports):
    """Playouts in which every seat but one is a bot seat (a person and bots, as a solo game)."""

    kind = "bots"

    def compute(self, name: str) -> Report:
        _WORDS[:] = [self.words]
        game = build_game(name, self.words)
        report = play(name, game, bot_seats=game.max_players)
        print(f"\n{name} with bots: {report.playouts} playouts, {report.steps} steps, "
              f"{report.tally['bot moves']} bot moves, {report.finished} finished")  # fmt: skip
        return report


@pytest.fixture(scope="module")
def bot_reports(words: Any, shared_folder: Path) -> BotReports:
    return BotReports(words, shared_folder)


@pytest.mark.parametrize("name", BOT_SUBJECTS)
@pytest.mark.parametrize("check", [SETUP, BOTS, LEGAL, REFUSALS, REPLAY, SECRETS, OUTCOME])
def test_bot_seats_play_ordinary_accepted_actions(bot_reports: BotReports, name: str, check: str) -> None:
    """With bot seats, every move a bot's policy chooses from its own view and legal actions is accepted
    (a bot's moves are ordinary actions), a bot chooses alike in a state that differs only in a secret its
    seat may not see (no peeking), and the playouts pass the contract's checks as any other."""
    assert_clean(bot_reports, name, check)
    if check == BOTS:
        tally = bot_reports.get(name).tally
        assert tally["bot moves"] > 0, f"{name}: no bot moved in any playout"
        if name in SECRET_PERTURBERS:  # no peeking: its choices were compared with a secret changed
            assert tally["bot choices compared with a secret changed"] > 0, name


SHOWN_KINDS = 3


def kind_of(detail: str) -> str:
    """A violation's text without values (brackets, quoted words, figures): what kind of problem it is."""
    text, previous = detail, None
    while text != previous:  # innermost brackets first
        previous, text = text, re.sub(r"\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}", "…", text)
    return re.sub(r"'[^'\s]*'|\"[^\"\s]*\"|\d+", "…", text)[:80]


def assert_clean(reports: Reports, name: str, check: str) -> None:
    report = reports.get(name)
    found = report.violations.get(check, [])
    if found:
        # One reproduction per kind of violation (its text without names and figures), the shortest first.
        kinds: dict[str, Violation] = {}
        for violation in sorted(found, key=lambda v: (len(v.actions), len(v.players))):
            kinds.setdefault(kind_of(violation.detail), violation)
        shown = list(kinds.values())[:SHOWN_KINDS]
        pytest.fail(
            f"{name}: {len(found)} {check} violation(s) of {len(kinds)} kind(s) in {report.playouts} playouts; "
            f"the shortest of each{' (the first ' + str(SHOWN_KINDS) + ')' if len(kinds) > SHOWN_KINDS else ''}:\n\n"
            + "\n\n".join(v.render() for v in shown),
            pytrace=False,
        )
    if check != SETUP and report.steps == 0:
        # Why nothing moved: the playouts' own failures first, then an offered action or timer that broke.
        blocking = [
            v
            for c in (SETUP, LEGAL, TIMERS)
            for v in report.violations.get(c, [])
            if c == SETUP or v.detail.startswith("step(") or " was refused" in v.detail
        ]
        why = blocking[0].detail if blocking else "no action was offered"
        pytest.fail(f"{name}: no playout applied a single step, so nothing was checked: {why}", pytrace=False)


# -- the per-game tests --------------------------------------------------------------------------------------

subjects = pytest.mark.parametrize("name", SUBJECTS)


@subjects
def test_the_game_implements_the_protocol(name: str, words: Any) -> None:
    game = build_game(name, words)
    missing = [m for m in dir(Game) if not m.startswith("_") and not hasattr(game, m)]
    assert not missing, f"{name} lacks {missing}"
    assert isinstance(game.name, str) and game.name
    assert isinstance(game.min_players, int) and 1 <= game.min_players <= game.max_players
    assert isinstance(game.action_names, frozenset) and all(isinstance(n, str) for n in game.action_names)
    assert isinstance(game.slow_actions, frozenset) and game.slow_actions <= game.action_names


@subjects
def test_playouts_start_and_run(reports: Reports, name: str) -> None:
    """new_game accepts the play options for every player count, and no playout breaks down."""
    assert_clean(reports, name, SETUP)


@subjects
def test_state_round_trips_through_json(reports: Reports, name: str) -> None:
    """(a) load(dump(s)) == s, also through the stored JSON text; state_json(s) == dump(s)."""
    assert_clean(reports, name, ROUND_TRIP)


def test_find_cycle_finds_a_cycle_and_accepts_shared_parts() -> None:
    shared = {"letters": ["a", "b"]}
    assert find_cycle({"one": shared, "two": shared, "rounds": [shared]}) is None
    looped: dict[str, Any] = {"rounds": [{"number": 1}]}
    looped["rounds"][0]["back"] = looped
    assert find_cycle(looped) == "state['rounds'][0]['back']"


@subjects
def test_no_state_holds_a_reference_cycle(reports: Reports, name: str) -> None:
    """A replaced state is freed by reference counting alone (the engine freezes what survives its paced
    collections, so a state in a cycle would never be freed)."""
    assert_clean(reports, name, ACYCLIC)


@subjects
def test_nothing_mutates_the_state_it_is_given(reports: Reports, name: str) -> None:
    """(b) apply (accepted or refused) and every query leave their input state as it was."""
    assert_clean(reports, name, NO_MUTATION)


@subjects
def test_actions_legal_actions_does_not_offer_are_refused(reports: Reports, name: str) -> None:
    """(b) another player's action, a system action sent by a player, an outsider's, a stale one."""
    assert_clean(reports, name, REFUSALS)


@subjects
def test_a_freshness_value_never_comes_back_and_earlier_ones_are_stale(reports: Reports, name: str) -> None:
    """Every value a button could carry, once replaced, is refused as stale_action against every later
    state (an older message's button never acts again), and never becomes current again."""
    assert_clean(reports, name, NEVER_REPEATS)
    assert reports.get(name).tally["earlier freshness values replayed"], (
        f"{name}: no earlier value was replayed"
    )


@subjects
def test_the_log_replays_to_the_same_states_and_events(reports: Reports, name: str) -> None:
    """(c) replay from new_game and from each restored snapshot gives equal states and events."""
    assert_clean(reports, name, REPLAY)


@subjects
def test_no_secret_reaches_spectators_or_public_events(reports: Reports, name: str) -> None:
    """(d) what only p sees is in neither view_for(s, None) nor an outsider's view nor public events; and a
    state with one player's secret changed looks the same to everyone who may not see it."""
    assert_clean(reports, name, SECRETS)
    if name in SECRET_PERTURBERS:
        tally = reports.get(name).tally
        assert tally["states compared with a secret changed"], f"{name}: no state had a secret to change"
        assert tally["next actions compared with a secret changed"], f"{name}: no next action was compared"


@subjects
def test_playouts_reach_what_each_game_requires(reports: Reports, name: str) -> None:
    """A game's hooks name what its playouts must reach (Top Stop: words judged, disputed and voted on,
    through its sampler), so that the checks above ran on real play, not only on its first steps."""
    must_reach = getattr(game_hooks(name), "MUST_REACH", ())
    tally = reports.get(name).tally
    reached = {what: tally[what] for what in must_reach}
    print(f"\n{name} playouts: {dict(tally)}")
    assert all(reached.values()), f"{name} playouts did not reach all of {reached}"


@subjects
def test_legal_actions_are_accepted(reports: Reports, name: str) -> None:
    """(e) every offered action is accepted; None only for players not seated; table_actions known."""
    assert_clean(reports, name, LEGAL)


@subjects
def test_timers_are_well_formed_and_their_actions_accepted(reports: Reports, name: str) -> None:
    assert_clean(reports, name, TIMERS)


@subjects
def test_outcome_is_none_until_the_end_then_covers_the_players(reports: Reports, name: str) -> None:
    """(g) and a game that is not over always has a legal action or a timer."""
    assert_clean(reports, name, OUTCOME)


@subjects
def test_malformed_arguments_are_refused_with_a_game_error(reports: Reports, name: str) -> None:
    assert_clean(reports, name, MALFORMED)


@subjects
def test_unknown_do_is_a_bad_action_in_every_state(reports: Reports, name: str) -> None:
    """(f) at every reached state."""
    assert_clean(reports, name, BAD_DO)


def test_the_playouts_reach_the_end_of_games(reports: Reports) -> None:
    """The checks of finished games only mean something if random play finishes some."""
    unfinished = [name for name in SUBJECTS if reports.get(name).steps and not reports.get(name).finished]
    assert not unfinished, f"no playout of {unfinished} reached an outcome in {MAX_STEPS} steps"


# -- options and bad actions, with hypothesis ---------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
FAST = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@subjects
def test_validate_options_fills_the_defaults(name: str, words: Any) -> None:
    """(f) validate_options({}) is the full set of options, JSON, and valid again as it is."""
    game = build_game(name, words)
    defaults = game.validate_options({})
    assert isinstance(defaults, dict)
    assert json.loads(json.dumps(defaults)) == defaults
    assert game.validate_options(defaults) == defaults
    for options in PLAY_OPTIONS.get(name, ({},)):
        assert isinstance(game.validate_options(options), dict)
    players = PLAYER_IDS[: game.min_players]
    game.new_game(defaults, players, {}, random.Random(0))


@subjects
@FAST
@given(key=st.text(min_size=1, max_size=12), value=JSON_VALUES, known=st.booleans())
def test_junk_options_are_bad_actions(name: str, words: Any, key: str, value: Any, known: bool) -> None:
    """(f) an unknown option is refused with BadAction; a known one with any value gives options or BadAction."""
    game = build_game(name, words)
    defaults = game.validate_options({})
    if known and defaults:
        key = sorted(defaults)[len(key) % len(defaults)]
    try:
        checked = game.validate_options({key: value})
    except BadAction:
        return
    assert key in defaults, f"validate_options accepted the unknown option {key!r}: {checked}"
    assert isinstance(checked, dict)


@subjects
@FAST
@given(
    do=st.sampled_from(JUNK_DO) | st.text(max_size=10) | JSON_VALUES,
    missing=st.booleans(),
    seat=st.integers(0, 1),
)
def test_unknown_do_is_a_bad_action(name: str, words: Any, do: Any, missing: bool, seat: int) -> None:
    """(f) at the start: an unknown, non-string or missing `do` is refused with BadAction, never another error."""
    game = build_game(name, words)
    if isinstance(do, str) and do in game.action_names:
        return
    players = PLAYER_IDS[: game.min_players]
    state = game.new_game(PLAY_OPTIONS.get(name, ({},))[0], players, {}, random.Random(1))
    action: Action = {} if missing else {"do": do}
    if seat:
        action["player"] = players[0]
    with pytest.raises(BadAction):
        step(game, state, 1, 0, action)
