"""Top Stop, base game: the pure rules (seeds/top-stop-rulebook.txt and RULES-NOTES.md, Top Stop)."""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from bot.engine.errors import (
    BadAction,
    GameOver,
    IllegalMove,
    NotAPlayer,
    NotYourTurn,
    StaleAction,
    TooLate,
    WrongPhase,
)
from bot.engine.game import (
    JSON,
    STALE_MESSAGE,
    Action,
    Applied,
    Event,
    Outcome,
    Termination,
    Timer,
    UsedWord,
    WordRuling,
    checked_server_words,
    received_at,
    shallow_copy,
)
from bot.engine.votes import cast
from bot.games.topstop import advanced
from bot.games.topstop.cards import CARD_NAMES
from bot.games.topstop.judging import Lexicon, WordsService, judge_lists
from bot.games.topstop.levels import CategoryWords
from bot.games.topstop.output import history, history_record, view
from bot.games.topstop.state import (
    CHOOSE,
    DRAW,
    FIRST_SPIN,
    OVER,
    REVIEW,
    SPIN,
    WRITING,
    Dispute,
    Entry,
    Options,
    PastRound,
    Round,
    TopStopState,
    copy_cards,
    copy_round_cards_of,
    dump_state,
    load_state,
    used_lemmas,
)
from bot.i18n import N_, Text

LANGUAGES = ("en", "fr", "de")
LETTERS = string.ascii_uppercase  # Components: a board of 26 letters
MAX_WORD_LENGTH = 40
MAX_WORDS = 10
SAMPLED_WORDS = 12  # sample_action draws from the first words of a list on the letter: players share some
NAME_COUNTRIES = ("en", "fr", "de", "lb")  # first-name lists of bot.words (Level VII)
# The ways to play (the rulebook's TIP, RULES-NOTES): base (ages 7-11), levels (12-15: the base game plus
# the Level cards) and advanced (16+: Level and Ba Oossee cards). The last two play The Draw.
MODES = ("base", "levels", "advanced")
CARD_MODES = frozenset({"levels", "advanced"})  # first-name lists of bot.words (Level VII)
# Why the game ended (state.end_reason), as the engine tells it.
TERMINATIONS = {
    "target": Termination.TARGET_REACHED,
    "players_left": Termination.LAST_PLAYER_STANDING,
    "ended": Termination.ENDED_BY_HOST,
    "voted": Termination.ENDED_BY_VOTE,
}
# Who may end the game early (the `end` action's `by`): the host, or the table's vote (a system action).
END_BY = {"host": "ended", "vote": "voted"}
# The phase each player action needs, and what the refusal says the player cannot do: checked before the
# state is copied, so that the commonest refusals cost no copy.
PHASE_OF = {
    "submit": (WRITING, N_("topstop.doing.write")),
    "stop": (WRITING, N_("topstop.doing.stop")),
    "respin": (WRITING, N_("topstop.doing.respin")),
    "dispute": (REVIEW, N_("topstop.doing.dispute")),
    "vote": (REVIEW, N_("topstop.doing.vote")),
    "review_done": (REVIEW, N_("topstop.doing.review_done")),
}


def winning_score(player_count: int) -> int:
    """WINNING THE GAME: 2-4 players 50, 5-8 players 100, 9+ players 150."""
    if player_count <= 4:
        return 50
    return 100 if player_count <= 8 else 150


@dataclass
class _Step:
    """What one action produces besides the new state."""

    events: list[Event] = field(default_factory=list)
    used_words: list[UsedWord] = field(default_factory=list)
    private: list[tuple[str, Event]] = field(default_factory=list)  # (player, event) for that player only
    rulings: list[WordRuling] = field(default_factory=list)  # votes the server's dictionary remembers


Handler = Callable[[TopStopState, Action, _Step], None]


class TopStop:
    """The rules object the engine drives; `words` is the bot.words service."""

    name = "topstop"
    server_dictionary = True  # a new game takes the server's own dictionary along (setup `server_words`)
    min_players = 2
    max_players = 12

    def __init__(self, words: WordsService | None) -> None:
        self.words = words
        self._player_actions: dict[str, Handler] = {
            "spin": self._spin,
            "respin": self._respin,
            "submit": self._submit,
            "stop": self._stop,
            "dispute": self._dispute,
            "vote": self._vote,
            "review_done": self._review_done,
            "leave": self._leave,
            "draw": self._draw,
            "choose": self._choose,
        }
        self._system_actions: dict[str, Handler] = {
            "end_writing": self._end_writing,
            "close_vote": self._close_vote,
            "end_round": self._end_round,
            "auto_spin": self._auto_spin,
            "auto_choose": self._auto_choose,
        }
        self.action_names = frozenset({*self._player_actions, *self._system_actions, "end"})
        # Every list is judged: 0.5–1.1 ms for six players with the word tables, 10–30 ms for eight without.
        self.slow_actions = frozenset({"end_writing"})
        # What resolve_chance draws (here and in advanced.resolve_chance): never a player's to choose.
        self.chance_keys: Mapping[str, frozenset[str]] = {
            "spin": frozenset({"letter", "letters", "category"}),
            "auto_spin": frozenset({"letters"}),
            "draw": frozenset({"shuffle"}),
            "choose": frozenset({"shuffle"}),
            "auto_choose": frozenset({"act"}),
        }
        self._samples: dict[tuple[str, str, str], tuple[str, ...]] = {}  # sample_action's words, per list

    # -- the contract -----------------------------------------------------------------------------

    def new_game(
        self, options: Mapping[str, Any], players: Sequence[str], setup: Mapping[str, Any], rng: random.Random
    ) -> TopStopState:
        seats = _check_players(players, self.min_players, self.max_players)
        opts = self._options(options, len(seats))
        unknown = set(setup) - {"first_player", "server_words"} - advanced.SETUP_KEYS
        if unknown:
            raise BadAction("topstop.unknown_setup", keys=", ".join(sorted(unknown)))
        if opts.mode not in CARD_MODES:
            advanced.check_base_setup(setup)
        state = TopStopState(
            options=opts,
            seats=seats,
            phase=FIRST_SPIN,
            scores={p: 0 for p in seats},
            penalties={p: 0 for p in seats},
            advanced=(
                advanced.new_cards(seats, setup, rng, ba_oossee=opts.mode == "advanced")
                if opts.mode in CARD_MODES
                else None
            ),
            server_words=checked_server_words(setup.get("server_words", {})),
        )
        first = setup.get("first_player")
        if first is None:
            # Starting the game: each player spins the arrow; the letter closest to A starts.
            state.first_spin = {p: None for p in seats}
        elif first in seats:
            _start_round(state, first, _Step())
        else:
            raise BadAction("topstop.setup_first_player", player=repr(first))
        return state

    def validate_options(self, options: Mapping[str, Any]) -> JSON:
        """The options with their defaults; `target` stays out unless given (it follows the player count)."""
        checked = asdict(self._options(options, self.min_players))
        for key in ("target", "today", "country"):  # they follow the player count, the date, the language
            if key not in options:
                del checked[key]
        return checked

    def _options(self, options: Mapping[str, Any], player_count: int) -> Options:
        opts = _parse_options(options, player_count)
        if opts.check_words and self.words is None:
            raise BadAction("topstop.needs_words_service")
        return opts

    def freshness(self, state: TopStopState) -> JSON:
        """Buttons name their round (0: the first spin), the re-spins so far (a form opened for the letter
        before a re-spin is stale), while one is open their dispute vote, and otherwise in the review its
        window (`review`: a "nothing to dispute" made before a vote does not count after it): each only ever
        counts up."""
        fresh: JSON = {"round": current_round_number(state), "respins": state.respins}
        if state.phase == REVIEW and state.round.dispute is not None:
            fresh["dispute"] = state.round.dispute.number
        elif state.phase == REVIEW:
            fresh["review"] = review_window(state)
        if state.advanced is not None:
            fresh.update(advanced.freshness(state))
        return fresh

    def table_actions(self, state: TopStopState, player: str | None) -> frozenset[str]:
        """What `player` may do now; for None, what the table message offers: anything a seated player may."""
        players = state.seated if player is None else [player]
        return frozenset(action["do"] for p in players for action in self.legal_actions(state, p) or [])

    def view_for(self, state: TopStopState, player: str | None) -> JSON:
        shown = view(state, player)
        if state.advanced is not None:
            shown["cards"] = advanced.view(state, player)
        if player is None:  # the table's buttons are drawn from the public view (a player's asks every seat)
            shown["offered"] = sorted(self.table_actions(state, None))
        shown["freshness"] = self.freshness(state)  # what a button must carry (the table layer's keys)
        return shown

    def resolve_chance(self, state: TopStopState, action: Action, rng: random.Random) -> Action:
        """A spin without a letter gets one of the 26 letters, uniformly."""
        if state.advanced is not None and state.phase != FIRST_SPIN:
            return advanced.resolve_chance(state, action, rng, self._category_words(state))
        if action.get("do") == "spin" and action.get("letter") is None:
            return {**action, "letter": rng.choice(LETTERS)}
        if action.get("do") == "auto_spin" and action.get("letters") is None:
            return {**action, "letters": {p: rng.choice(LETTERS) for p in _waiting_spinners(state)}}
        return action

    def apply(self, state: TopStopState, action: Action) -> Applied:
        name = action.get("do")
        if not isinstance(name, str) or name not in self.action_names:
            raise BadAction("engine.unknown_action", game="Top Stop", name=repr(name))
        if state.phase == OVER:
            raise GameOver("engine.game_over")
        player = action.get("player")
        # Who acts, and whether now, is checked on the state as it is: a refusal pays no copy.
        if name in self._system_actions:
            if player is not None:
                raise IllegalMove("topstop.system_action", action=name)
        elif name != "end" or player is not None:
            if player is None:
                raise BadAction("engine.needs_player", action=name)
            _check_seated(state, player)
            if name in PHASE_OF:
                _check_phase_and_time(state, name, player, action)
        new = _copy_for_step(state)
        result = _Step()
        if name == "end":
            self._end(new, action, result)
        elif name in self._system_actions:
            self._system_actions[name](new, action, result)
        else:
            self._player_actions[name](new, action, result)
        if new.phase == WRITING and (state.phase != WRITING or name == "stop"):
            _open_writing_window(new, action, stopped=name == "stop")
        applied = Applied(new, result.events, result.used_words, rulings=result.rulings)
        for who, event in result.private:
            applied.tell(who, event)
        return applied

    def legal_actions(self, state: TopStopState, player: str) -> list[Action] | None:
        if player not in state.seats:
            return None
        if state.phase == OVER or player not in state.seated:
            return []
        actions: list[Action] = []
        if state.phase == WRITING and player in state.round.players:
            actions += _writing_actions(state, player)
        first_spinning = (
            state.phase == FIRST_SPIN and player in state.first_spin and not state.first_spin[player]
        )
        if first_spinning or (state.phase == SPIN and state.round.spinner == player):
            actions.append({"do": "spin", "player": player})
        if state.phase == REVIEW and player in state.round.players:
            actions += _review_actions(state.round, player, state.left)
        if state.phase in (DRAW, CHOOSE):
            actions += advanced.legal_actions(state, player)
        actions.append({"do": "leave", "player": player})
        if player == _host(state):
            actions.append({"do": "end", "player": player})
        return actions

    def sample_action(self, state: TopStopState, player: str, rng: random.Random) -> Action | None:
        """While writing, a list as players write them (bot.engine.game.SamplesActions): mostly real words on
        the letter (the language's verbs), some proper nouns (countries, first names), some made up, some
        on another letter; drawn from the first few words of each list, so that players write the same
        words too. None when `player` writes nothing now."""
        if state.phase != WRITING or player not in _round_players(state) or state.round.stopped_by == player:
            return None
        letter = (state.round.letter or "a").lower()
        other = "e" if letter != "e" else "a"
        limit = state.options.words if state.advanced is None else advanced.words_for(state, player)
        kinds = (
            (0.55, self._sample_words(state, "verbs", letter)),
            (0.15, self._sample_words(state, "countries", letter) + self._sample_words(state, "first_names", letter)),
            (0.1, self._sample_words(state, "verbs", other)),
        )  # fmt: skip
        words = []
        for _ in range(rng.randint(1, limit)):
            roll = rng.random()
            for share, pool in kinds:
                if roll < share and pool:
                    words.append(rng.choice(pool))
                    break
                roll -= share
            else:  # made up on the letter: most are no word at all
                words.append(letter + "".join(rng.choice("aeioulnrst") for _ in range(rng.randint(2, 6))))
        return {"do": "submit", "player": player, "words": words}

    def _sample_words(self, state: TopStopState, category: str, letter: str) -> tuple[str, ...]:
        """A few entries of a word list of bot.words on the letter (none without the words service)."""
        key = (state.options.language, category, letter)
        if key not in self._samples:
            listed = getattr(self.words, "category_words", None) if state.options.check_words else None
            entries = listed(state.options.language, category, letter) if listed is not None else ()
            self._samples[key] = tuple(entries[:SAMPLED_WORDS])
        return self._samples[key]

    def outcome(self, state: TopStopState) -> Outcome | None:
        if state.phase != OVER:
            return None
        return Outcome(
            winners=list(state.winners),
            scores=dict(state.scores),
            left=list(state.left),
            termination=TERMINATIONS[state.end_reason or "ended"],
            draw=len(state.winners) != 1,
        )

    def timers(self, state: TopStopState) -> list[Timer]:
        opts = state.options
        if state.advanced is not None and (advanced_timers := advanced.timers(state)) is not None:
            return advanced_timers
        if state.phase in (FIRST_SPIN, SPIN):
            # An idle spinner must not stall the table: the bot spins for them after spin_time.
            spins = len(state.first_spins) if state.phase == FIRST_SPIN else len(state.round.respun)
            key = f"spin:{len(state.rounds)}:{spins}"
            return [Timer(key, opts.spin_time, {"do": "auto_spin"})]
        if state.phase == WRITING:
            current = state.round
            if current.stopped_by is not None:
                # After STOP, a grace period lets the others finish their words.
                return [Timer(f"grace:{current.number}", opts.grace, {"do": "end_writing"})]
            # The round time limit; a re-spin (FAQ 2) starts it again.
            spin_count = len(current.respun)
            return [Timer(f"writing:{current.number}:{spin_count}", opts.writing_time, {"do": "end_writing"})]
        if state.phase == REVIEW:
            current = state.round
            if current.dispute is not None:
                return [
                    Timer(
                        f"vote:{current.number}:{len(current.disputes)}", opts.vote_time, {"do": "close_vote"}
                    )
                ]
            # Each closed vote opens a fresh review window for further disputes.
            return [
                Timer(
                    f"review:{current.number}:{len(current.disputes)}", opts.review_time, {"do": "end_round"}
                )
            ]
        return []

    def dump(self, state: TopStopState) -> JSON:
        return dump_state(state)

    def load(self, data: JSON) -> TopStopState:
        return load_state(data, history_record)

    def replay_output(self, state: TopStopState) -> JSON:
        return {
            "game": self.name,
            "players": list(state.seats),
            "phase": state.phase,
            "finished": state.phase == OVER,
            "winners": list(state.winners),
            "scores": dict(state.scores),
            "penalties": dict(state.penalties),
            "left": list(state.left),
            "tiebreakers": list(state.tiebreakers),
            "end_reason": state.end_reason,
            "target": state.options.target,
            "first_spins": [dict(s) for s in state.first_spins],
            **(advanced.output(state) if state.advanced is not None else {}),
            "round": state.round.number if state.rounds else 0,
            "spinner": state.round.spinner if state.rounds else None,
            "letter": state.round.letter if state.rounds else None,
            "history": history(state),
        }

    # -- player actions ---------------------------------------------------------------------------

    def _spin(self, state: TopStopState, action: Action, step: _Step) -> None:
        player = action["player"]
        if state.phase == SPIN and state.advanced is not None:
            advanced.spin(state, action, step, self._category_words(state))
            return
        letter = action.get("letter")
        if not isinstance(letter, str) or len(letter) != 1 or letter.upper() not in LETTERS:
            raise BadAction("topstop.spin_letter")
        letter = letter.upper()
        if state.phase == FIRST_SPIN:
            if player not in state.first_spin:
                raise IllegalMove("topstop.tied_spin_again")
            if state.first_spin[player] is not None:
                raise IllegalMove("topstop.already_spun")
            state.first_spin[player] = letter
            step.events.append({"type": "first_spin", "player": player, "letter": letter})
            _settle_first_spin(state, step)
        elif state.phase == SPIN:
            current = state.round
            if player != current.spinner:
                raise NotYourTurn("topstop.not_your_spin", player=current.spinner)
            # The Spin: the letter is everyone's TOP, the cue to begin writing.
            current.letter = letter
            state.phase = WRITING
            step.events.append({"type": "spun", "round": current.number, "player": player, "letter": letter})
        else:
            raise WrongPhase("topstop.not_spin_time")

    def _respin(self, state: TopStopState, action: Action, step: _Step) -> None:
        # FAQ 2: if no player can find any word, the spinner spins again, but only on a unanimous call.
        player = action["player"]
        current = _current_round(state, WRITING, player, N_("topstop.doing.respin"))
        if current.stopped_by is not None:
            # Our ruling: once STOP is called the letter is final; the STOP stands, so no re-spin.
            raise WrongPhase("topstop.letter_final", player=current.stopped_by, letter=current.letter)
        writers = [p for p, words in current.submissions.items() if words]
        if writers:
            raise IllegalMove("topstop.round_played", player=writers[0])
        if player in current.respin_votes:
            raise IllegalMove("topstop.already_asked_respin")
        current.respin_votes.append(player)
        asked = state.respin_tally
        step.events.append(
            {"type": "respin_vote", "player": player, "votes": asked.yes, "needed": asked.eligible}
        )
        _respin_if_unanimous(state, step)

    def _submit(self, state: TopStopState, action: Action, step: _Step) -> None:
        player = action["player"]
        words = self._parse_words(state, action.get("words"), player)
        current = _current_round(state, WRITING, player, N_("topstop.doing.write"))
        if current.stopped_by == player:
            raise IllegalMove("topstop.list_final")
        current.submissions[player] = words
        if words and current.respin_votes:
            # FAQ 2: one player with words is enough for the round to be played normally.
            current.respin_votes = []
            step.events.append({"type": "respin_cancelled", "player": player})
        step.events.append({"type": "submitted", "player": player, "count": sum(1 for w in words if w)})
        step.private.append((player, {"type": "your_words", "words": list(words)}))

    def _stop(self, state: TopStopState, action: Action, step: _Step) -> None:
        player = action["player"]
        current = _current_round(state, WRITING, player, N_("topstop.doing.stop"))
        if current.stopped_by is not None:
            raise IllegalMove("topstop.already_stopped", player=current.stopped_by)
        if player not in current.submissions:
            raise IllegalMove("topstop.submit_before_stop")
        count = sum(1 for word in current.submissions[player] if word)  # Level X keeps blank slots
        current.stopped_by = player
        if current.respin_votes:
            # Our ruling: the letter is final once STOP is called, so pending re-spin requests are dropped.
            current.respin_votes = []
            step.events.append({"type": "respin_cancelled", "player": player})
        # Penalty: STOP without the required words costs 1 point the first time, 2 the second, and so on.
        required = state.options.words if state.advanced is None else advanced.words_for(state, player)
        if count < required:
            current.stop_penalty = state.penalties[player] + 1
        step.events.append(
            {
                "type": "stopped",
                "player": player,
                "count": count,
                "penalty": current.stop_penalty,
                "grace": state.options.grace,
            }
        )

    def _dispute(self, state: TopStopState, action: Action, step: _Step) -> None:
        # Rule 9 and FAQ 4: a player may defend a crossed-out word, or challenge an accepted one; the
        # other players judge.
        player = action["player"]
        owner, word = action.get("of"), action.get("word")
        if not isinstance(owner, str) or not isinstance(word, str):
            raise BadAction("topstop.dispute_args")
        current = _current_round(state, REVIEW, player, N_("topstop.doing.dispute"))
        if current.dispute is not None:
            raise IllegalMove("topstop.one_vote")
        if owner in state.left:
            raise IllegalMove("topstop.owner_left", player=owner)
        if owner not in current.lists:
            raise IllegalMove("topstop.no_list", player=owner)
        word = self._lexicon(state).normalise(word)
        matching = [i for i, e in enumerate(current.lists[owner]) if e.word == word]
        if not matching:
            raise IllegalMove("topstop.not_written", player=owner, word=repr(word))
        open_to_dispute = [i for i in matching if not current.lists[owner][i].disputed]
        if not open_to_dispute:
            raise IllegalMove("topstop.already_disputed", word=repr(word))
        index = open_to_dispute[0]
        entry = _change_entry(current, owner, index, disputed=True)
        voters = [p for p in _round_players(state) if p != player]
        # Each vote of the game has its own number, so a button of an earlier vote cannot land on this one.
        current.opened_disputes += 1
        state.disputes_opened += 1
        current.ready = []  # our ruling: a new vote may give anyone something (more) to dispute
        number = state.disputes_opened
        current.dispute = Dispute(disputer=player, owner=owner, index=index, voters=voters, number=number)
        step.events.append(
            {
                "type": "dispute_opened",
                "round": current.number,
                "dispute": number,
                "player": player,
                "of": owner,
                "word": word,
                "valid": entry.valid,
                "reason": entry.final_reason,
                "voters": voters,
                "seconds": state.options.vote_time,
            }
        )

    def _vote(self, state: TopStopState, action: Action, step: _Step) -> None:
        player = action["player"]
        accept = action.get("accept")
        if not isinstance(accept, bool):
            raise BadAction("topstop.accept_bool")
        current = _current_round(state, REVIEW, player, N_("topstop.doing.vote"))
        dispute = current.dispute
        wanted = action.get("dispute")
        if wanted is not None:
            if isinstance(wanted, bool) or not isinstance(wanted, int):
                raise BadAction("topstop.dispute_number")
            if dispute is None or dispute.number != wanted:
                raise StaleAction(STALE_MESSAGE)  # the vote it names has closed
        if dispute is None:
            raise IllegalMove("topstop.no_vote_open")
        if player not in dispute.voters:
            raise IllegalMove("topstop.own_dispute")
        if player in dispute.votes:
            raise IllegalMove("topstop.already_voted")
        dispute.votes = cast(dispute.voters, dispute.votes, player, accept)
        # How each player voted stays secret until the vote closes; the tally is then public.
        counted = dispute.tally
        step.events.append(
            {"type": "vote_cast", "player": player, "votes": counted.voted, "voters": counted.eligible}
        )
        if counted.everyone_voted:
            _close_dispute(state, step)

    def _review_done(self, state: TopStopState, action: Action, step: _Step) -> None:
        # Our ruling: each player of the round says when they have nothing (more) to dispute; once every one
        # still seated has, and no vote is open, the review closes at once (the timer closes it otherwise).
        player = action["player"]
        current = _current_round(state, REVIEW, player, N_("topstop.doing.review_done"))
        if current.dispute is not None:
            raise IllegalMove("topstop.ready_vote_open")
        if player in current.ready:
            raise IllegalMove("topstop.already_ready")
        current.ready.append(player)
        waiting = [p for p in _round_players(state) if p not in current.ready]
        step.events.append(
            {"type": "review_done", "round": current.number, "player": player, "waiting": waiting}
        )
        if not waiting:
            self._end_round(state, action, step)

    def _leave(self, state: TopStopState, action: Action, step: _Step) -> None:
        player = action["player"]
        state.left.append(player)
        state.tiebreakers = [p for p in state.tiebreakers if p != player]
        if state.rounds and state.round.stopped_by == player and state.round.points is None:
            state.round.stop_penalty = 0  # a player who left is not scored, so takes no penalty either
        step.events.append({"type": "player_left", "player": player})
        seated = state.seated
        if len(seated) < 2:
            # The game goes on while two players remain.
            _finish(state, _leaders(state, seated), "players_left", step)
            return
        if state.rounds and state.round.tiebreak and len(state.tiebreakers) < 2:
            # A tiebreak needs two tied players; the one left wins it.
            _finish(state, list(state.tiebreakers), "players_left", step)
            return
        if state.advanced is not None:
            advanced.player_left(state, player, step)
        if state.phase == FIRST_SPIN:
            state.first_spin.pop(player, None)
            if len(state.first_spin) == 1:
                _start_first_round(state, next(iter(state.first_spin)), step)
            else:
                _settle_first_spin(state, step)
        elif state.phase == SPIN and state.round.spinner == player:
            state.round.spinner = _next_seat(state, player)
            step.events.append({"type": "spinner_changed", "player": state.round.spinner})
        elif state.phase == WRITING:
            current = state.round
            current.submissions.pop(player, None)  # never revealed
            current.respin_votes = [p for p in current.respin_votes if p != player]
            _respin_if_unanimous(state, step)
        elif state.phase == REVIEW and state.round.dispute is not None:
            dispute = state.round.dispute
            if player in (dispute.disputer, dispute.owner):
                # The vote loses its subject: dropped, the verdict stays and the word may be disputed again.
                _change_entry(state.round, dispute.owner, dispute.index, disputed=False)
                state.round.dispute = None
                step.events.append({"type": "vote_cancelled", "of": dispute.owner})
            elif player in dispute.voters:
                dispute.voters.remove(player)
                dispute.votes.pop(player, None)
                if dispute.tally.everyone_voted:
                    _close_dispute(state, step)
        elif state.phase == REVIEW:
            current = state.round
            current.ready = [p for p in current.ready if p != player]
            if current.ready and all(p in current.ready for p in _round_players(state)):
                self._end_round(state, action, step)  # the one still reviewing left: the others are done

    def _draw(self, state: TopStopState, action: Action, step: _Step) -> None:
        advanced.draw(state, action, step)
        _victory_in_the_draw(state, step)

    def _choose(self, state: TopStopState, action: Action, step: _Step) -> None:
        advanced.choose(state, action, step, self._category_words(state))
        _victory_in_the_draw(state, step)

    # -- system actions ---------------------------------------------------------------------------

    def _end_writing(self, state: TopStopState, action: Action, step: _Step) -> None:
        if state.phase != WRITING:
            raise WrongPhase("topstop.writing_closed")
        current = state.round
        assert current.letter is not None
        # Words Reveal: starting with the player who called STOP and moving clockwise.
        order = _clockwise_from(state, current.stopped_by or current.spinner)
        lists = {p: current.submissions[p] for p in order if p in current.submissions}
        earlier = [lemma for r in state.rounds[:-1] for lemma in used_lemmas(r)]
        if state.advanced is not None:
            current.lists = advanced.judge(state, lists, earlier, self._lexicon(state))
        else:
            current.lists = judge_lists(lists, current.letter, earlier, self._lexicon(state))
        current.submissions = {}
        current.respin_votes = []
        current.revealed = True
        state.phase = REVIEW
        # Rule 6: every revealed word is used from now on, scored or not.
        step.used_words += [
            UsedWord(current.number, p, e.word, e.lemma_key) for p, es in current.lists.items() for e in es
        ]
        step.events.append(
            {
                "type": "writing_closed",
                "round": current.number,
                "letter": current.letter,
                "stopped_by": current.stopped_by,
                "lists": {
                    p: [{"word": e.word, "valid": e.valid, "reason": e.final_reason} for e in es]
                    for p, es in current.lists.items()
                },
                "seconds": state.options.review_time,
            }
        )

    def _auto_spin(self, state: TopStopState, action: Action, step: _Step) -> None:
        """The spin time ran out: the bot spins for every player who has not (letters chosen by chance)."""
        letters = action.get("letters")
        waiting = _waiting_spinners(state)
        if not waiting:
            raise WrongPhase("topstop.nobody_spins")
        if not isinstance(letters, dict) or set(letters) != set(waiting):
            raise BadAction("topstop.auto_spin_letters", players=", ".join(waiting))
        for player in waiting:
            if state.phase not in (FIRST_SPIN, SPIN):
                break  # the first spin settled part-way (possible only on a tie, handled by the next timer)
            self._spin(state, {"do": "spin", "player": player, "letter": letters[player]}, step)

    def _close_vote(self, state: TopStopState, action: Action, step: _Step) -> None:
        if state.phase != REVIEW:
            raise WrongPhase("topstop.no_vote_open")
        if state.round.dispute is None:
            raise IllegalMove("topstop.no_vote_open")
        _close_dispute(state, step)

    def _end_round(self, state: TopStopState, action: Action, step: _Step) -> None:
        if state.phase != REVIEW:
            raise WrongPhase("topstop.not_revealed")
        current = state.round
        if current.dispute is not None:
            raise IllegalMove("topstop.vote_still_open")
        # Scoring: 1 point per valid word (FAQ 1: crossed-out words score nothing), minus a STOP penalty;
        # a player who submitted nothing scores 0 without penalty. Scores never go below 0.
        points = {}
        for player in _round_players(state):
            valid = sum(1 for e in current.lists.get(player, []) if e.valid)
            penalty = current.stop_penalty if player == current.stopped_by else 0
            if penalty:
                state.penalties[player] += 1
            points[player] = valid - penalty
            state.scores[player] = max(0, state.scores[player] + points[player])
        current.points = points
        if state.advanced is not None:
            advanced.after_scoring(state, step)
        step.events.append(
            {
                "type": "round_scored",
                "round": current.number,
                "points": dict(points),
                "scores": dict(state.scores),
            }
        )
        seated = state.seated
        if current.tiebreak:
            contenders = list(state.tiebreakers)
        elif any(state.scores[p] >= state.options.target for p in seated):
            contenders = seated
        else:
            contenders = []
        if state.advanced is not None:
            next_spinner = advanced.next_spinner(state, current.spinner)
        else:
            next_spinner = _next_seat(state, current.spinner)
        if not contenders:
            # The player on the left becomes the spinner and the next round begins.
            _start_round(state, next_spinner, step)
            return
        leaders = _leaders(state, contenders)
        if len(leaders) == 1:
            _finish(state, leaders, "target", step)
            return
        # Tiebreaker: the tied players compete in additional rounds until a clear winner is determined;
        # FAQ 9: the spinner is whoever was next in the regular order.
        state.tiebreakers = leaders
        step.events.append({"type": "tiebreak", "players": list(leaders)})
        _start_round(state, next_spinner, step)

    def _end(self, state: TopStopState, action: Action, step: _Step) -> None:
        player = action.get("player")
        by = action.get("by", "host")
        if by not in END_BY or (player is not None and by != "host"):
            raise BadAction("topstop.end_by")
        if player is not None:
            _check_seated(state, player)
            if player != _host(state):
                raise IllegalMove("topstop.host_ends", player=_host(state))
        # Ended early: the highest score wins (several on a tie).
        _finish(state, _leaders(state, state.seated), END_BY[by], step)

    # -- helpers that need the words service ------------------------------------------------------

    def _category_words(self, state: TopStopState) -> CategoryWords | None:
        """The words service for the Level cards' lists, when words are checked."""
        if not state.options.check_words or self.words is None:
            return None
        words: CategoryWords = self.words  # type: ignore[assignment]  # bot.words.WordService has them all
        return words

    def _auto_choose(self, state: TopStopState, action: Action, step: _Step) -> None:
        """The spin time ran out in The Draw, a spin or a Level's letter: the decision `act` chosen at random."""
        act = advanced.auto_choose(state, action)
        step.events.append({"type": "timed_out", "player": act["player"], "do": act["do"]})
        self._player_actions[act["do"]](state, act, step)

    def _lexicon(self, state: TopStopState) -> Lexicon:
        return Lexicon(self.words, state.options.language, state.options.check_words, state.server_words)

    def _parse_words(self, state: TopStopState, words: Any, player: str) -> list[str]:
        limit = state.options.words if state.advanced is None else advanced.words_for(state, player)
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            raise BadAction("topstop.words_list")
        # Blank entries (an empty field of the form) are ignored; Level X keeps them: a slot is a position.
        if state.advanced is not None and advanced.keeps_blank_slots(state):
            kept = [w.strip() for w in words]
            while kept and not kept[-1]:
                kept.pop()
        else:
            kept = [w.strip() for w in words if w.strip()]
        if len(kept) > limit:
            raise BadAction("topstop.too_many_words", limit=limit)
        lexicon = self._lexicon(state)
        normalised = [lexicon.normalise(w) if w else w for w in kept]
        # The length counts once the word is normalised: case folding may lengthen it (ﬃ → ffi, ß → ss),
        # and the normalised word is what is stored, shown back in the form and put in a dispute's menu.
        too_long = [w for w in normalised if len(w) > MAX_WORD_LENGTH]
        if too_long:
            raise BadAction(
                "topstop.word_too_long", limit=MAX_WORD_LENGTH, word=too_long[0][:20], length=len(too_long[0])
            )
        return normalised


# -- module helpers ---------------------------------------------------------------------------------


def _check_players(players: Sequence[str], least: int, most: int) -> list[str]:
    seats = list(players)
    if not all(isinstance(p, str) and p for p in seats) or len(set(seats)) != len(seats):
        raise BadAction("topstop.distinct_players")
    if not least <= len(seats) <= most:
        raise BadAction("topstop.player_count", least=least, most=most)
    return seats


def _parse_options(options: Mapping[str, Any], player_count: int) -> Options:
    unknown = set(options) - set(Options.__dataclass_fields__)
    if unknown:
        raise BadAction("topstop.unknown_options", names=", ".join(sorted(unknown)))
    language = options.get("language", "en")
    if language not in LANGUAGES:
        raise BadAction("topstop.language", languages=", ".join(LANGUAGES), language=repr(language))
    mode = options.get("mode", "base")
    if mode not in MODES:
        raise BadAction("topstop.unknown_mode", mode=repr(mode))
    today = options.get("today")
    if today is not None:
        advanced.day_of_year(today, "today")
    country = options.get("country")
    if country is not None and country not in NAME_COUNTRIES:
        raise BadAction("topstop.adv.country", countries=", ".join(NAME_COUNTRIES))
    check_words = options.get("check_words", True)
    if not isinstance(check_words, bool):
        raise BadAction("engine.option_check_words")
    return Options(
        language=language,
        mode=mode,
        words=_int_option(options, "words", 5, 1, MAX_WORDS),
        target=_int_option(options, "target", winning_score(player_count), 1, 10_000),
        check_words=check_words,
        grace=_seconds_option(options, "grace", 10.0),
        writing_time=_seconds_option(options, "writing_time", 180.0),
        review_time=_seconds_option(options, "review_time", 30.0),
        spin_time=_seconds_option(options, "spin_time", 60.0),
        vote_time=_seconds_option(options, "vote_time", 30.0),
        today=today,
        country=country,
    )


def _int_option(options: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadAction("topstop.int_option", key=key, low=low, high=high)
    return value


def _seconds_option(options: Mapping[str, Any], key: str, default: float) -> float:
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 3600:
        raise BadAction("topstop.seconds_option", key=key)
    return float(value)


def _check_phase_and_time(state: TopStopState, name: str, player: str, action: Action) -> None:
    """The action's phase, and for writing its window: an action received after the writing time is
    refused, however late the session's lock let it through (writing closes when its timer runs)."""
    phase, doing = PHASE_OF[name]
    current = _current_round(state, phase, player, doing)
    if phase != WRITING or current.writing_until is None:
        return
    received = received_at(action)
    if received is not None and received > current.writing_until:
        late = received - current.writing_until
        raise TooLate("topstop.too_late", doing=Text(doing), seconds=f"{late:.1f}")


def _open_writing_window(state: TopStopState, action: Action, *, stopped: bool) -> None:
    """The writing window runs from the moment the action that opened it was received (the spin, or a STOP
    and its grace period), as the engine's timer does: None for an action without that moment."""
    received = received_at(action)
    seconds = state.options.grace if stopped else state.options.writing_time
    state.round.writing_until = None if received is None else received + seconds


def current_round_number(state: TopStopState) -> int:
    """The round the table is in: 0 during the first spin, then 1, 2, …"""
    return len(state.rounds)


def review_window(state: TopStopState) -> int:
    """The review window's number in the game (the reveal opens one, each vote another): the rounds so far
    plus the votes opened, so it only counts up from one window to the next."""
    return current_round_number(state) + state.disputes_opened


def _check_seated(state: TopStopState, player: Any) -> None:
    if not isinstance(player, str) or player not in state.seats:
        raise NotAPlayer("engine.not_playing")
    if player in state.left:
        raise NotAPlayer("topstop.has_left")


def _host(state: TopStopState) -> str:
    """The lobby's creator sits first; if they left, the next remaining seat hosts."""
    return state.seated[0]


def _round_players(state: TopStopState) -> list[str]:
    """Who writes (and judges) the current round and is still seated."""
    return [p for p in state.round.players if p not in state.left]


def _current_round(state: TopStopState, phase: str, player: str, doing: str) -> Round:
    if state.phase != phase:
        raise WrongPhase("topstop.cannot_now", doing=Text(doing))
    if player not in state.round.players:
        raise _not_writing(state.round, player)
    return state.round


def _not_writing(current: Round, player: str) -> IllegalMove:
    """Why a seated player does not play this round: a Ba Oossee card has them sit out (their own, or one
    played on them), or only the tied players play the tiebreak."""
    played = current.cards.played if current.cards is not None else []
    for card in played:
        if card["card"] == "sit_out" and card["player"] == player:
            return IllegalMove("topstop.sitting_out_own", card=Text(CARD_NAMES["sit_out"]))
        if card["card"] == "force_sit_out" and card.get("target") == player:
            return IllegalMove(
                "topstop.sitting_out_by", player=card["player"], card=Text(CARD_NAMES["force_sit_out"])
            )
    return IllegalMove("topstop.tiebreak_only")


def _next_seat(state: TopStopState, player: str) -> str:
    """The player on the left: the next seat still occupied, going round the table."""
    seats = state.seats
    start = seats.index(player)
    for offset in range(1, len(seats) + 1):
        candidate = seats[(start + offset) % len(seats)]
        if candidate not in state.left:
            return candidate
    raise AssertionError("no seated player")


def _clockwise_from(state: TopStopState, player: str) -> list[str]:
    start = state.seats.index(player)
    return [p for p in state.seats[start:] + state.seats[:start] if p not in state.left]


def _leaders(state: TopStopState, players: Sequence[str]) -> list[str]:
    if not players:
        return []
    top = max(state.scores[p] for p in players)
    return [p for p in players if state.scores[p] == top]


def _settle_first_spin(state: TopStopState, step: _Step) -> None:
    """Once everyone still spinning has a letter: the lowest starts; players tied for it spin again."""
    if any(letter is None for letter in state.first_spin.values()):
        return
    letters = {p: letter for p, letter in state.first_spin.items() if letter is not None}
    state.first_spins.append(letters)
    lowest = min(letters.values())
    tied = [p for p, letter in letters.items() if letter == lowest]
    if len(tied) == 1:
        _start_first_round(state, tied[0], step)
        return
    state.first_spin = {p: None for p in tied}
    step.events.append({"type": "first_spin_tie", "players": tied, "letter": lowest})


def _waiting_spinners(state: TopStopState) -> list[str]:
    """Who the table waits for to spin: the first spin's missing players, or the round's spinner."""
    if state.phase == FIRST_SPIN:
        return [p for p, letter in state.first_spin.items() if letter is None]
    if state.phase == SPIN:
        return [state.round.spinner]
    return []


def _start_first_round(state: TopStopState, spinner: str, step: _Step) -> None:
    state.first_spin = {}
    step.events.append({"type": "first_spinner", "player": spinner})
    _start_round(state, spinner, step)


def _start_round(state: TopStopState, spinner: str, step: _Step) -> None:
    players = list(state.tiebreakers) if state.tiebreakers else state.seated
    number = len(state.rounds) + 1
    if state.rounds:  # the round before is over: memory keeps it packed from now on
        state.rounds[-1] = PastRound.of(state.round, history_record(state.round))
    state.rounds.append(
        Round(number=number, spinner=spinner, players=players, tiebreak=bool(state.tiebreakers))
    )
    state.phase = SPIN
    step.events.append(
        {
            "type": "round_started",
            "round": number,
            "spinner": spinner,
            "players": list(players),
            "tiebreak": bool(state.tiebreakers),
        }
    )
    if state.advanced is not None:
        advanced.round_started(state, step)


def _respin_if_unanimous(state: TopStopState, step: _Step) -> None:
    current = state.round
    # After STOP there are no requests left: STOP drops them and refuses new ones.
    if not current.respin_votes or not state.respin_tally.passed:
        return
    assert current.letter is not None
    current.respun.append(current.letter)
    current.letter = None
    current.respin_votes = []
    current.submissions = {}
    state.respins += 1  # words written for the abandoned letter are stale from now on
    state.phase = SPIN
    step.events.append({"type": "respin", "round": current.number, "spinner": current.spinner})


# The verdicts a vote overrules for the server's dictionary: the word is or is not a word (not a matter of
# this round: a common word, a duplicate, a wrong letter or a Level's rule is not the dictionary's).
DICTIONARY_VERDICTS = frozenset({None, "not_a_word", "proper_noun", "abbreviation", "voted_out"})


def _close_dispute(state: TopStopState, step: _Step) -> None:
    current = state.round
    dispute = current.dispute
    assert dispute is not None
    # Majority of votes cast decides; a tie keeps the bot's verdict.
    verdict = current.lists[dispute.owner][dispute.index].reason
    counted = dispute.tally
    entry = _change_entry(current, dispute.owner, dispute.index, vote=counted.decision)
    if counted.decision is not None and verdict in DICTIONARY_VERDICTS and state.options.check_words:
        # A vote on the dictionary's verdict: the server remembers it for its later games.
        step.rulings.append(WordRuling(entry.word, counted.decision))
    current.disputes.append(dispute)
    current.dispute = None
    step.events.append(
        {
            "type": "vote_closed",
            "of": dispute.owner,
            "word": entry.word,
            "accept": counted.yes,
            "reject": counted.no,
            "valid": entry.valid,
            "reason": entry.final_reason,
            "seconds": state.options.review_time,
        }
    )


def _finish(state: TopStopState, winners: list[str], reason: str, step: _Step) -> None:
    state.phase = OVER
    state.winners = winners
    state.tiebreakers = []
    state.end_reason = reason
    step.events.append(
        {"type": "game_over", "winners": list(winners), "scores": dict(state.scores), "reason": reason}
    )


def _victory_in_the_draw(state: TopStopState, step: _Step) -> None:
    """Advanced game: "the first player to reach the required winning score claims victory", and Ba Oossee
    points are added "immediately" (RULES-NOTES): a card of The Draw that brings players to the target ends
    the game at once, before the spin. The highest score wins; a tie at the top plays the tiebreak rounds."""
    if state.phase not in (DRAW, SPIN) or not state.rounds or state.round.tiebreak:
        return
    seated = state.seated
    if not any(state.scores[p] >= state.options.target for p in seated):
        return
    advanced.abandon_draw(state)
    leaders = _leaders(state, seated)
    if len(leaders) == 1:
        _finish(state, leaders, "target", step)
        return
    state.tiebreakers = leaders
    step.events.append({"type": "tiebreak", "players": list(leaders)})
    _start_round(state, advanced.next_spinner(state, state.round.spinner), step)


def _copy_for_step(state: TopStopState) -> TopStopState:
    """A copy an action may change: the containers of the top level and the current round are new; earlier
    rounds, which no action changes, are shared. (A deep copy of every round cost most of an action.)"""
    rounds = list(state.rounds)
    if rounds:
        rounds[-1] = _copy_round(state.round)
    new = shallow_copy(state)  # then new containers: `replace` re-runs __init__ (4× slower)
    new.scores, new.penalties, new.left = dict(state.scores), dict(state.penalties), list(state.left)
    new.first_spin, new.first_spins = dict(state.first_spin), list(state.first_spins)
    new.rounds, new.tiebreakers, new.winners = rounds, list(state.tiebreakers), list(state.winners)
    new.advanced = copy_cards(state)
    return new


def _copy_round(current: Round) -> Round:
    """The current round with new containers; judged entries are shared until one changes (_change_entry)."""
    dispute = current.dispute
    new = shallow_copy(current)
    new.players, new.respun = list(current.players), list(current.respun)
    new.respin_votes, new.submissions = list(current.respin_votes), dict(current.submissions)
    new.ready = list(current.ready)
    new.lists, new.disputes = dict(current.lists), list(current.disputes)
    if dispute is not None:
        new.dispute = shallow_copy(dispute)
        new.dispute.voters, new.dispute.votes = list(dispute.voters), dict(dispute.votes)
    new.points = dict(current.points) if current.points is not None else None
    new.cards = copy_round_cards_of(current)
    return new


def _change_entry(current: Round, owner: str, index: int, **changes: Any) -> Entry:
    """Replace one judged word by a changed copy (the entries of the state before stay as they were)."""
    entries = list(current.lists[owner])
    entries[index] = replace(entries[index], **changes)
    current.lists[owner] = entries
    return entries[index]


def _writing_actions(state: TopStopState, player: str) -> list[Action]:
    """While writing: the list (an example: the words are free text), STOP once written, a re-spin (FAQ 2)."""
    current = state.round
    if current.stopped_by == player:
        return []
    actions: list[Action] = [{"do": "submit", "player": player, "words": []}]
    if current.stopped_by is None and player in current.submissions:
        actions.append({"do": "stop", "player": player})
    nobody_wrote = not any(words for words in current.submissions.values())
    if current.stopped_by is None and nobody_wrote and player not in current.respin_votes:
        actions.append({"do": "respin", "player": player})
    return actions


def _review_actions(current: Round, player: str, left: list[str]) -> list[Action]:
    dispute = current.dispute
    if dispute is not None:
        if player in dispute.voters and player not in dispute.votes:
            return [{"do": "vote", "player": player, "accept": choice} for choice in (True, False)]
        return []
    actions: list[Action] = []
    for owner, entries in current.lists.items():
        if owner in left:
            continue  # a player who left: their words no longer count, so none is disputed
        words = dict.fromkeys(e.word for e in entries if not e.disputed)
        actions += [{"do": "dispute", "player": player, "of": owner, "word": w} for w in words]
    if player not in current.ready:
        actions.append({"do": "review_done", "player": player})
    return actions
