"""Toppo's messages, drawn from the rules' views (bot/games/toppo): the public table (what just happened,
who must begin, every player's deck, line, penalty cards and running total, the series table, the display
as a picture) and each player's console (the display and their line, and the buttons the rules offer them:
Reveal or Begin, the line's cards to set the order of a Top, Top, Renew, Match, Toppo, the vote on replacing
the display, and between games 3 / 4 / 5). Pure functions, tested without Discord.

Every button carries the freshness the rules ask of it (docs/rules/toppo.md, "Buttons and freshness"), so
that a press made against a display or a stretch of play that has changed since is refused as stale.
Nothing here judges a claim: the console never hints whether a top or a match would be right.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import discord

from bot.engine.game import Event, Termination
from bot.games.toppo import GAME
from bot.games.toppo.cards import COLOUR_NAMES, SYMBOL_NAMES
from bot.i18n import N_, t
from bot.ui import codec, components
from bot.ui.embeds import relative_time
from bot.ui.table import Table

DISPLAY_FILE = "toppo.png"
MAX_DISPLAY = 5
TOPPO_UNDER = 10  # a toppo is right with fewer cards than this (the console says how many one has)

# The rules' freshness (bot/games/toppo: `freshness`): the display a claim was made against, the stretch of
# play since the last interruption, the open vote.
SEEN = codec.fresh("seen")
PLAY = codec.fresh("play")
VOTE = codec.fresh("vote")
CARD = codec.number("card", 0, MAX_DISPLAY - 1)  # a card of the line, from 0
ORDER = codec.token("order", r"[0-4]{3,5}")  # a top's order: for each display position, a line index
ACCEPT = codec.choice("accept", "yes", "no")
SIZE = codec.number("size", 3, MAX_DISPLAY)

# The console's buttons (the cog declares the same arguments with @button).
REVEAL = codec.Spec(GAME.name, "reveal", (PLAY,))
RESTART = codec.Spec(GAME.name, "restart", (PLAY,))
# Sets the top's order and acts on nothing; it carries the cards picked so far, so that a restart between two
# presses forgets none (ids of older consoles lack them: the cog's memory then says).
PICKED = codec.token("picked", r"[0-4]{1,5}", optional=True)
PICK = codec.Spec(GAME.name, "pick", (PLAY, CARD, PICKED))
TOP = codec.Spec(GAME.name, "top", (SEEN, PLAY, ORDER))
MATCH = codec.Spec(GAME.name, "match", (SEEN, PLAY))  # a select: its value says the card and the slot
RENEW = codec.Spec(GAME.name, "renew", (SEEN, PLAY))
TOPPO = codec.Spec(GAME.name, "toppo", ())
REPLACE = codec.Spec(GAME.name, "replace", (SEEN, PLAY))
BALLOT = codec.Spec(GAME.name, "ballot", (VOTE, ACCEPT))
CHOOSE = codec.Spec(GAME.name, "choose", (PLAY, SIZE))

# The cards as text: a coloured square and the symbol (the names in the reader's language where room allows).
COLOUR_MARKS = {"red": "🟥", "yellow": "🟨", "white": "⬜", "green": "🟩", "blue": "🟦"}
SYMBOL_MARKS = {"waves": "≈", "circle": "●", "square": "■", "h": "H", "plus": "✚"}

PENALTY_TEXTS = {
    "wrong_top": N_("toppo.event.wrong_top"),
    "wrong_match": N_("toppo.event.wrong_match"),
    "wrong_toppo": N_("toppo.event.wrong_toppo"),
    "early_start": N_("toppo.event.early_start"),
}
# The same penalties when the stack and the topped cards are used up: no card to take, so no count to say.
NO_CARD_TEXTS = {
    "wrong_top": N_("toppo.event.wrong_top_no_card"),
    "wrong_match": N_("toppo.event.wrong_match_no_card"),
    "wrong_toppo": N_("toppo.event.wrong_toppo_no_card"),
    "early_start": N_("toppo.event.early_start_no_card"),
}
END_REASONS = {
    Termination.WENT_OUT: N_("toppo.table.end.series_over"),
    Termination.LAST_PLAYER_STANDING: N_("toppo.table.end.last_player_standing"),
    Termination.ENDED_BY_HOST: N_("toppo.table.end.ended_by_host"),
    Termination.ENDED_BY_VOTE: N_("toppo.table.end.ended_by_vote"),
}

Names = Callable[[str], str]
View = dict[str, Any]
Card = Sequence[str]


def namer(names: Callable[[str], str]) -> Names:
    """Display names with markdown escaped (they are shown in bold)."""
    return lambda player: discord.utils.escape_markdown(names(player))


def mark(card: Card) -> str:
    """🟥≈: a card in two characters, the same in every language."""
    return f"{COLOUR_MARKS.get(card[0], '?')}{SYMBOL_MARKS.get(card[1], '?')}"


def card_name(card: Card, lang: str) -> str:
    """🟥≈ red waves: the card's marks and its names in the reader's language."""
    return t(
        "toppo.card",
        lang,
        mark=mark(card),
        colour=t(COLOUR_NAMES[card[0]], lang),
        symbol=t(SYMBOL_NAMES[card[1]], lang),
    )


def marks(cards: Iterable[Card]) -> str:
    return " ".join(mark(card) for card in cards)


def numbered(cards: Iterable[Card]) -> str:
    """`1 🟥≈ · 2 🟨●`: cards with the positions the buttons name."""
    return " · ".join(f"**{index + 1}** {mark(card)}" for index, card in enumerate(cards))


def options_text(options: dict[str, Any], lang: str) -> str:
    """The lobby's options, as players read them."""
    return t(
        "toppo.lobby.options", lang, display=options["display"], games=options["games"], deck=options["deck"]
    )


# -- what just happened ---------------------------------------------------------------------------------------


def event_lines(events: Iterable[Event], lang: str, name: Names, open_vote: int | None = None) -> list[str]:
    """The public events of the actions since the last redraw, as the table tells them (reveals show in the
    lines themselves; the vote still open, `open_vote`, is announced by the table's status instead)."""
    lines: list[str] = []
    for event in events:
        kind = event.get("type")
        who = name(str(event.get("player", "")))
        if kind == "restarted":
            key = N_("toppo.event.timed_out") if event.get("timed_out") else N_("toppo.event.began")
            lines.append(t(key, lang, name=who))
        elif kind == "renewed":
            lines.append(t("toppo.event.renewed", lang, name=who))
        elif kind == "topped":
            placed = [event["line"][index] for index in event["order"]]  # the new display
            lines.append(t("toppo.event.topped", lang, name=who, cards=marks(placed)))
        elif kind == "matched":
            card = mark(event["card"])
            lines.append(t("toppo.event.matched", lang, name=who, card=card, slot=event["slot"] + 1))
        elif kind == "penalised":
            if event["penalty"]:
                lines.append(t(PENALTY_TEXTS[event["reason"]], lang, name=who, n=event["penalty"]))
            else:
                lines.append(t(NO_CARD_TEXTS[event["reason"]], lang, name=who))
        elif kind == "interrupted":
            lines.append(t("toppo.event.interrupted", lang, name=name(event["awaited"])))
        elif kind == "stack_refilled":
            lines.append(t("toppo.event.refilled", lang, n=event["cards"]))
        elif kind == "toppo":
            lines.append(t("toppo.event.toppo", lang, name=who, n=event["cards"]))
        elif kind == "game_over":
            points = " · ".join(f"{name(p)} **+{n}**" for p, n in event["points"].items())
            lines.append(t("toppo.event.game_over", lang, game=event["game"], points=points))
        elif kind == "dealt":
            lines.append(
                t(
                    "toppo.event.dealt",
                    lang,
                    game=event["game"],
                    size=len(event["display"]),
                    name=name(event["start_player"]),
                )
            )
        elif kind == "vote_opened" and event.get("vote") != open_vote:
            lines.append(t("toppo.event.vote_opened", lang, name=who))
        elif kind == "vote_closed":
            key = N_("toppo.event.vote_passed") if event["passed"] else N_("toppo.event.vote_failed")
            lines.append(t(key, lang, yes=event.get("yes", 0), no=event.get("no", 0)))
        elif kind == "vote_dropped":
            lines.append(t("toppo.event.vote_dropped", lang))
        elif kind == "play_resumed":
            lines.append(t("toppo.event.play_resumed", lang))
        elif kind == "left":
            lines.append(t("toppo.event.left", lang, name=who))
    return lines


# -- the table -----------------------------------------------------------------------------------------------


def title(view: View, lang: str) -> str:
    if view["finished"]:
        return t("toppo.table.title_over", lang)
    return t("toppo.table.title", lang, game=view["game_no"], games=view["games"])


def status_lines(view: View, lang: str, name: Names, deadlines: dict[str, float]) -> list[str]:
    """What play is doing now: who must begin, everyone playing, who chooses the next display; the vote."""
    lines: list[str] = []
    phase = view["phase"]
    if phase == "waiting" and view.get("awaited"):
        lines.append(t("toppo.table.waiting", lang, name=name(view["awaited"])))
        if "restart" in deadlines:
            lines.append(t("toppo.table.begins_by", lang, when=relative_time(deadlines["restart"])))
    elif phase == "playing":
        lines.append(t("toppo.table.playing", lang))
    elif phase == "choosing" and view.get("chooser"):
        sizes = " / ".join(str(size) for size in view["sizes"])
        lines.append(t("toppo.table.choosing", lang, name=name(view["chooser"]), sizes=sizes))
        if "choose" in deadlines:
            lines.append(t("toppo.table.chooses_by", lang, when=relative_time(deadlines["choose"])))
    vote = view.get("vote")
    if vote and not view["finished"]:
        tally = vote["tally"]
        lines.append(
            t(
                "toppo.table.vote",
                lang,
                name=name(vote["proposer"]),
                yes=tally["yes"],
                no=tally["no"],
                missing=tally["missing"],
            )
        )
        if "vote" in deadlines:
            lines.append(t("toppo.table.vote_ends", lang, when=relative_time(deadlines["vote"])))
    return lines


def table_embed(
    view: View, events: list[Event], lang: str, name: Names, deadlines: dict[str, float]
) -> discord.Embed:
    """The public table: what just happened, what play is doing, the players, the series, the display."""
    vote = view.get("vote")
    lines = event_lines(events, lang, name, vote["vote"] if vote and not view["finished"] else None)
    if view["finished"]:
        # Why it ended: the state keeps it, so a later redraw of the final table (no events) says it too.
        reason = END_REASONS.get(Termination(view["end_reason"])) if view.get("end_reason") else None
        if reason is not None:
            lines.append(t(reason, lang))
        winners = ", ".join(f"**{name(p)}**" for p in view["winners"])
        lines.append(t("toppo.table.winners", lang, names=winners or "—"))
    else:
        lines += status_lines(view, lang, name, deadlines)
    embed = discord.Embed(
        title=title(view, lang)[:256], description="\n".join(lines)[:4096], colour=GAME.colour
    )
    if not view["finished"] and view["phase"] != "choosing":
        embed.add_field(
            name=t("toppo.table.display", lang, size=view["display_size"]),
            value=numbered(view["display"]) or "—",
            inline=False,
        )
    embed.add_field(
        name=t("toppo.table.players", lang), value=players_text(view, lang, name)[:1024] or "—", inline=False
    )
    if view["results"]:
        embed.add_field(
            name=t("toppo.table.series", lang), value=series_text(view, lang, name)[:1024], inline=False
        )
    footer = [t("toppo.table.stack", lang, stack=view["stack_count"], topped=view["topped_count"])]
    if view.get("last_top"):
        footer.append(
            t("toppo.table.last_top", lang, name=discord.utils.remove_markdown(name(view["last_top"])))
        )
    embed.set_footer(text=" · ".join(footer))
    if not view["finished"] and view["phase"] != "choosing":
        embed.set_image(url=f"attachment://{DISPLAY_FILE}")
    return embed


def players_text(view: View, lang: str, name: Names) -> str:
    """One line per player: deck, line (face up), this game's penalty cards and the running total."""
    rows = []
    for player in view["players"]:
        if player in view["left"]:
            rows.append(t("toppo.table.line_left", lang, name=name(player), total=view["totals"][player]))
            continue
        line = view["lines"].get(player) or []
        rows.append(
            t(
                "toppo.table.player",
                lang,
                name=name(player),
                deck=view["decks"][player],
                line=marks(line) or "—",
                penalty=view["penalty_cards"].get(player, 0),
                total=view["totals"][player],
            )
        )
    return "\n".join(rows)


def series_text(view: View, lang: str, name: Names) -> str:
    """The series table: each finished game's display, caller and points, then the running totals."""
    rows = []
    for result in view["results"]:
        points = " · ".join(f"{name(p)} {n}" for p, n in result["points"].items())
        rows.append(
            t(
                "toppo.table.series_game",
                lang,
                game=result["game"],
                size=result["display"],
                name=name(result["caller"]),
                points=points,
            )
        )
    ranked = sorted(view["totals"].items(), key=lambda item: item[1])
    totals = " · ".join(f"**{name(p)}** {n}" for p, n in ranked)
    rows.append(t("toppo.table.totals", lang, totals=totals))
    return "\n".join(rows)


def display_file(png: bytes, lang: str) -> discord.File:
    return discord.File(io.BytesIO(png), filename=DISPLAY_FILE, description=t("toppo.display_picture", lang))


# -- the console ----------------------------------------------------------------------------------------------


def top_order(picks: Sequence[int], size: int) -> list[int]:
    """A top's order from the cards the player picked, position by position: the picked line indices first,
    the rest in line order."""
    chosen = [index for index in picks if 0 <= index < size]
    return [*chosen, *(index for index in range(size) if index not in chosen)]


def picked_so_far(args: dict[str, Any]) -> list[int] | None:
    """The cards a line card's button says were picked before it (None for an id from before buttons
    carried them)."""
    picked = args.get("picked")
    return None if picked is None else [int(index) for index in picked]


def toggled(picks: Sequence[int], index: int) -> list[int]:
    """A press on a line card: picked for the next display position, or unpicked if it was."""
    return [i for i in picks if i != index] if index in picks else [*picks, index]


def console(session_id: int, view: View, lang: str, name: Names, picks: Sequence[int] = ()) -> Table:
    """A player's console, from their own view: the display and their line, what play is doing, and the
    buttons the rules offer them now (`offered_to_you`), each carrying its freshness."""
    me = view.get("you")
    offered = set(view.get("offered_to_you") or [])
    fresh = view["freshness"]
    seen, play = fresh["seen"], fresh["play"]
    lines: list[str] = []
    embed_title = t("toppo.console.title", lang, game=view["game_no"], games=view["games"])
    if view["finished"]:
        lines.append(t("toppo.console.over", lang))
        return Table(discord.Embed(title=embed_title, description="\n".join(lines), colour=GAME.colour))
    phase = view["phase"]
    line = (view["lines"].get(me) or []) if me else []
    size = view["display_size"]
    if phase == "waiting":
        if view.get("awaited") == me:
            lines.append(t("toppo.console.you_begin", lang))
        else:
            lines.append(t("toppo.console.wait_for", lang, name=name(str(view.get("awaited")))))
    elif phase == "playing":
        lines.append(t("toppo.console.playing", lang))
    elif phase == "choosing":
        if view.get("chooser") == me:
            lines.append(t("toppo.console.you_choose", lang))
        else:
            lines.append(t("toppo.console.wait_choice", lang, name=name(str(view.get("chooser")))))
    if phase != "choosing":
        lines.append(t("toppo.console.display", lang, cards=numbered(view["display"])))
        lines.append(
            t("toppo.console.line", lang, cards=numbered(line))
            if line
            else t("toppo.console.line_empty", lang)
        )
        if me in view.get("matched", []):
            lines.append(t("toppo.console.matched", lang))
    order = top_order(picks, size) if "top" in offered and len(line) == size else None
    if order is not None:
        placed = " · ".join(f"**{k + 1}** ← {mark(line[i])}" for k, i in enumerate(order))
        lines.append(t("toppo.console.order", lang, order=placed))
    if me:
        lines.append(t("toppo.console.cards", lang, deck=view["decks"][me], cards=view["cards"][me]))
    last = (view.get("history") or [None])[-1]
    if last and last.get("game") == view["game_no"]:
        said = last_claim(last, lang, name)
        if said:
            lines.append(said)
    vote = view.get("vote")
    if vote:
        ballot = vote["ballots"].get(me) if me else None
        mine = (
            t("toppo.console.ballot_yes", lang)
            if ballot is True
            else t("toppo.console.ballot_no", lang)
            if ballot is False
            else t("toppo.console.ballot_none", lang)
        )
        lines.append(t("toppo.console.vote", lang, name=name(vote["proposer"]), ballot=mine))
    embed = discord.Embed(title=embed_title, description="\n".join(lines)[:4096], colour=GAME.colour)
    return Table(embed, console_items(session_id, view, lang, line, offered, order, seen, play, picks))


def last_claim(record: dict[str, Any], lang: str, name: Names) -> str | None:
    """The last claim of this game, so a player whose press was refused sees what came first (between two
    games: the right toppo that ended the game). A penalty is said with its cards, never as 0 of them."""
    claim, who = record.get("claim"), name(str(record.get("player", "")))
    if claim == "toppo" and record.get("right"):
        return t("toppo.console.last_toppo", lang, name=who)
    if claim == "top" and record.get("right"):
        return t("toppo.console.last_top", lang, name=who)
    if claim == "match" and record.get("right"):
        return t("toppo.console.last_match", lang, name=who)
    if claim == "replace":
        return t("toppo.console.last_replace", lang)
    if claim in ("top", "match", "toppo", "early_start"):
        if record.get("penalty"):
            return t("toppo.console.last_penalty", lang, name=who, n=record["penalty"])
        return t("toppo.console.last_no_card", lang, name=who)
    return None


def console_items(
    session_id: int,
    view: View,
    lang: str,
    line: list[Card],
    offered: set[str],
    order: list[int] | None,
    seen: int,
    play: int,
    picks: Sequence[int] = (),
) -> list[discord.ui.Item[Any]]:
    """Row 0: the line's cards (the top's order) or 3 / 4 / 5; row 1: Top and Renew; row 2: the Match
    select; row 3: Reveal or Begin, Toppo, and the vote on the display."""
    items: list[discord.ui.Item[Any]] = []
    if "choose" in offered:
        for size in view["sizes"]:
            custom_id = CHOOSE.encode(session_id, play=play, size=size)
            label = t("toppo.button.choose", lang, n=size)
            items.append(components.button(custom_id, label, style=discord.ButtonStyle.primary, row=0))
        return items
    if order is not None:
        for index, card in enumerate(line):
            position = order.index(index)
            picked = "".join(str(i) for i in picks if 0 <= i < len(line)) or None
            custom_id = PICK.encode(session_id, play=play, card=index, picked=picked)
            label = f"{SYMBOL_MARKS.get(card[1], '?')} → {position + 1}"
            items.append(components.button(custom_id, label, emoji=COLOUR_MARKS.get(card[0]), row=0))
        top = TOP.encode(session_id, seen=seen, play=play, order="".join(map(str, order)))
        items.append(
            components.button(top, t("toppo.button.top", lang), style=discord.ButtonStyle.success, row=1)
        )
    if "renew" in offered:
        renew = RENEW.encode(session_id, seen=seen, play=play)
        items.append(components.button(renew, t("toppo.button.renew", lang), row=1))
    if "match" in offered and line:
        options = [
            discord.SelectOption(
                label=t("toppo.console.match_option", lang, card=card_name(card, lang), slot=slot + 1)[:100],
                value=f"{index}-{slot}",
            )
            for index, card in enumerate(line)
            for slot in range(view["display_size"])
        ]
        custom_id = MATCH.encode(session_id, seen=seen, play=play)
        items.append(
            components.select(
                custom_id, options, placeholder=t("toppo.console.match_placeholder", lang), row=2
            )
        )
    if "restart" in offered:
        restart = RESTART.encode(session_id, play=play)
        items.append(
            components.button(
                restart, t("toppo.button.begin", lang), style=discord.ButtonStyle.primary, row=3
            )
        )
    elif "reveal" in offered:
        reveal = REVEAL.encode(session_id, play=play)
        style = discord.ButtonStyle.primary if view["phase"] == "playing" else discord.ButtonStyle.secondary
        items.append(components.button(reveal, t("toppo.button.reveal", lang), style=style, row=3))
    if "toppo" in offered:
        items.append(
            components.button(
                TOPPO.encode(session_id),
                t("toppo.button.toppo", lang),
                style=discord.ButtonStyle.danger,
                row=3,
            )
        )
    if "propose_replace" in offered:
        replace = REPLACE.encode(session_id, seen=seen, play=play)
        items.append(components.button(replace, t("toppo.button.replace", lang), row=3))
    if "vote" in offered and "vote" in view["freshness"]:
        vote = view["freshness"]["vote"]
        for accept, key in (("yes", N_("toppo.button.yes")), ("no", N_("toppo.button.no"))):
            custom_id = BALLOT.encode(session_id, vote=vote, accept=accept)
            items.append(components.button(custom_id, t(key, lang), row=3))
    return items


def parse_match(selected: Sequence[str]) -> tuple[int, int] | None:
    """The Match select's value, `card-slot`, as two indices (None: not one this console offers)."""
    if len(selected) != 1:
        return None
    parts = selected[0].split("-")
    if len(parts) != 2 or not all(part in "01234" and len(part) == 1 for part in parts):
        return None
    return int(parts[0]), int(parts[1])
