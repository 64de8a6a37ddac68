"""TopWords as a `Game`: turns, racks and bag, the dictionary, challenges, disputes and the end.

`apply` checks an action against the state it is given and only then builds the new state: a shallow
copy that shares every list and dict the action does not change. Nothing reachable from a state is ever
mutated, so a refused action costs no copy at all and an accepted one copies only what it changes.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict
from functools import lru_cache
from typing import Any, Protocol

from bot.engine.errors import (
    BadAction,
    GameError,
    GameOver,
    NotAPlayer,
    NotYourTurn,
    StaleAction,
    WrongPhase,
)
from bot.engine.game import (
    JSON,
    Action,
    Applied,
    Event,
    Outcome,
    Termination,
    Timer,
    UsedWord,
    WordRuling,
    checked_server_words,
    shallow_copy,
)
from bot.engine.votes import Rule, Tally, cast, everyone_voted, tally
from bot.games.topwords.messages import RuleBroken, said_reason
from bot.games.topwords.rules import (
    CENTRE,
    LETTERS,
    MAX_HEIGHT,
    RACK_PENALTY,
    RACK_SIZE,
    SIZE,
    TILE_COUNTS,
    Scored,
    Tile,
    empty_board,
    multiset_missing,
    normalise_letter,
    on_board,
    place,
    remove_letters,
    score_placement,
    square_name,
    stack_at,
    start_rank,
)
from bot.games.topwords.state import MODES, MoveRecord, Options, ScoredWord, State, dump_state, load_state
from bot.i18n import N_, Text

ACTIONS = frozenset(
    {
        "place", "pass", "challenge", "dispute", "propose_end", "vote", "leave",
        "close_challenge", "close_vote", "turn_timeout",
    }
)  # fmt: skip
SYSTEM_ACTIONS = frozenset({"close_challenge", "close_vote", "turn_timeout"})
IDLE_TURNS = 3  # turns in a row passed by the timer before a player is asked to leave
# legal_actions offers an example placement found with at most this many dictionary checks, or none:
# the player to move can always pass, so no game waits on the search.
EXAMPLE_CHECKS = 60
VERDICTS_KEPT = 1 << 14  # the dictionary's verdicts on words in tiles, kept per rules object
MAX_WINDOW_SECONDS = 3600  # a challenge or vote window: an hour at most (as Top Stop's windows)
MAX_TURN_SECONDS = 24 * 3600  # the turn timer: a day at most, for a slow game
# Why the game ended (state.end_reason), as the engine tells it.
TERMINATIONS = {
    "out": Termination.WENT_OUT,
    "passes": Termination.ALL_PASSED,
    "no_words": Termination.NO_MOVES,
    "players_left": Termination.LAST_PLAYER_STANDING,
}

Handler = Callable[[State, str, Action, Applied], State]


class Verdict(Protocol):
    @property
    def word(self) -> str: ...
    @property
    def valid(self) -> bool: ...
    @property
    def reason(self) -> str | None: ...


class Words(Protocol):
    """The part of bot.words.WordService TopWords uses."""

    def check_tiles(self, tiles: str, lang: str = ...) -> Verdict: ...
    def lemma_key(self, word: str, lang: str) -> str: ...


class TopWords:
    """The pure rules of TopWords (seeds/topwords-spielregel-de.txt, RULES-NOTES.md)."""

    name = "topwords"
    server_dictionary = True  # a new game takes the server's own dictionary along (setup `server_words`)
    min_players = 2  # "für 2 - 4 Spieler"
    max_players = 4
    action_names = ACTIONS
    slow_actions: frozenset[str] = frozenset()  # a move checks a few words: well under a millisecond
    # Where each tile put back goes into the bag (`at`): drawn by resolve_chance, never a player's choice.
    chance_keys: Mapping[str, frozenset[str]] = {
        name: frozenset({"at"}) for name in ("pass", "leave", "turn_timeout")
    }

    def __init__(self, words: Words | None) -> None:
        self.words = words
        # Every placement asks about every word it makes or changes, most of them already on the board:
        # the answers are kept (the words service's own are, too, behind a few more calls).
        self._verdict = lru_cache(maxsize=VERDICTS_KEPT)(self._ask_dictionary)
        self._handlers: dict[str, Handler] = {
            "place": self._place,
            "leave": self._leave,
            "pass": self._pass,
            "challenge": self._challenge,
            "dispute": self._dispute,
            "propose_end": self._propose_end,
            "vote": self._vote,
        }

    # ------------------------------------------------------------------ setup

    def validate_options(self, options: Mapping[str, Any]) -> JSON:
        """Every option with its default filled in; BadAction (both languages) naming a bad one."""
        unknown = set(options) - set(Options.__dataclass_fields__)
        if unknown:
            raise BadAction("topwords.refusal.unknown_options", names=", ".join(sorted(map(str, unknown))))
        opts = Options(**dict(options))
        if opts.language != "de":
            raise BadAction("topwords.refusal.option_language")
        if opts.mode not in MODES:
            raise BadAction("topwords.refusal.option_mode", modes=", ".join(MODES))
        if not isinstance(opts.check_words, bool):
            raise BadAction("engine.option_check_words")
        for name in ("challenge_seconds", "vote_seconds"):
            value = getattr(opts, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_WINDOW_SECONDS:
                raise BadAction("topwords.refusal.option_seconds", name=name, most=MAX_WINDOW_SECONDS)
        turn = opts.turn_seconds
        if isinstance(turn, bool) or not isinstance(turn, int) or not 0 <= turn <= MAX_TURN_SECONDS:
            raise BadAction("topwords.refusal.turn_seconds", most=MAX_TURN_SECONDS)
        if opts.check_words and self.words is None:
            raise BadAction("topwords.refusal.option_words_service")
        return asdict(opts)

    def new_game(
        self, options: Mapping[str, Any], players: Sequence[str], setup: Mapping[str, Any], rng: random.Random
    ) -> State:
        """Start draw, shuffled bag and racks; `setup` may force first_player, board, racks and bag."""
        opts = Options(**self.validate_options(options))
        players = list(players)
        if not self.min_players <= len(players) <= self.max_players or len(set(players)) != len(players):
            raise BadAction("topwords.refusal.player_count", low=self.min_players, high=self.max_players)
        unknown = set(setup) - {"first_player", "racks", "bag", "board", "server_words"}
        if unknown:
            raise BadAction("topwords.refusal.setup_keys", keys=", ".join(sorted(unknown)))
        # The state is built here, so changing its own fresh lists and dicts in place is safe.
        state = State(players=players, options=opts, scores=dict.fromkeys(players, 0))
        pool = Counter(TILE_COUNTS)
        board = empty_board()
        for entry in _list(setup.get("board", []), "setup.board"):
            if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[2], str)):
                raise BadAction("topwords.refusal.setup_board")
            row, col = _int(entry[0], "row"), _int(entry[1], "col")
            stack = "".join(normalise_letter(ch) for ch in entry[2])
            if not (0 <= row < SIZE and 0 <= col < SIZE) or not 1 <= len(stack) <= MAX_HEIGHT:
                raise BadAction("topwords.refusal.setup_square", entry=repr(entry))
            if any(a == b for a, b in zip(stack, stack[1:], strict=False)):
                raise BadAction("topwords.refusal.setup_same_letter", stack=stack)
            if board[row * SIZE + col]:
                raise BadAction("topwords.refusal.setup_twice", square=square_name(row, col))
            board[row * SIZE + col] = stack
            pool.subtract(stack)
        state.board = board
        racks_forced = setup.get("racks", {})
        if not isinstance(racks_forced, dict):
            raise BadAction("topwords.refusal.setup_racks")
        for player, rack in racks_forced.items():
            if player not in players or not isinstance(rack, str) or len(rack) > RACK_SIZE:
                raise BadAction("topwords.refusal.setup_rack", player=repr(player), size=RACK_SIZE)
            state.racks[player] = "".join(normalise_letter(ch) for ch in rack)
            pool.subtract(state.racks[player])
        bag_forced = setup.get("bag", "")
        if not isinstance(bag_forced, str):
            raise BadAction("topwords.refusal.setup_bag")
        bag_forced = "".join(normalise_letter(ch) for ch in bag_forced)
        pool.subtract(bag_forced)
        short = sorted(letter for letter, n in pool.items() if n < 0)
        if short:
            raise BadAction("topwords.refusal.setup_too_many", letters=", ".join(short))
        first = setup.get("first_player")
        if first is not None:
            if first not in players:
                raise BadAction("topwords.refusal.setup_first", player=repr(first))
            state.first_player = first
        else:
            state.start_draw, state.first_player = _start_draw(players, rng)
        rest = list(pool.elements())
        rng.shuffle(rest)
        bag = bag_forced + "".join(rest)
        racks = {}
        for player in players:
            rack = state.racks.get(player)
            if rack is None:
                rack, bag = bag[:RACK_SIZE], bag[RACK_SIZE:]
            racks[player] = rack
        state.racks, state.bag = racks, bag
        state.turn = players.index(state.first_player)
        state.server_words = checked_server_words(setup.get("server_words", {}))
        return state

    # ------------------------------------------------------------------ the Game contract

    def resolve_chance(self, state: State, action: Action, rng: random.Random) -> Action:
        """A swap puts the tile back at a random place in the bag (`at`) before the blind draw."""
        do = action.get("do")
        if do == "pass" and action.get("swap") is not None and "at" not in action:
            action = {**action, "at": rng.randint(0, len(state.bag))}
        elif do in ("leave", "turn_timeout") and "at" not in action:
            # Where each tile of a leaving player's rack goes back into the bag (a timeout may end in a leave).
            leaver = action.get("player") if do == "leave" else state.current
            rack = state.racks.get(leaver, "") if isinstance(leaver, str) else ""
            action = {**action, "at": [rng.randint(0, len(state.bag) + k) for k in range(len(rack))]}
        return action

    def freshness(self, state: State) -> JSON:
        """What a button is made against: the board (a count of moves made and taken back) and the open vote.

        Both only ever count up: a move taken back changes the board's number too, and the next move gets
        a new one, so a Challenge on the message of the move taken back is refused (stale_action) rather
        than acting on the move that replaced it; a cancelled vote's id is never given to the next vote.
        """
        fresh: JSON = {"move": state.board_changes}
        if state.vote is not None:
            fresh["vote"] = state.vote["id"]
        return fresh

    def apply(self, state: State, action: Action) -> Applied:
        do = action.get("do")
        if not isinstance(do, str) or do not in ACTIONS:
            raise BadAction("topwords.refusal.unknown_action", do=repr(do))
        if state.phase == "over":
            raise GameOver("engine.game_over")
        applied = Applied(state)
        if do in SYSTEM_ACTIONS:
            if action.get("player") is not None:
                raise BadAction("topwords.refusal.system_action", do=do)
            if do == "close_challenge":
                applied.state = self._close_challenge(state, applied)
            elif do == "turn_timeout":
                applied.state = self._turn_timeout(state, action, applied)
            else:
                applied.state = self._close_vote(state, applied)
            return applied
        player = action.get("player")
        if not isinstance(player, str):
            raise BadAction("engine.needs_player", action=do)
        if player not in state.players:
            raise NotAPlayer("topwords.refusal.not_a_player", player=player)
        if player in state.left:
            raise NotAPlayer("topwords.refusal.left")
        if state.phase == "vote" and do not in ("vote", "leave"):
            raise _wrong_phase(state)
        applied.state = self._handlers[do](state, player, action, applied)
        if applied.state.idle.get(player):  # the player is back: the timer's count starts again
            applied.state.idle = {**applied.state.idle, player: 0}
        return applied

    def legal_actions(self, state: State, player: str) -> list[Action] | None:
        """Everything `player` may do now; `place` once, with an example found cheaply (if any)."""
        if player not in state.players:
            return None
        kinds = self._open(state, player)
        found: list[Action] = []
        if "place" in kinds:
            tiles = self._example_tiles(state, player)
            if tiles is not None:
                found.append({"do": "place", "player": player, "tiles": tiles})
        if "pass" in kinds:
            found.append({"do": "pass", "player": player})
            if state.bag:
                swaps = sorted(set(state.racks[player]))
                found += [{"do": "pass", "player": player, "swap": letter} for letter in swaps]
        if "challenge" in kinds:
            found.append({"do": "challenge", "player": player})
        if "dispute" in kinds:
            if _restoring(state, player):
                found.append({"do": "dispute", "player": player})
            else:
                words = dict.fromkeys(word["word"] for word in state.history[-1]["words"])
                found += [{"do": "dispute", "player": player, "word": word} for word in words]
        if "propose_end" in kinds:
            found.append({"do": "propose_end", "player": player})
        if "vote" in kinds:
            found += [{"do": "vote", "player": player, "accept": accept} for accept in (True, False)]
        if state.phase != "over" and player not in state.left:
            found.append({"do": "leave", "player": player})
        return found

    def table_actions(self, state: State, player: str | None) -> frozenset[str]:
        """What the table offers `player` (None: anyone at the table) now, for the buttons."""
        if player is not None:
            return frozenset(self._open(state, player))
        return frozenset(kind for seat in state.players for kind in self._open(state, seat))

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != "over":
            return None
        winners = _winners(state)
        return Outcome(
            winners=winners,
            scores=dict(state.scores),
            left=list(state.left),
            termination=TERMINATIONS[state.end_reason or "out"],
            draw=len(winners) != 1,
        )

    def view_for(self, state: State, player: str | None) -> JSON:
        """The board, scores and history for all; a rack only for its owner; the bag only as a count.

        It also says what the table offers (`offered`, and per seat `offered_to`), what a button must carry
        (`freshness`) and, in a player's own view, the words they may dispute (`disputable`): the cog reads
        these rather than the rules' state.
        """
        last = state.history[-1]["tiles"] if state.history else []
        view: JSON = {
            "game": self.name,
            "players": list(state.players),
            "mode": state.options.mode,
            "phase": state.phase,
            "turn": state.current if state.phase == "play" else None,
            "board": [[stack_at(state.board, r, c) for c in range(SIZE)] for r in range(SIZE)],
            "rack_counts": {p: len(state.racks[p]) for p in state.players},
            "left": list(state.left),
            "idle": {p: n for p, n in state.idle.items() if n},
            "bag_count": len(state.bag),
            "scores": dict(state.scores),
            "history": state.history.plain(),
            "last_move": [[r, c] for r, c, _ in last],
            "first_player": state.first_player,
            "start_draw": [dict(round_) for round_ in state.start_draw],
            "passes": state.passes,
            "pending": None,
            "taken_back": None,
            "vote": None,
            "finished": state.phase == "over",
            "winners": _winners(state) if state.phase == "over" else [],
            "standings": standings(state.scores, state.left),
            "penalties": dict(state.penalties),
            "end_reason": state.end_reason,
            "freshness": self.freshness(state),
            "offered": sorted(self.table_actions(state, None)),
            "offered_to": {p: sorted(self._open(state, p)) for p in state.players},
        }
        if state.pending is not None:
            view["pending"] = {k: state.pending[k] for k in ("player", "move", "challenged", "settled")}
        if state.taken_back is not None:
            # Public: the table saw the tiles placed and taken back.
            view["taken_back"] = {k: state.taken_back[k] for k in ("player", "tiles", "words")}
        if state.vote is not None:
            view["vote"] = {k: state.vote[k] for k in ("id", "kind", "by", "of", "words", "voters", "tiles")}
            view["vote"]["voted"] = sorted(state.vote["votes"])
            view["vote"]["tally"] = _tally(state.vote).shown(secret=True)  # who voted, not how
        if player is not None and player in state.racks:
            view["you"] = player
            view["rack"] = state.racks[player]
            view["disputable"] = self._disputable_words(state, player)
        return view

    def _disputable_words(self, s: State, player: str) -> list[str]:
        """The words of the last move `player` may put to the vote, in order: none when the rules offer no
        dispute of a word (their own move, nothing open, or a restore of their move taken back, which
        names no word)."""
        if "dispute" not in self._open(s, player) or not s.history or _restoring(s, player):
            return []
        return list(dict.fromkeys(word["word"] for word in s.history[-1]["words"]))

    def timers(self, state: State) -> list[Timer]:
        if state.phase == "final_challenge":
            move = state.pending["move"] if state.pending else state.moves
            action = {"do": "close_challenge"}
            return [Timer(f"final:{move}", state.options.challenge_seconds, action)]
        if state.phase == "vote" and state.vote is not None:
            return [Timer(f"vote:{state.vote['id']}", state.options.vote_seconds, {"do": "close_vote"})]
        if state.phase == "play" and state.options.turn_seconds > 0:
            timeout: Action = {"do": "turn_timeout", "turn": state.turn_no}
            return [Timer(f"turn:{state.turn_no}", state.options.turn_seconds, timeout)]
        return []

    def dump(self, state: State) -> JSON:
        return dump_state(state)

    def load(self, data: JSON) -> State:
        return load_state(data)

    def replay_output(self, state: State) -> JSON:
        """SCENARIOS.md keys plus the board (top letters, heights, stacks), racks and the logs."""
        stacks = {
            square_name(r, c): stack_at(state.board, r, c)
            for r in range(SIZE)
            for c in range(SIZE)
            if stack_at(state.board, r, c)
        }
        return {
            "phase": state.phase,
            "finished": state.phase == "over",
            "winners": _winners(state) if state.phase == "over" else [],
            "scores": dict(state.scores),
            "history": state.history.plain(),
            "first_player": state.first_player,
            "start_draw": [dict(round_) for round_ in state.start_draw],
            "turn": state.current if state.phase == "play" else None,
            "board": [
                "".join(stack_at(state.board, r, c)[-1:] or "." for c in range(SIZE)) for r in range(SIZE)
            ],
            "heights": [
                "".join(str(len(stack_at(state.board, r, c))) for c in range(SIZE)) for r in range(SIZE)
            ],
            "stacks": stacks,
            "racks": dict(state.racks),
            "bag_count": len(state.bag),
            "tiles": sum(len(x) for x in state.board)
            + sum(len(r) for r in state.racks.values())
            + len(state.bag),
            "passes": [dict(p) for p in state.passes_log],
            "challenges": [dict(c) for c in state.challenges],
            "votes": [dict(v) for v in state.votes],
            "penalties": dict(state.penalties),
            "end_reason": state.end_reason,
            "left": list(state.left),
            "standings": standings(state.scores, state.left),
            "idle": dict(state.idle),
        }

    # ------------------------------------------------------------------ what is open

    def _open(self, s: State, player: str) -> set[str]:
        """The kinds of action `player` may take now (a placement whatever the tiles)."""
        if s.phase == "over" or player not in s.players or player in s.left:
            return set()
        if s.phase == "vote":
            return {"vote"} if s.vote is not None and player in s.vote["voters"] else set()
        kinds = set()
        if s.phase == "play":
            kinds.add("propose_end")
            if s.current == player:
                kinds |= {"place", "pass"}
        if self._challengeable(s, player) is None:
            kinds.add("challenge")
        if self._disputable(s, player) is None:
            kinds.add("dispute")
        return kinds

    def _example_tiles(self, s: State, player: str) -> list[list[Any]] | None:
        """A placement the rules accept now, looked for among one-tile moves (two tiles on the centre for
        the first move) with at most EXAMPLE_CHECKS words checked; None when none was found so cheaply."""
        checks = EXAMPLE_CHECKS
        strict = s.options.mode == "strict"
        for tiles in _candidates(s.board, s.racks[player]):
            try:
                scored = score_placement(s.board, tiles)
            except RuleBroken:
                continue
            if strict:
                allowed = True
                for word in scored.words:
                    if checks <= 0:
                        return None
                    checks -= 1
                    if not self._judge(s, word.letters)[0]:
                        allowed = False
                        break
                if not allowed:
                    continue
            return [[r, c, letter] for r, c, letter in tiles]
        return None

    # ------------------------------------------------------------------ moves

    def _expect_turn(self, s: State, player: str) -> None:
        if s.phase != "play":
            raise _wrong_phase(s)
        if s.current != player:
            raise NotYourTurn("topwords.refusal.not_your_turn", player=s.current)

    def _place(self, state: State, player: str, action: Action, applied: Applied) -> State:
        self._expect_turn(state, player)
        scored, spellings = self._checked_move(state, player, _tiles(action.get("tiles")))
        s = shallow_copy(state)
        self._commit(s, player, scored, applied, spellings)
        return s

    def _checked_move(self, s: State, player: str, tiles: list[Tile]) -> tuple[Scored, dict[str, str]]:
        """The placement scored, and (strict mode) the dictionary's spelling of each word; RuleBroken
        naming the first rule broken or the first word the dictionary refuses."""
        scored = self._check_placement(s, player, tiles)
        spellings: dict[str, str] = {}
        if s.options.mode == "strict":
            for word in scored.words:
                valid, reason, spelling = self._judge(s, word.letters)
                if not valid:
                    day = s.server_words.get(word.letters.casefold(), {}).get("day")
                    raise RuleBroken(
                        "topwords.rule.invalid_word", word=word.letters, reason=said_reason(reason, day)
                    )
                spellings[word.letters] = spelling
        return scored, spellings

    def _check_placement(self, s: State, player: str, tiles: list[Tile]) -> Scored:
        """Every rule but the dictionary; raise RuleBroken naming the first one broken."""
        missing = multiset_missing(s.racks[player], [letter for _, _, letter in tiles])
        if missing:
            raise RuleBroken("topwords.rule.not_on_rack", letters=", ".join(missing))
        return score_placement(s.board, tiles)

    def _invalid_words(self, s: State, scored: Scored) -> list[tuple[str, str | None]]:
        """The words of a placement the dictionary (or an earlier vote) does not allow, with the reason."""
        bad = []
        for word in scored.words:
            valid, reason, _ = self._judge(s, word.letters)
            if not valid:
                bad.append((word.letters, reason))
        return bad

    def _judge(self, s: State, word: str) -> tuple[bool, str | None, str]:
        """(allowed, reason code, dictionary spelling) of a word in tiles; a table vote beats the dictionary."""
        if word in s.overrides:
            allowed = s.overrides[word]
            return allowed, None if allowed else "voted_out", word
        if not s.options.check_words or self.words is None:
            return True, None, word
        ruled = s.server_words.get(word.casefold())
        if ruled is not None:  # a vote in an earlier game on this server
            return ruled["valid"], None if ruled["valid"] else "server_refused", word
        return self._verdict(word, s.options.language)

    def _ask_dictionary(self, word: str, lang: str) -> tuple[bool, str | None, str]:
        assert self.words is not None
        verdict = self.words.check_tiles(word, lang=lang)
        return verdict.valid, verdict.reason, verdict.word

    def _commit(
        self, s: State, player: str, scored: Scored, applied: Applied, spellings: dict[str, str]
    ) -> None:
        """Put an accepted move on the (copied) board, score it, refill the rack, pass the turn, check
        for the end."""
        self._settle(s, applied)
        s.taken_back = None
        rack_before = s.racks[player]
        rack = remove_letters(rack_before, [letter for _, _, letter in scored.tiles])
        # "zieht ... Ersatzbuchstaben aus dem Beutel, bis er wieder sieben auf dem Stellbrett hat"
        count = max(RACK_SIZE - len(rack), 0)
        drawn, s.bag = s.bag[:count], s.bag[count:]
        s.racks = {**s.racks, player: rack + drawn}
        s.board = place(s.board, scored.tiles)
        score = s.scores[player] + scored.points
        s.scores = {**s.scores, player: score}
        move = len(s.history) + 1
        tiles = [[r, c, letter] for r, c, letter in scored.tiles]  # shared by the record and its event
        record = MoveRecord(
            move,
            player,
            tiles,
            [ScoredWord(letters, points) for letters, points, _ in scored.words],
            scored.doubled,
            scored.bonus,
            scored.points,
        )
        s.history = s.history.plus(record)
        s.board_changes += 1
        s.pending = {
            "player": player,
            "move": move,
            "drawn": drawn,
            "rack_before": rack_before,
            "passes_before": s.passes,
            "challenged": False,
            "settled": False,
            "spellings": spellings,  # the dictionary's spelling of each word, where it was checked
        }
        s.passes = 0
        _next_turn(s)
        applied.events.append(
            {
                "type": "moved",
                "move": move,
                "player": player,
                "tiles": tiles,
                "words": [{"word": letters, "points": points} for letters, points, _ in scored.words],
                "doubled": scored.doubled,
                "bonus": scored.bonus,
                "points": scored.points,
                "score": score,
                "bag_count": len(s.bag),
            }
        )
        applied.tell(player, _rack_event(s, player, drawn=drawn))
        ending = self._ending(s, player)
        if ending is None:
            return
        if s.options.mode == "challenge":
            # The last move may still be challenged: the end waits for the window (timer close_challenge).
            s.phase, s.ending = "final_challenge", ending
            applied.events.append(
                {"type": "final_challenge", "player": player, "seconds": s.options.challenge_seconds}
            )
        else:
            self._end(s, ending, applied)

    def _ending(self, s: State, mover: str) -> str | None:
        """Why the game ends after a move, if it does (rulebook "DAS ENDE DES SPIELS", first way)."""
        if not s.racks[mover] and not s.bag:
            return "out"  # "Ein Spieler hat keine Buchstaben mehr (und kann ... keine nachziehen)"
        return None

    def _pass(self, state: State, player: str, action: Action, applied: Applied) -> State:
        """ "PASSEN": no move; the player may throw one tile into the bag and draw one blind."""
        self._expect_turn(state, player)
        swap = action.get("swap")
        letter, at = "", 0
        if swap is not None:
            letter = normalise_letter(swap)
            if letter not in state.racks[player]:
                raise RuleBroken("topwords.rule.not_on_rack", letters=letter)
            if not state.bag:
                raise RuleBroken("topwords.rule.bag_empty")
            at = action.get("at", 0)
            if isinstance(at, bool) or not isinstance(at, int) or not 0 <= at <= len(state.bag):
                raise BadAction("topwords.refusal.bad_at", size=len(state.bag))
        s = shallow_copy(state)
        self._settle(s, applied)
        applied.events.append({"type": "passed", "player": player, "swapped": swap is not None})
        if swap is not None:
            bag = s.bag[:at] + letter + s.bag[at:]
            drawn, s.bag = bag[:1], bag[1:]
            s.racks = {**s.racks, player: remove_letters(s.racks[player], letter) + drawn}
            applied.tell(player, _rack_event(s, player, drawn=drawn, returned=letter))
        s.taken_back = None
        s.passes += 1
        s.passes_log = [*s.passes_log, {"player": player, "after_move": s.moves, "swapped": swap is not None}]
        _next_turn(s)
        if s.passes >= len(s.seated):
            self._end(s, "passes", applied)  # "alle Spieler haben hintereinander einmal gepasst"
        return s

    # ------------------------------------------------------------------ leaving, and the turn timer

    def _leave(self, state: State, player: str, action: Action, applied: Applied) -> State:
        """A player leaves (docs/rules/topwords.md): their tiles go back into the bag, their seat is skipped,
        their last move stays and is final; a vote they raised or that is about their move is dropped; the
        game goes on while two players remain."""
        at = action.get("at", [])
        rack = state.racks[player]
        if not isinstance(at, list) or len(at) != len(rack):
            raise BadAction("topwords.refusal.bad_at", size=len(state.bag))
        bag = state.bag
        for tile, where in zip(rack, at, strict=True):
            if isinstance(where, bool) or not isinstance(where, int) or not 0 <= where <= len(bag):
                raise BadAction("topwords.refusal.bad_at", size=len(bag))
            bag = bag[:where] + tile + bag[where:]
        s = shallow_copy(state)
        if s.pending is not None and s.pending["player"] == player:
            self._settle(s, applied)
        s.bag, s.racks = bag, {**s.racks, player: ""}
        s.left = [*s.left, player]
        s.idle = {p: n for p, n in s.idle.items() if p != player}
        if s.taken_back is not None and s.taken_back["player"] == player:
            s.taken_back = None
        applied.events.append({"type": "player_left", "player": player, "tiles": len(rack)})
        if s.vote is not None:
            self._leave_vote(s, player, applied)
        if s.phase == "over":
            return s  # the vote they left decided the end
        if len(s.seated) < 2:
            self._end(s, "players_left", applied)
        elif s.phase == "play" and s.current == player:
            _next_turn(s)
            if s.passes >= len(s.seated):
                self._end(s, "passes", applied)
        return s

    def _leave_vote(self, s: State, player: str, applied: Applied) -> None:
        """The open vote loses a voter, or its subject: one raised by the leaver or about their move is dropped."""
        assert s.vote is not None
        vote = s.vote
        if player in (vote["by"], vote["of"]):
            s.vote, s.phase = None, vote["back"]
            applied.events.append({"type": "vote_cancelled", "id": vote["id"], "player": player})
            return
        if player in vote["voters"]:
            voters = [p for p in vote["voters"] if p != player]
            ballots = {p: v for p, v in vote["votes"].items() if p != player}
            s.vote = {**vote, "voters": voters, "votes": ballots}
            if everyone_voted(voters, ballots):
                self._decide(s, applied)

    def _turn_timeout(self, state: State, action: Action, applied: Applied) -> State:
        """The turn timer ran out: the turn goes to the next player, with no pass counted; three in a row,
        and the player leaves."""
        if action.get("turn") != state.turn_no:
            raise StaleAction("engine.stale")  # the player acted, or the turn moved on, before the timer
        if state.phase != "play":
            raise _wrong_phase(state)
        player = state.current
        s = shallow_copy(state)
        self._settle(s, applied)
        s.taken_back = None
        # RULES-NOTES: a turn lost to the timer is not a pass for "every player passed in a row": it breaks
        # the run, so players who stepped away never end the game by passes.
        s.passes = 0
        log = {"player": player, "after_move": s.moves, "swapped": False, "timed_out": True}
        s.passes_log = [*s.passes_log, log]
        _next_turn(s)
        applied.events.append({"type": "turn_timed_out", "player": player})
        idle = s.idle.get(player, 0) + 1
        s.idle = {**s.idle, player: idle}
        if idle >= IDLE_TURNS and s.phase != "over":
            applied.events.append({"type": "player_idle_left", "player": player, "turns": idle})
            s = self._leave(s, player, {"at": action.get("at", [])}, applied)
        return s

    # ------------------------------------------------------------------ challenge mode

    def _challengeable(self, s: State, player: str) -> str | None:
        """Why `player` cannot challenge now (a text key), or None when they can."""
        if s.options.mode != "challenge":
            return N_("topwords.why.strict_mode")
        if s.phase not in ("play", "final_challenge") or s.pending is None or s.pending["settled"]:
            return N_("topwords.why.move_final")
        if s.pending["player"] == player:
            return N_("topwords.why.own_move")
        if s.pending["challenged"]:
            return N_("topwords.why.challenged_already")
        return None

    def _challenge(self, state: State, player: str, action: Action, applied: Applied) -> State:
        """ "ANZWEIFELN": the dictionary checks the last move; a word it refuses takes the move back."""
        why = self._challengeable(state, player)
        if why is not None:
            raise RuleBroken("topwords.rule.nothing_to_challenge", why=Text(why))
        assert state.pending is not None
        record = state.history[-1]
        bad = []
        for word in record["words"]:
            valid, reason, _ = self._judge(state, word["word"])
            if not valid:
                bad.append({"word": word["word"], "reason": reason})
        log = {
            "by": player,
            "of": record["player"],
            "move": record["move"],
            "success": bool(bad),
            "words": bad,
        }
        s = shallow_copy(state)
        s.challenges = [*s.challenges, log]
        applied.events.append({"type": "challenged", **log})
        if bad:
            self._take_back(s, bad, applied)
        else:
            # A failed challenge costs nothing (our ruling); the move can no longer be challenged.
            s.pending = {**state.pending, "challenged": True}
        return s

    def _take_back(self, s: State, bad: list[dict[str, Any]], applied: Applied) -> None:
        """The player removes the move's tiles; the refill goes back on top of the bag; they play again."""
        assert s.pending is not None
        pending, record = s.pending, s.history[-1]
        player = record["player"]
        s.history = s.history.without_last()
        s.board_changes += 1  # never back down: the move taken back's buttons stay stale
        board = list(s.board)
        for r, c, _ in record["tiles"]:
            board[r * SIZE + c] = board[r * SIZE + c][:-1]
        s.board = board
        s.bag = pending["drawn"] + s.bag
        s.racks = {**s.racks, player: pending["rack_before"]}
        s.scores = {**s.scores, player: s.scores[player] - record["points"]}
        s.passes = pending["passes_before"]
        s.turn = s.players.index(player)
        s.turn_no += 1
        s.pending = None
        s.phase, s.ending = "play", None
        s.taken_back = {"player": player, "tiles": record["tiles"], "words": bad}
        applied.events.append(
            {
                "type": "taken_back",
                "player": player,
                "tiles": record["tiles"],
                "points": record["points"],
                "score": s.scores[player],
                "words": bad,
            }
        )
        applied.tell(player, _rack_event(s, player))

    def _close_challenge(self, state: State, applied: Applied) -> State:
        if state.phase != "final_challenge" or state.ending is None:
            raise WrongPhase("topwords.refusal.no_window")
        s = shallow_copy(state)
        self._end(s, state.ending, applied)
        return s

    def _settle(self, s: State, applied: Applied) -> None:
        """The last move becomes final (the next player acts, or the game ends): record its words."""
        if s.pending is None:
            return
        pending = s.pending
        record = s.history[pending["move"] - 1]
        lang = s.options.language
        for word in record["words"]:
            letters = word["word"]
            spelling = pending["spellings"].get(letters) or self._judge(s, letters)[2]
            key = self.words.lemma_key(spelling, lang) if self.words is not None else spelling.lower()
            applied.used_words.append(UsedWord(pending["move"], record["player"], letters, key))
        s.pending = None

    # ------------------------------------------------------------------ disputes (RULES-NOTES: "by vote")

    def _disputable(self, s: State, player: str) -> str | None:
        """Why `player` cannot dispute a verdict now without naming tiles (a text key), or None."""
        if s.phase not in ("play", "final_challenge"):
            return N_("topwords.why.no_move_waiting")
        if _restoring(s, player):
            return None
        if s.pending is None or s.pending["settled"]:
            return N_("topwords.why.move_final")
        if s.pending["player"] == player:
            return N_("topwords.why.own_move")
        if s.options.mode == "strict" and not _voters(s, player, s.pending["player"]):
            # Ruling: the mover never votes on their own move, so with two players nobody is left to vote
            # and the dictionary decides; in strict mode it already allowed every word of the move.
            return N_("topwords.why.nobody_votes")
        return None

    def _dispute(self, state: State, player: str, action: Action, applied: Applied) -> State:
        """Put the dictionary's verdict to the vote of the other players."""
        vote: dict[str, Any]
        if action.get("tiles") is not None:
            # A move the dictionary refuses, proposed by its player anyway (strict mode).
            self._expect_turn(state, player)
            if state.options.mode != "strict":
                raise RuleBroken("topwords.rule.nothing_to_dispute", why=Text("topwords.why.challenge_mode"))
            scored = self._check_placement(state, player, _tiles(action.get("tiles")))
            bad = self._invalid_words(state, scored)
            if not bad:
                raise RuleBroken("topwords.rule.nothing_to_dispute", why=Text("topwords.why.all_allowed"))
            tiles = [[r, c, letter] for r, c, letter in scored.tiles]
            words = [_refused(state, w, r) for w, r in bad]
            vote = {"kind": "allow_move", "of": player, "tiles": tiles, "words": words}
        else:
            blocked = self._disputable(state, player)
            if blocked is not None:
                raise RuleBroken("topwords.rule.nothing_to_dispute", why=Text(blocked))
            if _restoring(state, player):
                assert state.taken_back is not None
                taken = state.taken_back
                vote = {"kind": "restore", "of": player, "tiles": taken["tiles"], "words": taken["words"]}
            else:
                record = state.history[-1]
                named = action.get("word")
                made = [w["word"] for w in record["words"]]
                if named is not None and (not isinstance(named, str) or named.upper() not in made):
                    raise RuleBroken(
                        "topwords.rule.word_not_in_move", words=", ".join(made), word=str(named).upper()
                    )
                word = named.upper() if isinstance(named, str) else made[0]
                vote = {
                    "kind": "take_back",
                    "of": record["player"],
                    "tiles": record["tiles"],
                    "words": [{"word": word, "reason": None}],
                }
        s = shallow_copy(state)
        self._open_vote(s, player, vote, applied)
        return s

    def _open_vote(self, s: State, player: str, vote: dict[str, Any], applied: Applied) -> None:
        """The other players vote (RULES-NOTES: "players may dispute the dictionary's verdict by vote").

        Ruling: neither the player who raised it nor the player whose move it is votes (`of`; for a
        proposed end, a proposed move or a restore they are the same). A vote left without voters (two
        players disputing a move in challenge mode) is decided at once as a tie: the dictionary decides.
        """
        s.votes_opened += 1  # a cancelled vote is not in s.votes: its id must not come back
        vote.update(
            id=s.votes_opened,
            by=player,
            back=s.phase,
            voters=_voters(s, player, vote["of"]),
            votes={},
        )
        s.vote, s.phase = vote, "vote"
        public = {k: v for k, v in vote.items() if k not in ("back", "votes")}
        applied.events.append({"type": "vote_open", **public})
        if not vote["voters"]:
            self._decide(s, applied)

    def _propose_end(self, state: State, player: str, action: Action, applied: Applied) -> State:
        """The rulebook's second end, "keiner der Spieler kann ... ein neues Wort bilden", as a table decision.

        Whether some word can still be formed cannot be decided without searching the whole dictionary,
        so a player proposes it and the game ends only if every other player agrees.
        """
        if state.phase != "play":
            raise _wrong_phase(state)
        s = shallow_copy(state)
        self._open_vote(s, player, {"kind": "end", "of": player, "tiles": [], "words": []}, applied)
        return s

    def _vote(self, state: State, player: str, action: Action, applied: Applied) -> State:
        """A ballot on the open vote; a changed mind replaces the earlier ballot until everyone voted."""
        asked = action.get("vote")  # the vote a button belongs to (the engine refuses another open one)
        if asked is not None:
            asked = _int(asked, "vote")
        vote = state.vote
        if state.phase != "vote" or vote is None:
            if asked is not None:
                raise StaleAction("topwords.refusal.vote_closed", asked=asked)
            raise _wrong_phase(state)
        accept = action.get("accept")
        if not isinstance(accept, bool):
            raise BadAction("topwords.refusal.bad_accept")
        if player not in vote["voters"]:
            why = N_("topwords.why.you_raised_it") if player == vote["by"] else N_("topwords.why.own_move")
            raise RuleBroken("topwords.rule.not_a_voter", why=Text(why))
        ballots = cast(vote["voters"], vote["votes"], player, accept)
        s = shallow_copy(state)
        s.vote = {**vote, "votes": ballots}
        applied.events.append({"type": "voted", "player": player, "vote": vote["id"]})
        if everyone_voted(vote["voters"], ballots):
            self._decide(s, applied)
        return s

    def _close_vote(self, state: State, applied: Applied) -> State:
        if state.phase != "vote" or state.vote is None:
            raise WrongPhase("topwords.refusal.no_vote")
        s = shallow_copy(state)
        self._decide(s, applied)
        return s

    def _decide(self, s: State, applied: Applied) -> None:
        """Majority of the votes cast; on a tie the dictionary decides (as in Top Stop)."""
        assert s.vote is not None
        vote, s.vote = s.vote, None
        s.phase = vote["back"]
        words = [w["word"] for w in vote["words"]]
        kind = vote["kind"]
        counted = _tally(vote)
        yes, no = counted.yes, counted.no
        if kind == "end":
            agreed = counted.passed
            log = {"id": vote["id"], "kind": kind, "by": vote["by"], "of": vote["of"], "words": []}
            log.update(yes=yes, no=no, allowed=agreed)
            s.votes = [*s.votes, log]
            applied.events.append({"type": "vote_result", **log})
            if agreed:
                self._end(s, "no_words", applied)
            return
        # On a tie the dictionary decides. It refused a proposed move and a move it took back; in strict mode
        # it allowed a move disputed for take-back. In challenge mode that move was placed unchecked: the
        # tie (or a window closing with no vote cast) has the dictionary check the word, as strict mode would.
        verdict = counted.decision
        refused: list[dict[str, Any]] = []
        if verdict is not None:
            allowed = verdict
            # The table's ruling holds for the rest of the game, and the server remembers it for later ones.
            s.overrides = {**s.overrides, **dict.fromkeys(words, allowed)}
            if s.options.check_words:
                applied.rulings += [WordRuling(word.casefold(), allowed) for word in words]
            refused = [{"word": w, "reason": "voted_out"} for w in words]
        elif kind == "take_back" and s.options.mode == "challenge":
            for word in words:
                valid, reason, _ = self._judge(s, word)
                if not valid:
                    refused.append({"word": word, "reason": reason})
            allowed = not refused
        else:
            allowed = kind == "take_back"
        log = {"id": vote["id"], "kind": kind, "by": vote["by"], "of": vote["of"], "words": words}
        log.update(yes=yes, no=no, allowed=allowed, decided_by="dictionary" if verdict is None else "players")
        s.votes = [*s.votes, log]
        applied.events.append({"type": "vote_result", **log})
        if kind == "take_back":
            assert s.pending is not None
            if allowed:
                s.pending = {**s.pending, "settled": True}
            else:
                self._take_back(s, refused, applied)
            return
        if kind == "restore":
            s.taken_back = None
        if allowed:
            # A proposed or restored move the table allowed is made, and is final: nothing to challenge.
            scored, spellings = self._checked_move(s, vote["of"], _tiles(vote["tiles"]))
            self._commit(s, vote["of"], scored, applied, spellings)
            if s.pending is not None:
                s.pending = {**s.pending, "settled": True}

    # ------------------------------------------------------------------ the end

    def _end(self, s: State, reason: str, applied: Applied) -> None:
        """Rack penalties ("fünf Punkte" per tile left) and the winners: the most points, ties share."""
        self._settle(s, applied)
        s.phase, s.end_reason, s.ending = "over", reason, None
        s.penalties = {player: RACK_PENALTY * len(s.racks[player]) for player in s.players}
        s.scores = {player: s.scores[player] - s.penalties[player] for player in s.players}
        applied.events.append(
            {
                "type": "game_over",
                "reason": reason,
                "scores": dict(s.scores),
                "penalties": dict(s.penalties),
                "tiles_left": {p: len(s.racks[p]) for p in s.players},
                "winners": _winners(s),
            }
        )


def _refused(s: State, word: str, reason: str | None) -> dict[str, Any]:
    """A refused word for a vote's record; a refusal by the server's dictionary names the day of its vote."""
    refused: dict[str, Any] = {"word": word, "reason": reason}
    if reason == "server_refused":
        refused["day"] = s.server_words.get(word.casefold(), {}).get("day")
    return refused


def _restoring(s: State, player: str) -> bool:
    """`player`'s move was just taken back and they have not acted since: a dispute asks to restore it."""
    return s.phase == "play" and s.taken_back is not None and s.taken_back["player"] == player


def _tally(vote: dict[str, Any]) -> Tally:
    """A proposed end needs everyone (a missing vote or a no keeps the game going); the rest, a majority of
    the votes cast."""
    rule = Rule.UNANIMOUS if vote["kind"] == "end" else Rule.MAJORITY
    return tally(vote["votes"], vote["voters"], rule)


def _voters(s: State, raised_by: str, mover: str) -> list[str]:
    """Who votes: every player still seated but the one who raised the question and the one whose move it is."""
    return [p for p in s.seated if p not in (raised_by, mover)]


def _next_turn(s: State) -> None:
    """The turn passes to the next seat still in the game."""
    for step in range(1, len(s.players) + 1):
        index = (s.turn + step) % len(s.players)
        if s.players[index] not in s.left:
            s.turn = index
            break
    s.turn_no += 1


def _candidates(board: Sequence[str], rack: str) -> Iterator[list[Tile]]:
    """Cheap placements to try, in a fixed order: on an empty board two tiles across the centre, else one
    tile on or next to each stack."""
    letters = sorted(set(rack))
    if not any(board):
        row, col = min(CENTRE)
        for a in letters:
            for b in letters:
                if a != b or rack.count(a) > 1:
                    yield [(row, col, a), (row, col + 1, b)]
        return
    tried: set[tuple[int, int]] = set()
    for index, stack in enumerate(board):
        if not stack:
            continue
        r, c = divmod(index, SIZE)
        for square in ((r, c), (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if square in tried or not on_board(*square):
                continue
            tried.add(square)
            if square != (r, c) and board[square[0] * SIZE + square[1]]:
                continue  # a stack: tried as itself
            yield from ([(square[0], square[1], letter)] for letter in letters)


def standings(scores: Mapping[str, int], left: Sequence[str]) -> list[str]:
    """The players in their order of rank: the most points first, every player who left after every player
    who stayed whatever their score (RULES-NOTES); equal scores keep their seat order."""
    gone = set(left)
    return sorted(scores, key=lambda player: (player in gone, -scores[player]))


def _winners(s: State) -> list[str]:
    """The most points among the players still seated (one who left cannot win); ties share."""
    best = max(s.scores[p] for p in s.seated)
    return [p for p in s.seated if s.scores[p] == best]


def _rack_event(s: State, player: str, *, drawn: str = "", returned: str = "") -> Event:
    """The player's rack after a change: for `Applied.tell`, never for the table."""
    event: Event = {"type": "rack", "player": player, "rack": s.racks[player]}
    if drawn:
        event["drawn"] = drawn
    if returned:
        event["returned"] = returned
    return event


def _wrong_phase(s: State) -> GameError:
    key = {
        "vote": N_("topwords.refusal.phase_vote"),
        "final_challenge": N_("topwords.refusal.phase_final"),
        "over": N_("engine.game_over"),
    }.get(s.phase, N_("topwords.refusal.phase_other"))
    return WrongPhase(key)


def _start_draw(players: list[str], rng: random.Random) -> tuple[list[dict[str, str]], str]:
    """ "Jeder Spieler zieht einen Buchstaben": closest to A begins; the tied draw again; tiles go back."""
    rounds: list[dict[str, str]] = []
    drawing = list(players)
    tiles = [letter for letter, n in TILE_COUNTS.items() for _ in range(n)]
    while True:
        letters = dict(zip(drawing, rng.sample(tiles, len(drawing)), strict=True))
        rounds.append(letters)
        best = min(start_rank(letter) for letter in letters.values())
        drawing = [p for p in drawing if start_rank(letters[p]) == best]
        if len(drawing) == 1:
            return rounds, drawing[0]


def _list(value: object, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise BadAction("topwords.refusal.not_a_list", what=what)
    return value


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadAction("topwords.refusal.not_a_number", what=what)
    return value


def _tiles(value: object) -> list[Tile]:
    """The `tiles` argument: [[row, col, "A"], …] with rows and columns 0–9 (A1 is [0, 0])."""
    tiles: list[Tile] = []
    for entry in _list(value, "tiles"):
        if type(entry) not in (list, tuple) or len(entry) != 3:
            raise BadAction("topwords.refusal.bad_tile")
        row, col, letter = entry
        if type(row) is not int or type(col) is not int:  # bool is no number either
            row, col = _int(row, "row"), _int(col, "col")
        tiles.append(
            (row, col, letter if type(letter) is str and letter in LETTERS else normalise_letter(letter))
        )
    return tiles
