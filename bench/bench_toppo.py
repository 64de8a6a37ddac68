"""Toppo at the table: 8 players with their consoles open, pressing at once, through the loopback Discord.

The bot runs in its own process as the e2e tests start it (the real table layer at its real pace: the
table edited at most once a second, every open console redrawn as soon as what it shows changes), the
fake's schema validation off (timing only). A series of 8 players, every console open; each stretch of play:
the awaited player presses Begin, then every player whose line is not full presses Reveal, all at once,
until the lines are full; a player whose line tops the display (read from their console, as they would)
sets the Top's order card by card and presses Top, which changes the display; when nobody's line tops it,
everyone presses Renew at once. A player left with fewer than 10 cards calls Toppo!, and the next game
starts on 3 cards. TOPS tops in all.

The figures:
- click → answer, as bench/bench_click_latency.py measures it (the fake's time from INTERACTION_CREATE to
  the bot's first callback), against the bare discord.py bot measured beside the product in the same run
  (its `Floor`, `alone` and `at_once`): one at a time (Begin, a card picked, Top, Toppo!, the next display)
  against the floor's one at a time, the bursts (Reveal, Renew) against the floor's eight at once.
  Targets: #18's (one at a time p50 ≤ 1.5× and p99 ≤ 2× the floor's; 8 at once p99 ≤ 2× the floor's) and
  the issue's p99 ≤ 50 ms for every kind (Toppo! and the next display, once a game: that ceiling alone, and
  in full among every press one at a time).
- click → the player's own console redrawn in place (what the player reads), and the slowest first answer:
  both within Discord's 3 s.
- a Top → every open console showing the new display: p99 ≤ 100 ms (the anchor: the floor's eight
  `/ping`s at once, as bench/bench_consoles.py has it); and, not a target, a Begin → every console showing
  that play is on.
- Not a target: the bot's event-loop pauses, beside an idle process's lateness (the click bench's
  `bot_pauses`), to tell a slow answer of the bot's from one of the machine's.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import gc
import itertools
import json
import re
import sys
import tempfile
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path
from subprocess import PIPE

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench.bench_click_latency as clicks  # noqa: E402
from bench.bench_click_latency import (  # noqa: E402
    IDLE_PROCESS,
    TARGET_BURST_MS,
    TARGET_P50,
    TARGET_P99,
    Floor,
    Samples,
    alone,
    at_once,
    bot_pauses,
    ms,
    show_pauses,
    spawn,
)
from bot.i18n import t  # noqa: E402
from cogs.toppo.table import COLOUR_MARKS, SYMBOL_MARKS, TOPPO_UNDER  # noqa: E402
from tests.e2e.driver import Message, Player, Reply, Table  # noqa: E402
from tests.e2e.fake_discord import ANSWER_DEADLINE, FakeDiscord  # noqa: E402

PLAYERS = 8
TOPS = 100  # display changes measured: p99 by nearest rank is the 99th of 100, not simply the slowest
DISPLAY = 3
GAMES = 20  # a long series: each game ends with a toppo
TARGET_ANSWER_MS = TARGET_BURST_MS  # #18 sets it for 8 at once; the issue, for every kind
TARGET_CONSOLES_MS = 100.0
# A kind pressed fewer times (Toppo!, the next game's display: once a game) is judged on the 50 ms ceiling
# alone: the p50 of one press is that press. It counts in "every press one at a time", judged in full.
JUDGED_FROM = 20
LANG = "en"

# A card as the console writes it: a coloured square and a symbol mark (cogs/toppo/table.py `mark`).
CARD = re.compile(f"\\*\\*\\d\\*\\* ([{''.join(COLOUR_MARKS.values())}][{''.join(SYMBOL_MARKS.values())}])")
DISPLAY_PREFIX = t("toppo.console.display", LANG, cards="")
LINE_PREFIX = t("toppo.console.line", LANG, cards="")
PLAY_ON = t("toppo.console.playing", LANG)
CARDS_COUNT = re.compile(
    re.escape(t("toppo.console.cards", LANG, deck="DECK", cards="CARDS"))
    .replace("DECK", r"\d+")
    .replace("CARDS", r"(\d+)")
)


class Seat:
    """A player and their open console."""

    def __init__(self, player: Player, console: Message) -> None:
        self.player, self.console = player, console

    def cards_after(self, prefix: str) -> list[str]:
        for row in self.console.text.splitlines():
            if row.startswith(prefix):
                return CARD.findall(row)
        return []

    @property
    def display(self) -> list[str]:
        return self.cards_after(DISPLAY_PREFIX)

    @property
    def line(self) -> list[str]:
        return self.cards_after(LINE_PREFIX)

    @property
    def cards(self) -> int:
        found = CARDS_COUNT.search(self.console.text)
        assert found is not None, f"no card count on {self.player.name}'s console: {self.console.text}"
        return int(found.group(1))

    def button(self, action: str, arg: str | None = None) -> str | None:
        """The custom_id of the console's `action` button (`<game>:<session>:<action>:<arg>.<arg>…`), with
        `arg` as its last argument if given."""
        for button in self.console.buttons:
            parts = button["custom_id"].split(":")
            if parts[2] == action and (arg is None or parts[3].split(".")[-1] == arg):
                return str(button["custom_id"])
        return None


def tops(mine: str, theirs: str) -> bool:
    """The rules' top (bot/games/toppo/cards.py), on the marks: the same colour or the same symbol."""
    return mine[0] == theirs[0] or mine[1] == theirs[1]


def top_order(line: list[str], display: list[str]) -> list[int] | None:
    """For each display position, the index of the line card that tops it; None if no order tops it."""
    for order in itertools.permutations(range(len(line))):
        if all(tops(line[index], card) for index, card in zip(order, display, strict=True)):
            return list(order)
    return None


def picks_for(order: list[int]) -> list[int]:
    """The cards to pick, in turn, for the console to set `order`: the picked cards go first, the rest
    follow in line order (cogs/toppo/table.py `top_order`)."""
    for count in range(len(order) + 1):
        if order[count:] == sorted(order[count:]):
            return order[:count]
    return order


class Bench:
    def __init__(self, fake: FakeDiscord, table: Table, seats: list[Seat]) -> None:
        self.fake, self.table, self.seats = fake, table, seats
        self.one: Samples = defaultdict(list)  # click → first answer, one at a time
        self.burst: Samples = defaultdict(list)  # click → first answer, 8 at once
        self.redrawn: Samples = defaultdict(list)  # click → the player's own console redrawn
        self.display_shown: list[float] = []  # a Top → every open console showing the new display
        self.play_shown: list[float] = []  # a Begin → every open console showing that play is on
        self.game = 1

    async def press(self, seat: Seat, custom_id: str, kind: str) -> Reply:
        """A press on a seat's console as it is now; done when the console is redrawn in place."""
        data = {"custom_id": custom_id, "component_type": 2}
        record = await self.fake.send_interaction(
            seat.player.user,
            3,
            data,
            channel_id=self.table.channel_id,
            message=copy.deepcopy(seat.console.raw),
        )
        await self.fake.wait_until(
            lambda: record.completed, within=10, what=f"{seat.player.name}'s console after {kind}"
        )
        self.redrawn[kind].append(self.fake.clock.now() - record.created)
        return Reply(self.fake, record)

    async def seats_with(self, action: str, arg: str | None = None, *, what: str) -> list[Seat]:
        """The seats whose console has that button, once one has."""
        return await self.fake.wait_until(
            lambda: [seat for seat in self.seats if seat.button(action, arg)], within=30, what=what
        )

    async def until_every_console(self, started: float, shows: Callable[[Seat], bool], what: str) -> float:
        await self.fake.wait_until(lambda: all(shows(seat) for seat in self.seats), within=10, what=what)
        return self.fake.clock.now() - started

    async def begin(self) -> None:
        """The awaited player begins (their first card revealed); every console follows."""
        seat = (await self.seats_with("restart", what="a Begin"))[0]
        custom_id = seat.button("restart")
        assert custom_id is not None

        async def pressed() -> Reply:
            reply = await self.press(seat, custom_id, "Begin")
            shown = await self.until_every_console(
                reply.record.created, lambda s: PLAY_ON in s.console.text, "every console: play is on"
            )
            self.play_shown.append(shown)
            return reply

        await alone(self.one, "Begin", pressed())

    async def fill_lines(self) -> None:
        """Everyone whose line is not full reveals, all at once, until every line is full."""
        while True:
            revealing = [(seat, seat.button("reveal")) for seat in self.seats if len(seat.line) < DISPLAY]
            if not revealing:
                return
            presses: list[Callable[[], Awaitable[Reply]]] = []
            for seat, custom_id in revealing:
                assert custom_id is not None, f"{seat.player.name} has no Reveal: {seat.console.text}"
                presses.append(partial(self.press, seat, custom_id, "Reveal"))
            await at_once(self.burst, "Reveal", presses)

    async def renew_all(self) -> None:
        presses: list[Callable[[], Awaitable[Reply]]] = []
        for seat in self.seats:
            custom_id = seat.button("renew")
            assert custom_id is not None, f"{seat.player.name} has no Renew: {seat.console.text}"
            presses.append(partial(self.press, seat, custom_id, "Renew"))
        await at_once(self.burst, "Renew", presses)

    async def top(self) -> bool:
        """The player with the most cards whose line tops the display sets the order and tops it; False
        when no line tops it."""
        display = self.seats[0].display
        assert len(display) == DISPLAY, self.seats[0].console.text
        found = [(seat, top_order(seat.line, display)) for seat in self.seats]
        candidates = sorted(((s, o) for s, o in found if o is not None), key=lambda pair: -pair[0].cards)
        if not candidates:
            return False
        seat, order = candidates[0]
        assert order is not None
        for index in picks_for(order):
            pick = seat.button("pick", str(index))
            assert pick is not None, seat.console.text
            await alone(self.one, "a card picked (the Top's order)", self.press(seat, pick, "a card picked"))
        custom_id = seat.button("top")
        assert custom_id is not None and custom_id.endswith("." + "".join(map(str, order))), custom_id
        new_display = [seat.line[index] for index in order]

        async def pressed() -> Reply:
            reply = await self.press(seat, custom_id, "Top")
            shown = await self.until_every_console(
                reply.record.created, lambda s: s.display == new_display, "every console: the new display"
            )
            self.display_shown.append(shown)
            return reply

        await alone(self.one, "Top", pressed())
        return True

    async def next_game_if_due(self) -> None:
        """A player under 10 cards calls Toppo!; the next game is chosen on 3 cards."""
        short = [seat for seat in self.seats if seat.cards < TOPPO_UNDER]
        if not short:
            return
        seat = short[0]
        toppo = seat.button("toppo")
        assert toppo is not None
        await alone(self.one, "Toppo!", self.press(seat, toppo, "Toppo!"))
        chooser = (await self.seats_with("choose", str(DISPLAY), what="the chooser's 3 / 4 / 5"))[0]
        choose = chooser.button("choose", str(DISPLAY))
        assert choose is not None
        await alone(self.one, "the next display (3 cards)", self.press(chooser, choose, "the next display"))
        self.game += 1
        title = t("toppo.console.title", LANG, game=self.game, games=GAMES)
        await self.fake.wait_until(
            lambda: all(title in seat.console.text for seat in self.seats), within=10, what=title
        )

    async def play(self, tops: int) -> None:
        while len(self.display_shown) < tops:
            await self.begin()
            while True:
                await self.fill_lines()
                if await self.top():
                    break
                await self.renew_all()
            await self.next_game_if_due()


async def open_table(table: Table) -> list[Seat]:
    """Eight players at a Toppo table (a long series: a game ends with a toppo), every console open."""
    players = [table.user(f"p{n}") for n in range(PLAYERS)]
    lobby = (await players[0].slash("toppo new", display=DISPLAY, games=GAMES)).linked
    assert lobby is not None
    for player in players[1:]:
        await player.click(lobby, "Join")
    await players[0].click(lobby, "Start")
    board = await table.wait_for_message(lambda m: "Toppo — game 1 of" in m.text, what="the table")
    seats = []
    for player in players:
        opened = (await player.click(board, t("toppo.button.console", LANG))).message
        assert opened is not None and opened.ephemeral
        seats.append(Seat(player, opened))
    return seats


async def run(tops: int) -> bool:
    gc.disable()  # the harness keeps every message it saw: its collections would count as answer time
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        fake = FakeDiscord(None)  # no schema validation: timing only
        await fake.start()
        floor = await Floor.start(folder)
        clicks.HARNESS, clicks.FLOOR = fake, floor
        try:
            bot = await spawn(fake, folder, "bot.__main__:main", "product")
            table = Table(fake)
            bench = Bench(fake, table, await open_table(table))
            play_starts = len(bot.log_text())
            idle = await asyncio.create_subprocess_exec(
                sys.executable, "-c", IDLE_PROCESS, stdin=PIPE, stdout=PIPE
            )
            await bench.play(tops)
            machine_late = json.loads((await idle.communicate(b""))[0] or b"[]")
            await fake.settle(quiet=1.2, within=30)  # the table's last paced edit
            rate_limited = list(fake.rate_limited)
            await bot.stop()
            # Not a target of this issue: where a slow answer came from, the bot's or the machine's.
            show_pauses(bot_pauses(bot.log_text()[play_starts:], machine_late))
        finally:
            await floor.close()
            await fake.close()
    return report(floor, bench, rate_limited)


def verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def report(floor: Floor, bench: Bench, rate_limited: Sequence[object]) -> bool:
    ok = True
    f50, f99, b50, b99 = ms(floor.one, 0.5), ms(floor.one, 0.99), ms(floor.burst, 0.5), ms(floor.burst, 0.99)
    print(
        f"anchor, the bare discord.py bot (/ping) beside the product: one at a time p50 {f50:.1f} ms p99 "
        f"{f99:.1f} ms (n {len(floor.one)}); 8 at once p50 {b50:.1f} ms p99 {b99:.1f} ms (n {len(floor.burst)})"
    )
    print("click → answer (the bot's first callback)")
    print(f"{'kind':34} {'n':>5} {'p50':>7} {'p99':>7} {'max':>7}  {'ratio p50 / p99':>15}  target")
    for label, samples, together in (("one at a time", bench.one, False), ("8 at once", bench.burst, True)):
        print(f"-- {label}")
        rows = sorted(samples.items())
        if not together:  # the rare kinds are judged among every press one at a time
            rows.append(("every press one at a time", [v for values in samples.values() for v in values]))
        for kind, values in rows:
            p50, p99, top = ms(values, 0.5), ms(values, 0.99), max(values) * 1000
            anchor50, anchor99 = (b50, b99) if together else (f50, f99)
            ratio = f"{p50 / anchor50:.1f}× / {p99 / anchor99:.1f}×"
            if len(values) < JUDGED_FROM:
                met, shown = (
                    p99 <= TARGET_ANSWER_MS,
                    f"{verdict(p99 <= TARGET_ANSWER_MS)} (≤ {TARGET_ANSWER_MS:.0f} ms)",
                )
            else:
                met = p99 <= TARGET_P99 * anchor99 and p99 <= TARGET_ANSWER_MS
                if not together:
                    met &= p50 <= TARGET_P50 * anchor50
                shown = verdict(met)
            ok &= met
            print(f"{kind:34} {len(values):>5} {p50:7.1f} {p99:7.1f} {top:7.1f}  {ratio:>15}  {shown}")
    print(
        f"targets: one at a time p50 ≤ {TARGET_P50}× and p99 ≤ {TARGET_P99}× the anchor's one at a time; "
        f"8 at once p99 ≤ {TARGET_P99}× the anchor's 8 at once; every p99 ≤ {TARGET_ANSWER_MS:.0f} ms "
        f"(a kind of fewer than {JUDGED_FROM} presses, its few presses: that ceiling alone)"
    )
    print("click → the player's own console redrawn in place")
    for kind, values in sorted(bench.redrawn.items()):
        p50, p99, top = ms(values, 0.5), ms(values, 0.99), max(values) * 1000
        print(f"{kind:34} {len(values):>5} {p50:7.1f} {p99:7.1f} {top:7.1f}")
    answers = [
        value for samples in (bench.one, bench.burst) for values in samples.values() for value in values
    ]
    slowest_answer = max(answers) * 1000
    slowest_console = max(value for values in bench.redrawn.values() for value in values) * 1000
    met = slowest_answer <= ANSWER_DEADLINE * 1000 and slowest_console <= ANSWER_DEADLINE * 1000
    ok &= met
    print(
        f"slowest of {len(answers)} answers: first answer {slowest_answer:.1f} ms, console redrawn "
        f"{slowest_console:.1f} ms; Discord's limit {ANSWER_DEADLINE * 1000:.0f} ms: {verdict(met)}"
    )
    p50, p99 = ms(bench.display_shown, 0.5), ms(bench.display_shown, 0.99)
    met = p99 <= TARGET_CONSOLES_MS
    ok &= met
    print(
        f"a Top → all {PLAYERS} open consoles showing the new display ({len(bench.display_shown)} tops): "
        f"p50 {p50:.1f} ms p99 {p99:.1f} ms; anchor (8 /ping at once) p50 {b50:.1f} ms p99 {b99:.1f} ms "
        f"({p99 / b99:.1f}×); target p99 ≤ {TARGET_CONSOLES_MS:.0f} ms: {verdict(met)}"
    )
    p50, p99 = ms(bench.play_shown, 0.5), ms(bench.play_shown, 0.99)
    print(
        f"a Begin → all {PLAYERS} open consoles showing that play is on ({len(bench.play_shown)}): "
        f"p50 {p50:.1f} ms p99 {p99:.1f} ms (not a target)"
    )
    met = not rate_limited
    ok &= met
    print(f"answers 429 from Discord: {len(rate_limited)}; target none: {verdict(met)}")
    return ok


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tops", type=int, default=TOPS, help="display changes to measure (short runs)")
    sys.exit(0 if asyncio.run(run(parser.parse_args().tops)) else 1)
