"""Top Stop state as plain dataclasses that round-trip through JSON exactly."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from bot.engine import votes
from bot.engine.game import as_dict
from bot.engine.votes import Tally
from bot.games.topstop.cards import (
    Advanced,
    RoundCards,
    copy_advanced,
    copy_round_cards,
    load_advanced,
    load_round_cards,
)

# Phases. The rulebook's four phases per round are the spin, writing, words reveal and scoring; reveal and
# scoring "may be done simultaneously", so the bot shows the judged lists in `review` (where players dispute
# verdicts) and scores them when the review closes (`end_round`).
FIRST_SPIN = "first_spin"  # Starting the game: everyone spins, the lowest letter is the first spinner
DRAW = "draw"  # Advanced game: The Draw (Level card?, Ba Oossee card and its choices), before the spin
SPIN = "spin"
CHOOSE = "choose"  # Advanced game: Level I's letter or Level II's second letter, after the spin
WRITING = "writing"
REVIEW = "review"
OVER = "over"

# Invalid-word reasons, in the order RULES-NOTES gives: a word breaking several rules reports the first.
# `level` and `category` belong to the Advanced game's Level cards and are never produced by the base game.
REASONS = (
    "not_a_word",
    "wrong_letter",
    "proper_noun",
    "abbreviation",
    "common",
    "duplicate",
    "variant",
    "level",
    "category",
    "voted_out",
)


@dataclass
class Options:
    """The table's settings; `target` is resolved from the player count when not given."""

    language: str = "en"
    mode: str = "base"
    words: int = 5
    target: int = 50
    check_words: bool = True
    grace: float = 10.0
    writing_time: float = 180.0
    review_time: float = 30.0
    spin_time: float = 60.0
    vote_time: float = 30.0
    today: str | None = None  # Advanced game, birthday card: today's month and day ("MM-DD")
    country: str | None = None  # Advanced game, Level VII first names: the table's country (lb, fr, de)


# Not slotted: only the current round's entries are objects (a finished round is packed), and orjson writes
# a dataclass with an instance dict four times faster (a snapshot, a round packed).
@dataclass
class Entry:
    """One revealed word, judged by the bot and possibly settled by a dispute vote."""

    word: str
    lemmas: list[str]
    lemma_key: str
    reason: str | None  # the bot's verdict: None when valid, else the first rule the word breaks
    disputed: bool = False
    vote: bool | None = None  # a dispute's decision: True accepted, False crossed out, None no majority
    ruled: str | None = None  # the day this server's dictionary decided the word (a vote in an earlier game)

    @property
    def final_reason(self) -> str | None:
        """The verdict after any vote: accepted words are valid, a valid word voted down is `voted_out`."""
        if self.vote is True:
            return None
        if self.vote is False:
            return self.reason or "voted_out"
        return self.reason

    @property
    def valid(self) -> bool:
        return self.final_reason is None


@dataclass(slots=True)
class Dispute:
    """A vote on one word (FAQ 4): everyone in the round except the disputer votes."""

    disputer: str
    owner: str
    index: int
    voters: list[str]
    votes: dict[str, bool] = field(default_factory=dict)
    number: int = 0  # the vote's number in the game (1, 2, …), named by its buttons

    @property
    def tally(self) -> Tally:
        """Majority of votes cast; a tie decides nothing (the verdict stays)."""
        return votes.tally(self.votes, self.voters)


@dataclass
class Round:
    """One round: its spinner, letter, the secret lists while writing, the judged lists after."""

    number: int
    spinner: str
    players: list[str]  # who writes this round: every seated player, or the tied players in a tiebreak
    tiebreak: bool = False
    letter: str | None = None
    respun: list[str] = field(default_factory=list)  # letters abandoned by a unanimous re-spin (FAQ 2)
    respin_votes: list[str] = field(default_factory=list)
    submissions: dict[str, list[str]] = field(default_factory=dict)  # secret until writing closes
    revealed: bool = False
    stopped_by: str | None = None
    stop_penalty: int = 0
    lists: dict[str, list[Entry]] = field(default_factory=dict)  # revealed, judged
    dispute: Dispute | None = None
    disputes: list[Dispute] = field(default_factory=list)  # closed
    opened_disputes: int = 0  # votes opened this round, cancelled ones included
    # Who said they have nothing (more) to dispute since the review opened or the last vote was opened: when
    # every player of the round still seated has, the review closes at once.
    ready: list[str] = field(default_factory=list)
    points: dict[str, int] | None = None  # set when the round is scored
    cards: RoundCards | None = None  # Advanced game: the Level and Ba Oossee cards of this round
    # When writing closes (the manager's clock): the receipt of the spin that opened it plus the writing
    # time, or of the STOP plus the grace period. None when that action carried no moment (an old log).
    writing_until: float | None = None


class PastRound:
    """A finished round as memory keeps it: its JSON compressed (a sixth of the objects it was), decoded only
    when a snapshot is written; its history record (what views and the replay output show of it), compressed
    too, so that showing it costs no more than before; and the lemmas of its words, which every later round's
    judging needs. No action changes a round once the next one has begun, so nothing is lost: stored
    snapshots hold the round's JSON as before."""

    __slots__ = ("number", "revealed", "lemmas", "packed", "shown")

    def __init__(self, number: int, revealed: bool, lemmas: str, packed: bytes, shown: bytes) -> None:
        self.number = number
        self.revealed = revealed
        self.lemmas = lemmas  # every lemma of its lists, one a line (a word has no line break)
        self.packed = packed
        self.shown = shown

    @classmethod
    def of(cls, finished: Round, record: dict[str, Any]) -> PastRound:
        """`record`: the round's history record (bot.games.topstop.output.history_record)."""
        lemmas = "\n".join(lemma for es in finished.lists.values() for e in es for lemma in e.lemmas)
        packed = _compressed(orjson.dumps(finished))
        return cls(finished.number, finished.revealed, lemmas, packed, _compressed(orjson.dumps(record)))

    def json_fragment(self) -> orjson.Fragment:
        """Its JSON as stored, for the engine's encoding of the state (bot.engine.game.state_json)."""
        return orjson.Fragment(_decompressed(self.packed))

    def dumped(self) -> dict[str, Any]:
        data: dict[str, Any] = orjson.loads(_decompressed(self.packed))
        return data

    def unpacked(self) -> Round:
        return _load_round(self.dumped())

    def record(self) -> dict[str, Any]:
        """Its history record, as it was when the round ended."""
        data: dict[str, Any] = orjson.loads(_decompressed(self.shown))
        return data

    def used_lemmas(self) -> list[str]:
        return self.lemmas.split("\n") if self.lemmas else []

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PastRound):
            return NotImplemented
        return self.packed == other.packed

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PastRound({self.unpacked()!r})"


# Raw deflate with a 4 KB window and small tables: a round's JSON is a few KB, and zlib's defaults set up
# about 260 KB of tables for every call (a fresh mapping of memory each time until the allocator adapts:
# up to five times slower here) to save 1% of the size.
_WINDOW_BITS = -12
_MEMORY_LEVEL = 4


def _compressed(data: bytes) -> bytes:
    packer = zlib.compressobj(1, zlib.DEFLATED, _WINDOW_BITS, _MEMORY_LEVEL)
    return packer.compress(data) + packer.flush()


def _decompressed(data: bytes) -> bytes:
    return zlib.decompress(data, _WINDOW_BITS)


def unpacked(played: Round | PastRound) -> Round:
    """A round as the rules read it, decoded if it is a finished one held packed."""
    return played.unpacked() if isinstance(played, PastRound) else played


def used_lemmas(played: Round | PastRound) -> list[str]:
    if isinstance(played, PastRound):
        return played.used_lemmas()
    return [lemma for es in played.lists.values() for e in es for lemma in e.lemmas]


def pack_finished(
    rounds: list[Round | PastRound], record_of: Callable[[Round], dict[str, Any]]
) -> list[Round | PastRound]:
    """Every round but the last packed (the last is the one actions change): how memory holds the rounds."""
    last = len(rounds) - 1
    return [
        r if i == last or isinstance(r, PastRound) else PastRound.of(r, record_of(r))
        for i, r in enumerate(rounds)
    ]


@dataclass
class TopStopState:
    """The whole game: self-contained, so a replay of the log rebuilds it exactly."""

    options: Options
    seats: list[str]  # join order; "the player on the left" is the next seat
    phase: str
    scores: dict[str, int]
    penalties: dict[str, int]  # STOP penalties taken so far, per player
    left: list[str] = field(default_factory=list)
    first_spin: dict[str, str | None] = field(default_factory=dict)  # who still spins for first spinner
    first_spins: list[dict[str, str]] = field(default_factory=list)  # every settled spin-off
    # Every round but the last is finished and held packed (PastRound); the last is the one actions change.
    rounds: list[Round | PastRound] = field(default_factory=list)
    tiebreakers: list[str] = field(default_factory=list)
    winners: list[str] = field(default_factory=list)
    end_reason: str | None = None
    advanced: Advanced | None = None  # Advanced game: decks, Level cards held, the Level in force
    # The server's own dictionary as it stood at the start (word -> {"valid", "day"}): never changed after.
    server_words: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Freshness counters (what a button names), never back down, so that a value once replaced never comes
    # back: the unanimous re-spins of the game (a form opened for the letter before one is stale) …
    respins: int = 0
    disputes_opened: int = 0  # … and the dispute votes opened in the game, cancelled ones included

    @property
    def seated(self) -> list[str]:
        return [p for p in self.seats if p not in self.left]

    @property
    def round(self) -> Round:
        # Never packed (see `rounds`); no `cast` call on a path this hot.
        return self.rounds[-1]  # type: ignore[return-value]

    @property
    def respin_tally(self) -> Tally:
        """FAQ 2: the round is spun again only when every player of the round still seated asks."""
        round_players = [p for p in self.round.players if p not in self.left]
        return votes.tally(dict.fromkeys(self.round.respin_votes, True), round_players, votes.Rule.UNANIMOUS)


def dump_state(state: TopStopState) -> dict[str, Any]:
    data = as_dict(replace(state, rounds=[]))
    data["rounds"] = [r.dumped() if isinstance(r, PastRound) else as_dict(r) for r in state.rounds]
    return data


def load_state(data: dict[str, Any], record_of: Callable[[Round], dict[str, Any]]) -> TopStopState:
    """`record_of`: a round's history record, kept with each finished round (PastRound)."""
    loaded = [_load_round(r) for r in data["rounds"]]
    rounds = pack_finished(list[Round | PastRound](loaded), record_of)
    return TopStopState(
        options=Options(**data["options"]),
        seats=list(data["seats"]),
        phase=data["phase"],
        scores=dict(data["scores"]),
        penalties=dict(data["penalties"]),
        left=list(data["left"]),
        first_spin=dict(data["first_spin"]),
        first_spins=[dict(s) for s in data["first_spins"]],
        rounds=rounds,
        tiebreakers=list(data["tiebreakers"]),
        winners=list(data["winners"]),
        end_reason=data["end_reason"],
        advanced=load_advanced(data["advanced"]) if data.get("advanced") is not None else None,
        server_words=dict(data.get("server_words") or {}),
        # Saved before the counters: what they count, from the rounds.
        respins=data.get("respins", sum(len(r.respun) for r in loaded)),
        disputes_opened=data.get("disputes_opened", sum(r.opened_disputes for r in loaded)),
    )


def _load_dispute(data: dict[str, Any]) -> Dispute:
    return Dispute(
        disputer=data["disputer"],
        owner=data["owner"],
        index=data["index"],
        voters=list(data["voters"]),
        votes=dict(data["votes"]),
        number=data.get("number", 0),  # saved before votes were numbered
    )


def _load_round(data: dict[str, Any]) -> Round:
    # Saved before votes were numbered: count the votes it shows so the next one gets a new number.
    opened = data.get("opened_disputes", len(data["disputes"]) + (data["dispute"] is not None))
    return Round(
        number=data["number"],
        spinner=data["spinner"],
        players=list(data["players"]),
        tiebreak=data["tiebreak"],
        letter=data["letter"],
        respun=list(data["respun"]),
        respin_votes=list(data["respin_votes"]),
        submissions={p: list(ws) for p, ws in data["submissions"].items()},
        revealed=data["revealed"],
        stopped_by=data["stopped_by"],
        stop_penalty=data["stop_penalty"],
        lists={
            p: [Entry(**{**e, "lemmas": list(e["lemmas"])}) for e in es] for p, es in data["lists"].items()
        },
        dispute=_load_dispute(data["dispute"]) if data["dispute"] is not None else None,
        disputes=[_load_dispute(d) for d in data["disputes"]],
        points=dict(data["points"]) if data["points"] is not None else None,
        opened_disputes=opened,
        ready=list(data.get("ready", [])),  # saved before the review had its ready marks: nobody yet
        cards=load_round_cards(data["cards"]) if data.get("cards") is not None else None,
        writing_until=data.get("writing_until"),  # saved before writing had a deadline: none
    )


def copy_cards(state: TopStopState) -> Advanced | None:
    """The advanced game's cards, for a step that may change them (None in the base game)."""
    return copy_advanced(state.advanced) if state.advanced is not None else None


def copy_round_cards_of(current: Round) -> RoundCards | None:
    return copy_round_cards(current.cards) if current.cards is not None else None
