"""Typed errors a game or the engine raises; each carries a snake_case code and a player-facing message."""

from __future__ import annotations


class GameError(Exception):
    """A refused action: the state is unchanged and the actor gets `message` ephemerally."""

    code = "game_error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class NotYourTurn(GameError):
    code = "not_your_turn"


class WrongPhase(GameError):
    code = "wrong_phase"


class IllegalMove(GameError):
    code = "illegal_move"


class NotAPlayer(GameError):
    code = "not_a_player"


class GameOver(GameError):
    code = "game_over"


class StaleAction(GameError):
    code = "stale_action"


class BadAction(GameError):
    """The action itself is malformed (unknown name, missing or mistyped argument)."""

    code = "bad_action"


class NoSuchSession(GameError):
    code = "no_such_session"


class ChannelBusy(GameError):
    code = "channel_busy"
