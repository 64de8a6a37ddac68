"""The pace of a table's redraws: none waits on a quiet table, the next waits out the interval."""

from __future__ import annotations

from bot.ui.pace import Pace


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_quiet_table_is_redrawn_at_once_and_the_next_redraw_waits_out_the_interval() -> None:
    clock = FakeClock()
    pace = Pace(1.0, clock)
    assert pace.wait(7) == 0.0
    pace.drawn(7)
    clock.now += 0.25
    assert pace.wait(7) == 0.75
    assert pace.wait(8) == 0.0  # tables are paced one by one
    clock.now += 1.0
    assert pace.wait(7) == 0.0


def test_a_table_quiet_for_an_interval_is_forgotten_but_not_before() -> None:
    clock = FakeClock()
    pace = Pace(1.0, clock)
    pace.drawn(3)
    pace.forget(3)
    assert pace.wait(3) == 1.0
    clock.now += 1.0
    pace.forget(3)
    assert pace.wait(3) == 0.0
