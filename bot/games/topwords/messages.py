"""TopWords refusals: a broken rule raises RuleBroken with a `topwords.rule.*` key of the message catalogue.

The texts, in English, French and German, live in bot/i18n; each names the rule broken, and the square or
word at fault where there is one. Refusals that are not a broken rule raise the engine's classes with
`topwords.refusal.*` keys, so they keep their codes (not_your_turn, wrong_phase, stale_action, …).
"""

from __future__ import annotations

from bot.engine.errors import IllegalMove
from bot.i18n import N_, Text

# The words service's reason codes, as said to players.
REASONS: dict[str, str] = {
    "not_a_word": N_("dictionary.reason.not_a_word"),
    "proper_noun": N_("dictionary.reason.proper_noun"),
    "abbreviation": N_("dictionary.reason.abbreviation"),
    "voted_out": N_("dictionary.reason.voted_out"),
}
SERVER_REFUSED = N_("dictionary.reason.server_refused")  # with the day of the server's vote

RULE_PREFIX = "topwords.rule."


def said_reason(code: str | None, day: str | None = None) -> Text | str:
    """A words-service reason code as a text parameter (a server's refusal says the day of its vote); an
    unknown code is shown as it is."""
    key = REASONS.get(code or "not_a_word")
    if code == "server_refused":
        return Text(SERVER_REFUSED, day=day or "?")
    return Text(key) if key else str(code)


def reason_text(code: str | None, lang: str = "en", day: str | None = None) -> str:
    """A short text for a words-service reason code, in `lang`."""
    said = said_reason(code, day)
    return said.render(lang) if isinstance(said, Text) else said


class RuleBroken(IllegalMove):
    """An illegal TopWords move: `code` names the rule (the key's last part: not_on_rack, gap, …)."""

    def __init__(self, key: str, /, **params: object) -> None:
        assert key.startswith(RULE_PREFIX), key
        super().__init__(key, **params)
        self.code = key.removeprefix(RULE_PREFIX)
