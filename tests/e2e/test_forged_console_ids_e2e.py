"""A console's button ids pressed anywhere but on their player's console change nothing (#42).

A console is a player's private message (their hand, their rack); a press on it is answered through the
clicked message's own token. Only a modified client sends a console's id from another message, but the
router takes any id on any message, so each game's console ids are sent here as such a client would: on
the public table, by a seated player and by a spectator; with another session's number, on the player's
own console; and one game's console ids on another game's table. Each press gets a private refusal; the
public messages and the consoles stay exactly as they were, also once the consoles follow the game again
(the `changed` every action makes), and the in-process bot logs no error (`bot_errors`).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from .conftest import requires_product
from .driver import Message, Player, Reply, Table
from .test_topdrop_e2e import open_game as open_topdrop
from .test_topdrop_e2e import rigged
from .test_toppo_e2e import start_game as start_toppo
from .test_topstop_e2e import snapshot
from .test_topwords_e2e import start_game as start_topwords

pytestmark = requires_product

ELSEWHERE = "works only in your own private console"
NOT_PLAYING = "You are not playing in this game"
ANOTHER_GAME = "This button belongs to another game."
ANOTHER_CHANNEL = "This button belongs to a game in another channel."
GONE = "This game no longer exists."


@pytest.fixture(autouse=True)
def skeleton_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXTRA_GAMES", "skeleton")  # the template game has a console of buttons too


async def forged(table: Table, player: Player, message: Message, custom_id: str) -> Message:
    """`custom_id` pressed on `message` as a modified client sends it: the presser's private answer."""
    data = {"custom_id": custom_id, "component_type": 2}
    record = await table.fake.send_interaction(
        player.user, 3, data, channel_id=int(message.raw["channel_id"]), message=copy.deepcopy(message.raw)
    )
    reply = Reply(table.fake, record)
    answer: Message = await table.fake.wait_until(
        lambda: next((m for m in reply.followups if m.ephemeral), None),
        within=3.0,
        what=f"the private answer to {custom_id!r}",
    )
    assert record.answered_after is not None and record.answered_after < 3.0
    return answer


def console_ids(*consoles: Message) -> list[str]:
    """Every button id of these consoles (disabled ones too: a client can send them all the same)."""
    return sorted({b["custom_id"] for console in consoles for b in console.buttons if "custom_id" in b})


def naming(custom_id: str, session: int) -> str:
    """The same id, naming another session."""
    game, _, rest = custom_id.split(":", 2)
    return f"{game}:{session}:{rest}"


async def opened(player: Player, board: Message, label: str) -> Message:
    console = (await player.click(board, label)).message
    assert console is not None and console.ephemeral
    return console


async def session_in(bot: Any, table: Table) -> int:
    record = await bot.sessions.open_in_channel(table.channel_id)
    assert record is not None
    return int(record.id)


async def topdrop(bot: Any, table: Table) -> tuple[Message, int, list[Message]]:
    alice, bob = table.user("alice"), table.user("bob")
    setup = rigged({str(alice.id): [30, 41, 52, 57], str(bob.id): [33, 44, 56, 59]}, deck=[35, 47])
    _, board, session = await open_topdrop(bot, table, [alice, bob], setup)
    await bob.select(board, f"{alice.id}-up")  # Alice starts: her cards, the action cards, Play
    return board, session, [await opened(alice, board, "My hand"), await opened(bob, board, "My hand")]


async def toppo(bot: Any, table: Table) -> tuple[Message, int, list[Message]]:
    alice, bob, board, session = await start_toppo(bot, table, games=1)
    return board, session, [await opened(alice, board, "My console"), await opened(bob, board, "My console")]


async def topwords(bot: Any, table: Table) -> tuple[Message, int, list[Message]]:
    alice, _, board = await start_topwords(bot, table, "strict")
    return board, await session_in(bot, table), [await opened(alice, board, "My rack")]


async def skeleton(bot: Any, table: Table) -> tuple[Message, int, list[Message]]:
    alice, bob = table.user("alice"), table.user("bob")
    lobby = (await alice.slash("skeleton new", target=8)).linked
    assert lobby is not None
    await bob.click(lobby, "Join")
    session = await session_in(bot, table)
    (await bot.sessions.session(session)).setup = {"first_player": str(alice.id)}
    await alice.click(lobby, "Start")
    board = await table.wait_for_message(lambda m: "Skeleton — Alice to play" in m.text, what="the table")
    return board, session, [await opened(alice, board, "My hand"), await opened(bob, board, "My hand")]


GAMES: dict[str, Callable[[Any, Table], Awaitable[tuple[Message, int, list[Message]]]]] = {
    "topdrop": topdrop,
    "toppo": toppo,
    "topwords": topwords,
    "skeleton": skeleton,
}


def cog_of(bot: Any, game: str) -> Any:
    return next(cog for cog in bot.cogs.values() if getattr(cog, "game_name", None) == game)


def everything(table: Table, consoles: list[Message]) -> list[Any]:
    """What anyone sees: the channel's messages and the players' consoles."""
    return [snapshot(table), [copy.deepcopy(console.raw) for console in consoles]]


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_a_consoles_ids_pressed_on_the_table_or_naming_another_session_change_nothing(
    product_bot: Any, table: Table, game: str
) -> None:
    board, session, consoles = await GAMES[game](product_bot, table)
    ids = console_ids(*consoles)
    assert ids, consoles
    alice, dave = table.user("alice"), table.user("dave")  # Alice plays; Dave only watches
    other = (await table.user("carol").slash("topstop new", channel="games")).linked  # another game's
    assert other is not None
    other_session = int(other.buttons[0]["custom_id"].split(":")[1])
    await table.settle()
    version, before = (await product_bot.sessions.session(session)).version, everything(table, consoles)

    for custom_id in ids:
        # On the public table: by a player, by someone not seated (the refusal says so, in plain words).
        assert ELSEWHERE in (await forged(table, alice, board, custom_id)).text
        said = await forged(table, dave, board, custom_id)
        assert NOT_PLAYING in said.text
        # On his own private message (the refusal he was just sent): still not seated.
        assert NOT_PLAYING in (await forged(table, dave, said, custom_id)).text
        # Naming another game's session, or none, on her own console: refused before any console is drawn.
        mine = consoles[0]
        assert ANOTHER_GAME in (await forged(table, alice, mine, naming(custom_id, other_session))).text
        assert GONE in (await forged(table, alice, mine, naming(custom_id, session + 1000))).text

    cog_of(product_bot, game).consoles.changed(session)  # what every action does: the consoles follow
    await table.settle()
    assert (await product_bot.sessions.session(session)).version == version
    assert everything(table, consoles) == before


async def test_a_top_drop_hand_pressed_on_the_toppo_table_is_never_drawn_there(
    product_bot: Any, table: Table
) -> None:
    """The leak seen once: a hidden Top Drop hand drawn over the Toppo table, for everyone to see. And each
    game's console ids naming the other's running game, on its own console: refused, no console drawn (a
    Toppo console cannot be drawn from a Top Drop view, nor the other way round)."""
    board, toppo_session, toppo_consoles = await toppo(product_bot, table)
    games = Table(table.fake, channel="games")
    carol, dave = games.user("carol"), games.user("dave")
    setup = rigged({str(carol.id): [30, 41, 52, 57], str(dave.id): [33, 44, 56, 59]}, deck=[35, 47])
    _, pile, drop_session = await open_topdrop(product_bot, games, [carol, dave], setup)
    await dave.select(pile, f"{carol.id}-up")
    hand = await opened(carol, pile, "My hand")
    await table.settle()
    before = everything(table, toppo_consoles), everything(games, [hand])
    cards = re.findall(r"🟥30|🟨41", hand.text)
    assert cards, hand.text

    for custom_id in console_ids(hand):
        assert ANOTHER_CHANNEL in (await forged(table, table.user("carol"), board, custom_id)).text
        assert ANOTHER_CHANNEL in (await forged(table, table.user("alice"), board, custom_id)).text
        assert ANOTHER_GAME in (await forged(games, carol, hand, naming(custom_id, toppo_session))).text
    for custom_id in console_ids(*toppo_consoles):
        on_hers = await forged(table, table.user("alice"), toppo_consoles[0], naming(custom_id, drop_session))
        assert ANOTHER_GAME in on_hers.text

    cog_of(product_bot, "topdrop").consoles.changed(drop_session)
    cog_of(product_bot, "toppo").consoles.changed(toppo_session)
    await table.settle()
    assert (everything(table, toppo_consoles), everything(games, [hand])) == before
    assert not any(card in message.text for message in table.channel_messages() for card in cards)
