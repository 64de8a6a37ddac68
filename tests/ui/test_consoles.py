"""Private consoles without Discord: drawn in place, kept live and coalesced per player, news for every
player, a note on how to reopen before the token dies."""

from __future__ import annotations

import asyncio
import itertools
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.engine.errors import BadAction, NotAPlayer
from bot.engine.game import Event
from bot.store import SessionRecord, Store
from bot.store.repositories import News as StoredNews
from bot.ui.consoles import ConsoleDesk, with_news
from bot.ui.news import NEWS_KEPT, News, answer_news
from bot.ui.table import Table


class Response:
    def __init__(self) -> None:
        self.deferred: dict[str, Any] | None = None

    def is_done(self) -> bool:
        return self.deferred is not None

    async def defer(self, **kwargs: Any) -> None:
        self.deferred = kwargs


_ids = itertools.count(1000)


def message(*, ephemeral: bool = True, owner: int | None = 1, ids: tuple[str, ...] = ()) -> Any:
    """A message as a click brings it: its flags, who its interaction was for, its buttons' ids."""
    return SimpleNamespace(
        id=next(_ids),
        flags=SimpleNamespace(ephemeral=ephemeral),
        interaction_metadata=None if owner is None else SimpleNamespace(user=SimpleNamespace(id=owner)),
        components=[SimpleNamespace(children=[SimpleNamespace(custom_id=i) for i in ids])],
    )


class Interaction:
    """An interaction whose token edits its own message: every edit is recorded. A press is made on
    `on` (by default the presser's own private message); the panel's click answers with a new one."""

    def __init__(self, delay: float = 0.0, on: Any = None, user: int = 1) -> None:
        self.id = next(_ids)
        self.application_id = 99
        self.token = f"token-{self.id}"
        self.locale = discord.Locale.american_english
        self.user = SimpleNamespace(id=user)
        self.message = on if on is not None else message(owner=user)
        self.response = Response()
        self.extras: dict[str, Any] = {}
        self.edits: list[dict[str, Any]] = []
        self.delay = delay
        self.drawn: Any = None  # the message its token edits

    async def edit_original_response(self, **kwargs: Any) -> Any:
        await asyncio.sleep(self.delay)
        self.edits.append(kwargs)
        if self.drawn is None:  # a deferred private answer is a new message; a press's, the one pressed
            self.drawn = message() if self.response.deferred else self.message
        return self.drawn

    @property
    def shown(self) -> str:
        return str(self.edits[-1]["embed"].description)


class Game:
    """A console showing a counter per player; news are the events' texts."""

    def __init__(self) -> None:
        self.count = 0

    async def draw(
        self, session_id: int, player: str, lang: str, news: list[Event], refusal: str | None
    ) -> Table:
        console = Table(discord.Embed(description=f"{player}: {self.count}"))
        return with_news(console, await self.news(session_id, news, lang), refusal, lang)

    async def news(self, session_id: int, events: list[Event], lang: str) -> list[str]:
        return [str(event["text"]) for event in events]


@pytest.fixture
async def store(tmp_path: Any) -> Any:
    store = await Store.open(tmp_path / "bot.db")
    record = SessionRecord(
        id=0, guild_id=1, channel_id=10, game="race", status="active", host_id="ann",
        players=["ann", "bob"], options={}, seed=7, created_at=1.0, updated_at=1.0,
    )  # fmt: skip
    async with store.transaction() as tx:
        assert await store.sessions.create(tx, record) == 1
    yield store
    await store.close()


def desk(game: Game, store: Store, *, kept: bool = False, **kwargs: Any) -> ConsoleDesk:
    """A desk of the game "race"; `kept`: it stores its consoles' tokens."""
    if kept:
        kwargs["store"] = lambda: store
    return ConsoleDesk(
        game.draw, game.news, lambda lang: "press Mine to reopen", News(lambda: store), game="race", **kwargs
    )


async def tell(store: Store, consoles: ConsoleDesk | None, told: dict[str, list[Event]]) -> None:
    """What the session manager does for an action that told these players something: their news stored
    with it (session 1), then the table layer told who has news."""
    await store.db.run(StoredNews.add_statements(1, 1, 1.0, told))
    if consoles is not None:
        consoles.told(1, told)


async def stored_news(store: Store, player: str) -> list[str]:
    return [event["text"] for _, event in await store.news.waiting(1, player)]


async def quiet(consoles: ConsoleDesk) -> None:
    for _ in range(400):
        if not consoles.busy:
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the consoles kept editing")


async def test_the_panel_button_answers_with_a_private_console_of_its_own(store: Store) -> None:
    game, click = Game(), Interaction()
    consoles = desk(game, store)
    await consoles.open(click, 1, "ann")  # type: ignore[arg-type]
    assert click.response.deferred == {"ephemeral": True, "thinking": True}
    assert click.shown == "ann: 0" and consoles.is_open(1, "ann")


async def test_an_open_console_follows_the_game_with_edits_coalesced_per_player(store: Store) -> None:
    game, click = Game(), Interaction(delay=0.02)
    consoles = desk(game, store)
    await consoles.open(click, 1, "ann")  # type: ignore[arg-type]
    for _ in range(10):  # ten changes while the first edit is on its way: two edits in all
        game.count += 1
        consoles.changed(1)
        await asyncio.sleep(0.001)
    await quiet(consoles)
    assert len(click.edits) == 1 + 2 and click.shown == "ann: 10"
    consoles.changed(1)  # nothing changed for her: no edit
    await quiet(consoles)
    assert len(click.edits) == 3
    consoles.changed(2)  # another table
    await quiet(consoles)
    assert len(click.edits) == 3


async def test_the_consoles_one_action_changes_are_drawn_one_per_turn_of_the_event_loop(store: Store) -> None:
    """Eight consoles drawn back to back would hold the event loop for one long turn (each draws the
    player's view and sends an edit): one starts per turn, so other tables' clicks run in between."""
    game = Game()
    consoles = desk(game, store)
    players = [f"p{n}" for n in range(8)]
    clicks = {player: Interaction() for player in players}
    for player in players:
        await consoles.open(clicks[player], 1, player)  # type: ignore[arg-type]
    drawn_per_turn: list[int] = []
    draw = game.draw

    async def counted(*args: Any) -> Table:
        drawn_per_turn[-1] += 1
        return await draw(*args)

    game.draw = counted  # type: ignore[method-assign]
    consoles.draw = counted
    game.count += 1
    consoles.changed(1)
    for _ in range(40):  # one entry per turn of the loop
        drawn_per_turn.append(0)
        await asyncio.sleep(0)
    await quiet(consoles)
    assert sum(drawn_per_turn) == 8 and max(drawn_per_turn) == 1, drawn_per_turn
    assert all(click.shown.endswith(": 1") for click in clicks.values())


async def test_a_refused_press_is_shown_inside_the_console_it_was_pressed_on(store: Store) -> None:
    game, opened = Game(), Interaction()
    consoles = desk(game, store)
    await consoles.open(opened, 1, "ann")  # type: ignore[arg-type]
    press = Interaction(on=opened.drawn)

    async def refused() -> None:
        raise BadAction("engine.not_started")

    await consoles.press(press, 1, "ann", refused)  # type: ignore[arg-type]
    assert len(press.edits) == 1 and press.shown.startswith("⚠️") and "ann: 0" in press.shown
    assert press.drawn is opened.drawn  # the console pressed, in place
    assert consoles.is_open(1, "ann")  # the press's token keeps it live


async def test_what_a_press_told_the_presser_stays_at_the_top_of_their_console_until_the_next_press(
    store: Store,
) -> None:
    game, opened = Game(), Interaction()
    consoles = desk(game, store)
    await consoles.open(opened, 1, "ann")  # type: ignore[arg-type]
    press = Interaction(on=opened.drawn)

    async def drew() -> str:
        game.count += 1
        return "You drew 12."

    await consoles.press(press, 1, "ann", drew)  # type: ignore[arg-type]
    assert press.shown == "You drew 12.\nann: 1"
    game.count += 1  # another player's move: the console follows, still saying it
    consoles.changed(1)
    await quiet(consoles)
    assert press.shown == "You drew 12.\nann: 2"

    async def nothing() -> None:
        game.count += 1

    again = Interaction(on=opened.drawn)
    await consoles.press(again, 1, "ann", nothing)  # type: ignore[arg-type]
    assert again.shown == "ann: 3"


async def nothing_to_do() -> None:
    raise AssertionError("a press refused before anything is done")


@pytest.mark.parametrize(
    "on",
    [
        pytest.param(lambda: message(ephemeral=False, owner=None, ids=("race:1:mine",)), id="the table"),
        pytest.param(lambda: message(ephemeral=False, owner=2, ids=("race:1:join",)), id="a public answer"),
        pytest.param(lambda: message(owner=2, ids=("race:1:play",)), id="another's console"),
        pytest.param(lambda: message(ids=("other:5:play",)), id="another game's console"),
        pytest.param(lambda: message(), id="a private refusal"),
    ],
)
async def test_a_console_press_from_any_message_but_the_players_console_is_refused_and_draws_nothing(
    store: Store, on: Any
) -> None:
    """A console is drawn only into its owner's private message: a press answers through the clicked
    message's token, so a console drawn from a table's click would show a hand to the channel."""
    game = Game()
    consoles = desk(game, store)
    await consoles.open(Interaction(), 1, "ann")  # type: ignore[arg-type]  # her console, elsewhere
    press = Interaction(on=on())
    with pytest.raises(BadAction) as refused:
        await consoles.press(press, 1, "ann", nothing_to_do)  # type: ignore[arg-type]
    assert refused.value.key == "ui.console.elsewhere" and press.edits == []
    game.count += 1
    consoles.changed(1)  # her console follows the game; the message pressed on is never drawn
    await quiet(consoles)
    assert press.edits == []


async def test_a_press_from_an_older_console_of_the_player_redraws_it(store: Store) -> None:
    """A console opened again leaves the older one showing its buttons (or a restart forgot it): it is
    still the player's own private message of this session, and a press there draws it in place."""
    consoles = desk(Game(), store)
    press = Interaction(on=message(ids=("race:1:play:3",)))
    done: list[bool] = []

    async def work() -> None:
        done.append(True)

    await consoles.press(press, 1, "ann", work)  # type: ignore[arg-type]
    assert done == [True] and press.drawn is press.message and consoles.is_open(1, "ann")


async def test_the_guard_refuses_a_press_before_it_is_drawn(store: Store) -> None:
    """Someone not seated in the session the id names: refused plainly, no console drawn for them (their
    view lacks what a console reads)."""

    async def not_seated(interaction: Any, session_id: int) -> None:
        raise NotAPlayer("ui.not_a_player")

    game = Game()
    consoles = desk(game, store, guard=not_seated)
    press = Interaction(on=message(ids=("race:1:play:3",)), user=7)
    with pytest.raises(NotAPlayer):
        await consoles.press(press, 1, "7", nothing_to_do)  # type: ignore[arg-type]
    assert press.edits == [] and not consoles.is_open(1, "7")


async def test_news_for_a_player_who_did_not_act_reach_their_live_console_and_are_then_deleted(
    store: Store,
) -> None:
    game, ann, bob = Game(), Interaction(), Interaction()
    consoles = desk(game, store)
    await consoles.open(ann, 1, "ann")  # type: ignore[arg-type]
    await consoles.open(bob, 1, "bob")  # type: ignore[arg-type]
    await tell(store, consoles, {"bob": [{"text": "your card was taken"}]})
    consoles.changed(1)
    await quiet(consoles)
    assert "your card was taken" in bob.shown
    assert all("your card was taken" not in edit["embed"].description for edit in ann.edits)
    assert await stored_news(store, "bob") == []  # shown: gone from the store
    game.count += 1
    consoles.changed(1)
    await quiet(consoles)
    assert "your card was taken" in bob.shown  # the console keeps showing them until the player presses


async def test_news_for_a_player_without_a_console_wait_for_their_next_private_answer(store: Store) -> None:
    game = Game()
    consoles = desk(game, store)
    await tell(store, consoles, {"bob": [{"text": "a card drawn for you"}]})
    nothing = Interaction()
    await consoles.attach_news(nothing, 1, "ann")  # type: ignore[arg-type]
    assert answer_news(nothing) is None  # type: ignore[arg-type]  # no news of hers: nothing attached
    answer = Interaction()
    await consoles.attach_news(answer, 1, "bob")  # type: ignore[arg-type]
    news = answer_news(answer)  # type: ignore[arg-type]
    assert news is not None and "a card drawn for you" in await news.text()
    assert await stored_news(store, "bob") == ["a card drawn for you"]  # until the answer is sent
    await news.sent()
    assert await stored_news(store, "bob") == []
    later = Interaction()
    await consoles.attach_news(later, 1, "bob")  # type: ignore[arg-type]
    assert answer_news(later) is None  # type: ignore[arg-type]  # told once


async def test_news_whose_answer_could_not_be_sent_stay_for_the_next_one(store: Store) -> None:
    consoles = desk(Game(), store)
    await tell(store, consoles, {"bob": [{"text": "a card drawn for you"}]})
    failed = Interaction()
    await consoles.attach_news(failed, 1, "bob")  # type: ignore[arg-type]
    news = answer_news(failed)  # type: ignore[arg-type]
    assert news is not None and "a card drawn for you" in await news.text()
    news.unsent()
    retry = Interaction()
    await consoles.attach_news(retry, 1, "bob")  # type: ignore[arg-type]
    again = answer_news(retry)  # type: ignore[arg-type]
    assert again is not None and "a card drawn for you" in await again.text()


async def test_news_stored_before_a_restart_reach_the_player_after_it(store: Store) -> None:
    await tell(store, None, {"bob": [{"text": "drawn while the bot was down"}]})
    bob = Interaction()
    restarted = desk(Game(), store)  # a new process: nothing in memory
    await restarted.open(bob, 1, "bob")  # type: ignore[arg-type]
    assert "drawn while the bot was down" in bob.shown
    assert await stored_news(store, "bob") == []


async def test_a_player_without_news_costs_no_query_after_the_sessions_first_look(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    consoles = desk(Game(), store)
    queries: list[str] = []
    fetch_all = store.db.fetch_all

    async def counted(sql: str, params: Any = ()) -> Any:
        queries.append(sql)
        return await fetch_all(sql, params)

    monkeypatch.setattr(store.db, "fetch_all", counted)
    for _ in range(5):
        await consoles.attach_news(Interaction(), 1, "ann")  # type: ignore[arg-type]
    assert len(queries) == 1  # who has news in this session: read once
    await tell(store, consoles, {"bob": [{"text": "x"}]})
    await consoles.attach_news(Interaction(), 1, "ann")  # type: ignore[arg-type]
    assert len(queries) == 1  # news for another player: still none for her
    with_news_for_bob = Interaction()
    await consoles.attach_news(with_news_for_bob, 1, "bob")  # type: ignore[arg-type]
    news = answer_news(with_news_for_bob)  # type: ignore[arg-type]
    assert news is not None and await news.text() == "x" and len(queries) == 2  # his, one indexed read
    await news.sent()
    await consoles.attach_news(Interaction(), 1, "bob")  # type: ignore[arg-type]
    assert len(queries) == 2  # shown: known to have none again


async def test_a_player_keeps_only_their_latest_news(store: Store) -> None:
    for number in range(NEWS_KEPT + 5):
        await tell(store, None, {"bob": [{"text": str(number)}], "ann": [{"text": f"a{number}"}]})
    assert await stored_news(store, "bob") == [str(n) for n in range(5, NEWS_KEPT + 5)]
    assert len(await stored_news(store, "ann")) == NEWS_KEPT


async def test_before_its_token_dies_the_console_says_how_to_reopen_it_and_is_edited_no_more(
    store: Store,
) -> None:
    game, click = Game(), Interaction()
    consoles = desk(game, store, live_seconds=0.05)
    await consoles.open(click, 1, "ann")  # type: ignore[arg-type]
    await asyncio.sleep(0.08)
    await quiet(consoles)
    assert click.edits[-1]["view"] is None and "reopen" in click.edits[-1]["embed"].description
    edits = len(click.edits)
    game.count += 1
    consoles.changed(1)
    await quiet(consoles)
    assert len(click.edits) == edits and not consoles.is_open(1, "ann")


async def test_a_console_whose_clock_ran_past_its_life_is_left_alone(store: Store) -> None:
    now = [0.0]
    game, click = Game(), Interaction()
    consoles = desk(game, store, clock=lambda: now[0])
    await consoles.open(click, 1, "ann")  # type: ignore[arg-type]
    now[0] += 15 * 60
    game.count += 1
    consoles.changed(1)
    await quiet(consoles)
    assert len(click.edits) == 1
    consoles.close()


async def test_an_open_console_is_stored_and_follows_the_game_again_after_a_restart(store: Store) -> None:
    now = [10_000.0]
    game, opened = Game(), Interaction()
    consoles = desk(game, store, kept=True, wall=lambda: now[0])
    await consoles.open(opened, 1, "ann")  # type: ignore[arg-type]
    [kept] = await store.consoles.live("race", 0.0)
    assert (kept.player, kept.token, kept.message_id) == ("ann", opened.token, opened.drawn.id)
    assert (kept.application_id, kept.language, kept.opened_at) == (99, "en", 10_000.0)

    # Pressed on within a minute: the stored token stays (it edits the same message); later, the newer.
    now[0] += 5

    async def work() -> None:
        game.count += 1

    await consoles.press(Interaction(on=opened.drawn), 1, "ann", work)  # type: ignore[arg-type]
    assert [c.token for c in await store.consoles.live("race", 0.0)] == [opened.token]
    now[0] += 60
    later = Interaction(on=opened.drawn)
    await consoles.press(later, 1, "ann", work)  # type: ignore[arg-type]
    [kept] = await store.consoles.live("race", 0.0)
    assert (kept.token, kept.opened_at, kept.message_id) == (later.token, 10_065.0, opened.drawn.id)

    # A restart: nothing in memory. The stored console is live again and follows the game.
    now[0] += 30
    restarted = desk(game, store, kept=True, wall=lambda: now[0])
    token = Interaction()  # what edits the console's message through the stored token
    assert restarted.restore(kept, token)  # type: ignore[arg-type]
    assert restarted.is_open(1, "ann")
    game.count += 1
    restarted.changed(1)
    await quiet(restarted)
    assert token.shown == "ann: 3"


async def test_a_stored_console_whose_token_is_past_its_life_is_not_restored_and_its_row_goes(
    store: Store,
) -> None:
    now = [10_000.0]
    consoles = desk(Game(), store, kept=True, wall=lambda: now[0], live_seconds=0.05)
    await consoles.open(Interaction(), 1, "ann")  # type: ignore[arg-type]
    [kept] = await store.consoles.live("race", 0.0)
    now[0] += 0.06
    restarted = desk(Game(), store, kept=True, wall=lambda: now[0], live_seconds=0.05)
    assert not restarted.restore(kept, Interaction())  # type: ignore[arg-type]
    await asyncio.sleep(0.08)  # the first desk's console says how to reopen it: of no more use
    await quiet(consoles)
    assert await store.consoles.live("race", 0.0) == []


async def test_a_console_closing_at_the_end_of_its_life_keeps_the_desk_busy_until_its_row_is_gone(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The console leaves the open ones before its row is deleted: those waiting for quiet (tests, the bench,
    # a shutdown) must still wait for that deletion.
    consoles = desk(Game(), store, kept=True, live_seconds=0.01)
    deleting, release = asyncio.Event(), asyncio.Event()
    unkeep = consoles._unkeep

    async def held(*args: Any) -> None:
        deleting.set()
        await release.wait()
        await unkeep(*args)

    monkeypatch.setattr(consoles, "_unkeep", held)
    await consoles.open(Interaction(), 1, "ann")  # type: ignore[arg-type]
    await asyncio.wait_for(deleting.wait(), 5)
    assert not consoles.is_open(1, "ann") and consoles.busy
    release.set()
    await quiet(consoles)
    assert await store.consoles.live("race", 0.0) == []
