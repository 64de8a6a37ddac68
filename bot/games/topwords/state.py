"""The TopWords state: plain data that orjson serialises as it is and that round-trips through JSON exactly."""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field
from typing import Any

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
    history: list[dict[str, Any]] = field(default_factory=list)  # one record per accepted move
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
    return asdict(state)


def load_state(data: dict[str, Any]) -> State:
    data = copy.deepcopy(data)  # the state must share nothing with the caller's data
    options = Options(**data.pop("options"))
    if "board_changes" not in data:  # saved before the counters: what they would be now
        taken_back = sum(1 for c in data["challenges"] if c["success"]) + sum(
            1 for v in data["votes"] if v["kind"] == "take_back" and not v["allowed"]
        )
        data["board_changes"] = len(data["history"]) + 2 * taken_back  # each taken back was first made
    if "votes_opened" not in data:  # votes cancelled before then were never counted: their ids may repeat
        data["votes_opened"] = len(data["votes"]) + (data["vote"] is not None)
    return State(options=options, **data)
