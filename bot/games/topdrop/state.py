"""Top Drop's options and state: plain data the engine stores as it is (orjson) and reads back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.engine.errors import BadAction
from bot.engine.game import as_dict
from bot.games.topdrop.cards import DIFFICULTIES

# Phases.
OPENING = "opening"  # "Decide together who will start": the team picks the starting player and the direction
PLAY = "play"
OVER = "over"

# Stages of an idle turn (RULES-NOTES has none: issue 32's idle flow). Nothing is ever played for the player.
ON_TIME = ""  # the turn runs; its reminder is armed
REMINDED = "reminded"  # the player was reminded; the table will be asked whether to wait
ASKED = "asked"  # the table votes: wait for the player, or end the game (a loss by abandonment)

# Numeric options: (default, lowest, highest), in seconds.
NUMBERS = {
    "turn_seconds": (120, 10, 3600),  # the player on turn is reminded after this
    "remind_seconds": (120, 10, 3600),  # then, after this, the others are asked whether to wait
    "vote_seconds": (60, 10, 3600),  # how long that vote stays open
}
DEFAULT_DIFFICULTY = "easy"  # "We recommend starting with the easiest level for your first game"


def checked_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options with their defaults, or BadAction naming the first wrong one."""
    unknown = sorted(set(options) - {*NUMBERS, "difficulty"}, key=str)
    if unknown:
        raise BadAction("topdrop.option.unknown", name=str(unknown[0])[:40])
    checked: dict[str, Any] = {}
    difficulty = options.get("difficulty", DEFAULT_DIFFICULTY)
    if not isinstance(difficulty, str) or difficulty not in DIFFICULTIES:
        raise BadAction("topdrop.option.difficulty", choices=", ".join(DIFFICULTIES))
    checked["difficulty"] = difficulty
    for name, (default, low, high) in NUMBERS.items():
        given = options.get(name, default)
        if type(given) is not int or not low <= given <= high:  # bool is no number of seconds
            raise BadAction("topdrop.option.range", name=name, low=low, high=high)
        checked[name] = given
    return checked


@dataclass
class State:
    players: list[str]  # seat order ("play continues clockwise")
    difficulty: str
    turn_seconds: int
    remind_seconds: int
    vote_seconds: int
    phase: str  # opening | play | over
    turn: int  # 0 in the opening, then counts turns from 1: the freshness every turn's button carries
    current: str | None  # the player on turn (None in the opening and at the end)
    direction: str  # the Direction Card's visible side: "up" | "down"
    pile: list[int]  # the common pile, bottom first: public
    deck: list[int]  # the draw pile: secret; kept sorted, the cards drawn are chance's at each refill …
    stacked: bool  # … unless a scenario stacked it (setup `deck`): then drawn from the front, in order
    hands: dict[str, list[int]]  # secret: each player sees only their own; kept sorted
    action_cards: dict[str, int]  # Skip, Flip and Color cards still available in the middle
    wild_cards: int  # wild cards still available
    hints: list[dict[str, Any]]  # every hint given: {"turn", "player", "phrase"}
    idle_stage: str  # "" | "reminded" | "asked": how far the current turn's idle flow has gone
    waits: int  # waiting periods started in the current turn (a "wait" vote starts another): timer keys
    vote: dict[str, Any] | None  # the open "wait for the player?" vote: {"id", "of", "voters", "ballots"}
    votes: int  # wait votes opened in the game: the freshness `vote`, and each vote's id
    vote_log: list[dict[str, Any]]  # one record per decided or cancelled vote
    left: list[str]
    history: list[dict[str, Any]]  # one record per turn played
    result: str = ""  # "" while it goes on, then "victory" | "defeat"
    end_reason: str = ""  # a Termination's value once over
    stuck: str | None = None  # the player who could not play (the defeat)
    abandoned_by: str | None = None  # the idle player the table voted not to wait for


def dump(state: State) -> dict[str, Any]:
    return as_dict(state)


def load(data: Mapping[str, Any]) -> State:
    vote = data["vote"]
    return State(
        players=list(data["players"]),
        difficulty=data["difficulty"],
        turn_seconds=data["turn_seconds"],
        remind_seconds=data["remind_seconds"],
        vote_seconds=data["vote_seconds"],
        phase=data["phase"],
        turn=data["turn"],
        current=data["current"],
        direction=data["direction"],
        pile=list(data["pile"]),
        deck=list(data["deck"]),
        stacked=data["stacked"],
        hands={player: list(cards) for player, cards in data["hands"].items()},
        action_cards=dict(data["action_cards"]),
        wild_cards=data["wild_cards"],
        hints=[dict(hint) for hint in data["hints"]],
        idle_stage=data["idle_stage"],
        waits=data["waits"],
        vote=None
        if vote is None
        else {
            "id": vote["id"],
            "of": vote["of"],
            "voters": list(vote["voters"]),
            "ballots": dict(vote["ballots"]),
        },
        votes=data["votes"],
        vote_log=[dict(record) for record in data["vote_log"]],
        left=list(data["left"]),
        history=[_record(record) for record in data["history"]],
        result=data.get("result", ""),
        end_reason=data.get("end_reason", ""),
        stuck=data.get("stuck"),
        abandoned_by=data.get("abandoned_by"),
    )


def _record(record: Mapping[str, Any]) -> dict[str, Any]:
    return {key: list(value) if isinstance(value, list) else value for key, value in record.items()}
