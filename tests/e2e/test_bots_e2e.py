"""Bot players on the loopback Discord (docs/bots.md), for every game that declares bots, in English, French
and German: the host adds and removes a bot in the lobby; `/<game> new bots:… level:hard` starts a game with
one person that is played to its end; a bot process killed while a bot's move is pending plays it once it is
started again, and the game finishes (each game once, in one of the three languages); no bot id is ever sent
as a mention. Every game plays on its real clock (Top Stop's review closes as soon as every player has
nothing to dispute), its bots at a tiny pace.

Generic: the games come from the registry (those with `bots=` and a table), so a game whose policy merges is
checked here without a line of its own. The person's seat is played by the test through the same manager
path as the bots' (with the game's easy policy): what a person clicks is each game's own e2e test's matter;
one whole game, Top Drop's with a bot teammate, is also clicked through by the person, in each language.
"""

from __future__ import annotations

import asyncio
import random
import signal
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.engine.bots import Level, Seen, is_bot
from bot.engine.sessions import _restore
from bot.games import GameInfo, games_with_a_table
from bot.games.topdrop.cards import ACTIONS
from bot.i18n import t
from bot.store import Store
from cogs.topdrop.table import action_label

from .conftest import requires_product
from .driver import Table
from .fake_discord import FakeDiscord
from .process import SpawnBot, wait_for_new_session

pytestmark = requires_product

PRODUCT = "bot.__main__:main"
LANGUAGES = ["en", "fr", "de"]
GAMES = [info for info in games_with_a_table() if info.bots is not None]
TINY_PACE = "0.01"  # a bot's delay of a second or two becomes a hundredth of that
PLAY_WITHIN = 60.0  # seconds a whole game may take
# The restart test plays each game once, in one language: en, fr and de in turn by the game's index in GAMES.
RESTARTS = [
    pytest.param(
        info, LANGUAGES[index % len(LANGUAGES)], id=f"{info.name}-{LANGUAGES[index % len(LANGUAGES)]}"
    )
    for index, info in enumerate(GAMES)
]


@pytest.fixture(autouse=True)
def bots_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot under test loads the unlisted games with bots, and its bots play at a tiny pace."""
    monkeypatch.setenv("EXTRA_GAMES", ",".join(info.name for info in GAMES if not info.listed))
    monkeypatch.setenv("BOT_PACE", TINY_PACE)


def never_mentioned(fake: FakeDiscord) -> None:
    """No request the bot sent mentions a bot seat or lets one be pinged."""
    for request in fake.requests:
        body = str(request.body)
        assert "<@bot:" not in body and "<@!bot:" not in body, body[:300]
        allowed = request.body.get("allowed_mentions") if isinstance(request.body, dict) else None
        if allowed:
            assert not any(is_bot(str(user)) for user in allowed.get("users") or []), allowed


def cog_of(bot: Any, info: GameInfo) -> Any:
    return next(cog for cog in bot.cogs.values() if getattr(cog, "game_name", None) == info.name)


async def speak(table: Table, lang: str) -> None:
    await table.user("dev").slash("settings language", language=lang)


def level_name(level: Level, lang: str) -> str:
    return t(f"ui.bot.level.{level.value}", lang)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("info", GAMES, ids=lambda info: info.name)
async def test_the_host_adds_and_removes_a_bot_in_the_lobby(
    product_bot: Any, table: Table, info: GameInfo, lang: str
) -> None:
    await speak(table, lang)
    alice = table.user("alice", locale=lang)
    lobby = (await alice.slash(f"{info.name} new", **info.new_options(lang))).linked
    assert lobby is not None
    add, remove = t("ui.lobby.add_bot", lang), t("ui.lobby.remove_bot", lang)
    [offer] = [s for s in lobby.selects if s.get("placeholder") == add]
    assert [o["label"] for o in offer["options"]] == [level_name(level, lang) for level in Level]
    assert [o["description"] for o in offer["options"]] == [
        t(f"{info.name}.bots.{level.value}", lang)[:100] for level in Level
    ]

    await alice.select(lobby, "hard", placeholder=add)
    assert cog_of(product_bot, info).bots.warmed(Level.HARD)  # its data loading off the loop from now on
    hard = t("ui.bot.name", lang, name="Ada", level=level_name(Level.HARD, lang))
    assert hard in lobby.text and "<@bot" not in lobby.text
    await alice.select(lobby, "easy", placeholder=add)
    easy = t("ui.bot.name", lang, name="Alan", level=level_name(Level.EASY, lang))
    assert easy in lobby.text
    record = await product_bot.sessions.open_in_channel(table.channel_id)
    assert record is not None and list(record.bots) == ["bot:1", "bot:2"]

    # Someone else cannot seat a bot: the host's control.
    bob = table.user("bob", locale=lang)
    refused = await bob.select(lobby, "easy", placeholder=add)
    assert refused.ephemeral and t("engine.host_seats_bots", lang) in refused.text

    await alice.select(lobby, hard, placeholder=remove)
    assert hard not in lobby.text and easy in lobby.text
    record = await product_bot.sessions.open_in_channel(table.channel_id)
    assert record is not None and list(record.bots) == ["bot:2"] and "bot:1" not in record.players
    never_mentioned(table.fake)


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_rules_tell_how_to_play_against_bots(product_bot: Any, table: Table, lang: str) -> None:
    """`/rules <game>`, in the reader's language, names the lobby's bot controls and `/<game> new bots: level:`
    for every game offered with bots."""
    alice = table.user("alice", locale=lang)
    for info in [info for info in GAMES if info.listed]:
        reply = await alice.slash("rules", game=info.name)
        assert reply.ephemeral
        for control in ("ui.lobby.add_bot", "ui.lobby.remove_bot"):
            assert f"**{t(control, lang)}**" in reply.text, (info.name, control)
        assert f"`/{info.name} new bots:1 level:hard`" in reply.text
        assert all(level_name(level, lang) in reply.text for level in Level)


async def play_the_person(bot: Any, info: GameInfo, session_id: int, person: str) -> None:
    """The person's seat, played through the manager's path with the game's easy policy, until the game ends
    (the bots play their own seats meanwhile)."""
    cog = cog_of(bot, info)
    assert info.bots is not None
    policy = info.bots(Level.EASY, bot.words)
    rng = random.Random(1)
    deadline = asyncio.get_running_loop().time() + PLAY_WITHIN
    while (await bot.sessions.session(session_id)).is_open:
        assert asyncio.get_running_loop().time() < deadline, "the game did not finish"
        looked = await bot.sessions.seen(session_id, person)
        move = policy.choose(looked[1], rng) if looked is not None else None
        if move is None:
            await asyncio.sleep(0.02)
            continue
        try:
            await cog.bot_act(session_id, person, move.action)
        except Exception:  # the table moved on meanwhile (a bot's move): look again
            await asyncio.sleep(0.01)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("info", GAMES, ids=lambda info: info.name)
async def test_one_person_plays_a_whole_game_against_a_hard_bot_started_in_one_command(
    product_bot: Any, table: Table, info: GameInfo, lang: str
) -> None:
    await speak(table, lang)
    alice = table.user("alice", locale=lang)
    wanted = max(1, product_bot.sessions.games[info.name].min_players - 1)
    # The game starts at once and its bots play on by themselves (a speed game's never pause): the answer, not
    # the channel's quiet.
    reply = await alice.slash(
        f"{info.name} new", bots=wanted, level="hard", quiet=False, **info.new_options(lang)
    )
    assert reply.ephemeral and reply.linked is not None
    lobby = reply.linked
    started = t("ui.lobby.started", lang, n=wanted + 1)  # enough seats: it started at once
    await table.fake.wait_until(lambda: started in lobby.text, within=5.0, what="the lobby to say it started")
    record = await product_bot.sessions.open_in_channel(table.channel_id)
    assert record is not None and record.status == "active"
    assert [record.bots[seat]["level"] for seat in record.bots] == ["hard"] * wanted
    name = t("ui.bot.name", lang, name="Ada", level=level_name(Level.HARD, lang))
    assert record.names["bot:1"] == name

    await play_the_person(product_bot, info, record.id, str(alice.id))
    await table.settle()
    finished = await product_bot.sessions.session(record.id)
    assert finished.status == "finished"
    logged = await product_bot.store.actions.for_session(record.id)
    assert any(entry.player == "bot:1" for entry in logged)  # the bot's moves are in the log like anyone's

    # Recorded with bots: no rating, no leaderboard place; /history names the bot (never a mention).
    assert await product_bot.store.ratings.get(table.guild_id, info.name, str(alice.id)) is None
    assert (await product_bot.store.leaderboards.board(table.guild_id, info.name)).entries == 0
    history = await alice.slash("history")
    assert t("history.with_bots", lang) in history.text and name in history.text
    stats = await alice.slash("stats")
    assert t("stats.with_bots", lang, levels="").strip() in stats.text
    never_mentioned(table.fake)


async def test_a_topwords_game_started_with_bots_by_new_gives_the_host_what_start_gives(
    product_bot: Any, table: Table
) -> None:
    """`/topwords new bots:1` runs the same start as a Start press: the table, then the host's rack privately
    (what tests/e2e/test_topwords_e2e.py's `host_sees_rack` waits for after Start)."""
    alice = table.user("alice")
    reply = await alice.slash("topwords new", bots=1, level="easy", quiet=False)
    assert reply.ephemeral and reply.linked is not None
    await table.wait_for_message(
        lambda m: any(a["filename"] == "board.png" for a in m.attachments), what="the first TopWords table"
    )
    await table.fake.wait_until(
        lambda: any("Your rack" in m.text for m in alice.ephemerals), within=5, what="the host's rack"
    )
    record = await product_bot.sessions.open_in_channel(table.channel_id)
    assert record is not None and record.status == "active" and list(record.bots) == ["bot:1"]
    own = await product_bot.sessions.view(record.id, str(alice.id))  # she has not played: the rack dealt
    [rack] = [m for m in alice.ephemerals if "Your rack" in m.text]
    assert f"**{' '.join(own['rack'])}**" in rack.text
    never_mentioned(table.fake)


async def session_status(database: Path | str, session_id: int) -> str:
    store = await Store.open(database)
    try:
        record = await store.sessions.get(session_id)
    finally:
        await store.close()
    assert record is not None
    return record.status


async def bots_awaited(database: Path | str, info: GameInfo, session_id: int) -> bool:
    """Whether a bot seat has a move to make in the stored game (its policy would not wait)."""
    store = await Store.open(database)
    try:
        stored = await store.sessions.load_with_tail(session_id)
    finally:
        await store.close()
    assert stored is not None and info.bots is not None
    rules = info.make(None)
    state = _restore(rules, stored).state
    for seat, spec in stored.record.bots.items():
        legal = rules.legal_actions(state, seat) or []
        seen = Seen(seat, rules.view_for(state, seat), tuple(legal), rules.table_actions(state, seat))
        if info.bots(Level(spec["level"]), None).choose(seen, random.Random(1)) is not None:
            return True
    return False


async def logged(database: Path | str, session_id: int) -> list[Any]:
    """The session's action log, as the store holds it."""
    store = await Store.open(database)
    try:
        return list(await store.actions.for_session(session_id))
    finally:
        await store.close()


async def bot_moves(database: Path | str, session_id: int) -> list[str]:
    return [entry.action["do"] for entry in await logged(database, session_id) if is_bot(entry.player)]


async def until(what: str, check: Any) -> None:
    deadline = asyncio.get_running_loop().time() + PLAY_WITHIN
    while not await check():
        assert asyncio.get_running_loop().time() < deadline, what
        await asyncio.sleep(0.2)


@pytest.mark.parametrize(("info", "lang"), RESTARTS)
async def test_a_bot_whose_move_was_pending_when_the_process_was_killed_plays_it_after_the_restart(
    spawn_bot: SpawnBot,
    fake_discord: FakeDiscord,
    table: Table,
    database: Path | str,
    info: GameInfo,
    lang: str,
) -> None:
    """Once per game, each in one language (en, fr, de in turn over GAMES): what a restart proves is the
    driver's and the store's, the same in every language, and two processes per case are the costly part;
    the solo whole game above plays every game in all three."""
    # The first process's bots think slowly: each move waits many seconds, so a bot to move has its move
    # pending at the kill. The person stays seated: a table with no person left ends (docs/bots.md).
    first = await spawn_bot(PRODUCT, database=database, env={"BOT_PACE": "30"})
    await wait_for_new_session(fake_discord, first)
    await speak(table, lang)
    alice = table.user("alice", locale=lang)
    rules = info.make(None)
    bots = min(max(rules.min_players, 1), rules.max_players - 1)

    async def started() -> int:
        # The answer, not the channel's quiet: the table and the host's own start follow meanwhile.
        reply = await alice.slash(
            f"{info.name} new", bots=bots, level="hard", quiet=False, **info.new_options(lang)
        )
        assert reply.linked is not None
        store = await Store.open(database)
        try:
            session_id = await store.sessions.open_id_in_channel(table.channel_id)
        finally:
            await store.close()
        assert session_id is not None

        async def active() -> bool:
            return await session_status(database, session_id) == "active"

        await until("the game did not start", active)
        await table.settle()
        return session_id

    # A game where the person is the one to move has no bot's move pending. Where the team chooses who
    # starts (Top Drop's menu), the person picks a bot; elsewhere the rules draw who begins, and the host
    # ends the game and starts another until a bot is to move.
    session_id = await started()
    due = False
    for _ in range(12):
        menus = [m for m in table.channel_messages() if m.selects]  # the table's, where it has one
        options = [o["value"] for menu in menus[-1:] for select in menu.selects for o in select["options"]]
        starts = [value for value in options if value.startswith("bot:")]
        if starts:
            await alice.select(menus[-1], starts[0])
            await table.settle()
        if due := await bots_awaited(database, info, session_id):
            break
        ended = await alice.slash(f"{info.name} end")
        assert ended.ephemeral
        await table.settle()
        session_id = await started()
    assert due, "a bot was never the one to move"
    moved_before = len(await bot_moves(database, session_id))

    session = fake_discord.gateway.current
    await first.kill()  # SIGKILL, with a bot's move pending
    second = await spawn_bot(PRODUCT, database=database, env={"BOT_PACE": TINY_PACE})
    await wait_for_new_session(fake_discord, second, previous=session)

    # The restore pokes the driver: the pending move is played.
    async def played() -> bool:
        return len(await bot_moves(database, session_id)) > moved_before

    await until("the bot's pending move was not played after the restart", played)
    # The person leaves: no person is left, so the bots leave through the rules and the game ends (unless
    # the rules end it at the person's leaving: a Top Drop hand nobody can play).
    left = await alice.slash(f"{info.name} leave")
    assert left.ephemeral

    async def finished() -> bool:
        return await session_status(database, session_id) == "finished"

    await until("the game did not end once no person was left", finished)
    last = (await logged(database, session_id))[-1]
    assert "leave" in await bot_moves(database, session_id) or last.player == str(alice.id)
    await table.settle()
    never_mentioned(fake_discord)
    assert await second.stop(signal.SIGTERM) == 0


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_one_person_clicks_a_whole_top_drop_game_with_a_hard_bot_as_teammate(
    product_bot: Any, table: Table, lang: str
) -> None:
    """The person's side through Discord itself, as a player would: the table's menu of who starts, then each
    turn from their console (its first playable card, or first an action card when no card can go on the
    pile, then Play), while the bot plays its own turns, until the game ends, won or lost."""
    await speak(table, lang)
    alice = table.user("alice", locale=lang)
    reply = await alice.slash("topdrop new", bots=1, level="hard", quiet=False)
    assert reply.ephemeral and reply.linked is not None
    board = await table.wait_for_message(
        lambda m: "Top Drop — " in m.text and m.id != reply.linked.id and bool(m.selects), what="the table"
    )
    await alice.select(board, f"{alice.id}-up")  # the team's choice: she starts, the pile going up
    opened = await alice.click(board, t("topdrop.button.hand", lang))
    assert opened.message is not None and opened.message.ephemeral
    console = opened.message
    actions = {action_label(kind, wild, lang) for kind in ACTIONS for wild in (False, True)}

    def pressable(labels: set[str] | None = None) -> list[str]:
        """The console's buttons she may press now: its cards (numbers), or those of `labels`."""
        return [
            b["label"]
            for b in console.buttons
            if not b.get("disabled") and (b["label"].isdigit() if labels is None else b["label"] in labels)
        ]

    record = await product_bot.sessions.open_in_channel(table.channel_id)
    assert record is not None
    turns = 0
    deadline = asyncio.get_running_loop().time() + PLAY_WITHIN
    while True:
        assert asyncio.get_running_loop().time() < deadline, "the game did not finish"
        await table.fake.wait_until(
            lambda: bool(pressable() or pressable(actions)) or not board.buttons, within=10, what="her turn"
        )
        if not board.buttons:
            break  # the final table
        if not pressable():
            await alice.click(console, pressable(actions)[0])  # an action card first
        if pressable():
            await alice.click(console, pressable()[0])
        [play] = [b["label"] for b in console.buttons if b.get("style") == discord.ButtonStyle.success.value]
        await alice.click(console, play)
        turns += 1
    await table.settle()
    finished = await product_bot.sessions.session(record.id)
    assert finished.status == "finished" and turns >= 1, turns
    logged = await product_bot.store.actions.for_session(record.id)
    assert [entry.player for entry in logged if entry.action.get("do") == "turn"].count("bot:1") >= 1
    never_mentioned(table.fake)
