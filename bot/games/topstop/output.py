"""What players see of a Top Stop game, and the scenario history: no secret of another player leaks."""

from __future__ import annotations

from typing import Any

from bot.games.topstop.advanced import round_record
from bot.games.topstop.state import OVER, REVIEW, WRITING, Dispute, Entry, PastRound, Round, TopStopState


def view(state: TopStopState, viewer: str | None) -> dict[str, Any]:
    """The state as `viewer` may see it: during writing only their own words, the others' counts."""
    opts = state.options
    return {
        "game": "topstop",
        "phase": state.phase,
        "players": list(state.seats),
        "left": list(state.left),
        "scores": dict(state.scores),
        "penalties": dict(state.penalties),
        "options": {
            "language": opts.language,
            "mode": opts.mode,
            "words": opts.words,
            "target": opts.target,
            "check_words": opts.check_words,
            "grace": opts.grace,
            "writing_time": opts.writing_time,
            "review_time": opts.review_time,
            "spin_time": opts.spin_time,
            "vote_time": opts.vote_time,
        },
        "first_spin": dict(state.first_spin),
        "first_spins": [dict(s) for s in state.first_spins],
        # Who tied for the lowest letter in each settled spin-off (and so spun again).
        "first_spin_ties": [_lowest_tie(spins) for spins in state.first_spins],
        # The lobby's creator sits first; if they left, the next remaining seat hosts.
        "host": state.seated[0] if state.seated else None,
        "round": _round_view(state, viewer) if state.rounds else None,
        "tiebreakers": list(state.tiebreakers),
        "finished": state.phase == OVER,
        "winners": list(state.winners),
        "history": history(state),
    }


def history(state: TopStopState) -> list[dict[str, Any]]:
    """One record per round whose words have been revealed (points stay null until it is scored); a finished
    round's was kept with it when it was packed."""
    return [r.record() if isinstance(r, PastRound) else history_record(r) for r in state.rounds if r.revealed]


def _round_view(state: TopStopState, viewer: str | None) -> dict[str, Any]:
    current = state.round
    shown: dict[str, Any] = {
        "number": current.number,
        "spinner": current.spinner,
        "players": list(current.players),
        "tiebreak": current.tiebreak,
        "letter": current.letter,
        "respun": list(current.respun),
        "respin_votes": list(current.respin_votes),
        "stopped_by": current.stopped_by,
        "stop_penalty": current.stop_penalty,
        "points": dict(current.points) if current.points is not None else None,
    }
    if state.phase == WRITING:
        # Others' words stay hidden until writing closes: only who submitted and how many words.
        shown["submitted"] = {p: sum(1 for w in words if w) for p, words in current.submissions.items()}
        shown["respin"] = state.respin_tally.shown()  # who asked is public: the count is too
        if viewer is not None and viewer in current.submissions:
            shown["your_words"] = list(current.submissions[viewer])
    elif current.revealed:
        shown["lists"] = {p: [_entry(e) for e in es] for p, es in current.lists.items()}
        shown["dispute"] = _dispute_view(current, current.dispute, viewer) if current.dispute else None
        shown["disputes"] = [_closed_dispute(current, d) for d in current.disputes]
        shown["ready"] = list(
            current.ready
        )  # who has nothing (more) to dispute: public, like a vote's voters
    shown["review"] = state.phase == REVIEW
    return shown


def _entry(entry: Entry) -> dict[str, Any]:
    shown = {
        "word": entry.word,
        "valid": entry.valid,
        "reason": entry.final_reason,
        "disputed": entry.disputed,
    }
    if entry.ruled is not None:
        shown["ruled"] = entry.ruled  # decided by this server's vote on that day
    return shown


def _dispute_view(current: Round, dispute: Dispute, viewer: str | None) -> dict[str, Any]:
    entry = current.lists[dispute.owner][dispute.index]
    shown: dict[str, Any] = {
        "number": dispute.number,
        "by": dispute.disputer,
        "of": dispute.owner,
        "word": entry.word,
        "valid": entry.valid,
        "reason": entry.final_reason,
        "voters": list(dispute.voters),
        "voted": [p for p in dispute.voters if p in dispute.votes],  # who, not how: ballots are secret
        "tally": dispute.tally.shown(secret=True),
    }
    if viewer is not None and viewer in dispute.votes:
        shown["your_vote"] = dispute.votes[viewer]
    return shown


def _closed_dispute(current: Round, dispute: Dispute) -> dict[str, Any]:
    counted = dispute.tally
    decision = counted.decision
    return {
        "by": dispute.disputer,
        "of": dispute.owner,
        "word": current.lists[dispute.owner][dispute.index].word,
        "accept": counted.yes,
        "reject": counted.no,
        "result": "kept" if decision is None else ("accepted" if decision else "crossed_out"),
    }


def history_record(current: Round) -> dict[str, Any]:
    """The round's record in the history."""
    penalties = (
        {current.stopped_by: current.stop_penalty} if current.stopped_by and current.stop_penalty else {}
    )
    return {
        "round": current.number,
        "letter": current.letter,
        "spinner": current.spinner,
        "stopped_by": current.stopped_by,
        "tiebreak": current.tiebreak,
        "players": list(current.players),
        "respun": list(current.respun),
        "points": dict(current.points) if current.points is not None else None,
        "penalties": penalties,
        "words": {p: [_history_entry(e) for e in es] for p, es in current.lists.items()},
        "disputes": [_closed_dispute(current, d) for d in current.disputes],
        **(round_record(current) if current.cards is not None else {}),
    }


def _history_entry(entry: Entry) -> dict[str, Any]:
    """A revealed word in the round's record; `ruled`: the day the server's dictionary decided it (unless
    this table disputed it again: then its own vote decided)."""
    record: dict[str, Any] = {"word": entry.word, "valid": entry.valid, "reason": entry.final_reason}
    if entry.ruled is not None and not entry.disputed:
        record["ruled"] = entry.ruled
    return record


def _lowest_tie(spins: dict[str, str]) -> list[str]:
    lowest = min(spins.values())
    tied = [player for player, letter in spins.items() if letter == lowest]
    return tied if len(tied) > 1 else []
