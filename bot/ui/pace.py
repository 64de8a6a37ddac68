"""A pace for a table's redraws: at most one edit per interval, what comes between shares the next one.

Discord limits the messages a bot sends or edits per channel (a few per five seconds): eight players
pressing ten times a second would otherwise edit the table as fast as Discord lets them and then meet its
rate limits, each edit waiting behind the others. With a pace, the first change of a quiet table is drawn
at once; the changes that follow within the interval wait for one edit that shows them all, which comes
no later than one interval after the previous one.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class Pace:
    """The times of the last redraw per table, and how long the next one must wait."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self.clock = clock
        self._last: dict[int, float] = {}

    def wait(self, table: int) -> float:
        """Seconds until `table` may be redrawn (0: now)."""
        last = self._last.get(table)
        if last is None:
            return 0.0
        return max(0.0, last + self.interval - self.clock())

    def drawn(self, table: int) -> None:
        """A redraw of `table` was sent now."""
        self._last[table] = self.clock()

    def forget(self, table: int) -> None:
        """The table is quiet for longer than the interval: nothing to remember."""
        last = self._last.get(table)
        if last is not None and self.clock() - last >= self.interval:
            del self._last[table]
