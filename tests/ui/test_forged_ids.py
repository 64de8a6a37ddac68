"""Forged ids in the codec: one spelling per number, freshness values that cannot be left out, and ids of
controls that need no session (#28, item 6 and 7)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.engine.errors import StaleAction
from bot.ui import codec, components
from bot.ui.codec import MalformedId, Spec
from bot.ui.components import DamagedComponent, resolve


async def _handler(click: components.Click) -> None:  # pragma: no cover - routing only
    return None


@pytest.fixture(autouse=True)
def _demo() -> Iterator[None]:
    components.register("demo", "spin", _handler, codec.fresh("round"), codec.number("page", optional=True))
    components.register("demo", "vote", _handler, codec.choice("answer", "yes", "no"), codec.fresh("vote"))
    components.register("board", "page", _handler, codec.number("page", 1, 99), sessionless=True)
    yield
    components.unregister_game("demo")
    components.unregister_game("board")


@pytest.mark.parametrize(
    "forged",
    [
        "demo:２:spin:1",  # fullwidth
        "demo:٢:spin:1",  # Arabic-Indic
        "demo:²:spin:1",  # superscript: int() would raise ValueError
        "demo:02:spin:1",  # a leading zero
        "demo:0:spin:1",
        "demo:2:spin:01",
        "demo:2:spin:１",
        "demo:2:spin:¹",
        "demo:2:spin:٣",
        "demo:2:spin:1.٠٢",
        "demo:2:vote:yes.01",
    ],
)
def test_a_number_has_one_spelling_ascii_digits_without_leading_zeros(forged: str) -> None:
    with pytest.raises(DamagedComponent):
        resolve(forged)


def test_the_spelling_of_a_number_is_the_one_the_bot_writes() -> None:
    assert resolve("demo:2:spin:0")[1:] == (2, {"round": 0})
    assert resolve("demo:20:spin:10.3")[1:] == (20, {"round": 10, "page": 3})
    with pytest.raises(MalformedId):
        codec.number("n").parse("٣")


def test_an_id_without_its_freshness_value_is_refused_as_stale_not_taken_as_any() -> None:
    for stale in ("demo:2:spin", "demo:2:vote:yes"):
        with pytest.raises(StaleAction):
            resolve(stale)
    with pytest.raises(DamagedComponent):  # a damaged present argument is damage, not staleness
        resolve("demo:2:vote:maybe")
    assert Spec("demo", "spin", (codec.fresh("round"),)).freshness == ("round",)
    with pytest.raises(ValueError):
        components.spec("demo", "spin").encode(2)  # the bot never builds one without it


def test_a_control_that_needs_no_session_has_an_empty_session() -> None:
    spec = components.spec("board", "page")
    assert spec.encode(page=2) == "board::page:2"
    route, session, args = resolve("board::page:2")
    assert (route.spec, session, args) == (spec, 0, {"page": 2})
    for forged in ("board:5:page:2", "demo::spin:1", "board::page:0", "board::page:02"):
        with pytest.raises(DamagedComponent):
            resolve(forged)
    with pytest.raises(ValueError):
        spec.encode(5, page=2)
    with pytest.raises(ValueError):
        components.spec("demo", "spin").encode(None, round=1)
