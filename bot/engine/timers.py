"""Every deadline of every session in one heap, woken by one loop callback: arming and disarming are O(log n)."""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Callable, Mapping

Fire = Callable[[int, str, float], None]


class TimerWheel:
    """Deadlines keyed by (session, key). A due deadline calls `fire(session, key, at)` once.

    Cancelled entries stay in the heap until they surface (lazy deletion); the heap is rebuilt when
    they outnumber the live ones, so memory follows the armed deadlines, not their history.
    """

    def __init__(self, clock: Callable[[], float], fire: Fire) -> None:
        self._clock = clock
        self._fire = fire
        self._heap: list[tuple[float, int, str]] = []
        self._armed: dict[int, dict[str, float]] = {}
        self._count = 0
        self._handle: asyncio.TimerHandle | None = None
        self._wake_at: float | None = None
        self._closed = False

    def arm(self, session_id: int, key: str, at: float) -> None:
        keys = self._armed.setdefault(session_id, {})
        if keys.get(key) == at:
            return
        if key not in keys:
            self._count += 1
        keys[key] = at
        heapq.heappush(self._heap, (at, session_id, key))
        if self._wake_at is None or at < self._wake_at:
            self._schedule()

    def disarm(self, session_id: int, key: str | None = None) -> None:
        """One deadline of the session, or all of them."""
        keys = self._armed.get(session_id)
        if not keys:
            return
        if key is None:
            self._count -= len(keys)
            del self._armed[session_id]
        elif keys.pop(key, None) is not None:
            self._count -= 1
            if not keys:
                del self._armed[session_id]
        if len(self._heap) > 2 * self._count + 64:
            self._heap = [(at, sid, k) for sid, ks in self._armed.items() for k, at in ks.items()]
            heapq.heapify(self._heap)

    def set(self, session_id: int, deadlines: Mapping[str, float]) -> None:
        """Make the session's armed deadlines exactly these: vanished keys go, changed ones move."""
        for key in [k for k in self._armed.get(session_id, {}) if k not in deadlines]:
            self.disarm(session_id, key)
        for key, at in deadlines.items():
            self.arm(session_id, key, at)

    def armed(self, session_id: int) -> dict[str, float]:
        return dict(self._armed.get(session_id, {}))

    def __len__(self) -> int:
        return self._count

    def close(self) -> None:
        self._closed = True
        if self._handle is not None:
            self._handle.cancel()
        self._handle = None
        self._heap.clear()
        self._armed.clear()
        self._count = 0

    def _schedule(self) -> None:
        if self._closed:
            return
        while self._heap and not self._is_armed(*self._heap[0]):
            heapq.heappop(self._heap)
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if not self._heap:
            self._wake_at = None
            return
        self._wake_at = self._heap[0][0]
        delay = max(0.0, self._wake_at - self._clock())
        self._handle = asyncio.get_running_loop().call_later(delay, self._due)

    def _due(self) -> None:
        """The wake-up time came: fire everything due by then (the clock may be a test's own)."""
        self._handle = None
        reached = self._wake_at if self._wake_at is not None else self._clock()
        reached = max(reached, self._clock())
        while self._heap and self._heap[0][0] <= reached:
            at, session_id, key = heapq.heappop(self._heap)
            if self._is_armed(at, session_id, key):
                self.disarm(session_id, key)
                self._fire(session_id, key, at)
        self._wake_at = None
        self._schedule()

    def _is_armed(self, at: float, session_id: int, key: str) -> bool:
        return self._armed.get(session_id, {}).get(key) == at
