"""A player's Top Stop words over their finished games, as /stats tells them: pure, from the revealed lists."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from bot.games.topstop.state import Entry

# What /stats reads of each final snapshot: every round's revealed lists, keyed by player, and of each word
# its text, the bot's verdict, a dispute's decision and whether it was disputed (JSON paths of the state).
ROUNDS = "$.rounds"
LISTS = "$.lists"
FIELDS = ("$.word", "$.reason", "$.vote", "$.disputed")


@dataclass(frozen=True)
class WordRecord:
    """A Top Stop player's words over their finished games."""

    revealed: int
    valid: int
    longest: str | None  # the longest valid word (the first of equals, alphabetically)
    most_disputed: str | None  # the word of theirs disputed most often (None: never disputed)
    disputes: int  # how often that word was disputed

    @property
    def valid_percent(self) -> int:
        return round(100 * self.valid / self.revealed) if self.revealed else 0


def word_record(words: Iterable[tuple[object, ...]]) -> WordRecord:
    """The valid-word rate, the longest valid word and the most disputed word from (word, reason, vote,
    disputed) rows, judged as the game judged them in the end: the rules' own `Entry.valid` (a dispute's
    decision over the bot's verdict)."""
    entries = [
        Entry(
            str(word),
            [],
            "",
            None if reason is None else str(reason),
            bool(disputed),
            None if vote is None else bool(vote),
        )
        for word, reason, vote, disputed in words
    ]
    valid = [entry.word for entry in entries if entry.valid]
    longest = min(valid, key=lambda word: (-len(word), word)) if valid else None
    disputed = Counter(entry.word for entry in entries if entry.disputed)
    most = min(disputed, key=lambda word: (-disputed[word], word)) if disputed else None
    return WordRecord(len(entries), len(valid), longest, most, disputed[most] if most is not None else 0)
