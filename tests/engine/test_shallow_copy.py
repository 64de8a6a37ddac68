"""`shallow_copy`: how `apply` builds a new state that shares what it does not change."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.engine.game import shallow_copy


@dataclass
class Plain:
    words: list[str] = field(default_factory=list)
    turn: int = 0


@dataclass(slots=True)
class Slotted:
    words: list[str] = field(default_factory=list)
    turn: int = 0


def test_a_copy_shares_every_field_and_changing_it_leaves_the_original_alone() -> None:
    for kind in (Plain, Slotted):
        original = kind(["ant"], 3)
        copy = shallow_copy(original)
        assert copy is not original and copy == original and copy.words is original.words
        copy.turn = 4
        assert original.turn == 3


def test_a_dataclass_with_slots_has_no_instance_dict_to_copy() -> None:
    assert not hasattr(Slotted(), "__dict__")  # the reason it takes less memory
