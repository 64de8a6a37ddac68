"""The TopWords state: plain data that orjson serialises as it is and that round-trips through JSON exactly."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, overload

import orjson

from bot.engine.game import as_dict
from bot.games.topwords.rules import Board, empty_board

MODES = ("strict", "challenge")


@dataclass
class Options:
    """Game options (SCENARIOS.md): language, mode, check_words; plus the two windows the timers run."""

    language: str = "de"
    mode: str = "strict"  # RULES-NOTES: strict is the default
    check_words: bool = True
    challenge_seconds: int = 30  # challenge mode: the window after a move that would end the game
    vote_seconds: int = 30  # a dispute's vote window (as Top Stop's)
    turn_seconds: int = 0  # the turn timer: an idle player's turn is passed after it (0: no timer)


@dataclass(eq=False)
class ScoredWord(Mapping[str, Any]):
    """A word a move formed and its points; read as the JSON object it is stored as ({"word", "points"})."""

    word: str
    points: int

    def __getitem__(self, key: str) -> Any:
        return getattr(self, _WORD_KEYS[key])  # a key it does not have: KeyError, as a dictionary's

    def __iter__(self) -> Iterator[str]:
        return iter(_WORD_KEYS)

    def __len__(self) -> int:
        return len(_WORD_KEYS)


@dataclass(eq=False)
class MoveRecord(Mapping[str, Any]):
    """One accepted move, read as the JSON object it is stored as (record["tiles"], …); orjson writes it as
    that JSON (fields in the stored keys' order). Not slotted: orjson writes a dataclass with a __dict__ five
    times faster, and the history holds only its last move as an object (see History)."""

    move: int
    player: str
    tiles: list[list[Any]]  # [row, col, letter] each
    words: list[ScoredWord]
    doubled: bool
    bonus: int
    points: int

    def __getitem__(self, key: str) -> Any:
        return getattr(self, _MOVE_KEYS[key])  # a key it does not have: KeyError, as a dictionary's

    def __iter__(self) -> Iterator[str]:
        return iter(_MOVE_KEYS)

    def __len__(self) -> int:
        return len(_MOVE_KEYS)

    def plain(self) -> dict[str, Any]:
        """As a dictionary of plain JSON values (for views and events)."""
        return {
            **{key: getattr(self, key) for key in _MOVE_KEYS},
            "tiles": [list(tile) for tile in self.tiles],
            "words": [{"word": w.word, "points": w.points} for w in self.words],
        }

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> MoveRecord:
        """From its stored JSON object (new containers: nothing shared with `data`)."""
        return cls(
            data["move"],
            data["player"],
            [list(tile) for tile in data["tiles"]],
            [ScoredWord(w["word"], w["points"]) for w in data["words"]],
            data["doubled"],
            data["bonus"],
            data["points"],
        )


class History(Sequence[MoveRecord]):
    """The accepted moves, oldest first, as memory holds them: every move but the last as its JSON text, one
    bytes object for all of them (about 110 bytes a move, against 600 as objects), and the last as a
    `MoveRecord`, the one the rules read (a challenge, a dispute, its words to record) and may take back.
    Earlier moves are decoded only when something reads them all (the views, a snapshot, the replay's output).
    Never changed once built: `plus` and `without_last` make new histories."""

    __slots__ = ("_earlier", "_count", "_last")

    def __init__(self, records: Iterable[MoveRecord] = ()) -> None:
        every = list(records)
        self._earlier = b",".join(orjson.dumps(record) for record in every[:-1])
        self._count = max(len(every) - 1, 0)
        self._last: MoveRecord | None = every[-1] if every else None

    def plus(self, record: MoveRecord) -> History:
        """This history and one more move (the last one so far joins the packed text)."""
        new = History.__new__(History)  # (skipping __init__: this is every move's path)
        if self._last is None:
            new._earlier, new._count = self._earlier, self._count
        else:
            last = orjson.dumps(self._last)
            new._earlier = self._earlier + b"," + last if self._earlier else last
            new._count = self._count + 1
        new._last = record
        return new

    def without_last(self) -> History:
        """The history without its last move (a move taken back)."""
        return History(list(self)[:-1])

    @property
    def last(self) -> MoveRecord | None:
        return self._last

    def __len__(self) -> int:
        return self._count + (self._last is not None)

    @overload
    def __getitem__(self, index: int) -> MoveRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[MoveRecord]: ...

    def __getitem__(self, index: int | slice) -> MoveRecord | list[MoveRecord]:
        if (index == -1 or index == self._count) and self._last is not None:  # the last: what the rules read
            return self._last
        return list(self)[index]

    def __iter__(self) -> Iterator[MoveRecord]:
        if self._earlier:
            yield from (MoveRecord.of(data) for data in orjson.loads(b"[" + self._earlier + b"]"))
        if self._last is not None:
            yield self._last

    def plain(self) -> list[dict[str, Any]]:
        """Every move as a dictionary of plain JSON values (for views): the packed ones decoded at once."""
        earlier: list[dict[str, Any]] = orjson.loads(b"[" + self._earlier + b"]") if self._earlier else []
        return earlier + ([self._last.plain()] if self._last is not None else [])

    def json_fragment(self) -> orjson.Fragment:
        """Its JSON as stored, for the engine's encoding of the state (bot.engine.game.state_json)."""
        if self._last is None:
            return orjson.Fragment(b"[]")
        last = orjson.dumps(self._last)
        return orjson.Fragment(b"[" + (self._earlier + b"," + last if self._earlier else last) + b"]")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, History):
            return (self._earlier, self._last) == (other._earlier, other._last)
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"History({list(self)!r})"


# Each field by its key, in the stored order.
_WORD_KEYS = {key: key for key in ("word", "points")}
_MOVE_KEYS = {key: key for key in ("move", "player", "tiles", "words", "doubled", "bonus", "points")}


@dataclass
class State:
    """Everything about one game. Records (history, pending, vote, …) are JSON objects as stored.

    A state is never changed once built: `apply` makes a new one that shares every list and dict it does
    not change with the state it came from (`bot.engine.game.shallow_copy`), so nothing here may be
    mutated in place.
    """

    players: list[str]
    options: Options = field(default_factory=Options)
    board: Board = field(default_factory=empty_board)
    racks: dict[str, str] = field(default_factory=dict)
    bag: str = ""  # draw order: the next tile drawn is bag[0]
    scores: dict[str, int] = field(default_factory=dict)
    turn: int = 0  # index into players of the one to move
    phase: str = "play"  # play | vote | final_challenge | over
    passes: int = 0  # passes in a row
    first_player: str = ""
    start_draw: list[dict[str, str]] = field(default_factory=list)  # one round per draw, ties draw again
    history: History = field(default_factory=History)  # one record per accepted move
    pending: dict[str, Any] | None = None  # the last move while it may still be challenged or disputed
    taken_back: dict[str, Any] | None = None  # the move just taken back, until its player acts again
    vote: dict[str, Any] | None = None  # the open dispute
    overrides: dict[str, bool] = field(default_factory=dict)  # words the table voted on: allowed or not
    # The server's own dictionary as it stood at the start (case-folded word -> {"valid", "day"}).
    server_words: dict[str, dict[str, Any]] = field(default_factory=dict)
    ending: str | None = None  # challenge mode: why the game ends once the final window closes
    end_reason: str | None = None  # out | passes | no_words
    penalties: dict[str, int] = field(default_factory=dict)
    passes_log: list[dict[str, Any]] = field(default_factory=list)
    challenges: list[dict[str, Any]] = field(default_factory=list)
    votes: list[dict[str, Any]] = field(default_factory=list)
    left: list[str] = field(default_factory=list)  # players who left, in order; their seats are skipped
    idle: dict[str, int] = field(default_factory=dict)  # turns passed by the timer in a row, per player
    turn_no: int = 0  # +1 each time a turn begins: what a turn timer was armed for
    # Freshness (what a button names), counted up and never back down, so that a value once replaced never
    # comes back: +1 at each move made and at each move taken back (the `move` a button is made against) …
    board_changes: int = 0
    votes_opened: int = 0  # … and the votes opened so far, cancelled ones included (the next vote's id - 1)

    @property
    def current(self) -> str:
        return self.players[self.turn]

    @property
    def moves(self) -> int:
        return len(self.history)

    @property
    def seated(self) -> list[str]:
        """The players still in the game, in seat order."""
        return [p for p in self.players if p not in self.left] if self.left else self.players


def dump_state(state: State) -> dict[str, Any]:
    data = as_dict(replace(state, history=History()))
    data["history"] = state.history.plain()
    return data


def load_state(stored: dict[str, Any]) -> State:
    # The state shares nothing with the caller's data: new containers, the history as records.
    data = {key: _copied(value) for key, value in stored.items() if key != "history"}
    data["history"] = History(MoveRecord.of(record) for record in stored["history"])
    options = Options(**data.pop("options"))
    if "board_changes" not in data:  # saved before the counters: what they would be now
        taken_back = sum(1 for c in data["challenges"] if c["success"]) + sum(
            1 for v in data["votes"] if v["kind"] == "take_back" and not v["allowed"]
        )
        data["board_changes"] = len(data["history"]) + 2 * taken_back  # each taken back was first made
    if "votes_opened" not in data:  # votes cancelled before then were never counted: their ids may repeat
        data["votes_opened"] = len(data["votes"]) + (data["vote"] is not None)
    return State(options=options, **data)


def _copied(value: Any) -> Any:
    """A JSON value with new containers (what copy.deepcopy does for JSON, without its bookkeeping)."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value
