"""Typed errors a game or the engine raises: a snake_case category code, and a text key with parameters.

The text lives in the message catalogue (bot/i18n): `message` is the English text (replay output, logs),
`text(lang)` the text in the reader's language.
"""

from __future__ import annotations

from bot.i18n import t


class GameError(Exception):
    """A refused action: the state is unchanged and the actor gets `text(lang)` ephemerally."""

    code = "game_error"

    def __init__(self, key: str, /, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params

    @property
    def message(self) -> str:
        return t(self.key, "en", **self.params)

    def text(self, lang: str) -> str:
        return t(self.key, lang, **self.params)

    def __str__(self) -> str:
        return self.message


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


class TooLate(GameError):
    """Received after the deadline of what it acts on, even if the session's lock applied it later."""

    code = "too_late"


class BadAction(GameError):
    """The action itself is malformed (unknown name, missing or mistyped argument)."""

    code = "bad_action"


class NoSuchSession(GameError):
    code = "no_such_session"


class ChannelBusy(GameError):
    code = "channel_busy"


class NotServedHere(GameError):
    """The game's server is on a shard another process of the bot serves: this one must not touch it."""

    code = "not_served_here"
