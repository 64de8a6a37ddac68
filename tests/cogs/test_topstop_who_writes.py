"""Issue 30, item 12: a player who may not write this round is told why (one text per reason), and the table
names the round's writers when not every seated player writes.

The refusal is the one the Write button's check reads (`SessionManager.offered`, as `TableCog.check_open`
asks it), with the players' names in it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from bot.engine.errors import IllegalMove
from bot.engine.sessions import SessionManager
from bot.games import make_game
from bot.games.topstop.cards import CARD_NAMES
from bot.i18n import LANGUAGES, t
from bot.store import Store
from bot.ui import components
from bot.ui.table import deadlines_of
from cogs.topstop.table import TopStopTable

from .test_topstop_cog import embed_text

WRITE = {"do": "submit", "words": []}  # the example the Write button's check offers the rules
NAMES = {"ann": "Ann", "bob": "Bob", "cat": "Cat"}


@pytest.fixture(autouse=True)
def _forget_handlers() -> Iterator[None]:
    yield
    components.unregister_game("topstop")


@pytest.fixture
async def manager(tmp_path: Any) -> AsyncIterator[SessionManager]:
    store = await Store.open(tmp_path / "bot.db")
    sessions = SessionManager(store, {"topstop": make_game("topstop", None)})
    yield sessions
    await sessions.close()
    await store.close()


async def started(manager: SessionManager, setup: dict[str, Any], **options: Any) -> int:
    options = {"check_words": False, **options}
    lobby = await manager.open_lobby(1, 2, "topstop", "ann", options, host_name="Ann")
    for player in ("bob", "cat"):
        await manager.join(lobby.id, player, NAMES[player])
    await manager.start_game(lobby.id, "ann", {"first_player": "ann", **setup})
    return lobby.id


async def refusal(manager: SessionManager, sid: int, player: str) -> IllegalMove:
    with pytest.raises(IllegalMove) as refused:
        await manager.offered(sid, player, WRITE, {})
    return refused.value


async def table_text(manager: SessionManager, sid: int, lang: str) -> str:
    record = await manager.session(sid)
    view = {**await manager.view(sid, None), "deadlines": deadlines_of(record)}
    return embed_text(TopStopTable(lang).table_embed(record, view))


async def second_round_after_the_draw(manager: SessionManager, card: str, target: str | None) -> int:
    """An advanced game whose Ba Oossee deck starts with `card`: round one is played with no words, then Bob
    draws it (no Level card) and spins the letter of round two."""
    sid = await started(manager, {"level_deck": ["III"], "ba_oossee_deck": [card]}, mode="advanced")
    await manager.act(sid, "ann", {"do": "spin"})
    await manager.act(sid, None, {"do": "end_writing"})
    await manager.act(sid, None, {"do": "end_round"})
    await manager.act(sid, "bob", {"do": "draw", "level": False})
    if target is not None:
        await manager.act(sid, "bob", {"do": "choose", "target": target})
    await manager.act(sid, "bob", {"do": "spin"})
    assert (await manager.view(sid, None))["phase"] == "writing"
    return sid


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_item12_a_player_sitting_out_by_anothers_card_is_told_who_played_which_card(
    manager: SessionManager, lang: str
) -> None:
    sid = await second_round_after_the_draw(manager, "force_sit_out", "cat")
    refused = await refusal(manager, sid, "cat")
    assert refused.key == "topstop.sitting_out_by"
    card = t(CARD_NAMES["force_sit_out"], lang)
    assert refused.text(lang) == t("topstop.sitting_out_by", lang, player="Bob", card=card)
    # The writers are named on the table: the sitter is not among them.
    writers = t("topstop.table.writers", lang, names="Ann, Bob")
    assert writers in await table_text(manager, sid, lang)
    assert await manager.offered(sid, "ann", WRITE, {})  # a writer's Write button opens the form


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_item12_a_player_sitting_out_by_their_own_card_is_told_so_in_the_second_person(
    manager: SessionManager, lang: str
) -> None:
    sid = await second_round_after_the_draw(manager, "sit_out", None)
    refused = await refusal(manager, sid, "bob")
    assert refused.key == "topstop.sitting_out_own"
    assert refused.text(lang) == t("topstop.sitting_out_own", lang, card=t(CARD_NAMES["sit_out"], lang))
    assert "Bob" not in refused.text(lang)  # not "Bob played …" to Bob himself
    assert t("topstop.table.writers", lang, names="Ann, Cat") in await table_text(manager, sid, lang)


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_item12_a_player_outside_the_tiebreak_is_told_only_the_tied_play_it(
    manager: SessionManager, lang: str
) -> None:
    sid = await started(manager, {}, target=2)
    await manager.act(sid, "ann", {"do": "spin"})
    letter = (await manager.view(sid, None))["round"]["letter"].lower()
    # Ann and Bob reach the target together, Cat does not: the tiebreak is theirs.
    for player, words in {"ann": ["a", "b"], "bob": ["c", "d"], "cat": ["e"]}.items():
        await manager.act(sid, player, {"do": "submit", "words": [letter + w * 3 for w in words]})
    await manager.act(sid, None, {"do": "end_writing"})
    await manager.act(sid, None, {"do": "end_round"})
    assert (await manager.view(sid, None))["tiebreakers"] == ["ann", "bob"]
    spinner = (await manager.view(sid, None))["round"]["spinner"]
    assert t("topstop.table.writers", lang, names="Ann, Bob") in await table_text(manager, sid, lang)
    await manager.act(sid, spinner, {"do": "spin"})
    refused = await refusal(manager, sid, "cat")
    assert refused.key == "topstop.tiebreak_only"
    assert t("topstop.table.writers", lang, names="Ann, Bob") in await table_text(manager, sid, lang)


async def test_item12_a_player_who_called_stop_is_told_their_list_is_final(manager: SessionManager) -> None:
    sid = await started(manager, {})
    await manager.act(sid, "ann", {"do": "spin"})
    await manager.act(sid, "ann", {"do": "submit", "words": ["x"]})
    await manager.act(sid, "ann", {"do": "stop"})
    assert (await refusal(manager, sid, "ann")).key == "topstop.list_final"


async def test_item12_when_everyone_writes_the_table_names_no_writers(manager: SessionManager) -> None:
    sid = await started(manager, {})
    await manager.act(sid, "ann", {"do": "spin"})
    assert t("topstop.table.writers", "en", names="Ann, Bob, Cat") not in await table_text(manager, sid, "en")
    assert "Writing this round" not in await table_text(manager, sid, "en")
