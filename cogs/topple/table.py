"""Topple's messages, drawn from the rules' public view (bot/games/topple): the table (embed, Roll or the 5×5
grid of squares, the board picture) and the private prompt that confirms a square. Pure functions, tested
without Discord. The risks, the points and the tilt are the rules' figures (`choices`, `risks`, `tilt`): this
module only shows them.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from typing import Any

import discord

from bot.engine.game import Event, Termination
from bot.games.topple import GAME
from bot.games.topple.state import COLOUR_NAMES, COLOURS, YOUNG
from bot.i18n import N_, t
from bot.render.topple_board import decimal, square_name
from bot.ui import codec, components
from bot.ui.embeds import relative_time

BOARD_FILE = "topple.png"
SIZE = 5
TURN = codec.fresh("turn", 1)  # the rules' freshness: a press from an older turn is stale
ROW = codec.number("row", 0, SIZE - 1)
COL = codec.number("col", 0, SIZE - 1)
COLOUR = codec.choice("colour", *COLOURS, optional=True)  # the two-player version names the colour placed
# The table's buttons (the cog declares the same arguments with @button): Roll, or once rolled a square of
# the grid (it opens the private prompt), and the prompt's Place.
ROLL = codec.Spec(GAME.name, "roll", (TURN,))
SQUARE = codec.Spec(GAME.name, "square", (TURN, ROW, COL))
PLACE = codec.Spec(GAME.name, "place", (TURN, ROW, COL, COLOUR))
COLOUR_MARKS = {"red": "🔴", "yellow": "🟡", "green": "🟢", "blue": "🔵"}
COMPASS = {
    "n": N_("topple.compass.n"),
    "ne": N_("topple.compass.ne"),
    "e": N_("topple.compass.e"),
    "se": N_("topple.compass.se"),
    "s": N_("topple.compass.s"),
    "sw": N_("topple.compass.sw"),
    "w": N_("topple.compass.w"),
    "nw": N_("topple.compass.nw"),
}
# Why the game ended (the outcome's termination), told on the final table.
END_REASONS = {
    Termination.TARGET_REACHED: N_("topple.table.end.target_reached"),
    Termination.LAST_PLAYER_STANDING: N_("topple.table.end.last_player_standing"),
    Termination.ENDED_BY_HOST: N_("topple.table.end.ended_by_host"),
    Termination.ENDED_BY_VOTE: N_("topple.table.end.ended_by_vote"),
}

Names = Callable[[str], str]
View = dict[str, Any]


def namer(names: Callable[[str], str]) -> Names:
    """Display names with markdown escaped (they are shown in bold)."""
    return lambda player: discord.utils.escape_markdown(names(player))


def percent(risk: int, lang: str) -> str:
    """A risk in ten-thousandths as a percentage with one decimal, in the language's own decimal mark."""
    return decimal(risk / 100, 1, lang)


def signed(points: int) -> str:
    """+4, 0, −10: a placement's change to the score."""
    return f"+{points}" if points > 0 else str(points).replace("-", "−")


def colour_text(colour: str, lang: str) -> str:
    return f"{COLOUR_MARKS.get(colour, '')} {t(COLOUR_NAMES[colour], lang)}".strip()


def colours_text(colours: Iterable[str]) -> str:
    return "".join(COLOUR_MARKS.get(colour, "") for colour in colours)


def options_text(options: dict[str, Any], lang: str) -> str:
    """The lobby's options, as players read them."""
    if options["variant"] == YOUNG:
        return t("topple.lobby.options_young", lang, seconds=options["turn_seconds"])
    return t("topple.lobby.options", lang, target=options["target"], seconds=options["turn_seconds"])


# -- what just happened -----------------------------------------------------------------------------------


def placed_text(event: Event, lang: str, name: Names, young: bool) -> list[str]:
    """A placement: its points, or the topple with its penalty and the bonus of the player before."""
    square = square_name(*event["square"])
    who, colour = name(event["player"]), colour_text(event["colour"], lang)
    if event.get("toppled"):
        if event.get("out"):
            return [t("topple.event.toppled_out", lang, name=who, square=square)]
        lines = [t("topple.event.toppled", lang, name=who, square=square, points=signed(event["points"]))]
        bonus = event.get("bonus")
        if bonus:
            lines.append(t("topple.event.bonus", lang, name=name(bonus["player"]), points=bonus["points"]))
        return lines
    if not young:
        return [
            t(
                "topple.event.placed",
                lang,
                name=who,
                colour=colour,
                square=square,
                points=signed(event["points"]),
            )
        ]
    return [t("topple.event.placed_young", lang, name=who, colour=colour, square=square)]


def event_lines(events: Iterable[Event], lang: str, name: Names, young: bool) -> list[str]:
    """What the events did, a line each. A turn's roll is not among them: the table says it in its prompt
    while the roll stands ("rolled 4: pick a square"), and a roll whose piece is placed is old news."""
    lines: list[str] = []
    for event in events:
        kind = event.get("type")
        if kind == "opening_roll":
            lines.append(t("topple.event.opening_roll", lang, name=name(event["player"]), roll=event["roll"]))
        elif kind == "opening_tie":
            names = ", ".join(f"**{name(p)}**" for p in event["players"])
            lines.append(t("topple.event.opening_tie", lang, names=names, roll=event["roll"]))
        elif kind == "first_player":
            lines.append(t("topple.event.first_player", lang, name=name(event["player"]), roll=event["roll"]))
        elif kind == "timed_out":
            lines.append(t("topple.event.timed_out", lang, name=name(event["player"])))
        elif kind == "placed":
            lines += placed_text(event, lang, name, young)
        elif kind == "round_over":
            ended = (
                N_("topple.event.round_toppled")
                if event["ended"] == "topple"
                else N_("topple.event.round_over")
            )
            lines.append(t(ended, lang, round=event["round"]))
        elif kind == "round_started":
            lines.append(
                t("topple.event.round_started", lang, round=event["round"], name=name(event["player"]))
            )
        elif kind == "left":
            lines.append(t("topple.event.left", lang, name=name(event["player"])))
    return lines


# -- the table ----------------------------------------------------------------------------------------------


def tilt_text(view: View, lang: str) -> str:
    tilt = view["tilt"]
    if not tilt.get("towards"):
        return t("topple.table.level", lang)
    amount = decimal(tilt["amount"], 2, lang)
    return t("topple.table.tilt", lang, amount=amount, towards=t(COMPASS[tilt["towards"]], lang))


def title(view: View, lang: str, name: Names) -> str:
    if view["finished"]:
        return t("topple.table.title_over", lang)
    if view["phase"] == "opening":
        return t("topple.table.title_opening", lang)
    key = N_("topple.table.title_roll") if view["phase"] == "roll" else N_("topple.table.title_place")
    return t(key, lang, round=view["round"], name=name(view["current"]))


def table_embed(
    view: View, events: list[Event], lang: str, name: Names, turn_ends: float | None
) -> discord.Embed:
    """The public table: whose turn and what to do, what just happened, the tilt, the scores."""
    lines = event_lines(events, lang, name, view["variant"] == YOUNG)
    if view["finished"]:
        winners = ", ".join(f"**{name(p)}**" for p in view["winners"])
        reason = END_REASONS.get(view["end_reason"])
        if reason is not None:
            lines.append(t(reason, lang, round=view["round"], target=view["target"]))
        lines.append(t("topple.table.winners", lang, names=winners or "—"))
    elif view["phase"] == "opening":
        waiting = [p for p, roll in view["opening"].items() if roll is None]
        names = ", ".join(f"**{name(p)}**" for p in waiting)
        lines.append(t("topple.table.opening", lang, names=names or "—"))
    elif view["phase"] == "roll":
        lines.append(t("topple.table.roll_prompt", lang, name=name(view["current"])))
    else:
        lines.append(t("topple.table.place_prompt", lang, name=name(view["current"]), roll=view["roll"]))
    if not view["finished"]:
        lines.append(tilt_text(view, lang))
        if turn_ends is not None:
            lines.append(t("topple.table.turn_ends", lang, when=relative_time(turn_ends)))
    embed = discord.Embed(
        title=title(view, lang, name)[:256], description="\n".join(lines)[:4096], colour=GAME.colour
    )
    embed.add_field(
        name=scores_heading(view, lang), value=scores_text(view, lang, name)[:1024] or "—", inline=False
    )
    embed.set_image(url=f"attachment://{BOARD_FILE}")
    return embed


def scores_heading(view: View, lang: str) -> str:
    if view["variant"] == YOUNG:
        return t("topple.table.players_young", lang, round=view["round"])
    return t("topple.table.scores", lang, target=view["target"], round=view["round"])


def scores_text(view: View, lang: str, name: Names) -> str:
    """One line per player: their colours, score (not in the young version) and pieces left; out or left
    players marked."""
    lines = []
    for player in view["players"]:
        marks = colours_text(view["colours"][player])
        if player in view["left"]:
            lines.append(t("topple.table.line_left", lang, colours=marks, name=name(player)))
        elif player in view["out"]:
            lines.append(t("topple.table.line_out", lang, colours=marks, name=name(player)))
        elif view["variant"] == YOUNG:
            lines.append(
                t(
                    "topple.table.line_young",
                    lang,
                    colours=marks,
                    name=name(player),
                    pieces=view["pieces_left"][player],
                )
            )
        else:
            lines.append(
                t(
                    "topple.table.line",
                    lang,
                    colours=marks,
                    name=name(player),
                    points=view["scores"][player],
                    pieces=view["pieces_left"][player],
                )
            )
    return "\n".join(lines)


def table_items(session_id: int, view: View, lang: str) -> list[discord.ui.Item[Any]]:
    """Roll while a roll is awaited; once rolled, the 5×5 grid (all 25 components of a message), the squares
    the roll allows pressable with their risk, the others disabled."""
    offered = view.get("offered") or []
    turn = view["freshness"]["turn"]
    if "roll" in offered:
        roll = ROLL.encode(session_id, turn=turn)
        return [
            components.button(
                roll, t("topple.button.roll", lang), style=discord.ButtonStyle.primary, emoji="🎲"
            )
        ]
    if "place" not in offered:
        return []
    risks = {tuple(choice["square"]): choice["risk"] for choice in view["choices"]}
    items: list[discord.ui.Item[Any]] = []
    for row in range(SIZE):
        for col in range(SIZE):
            square = square_name(row, col)
            risk = risks.get((row, col))
            custom_id = SQUARE.encode(session_id, turn=turn, row=row, col=col)
            if risk is None:
                items.append(components.button(custom_id, square, disabled=True, row=row))
            else:
                label = t("topple.button.square", lang, square=square, risk=percent(risk, lang))
                items.append(components.button(custom_id, label, style=discord.ButtonStyle.primary, row=row))
    return items


def board_file(png: bytes, lang: str) -> discord.File:
    return discord.File(io.BytesIO(png), filename=BOARD_FILE, description=t("topple.board_picture", lang))


# -- the private prompt ------------------------------------------------------------------------------------


def confirm_prompt(
    session_id: int, view: View, row: int, col: int, lang: str
) -> tuple[str, list[discord.ui.Item[Any]]]:
    """What placing on a square would do, from the view's `choices`: its risk and, per colour the player may
    place, the points it would score; a Place button per colour. Only the player on turn gets it."""
    square = square_name(row, col)
    choice = next(c for c in view["choices"] if tuple(c["square"]) == (row, col))
    height = len(view["board"][row][col])
    level = view["levels"][row][col]
    lines = [
        t("topple.confirm.square", lang, square=square, level=level, height=height)
        if height
        else t("topple.confirm.square_empty", lang, square=square, level=level),
        t("topple.confirm.risk", lang, risk=percent(choice["risk"], lang)),
        tilt_text(view, lang),
    ]
    player = view.get("you") or view["current"]
    mine = view["colours"][player]
    colours = [c for c in mine if view["supply"].get(c, 0) > 0]
    for colour in colours if view["variant"] != YOUNG else []:
        points = choice["points"].get(colour, 0)
        lines.append(t("topple.confirm.points", lang, colour=colour_text(colour, lang), points=points))
    turn = view["freshness"]["turn"]
    items: list[discord.ui.Item[Any]] = []
    for colour in colours:
        named = colour if len(mine) > 1 else None
        custom_id = PLACE.encode(session_id, turn=turn, row=row, col=col, colour=named)
        label = (
            t("topple.confirm.place_colour", lang, colour=t(COLOUR_NAMES[colour], lang))
            if named
            else t("topple.confirm.place", lang, square=square)
        )
        style = discord.ButtonStyle.success
        items.append(components.button(custom_id, label, style=style, emoji=COLOUR_MARKS.get(colour)))
    return "\n".join(lines), items


def console_text(view: View, lang: str, name: Names) -> str:
    """`/topple status`'s private part: the player's colours, pieces left and score (nothing is secret)."""
    player = view.get("you")
    if player is None:
        return tilt_text(view, lang)
    colours = ", ".join(colour_text(c, lang) for c in view["colours"][player])
    if view["variant"] == YOUNG:
        return t("topple.console.young", lang, colours=colours, pieces=view["pieces_left"][player])
    return t(
        "topple.console.standard",
        lang,
        colours=colours,
        pieces=view["pieces_left"][player],
        points=view["scores"][player],
    )
