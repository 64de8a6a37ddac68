"""Requests per minute per client address: a token bucket each, full at first, refilled continuously."""

from __future__ import annotations

import math
import time
from collections.abc import Callable


class RateLimit:
    """`per_minute` requests a minute per address, in bursts of at most `per_minute`."""

    def __init__(
        self, per_minute: int, clock: Callable[[], float] = time.monotonic, most: int = 10_000
    ) -> None:
        self.capacity = float(per_minute)
        self.refill = per_minute / 60.0  # tokens a second
        self.clock = clock
        self.most = most  # addresses remembered at once: the oldest (by last request) are forgotten first
        self._buckets: dict[str, tuple[float, float]] = {}  # address -> (tokens, when counted)

    def take(self, address: str) -> float:
        """0 when the request may go on (one token taken); else the seconds until it may."""
        now = self.clock()
        tokens, then = self._buckets.pop(address, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - then) * self.refill)
        if tokens >= 1:
            self._buckets[address] = (tokens - 1, now)
            wait = 0.0
        else:
            self._buckets[address] = (tokens, now)
            wait = (1 - tokens) / self.refill
        while len(self._buckets) > self.most:  # dicts keep insertion order: the first is the least recent
            del self._buckets[next(iter(self._buckets))]
        return wait

    @staticmethod
    def retry_after(wait: float) -> str:
        """The Retry-After header: whole seconds, at least one."""
        return str(max(1, math.ceil(wait)))
