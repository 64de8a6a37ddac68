"""Typed custom_ids: `<game>:<session>:<action>[:<arg>.<arg>…]`, at most 100 characters, each action's
arguments declared; anything forged or damaged is refused with one clear message, never a traceback."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import discord
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.engine.errors import GameError
from bot.ui import codec, components
from bot.ui.codec import MAX_SESSION_ID, MalformedId, Spec
from bot.ui.components import ANY_ID, resolve, submitted_values

VOTE = Spec(
    "demo", "vote", (codec.choice("answer", "yes", "no"), codec.number("round", 0, 999, optional=True))
)


async def _handler(click: components.Click) -> None:  # pragma: no cover - routing only
    return None


@pytest.fixture(autouse=True)
def _demo() -> Iterator[None]:
    components.register("demo", "vote", _handler, *VOTE.args)
    components.register("demo", "word", _handler, codec.token("word", r"[A-Z]{1,15}"), modal=True)
    yield
    components.unregister_game("demo")


def test_ids_round_trip_with_typed_arguments() -> None:
    value = VOTE.encode(42, answer="yes", round=3)
    assert value == "demo:42:vote:yes.3"
    route, session, args = resolve(value)
    assert (route.spec, session, args) == (VOTE, 42, {"answer": "yes", "round": 3})
    assert resolve("demo:42:vote:no")[2] == {"answer": "no"}  # an optional argument left out


@pytest.mark.parametrize(
    "forged",
    [
        "demo:abc:vote:yes",  # a session that is not a number
        f"demo:{MAX_SESSION_ID + 1}:vote:yes",  # too large for SQLite
        "demo:0:vote:yes",
        "demo:1:vote:maybe",  # not one of the choices
        "demo:1:vote:yes.x",  # not a number
        "demo:1:vote:yes.1000",  # out of bounds
        "demo:1:vote:yes.1.2",  # one argument too many
        "demo:1:vote",  # a required argument missing
        "demo:1:vote:" + "y" * 60,  # an argument over 50 characters
        "demo:1:unknown",  # no such action
        "other:1:vote:yes",  # no such game
        "x" * 100,  # garbage
        "",
    ],
)
def test_forged_or_damaged_ids_are_refused_with_a_clear_message(forged: str) -> None:
    with pytest.raises(GameError, match="damaged or not one of this bot's"):
        resolve(forged)


@given(st.text(max_size=120))
def test_no_string_makes_routing_raise_anything_but_a_refusal(text: str) -> None:
    with contextlib.suppress(GameError):
        resolve(text)


def test_every_id_but_discord_pys_own_reaches_the_router() -> None:
    assert ANY_ID.fullmatch("x" * 100) and ANY_ID.fullmatch("topstop:1:spin")
    assert not ANY_ID.fullmatch("0123456789abcdef" * 2)  # an in-memory view's item: discord.py routes it


def test_ids_that_would_not_route_are_never_built() -> None:
    with pytest.raises(ValueError):
        VOTE.encode(1, answer="maybe")
    with pytest.raises(ValueError):
        VOTE.encode(1)  # answer is required
    with pytest.raises(ValueError):
        VOTE.encode(0, answer="yes")
    with pytest.raises(ValueError):
        VOTE.encode(1, answer="yes", colour="red")
    word = Spec("demo", "word", (codec.token("word", r"[A-Z]{1,60}"),))
    with pytest.raises(ValueError):
        word.encode(1, word="A" * 60)  # within its own pattern, but over 50 characters


def test_malformed_parse_errors_say_why() -> None:
    with pytest.raises(MalformedId, match="not an id of this bot"):
        codec.parse("hello")


def test_modal_values_are_read_from_rows_and_labels() -> None:
    rows = {"components": [{"type": 1, "components": [{"type": 4, "custom_id": "word1", "value": "pear"}]}]}
    labels = {"components": [{"type": 18, "component": {"type": 4, "custom_id": "word2", "value": "plum"}}]}
    assert submitted_values(rows) == {"word1": "pear"}
    assert submitted_values(labels) == {"word2": "plum"}
    assert submitted_values({"components": ["garbage", None, {"components": None}]}) == {}


def test_modals_are_routed_by_custom_id_so_two_players_never_collide() -> None:
    custom_id = components.spec("demo", "word", modal=True).encode(5, word="PEAR")
    form = components.modal(
        custom_id, "Your words", [discord.ui.TextInput(label="Word 1", custom_id="word1")]
    )
    payload = form.to_dict()
    assert payload["custom_id"] == "demo:5:word:PEAR" and len(payload["title"]) <= 45
    assert resolve(custom_id, modal=True)[2] == {"word": "PEAR"}
    with pytest.raises(GameError):
        resolve(custom_id)  # a modal's id is not a button's
