"""Top Drop's messages, drawn from the rules' views (bot/games/topdrop; docs/rules/topdrop.md, "For the table").
Pure functions, tested without Discord.

The table is drawn from the public view only: the pile, the direction, the action and wild cards left, the
draw pile's size and how many cards each player holds — never a card of a hand. A hand is drawn only by
`console`, from its owner's own view, which the layer shows to that player alone (an ephemeral message it
keeps live). The console's steps (an action card, a first card, a second one, then Play) are the player's
`Pick`, kept by the cog and carried by the card buttons; every button is enabled from the view's `choices`
and nothing else.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import discord

from bot.engine.game import Event, Termination
from bot.games.topdrop import GAME
from bot.games.topdrop.cards import (
    ACTION_NAMES,
    ACTIONS,
    COLOUR_NAMES,
    DIFFICULTY_NAMES,
    DIRECTION_NAMES,
    DIRECTIONS,
    HINTS,
    RATING_NAMES,
    SOLO_RATING_NAMES,
    WILD_NAME,
    colour_of,
)
from bot.i18n import N_, t
from bot.ui import codec, components
from bot.ui.embeds import relative_time
from bot.ui.table_base import Table

PILE_FILE = "topdrop.png"
COLOUR_MARKS = {"red": "🟥", "yellow": "🟨", "green": "🟩", "blue": "🟦", "purple": "🟪"}
ARROWS = {"up": "⬆️", "down": "⬇️"}
NO_ACTION = "none"

TURN = codec.fresh("turn")  # the rules' freshness: a press from an older turn is stale
VOTE = codec.fresh("vote")
CARD = codec.number("card", 1, 60)
ACTION = codec.choice("action", *ACTIONS)
MODE = codec.choice("mode", NO_ACTION, *ACTIONS)
WILD = codec.number("wild", 0, 1)
FIRST = codec.number("first", 1, 60, optional=True)
SECOND = codec.number("second", 1, 60, optional=True)
PHRASE = codec.choice("phrase", *HINTS)
WAIT = codec.choice("wait", "yes", "no")
# The table's controls (the cog declares the same arguments with @button): in the opening, Begin (the host
# starts, the Direction Card as it lies) and a menu of who starts and which way; while the table is asked,
# the ballots. The layer adds "My hand", which opens the console.
BEGIN = codec.Spec(GAME.name, "begin", (TURN,))
CHOOSE = codec.Spec(GAME.name, "choose", (TURN,))
BALLOT = codec.Spec(GAME.name, "ballot", (VOTE, WAIT))
# The console's: a card of the hand, an action card to use first, Back, Play (the whole turn, as the button
# says it), a hint.
# A card's button carries the turn chosen so far (the action card, the first card), so that a restart between
# two presses forgets nothing; ids of older consoles lack them (the cog's memory then says).
PICKED_MODE = codec.choice("mode", NO_ACTION, *ACTIONS, optional=True)
PICK = codec.Spec(GAME.name, "pick", (TURN, CARD, PICKED_MODE, FIRST))
USE = codec.Spec(GAME.name, "use", (TURN, ACTION))
BACK = codec.Spec(GAME.name, "back", (TURN,))
PLAY = codec.Spec(GAME.name, "play", (TURN, MODE, WILD, FIRST, SECOND))
HINT = codec.Spec(GAME.name, "hint", (TURN, PHRASE))

# Why a game was lost (the outcome's termination), told on the final table.
END_REASONS = {
    Termination.TEAM_STUCK.value: N_("topdrop.table.end.stuck"),
    Termination.ENDED_BY_HOST.value: N_("topdrop.table.end.ended_by_host"),
    Termination.ENDED_BY_VOTE.value: N_("topdrop.table.end.ended_by_vote"),
}

Names = Callable[[str], str]
View = dict[str, Any]


@dataclass(frozen=True)
class Pick:
    """A player's turn in the making on their console: the action card chosen first (None: none) and the
    number cards chosen so far, in the order placed. Good for one turn only."""

    turn: int
    mode: str | None = None
    cards: tuple[int, ...] = ()


def namer(names: Callable[[str], str]) -> Names:
    """Display names with markdown escaped (they are shown in bold)."""
    return lambda player: discord.utils.escape_markdown(names(player))


def card_text(card: dict[str, Any]) -> str:
    """A number card as the texts show it: its colour's mark and its figure ("🟥12")."""
    return f"{COLOUR_MARKS.get(card['colour'], '')}{card['card']}"


def cards_text(cards: Iterable[dict[str, Any]]) -> str:
    return " ".join(f"**{card_text(card)}**" for card in cards)


def direction_text(direction: str, lang: str) -> str:
    return f"{ARROWS[direction]} **{t(DIRECTION_NAMES[direction], lang)}**"


def options_text(options: dict[str, Any], lang: str) -> str:
    """The lobby's options, as players read them."""
    return t(
        "topdrop.lobby.options",
        lang,
        difficulty=t(DIFFICULTY_NAMES[options["difficulty"]], lang),
        seconds=options["turn_seconds"],
    )


def action_label(kind: str, wild: bool, lang: str) -> str:
    name = t(ACTION_NAMES[kind], lang)
    return t("topdrop.button.action_wild", lang, action=name) if wild else name


# -- what just happened -----------------------------------------------------------------------------------


def played_text(event: Event, lang: str, name: Names) -> str:
    """A turn: the action card used (or the wild card standing for it) and the cards placed, in order."""
    who = name(event["player"])
    cards = [{"card": card, "colour": colour_of(card)} for card in event["cards"]]
    kind = event.get("action")
    if kind == "skip":
        used = action_label("skip", bool(event.get("wild")), lang)
        return t("topdrop.event.skipped", lang, name=who, action=used)
    if kind is not None:
        used = action_label(kind, bool(event.get("wild")), lang)
        return t("topdrop.event.played_action", lang, name=who, action=used, cards=cards_text(cards))
    return t("topdrop.event.played", lang, name=who, cards=cards_text(cards))


def event_lines(events: Iterable[Event], lang: str, name: Names) -> list[str]:
    lines: list[str] = []
    for event in events:
        kind = event.get("type")
        if kind == "started" and "player" in event:  # the rules' (the engine's own names the players)
            lines.append(
                t(
                    "topdrop.event.started",
                    lang,
                    name=name(event["player"]),
                    direction=direction_text(event["direction"], lang),
                )
            )
        elif kind == "played":
            lines.append(played_text(event, lang, name))
            if event.get("drew"):
                lines.append(t("topdrop.event.drew", lang, name=name(event["player"]), count=event["drew"]))
        elif kind == "turn" and event.get("skipped"):
            names = ", ".join(f"**{name(p)}**" for p in event["skipped"])
            lines.append(t("topdrop.event.empty_hands", lang, names=names))
        elif kind == "reminded":
            lines.append(t("topdrop.event.reminded", lang, name=name(event["player"])))
        elif kind == "wait_vote":
            lines.append(t("topdrop.event.wait_vote", lang, name=name(event["of"])))
        elif kind == "wait_vote_result":
            result = event.get("result")
            if result == "wait":
                lines.append(t("topdrop.event.vote_wait", lang, name=name(event["of"])))
            elif result == "end":
                lines.append(t("topdrop.event.vote_end", lang, name=name(event["of"])))
        elif kind == "left":
            lines.append(t("topdrop.event.left", lang, name=name(event["player"])))
        # `stuck` ends the game: the final table says who could not play, on every redraw (`end_lines`).
    return lines


# -- the table ----------------------------------------------------------------------------------------------


def title(view: View, lang: str, name: Names) -> str:
    if view["finished"]:
        key = N_("topdrop.table.title_won") if view["result"] == "victory" else N_("topdrop.table.title_lost")
        return t(key, lang)
    if view["phase"] == "opening":
        return t("topdrop.table.title_opening", lang)
    return t("topdrop.table.title_turn", lang, turn=view["turn"], name=name(view["current"]))


def middle_text(view: View, lang: str) -> str:
    """The action cards and wild cards still in the middle."""
    counts = [f"{t(ACTION_NAMES[kind], lang)} ×{view['action_cards'].get(kind, 0)}" for kind in ACTIONS]
    counts.append(f"{t(WILD_NAME, lang)} ×{view['wild_cards']}")
    return " · ".join(counts)


def hands_text(view: View, lang: str, name: Names) -> str:
    """One line per player: how many cards they hold (never which), whose turn it is, who left."""
    lines = []
    for player in view["players"]:
        if player in view["left"]:
            lines.append(t("topdrop.table.line_left", lang, name=name(player)))
            continue
        mark = "▶ " if player == view["current"] else ""
        lines.append(
            mark + t("topdrop.table.line", lang, name=name(player), count=view["hand_counts"][player])
        )
    return "\n".join(lines)


def vote_text(view: View, lang: str, name: Names, closes: float | None) -> list[str]:
    vote = view["vote"]
    tally = vote["tally"]
    lines = [
        t("topdrop.table.vote", lang, name=name(vote["of"])),
        t("topdrop.table.vote_count", lang, yes=tally["yes"], no=tally["no"], eligible=tally["eligible"]),
    ]
    if closes is not None:
        lines.append(t("topdrop.table.vote_closes", lang, when=relative_time(closes)))
    return lines


def end_lines(view: View, lang: str, name: Names) -> list[str]:
    """The result and the rulebook's rating, announced (to the team, or to the one player of a solo game)."""
    solo = len(view["players"]) == 1
    lines = []
    if view["result"] == "victory":
        lines.append(t(N_("topdrop.table.won_solo") if solo else N_("topdrop.table.won"), lang))
    else:
        reason = END_REASONS.get(view["end_reason"] or "")
        stuck = view["stuck"]
        if view["end_reason"] == Termination.TEAM_STUCK.value and stuck is None and view["left"]:
            stuck = view["left"][-1]  # nobody was stuck: the last player seated left
        who = view["abandoned_by"] or stuck
        if view["end_reason"] == Termination.TEAM_STUCK.value and stuck in view["left"]:
            reason = N_("topdrop.table.end.left")
        elif view["abandoned_by"]:
            reason = N_("topdrop.table.end.abandoned")
        if reason is not None:
            lines.append(t(reason, lang, name=name(who) if who else "—"))
        lines.append(t("topdrop.table.lost", lang, count=view["cards_left"]))
    if view["rating"]:
        rating = (SOLO_RATING_NAMES if solo else RATING_NAMES)[view["rating"]]
        lines.append(f"**{t(rating, lang)}**")
    return lines


def hint_lines(view: View, lang: str, name: Names) -> list[str]:
    """The hints given this turn, shown to the table."""
    return [
        t("topdrop.table.hint", lang, name=name(hint["player"]), phrase=t(HINTS[hint["phrase"]], lang))
        for hint in view["hints"]
    ]


def table_embed(
    view: View, events: list[Event], lang: str, name: Names, deadlines: dict[str, float]
) -> discord.Embed:
    """The public table: whose turn, what just happened, the hints of this turn, the pile, the direction, the
    middle, the draw pile and each player's card count."""
    lines = event_lines(events, lang, name)
    if view["finished"]:
        lines += end_lines(view, lang, name)
    elif view["phase"] == "opening":
        host = view["host"]
        lines.append(
            t(
                "topdrop.table.opening",
                lang,
                name=name(host) if host else "—",
                direction=direction_text(view["direction"], lang),
            )
        )
    else:
        lines.append(t("topdrop.table.prompt", lang, name=name(view["current"])))
    if not view["finished"]:
        lines += hint_lines(view, lang, name)
    if view["phase"] == "play":
        if view["vote"] is not None:
            lines += vote_text(view, lang, name, deadlines.get("vote"))
        elif view["idle"] is not None and deadlines.get("ask") is not None:
            lines.append(t("topdrop.table.ask_at", lang, when=relative_time(deadlines["ask"])))
        elif deadlines.get("turn") is not None:
            lines.append(t("topdrop.table.remind_at", lang, when=relative_time(deadlines["turn"])))
    embed = discord.Embed(
        title=title(view, lang, name)[:256], description="\n".join(lines)[:4096], colour=GAME.colour
    )
    top = view["top"]
    pile = (
        t("topdrop.table.top", lang, card=card_text(top), colour=t(COLOUR_NAMES[top["colour"]], lang))
        if top
        else t("topdrop.table.pile_empty", lang)
    )
    embed.add_field(name=t("topdrop.table.pile", lang, count=view["pile_count"]), value=pile[:1024])
    embed.add_field(name=t("topdrop.table.direction", lang), value=direction_text(view["direction"], lang))
    embed.add_field(name=t("topdrop.table.middle", lang), value=middle_text(view, lang)[:1024], inline=False)
    embed.add_field(
        name=t("topdrop.table.players", lang, deck=view["deck_count"]),
        value=hands_text(view, lang, name)[:1024] or "—",
        inline=False,
    )
    embed.set_footer(
        text=t("topdrop.table.footer", lang, difficulty=t(DIFFICULTY_NAMES[view["difficulty"]], lang))
    )
    embed.set_image(url=f"attachment://{PILE_FILE}")
    return embed


def table_items(session_id: int, view: View, lang: str, name: Names) -> list[discord.ui.Item[Any]]:
    """In the opening, Begin and the menu of who starts and which way; while the table is asked, Wait and
    Don't wait. Everything else is done from the console."""
    offered = view.get("offered") or []
    items: list[discord.ui.Item[Any]] = []
    if "start" in offered:
        turn = view["freshness"]["turn"]
        begin = BEGIN.encode(session_id, turn=turn)
        items.append(
            components.button(begin, t("topdrop.button.start", lang), style=discord.ButtonStyle.success)
        )
        seated = [p for p in view["players"] if p not in view["left"]]
        options = [
            discord.SelectOption(
                label=t(
                    "topdrop.select.start_option",
                    lang,
                    name=names_plain(name, player),
                    direction=t(DIRECTION_NAMES[d], lang),
                )[:100],
                value=f"{player}-{d}",
                emoji=ARROWS[d],
            )
            for player in seated
            for d in DIRECTIONS
        ]
        choose = CHOOSE.encode(session_id, turn=turn)
        items.append(components.select(choose, options, placeholder=t("topdrop.select.start", lang), row=1))
    if "vote" in offered and view["vote"] is not None:
        vote = view["freshness"]["vote"]
        for wait, key, style in (
            ("yes", N_("topdrop.button.wait"), discord.ButtonStyle.success),
            ("no", N_("topdrop.button.dont_wait"), discord.ButtonStyle.danger),
        ):
            ballot = BALLOT.encode(session_id, vote=vote, wait=wait)
            items.append(components.button(ballot, t(key, lang), style=style))
    return items


def names_plain(name: Names, player: str) -> str:
    """A name where markdown does not apply (a menu's option): without the escapes."""
    return name(player).replace("\\", "")


def pile_file(png: bytes, lang: str) -> discord.File:
    return discord.File(io.BytesIO(png), filename=PILE_FILE, description=t("topdrop.pile_picture", lang))


# -- the console --------------------------------------------------------------------------------------------


def _entries(choices: dict[str, Any], mode: str | None) -> list[dict[str, Any]]:
    return list(choices["cards"] if mode is None else choices.get(mode) or [])


def playable_now(view: View, pick: Pick | None) -> set[int]:
    """The cards of the hand a press may add to the turn in the making: from the view's `choices` only."""
    choices = view.get("choices")
    if not choices or (pick is not None and pick.mode == "skip"):
        return set()
    mode = pick.mode if pick else None
    chosen = pick.cards if pick else ()
    entries = _entries(choices, mode)
    if not chosen:
        return {entry["card"] for entry in entries}
    if len(chosen) == 1:
        first = next((entry for entry in entries if entry["card"] == chosen[0]), None)
        return set(first["then"]) if first else set()
    return set()


def console(session_id: int, view: View, lang: str, name: Names, pick: Pick | None) -> Table:
    """A player's console, from their own view: their hand as buttons (those they may not play now
    disabled), on their turn the action cards they may use first, the turn so far and Play; and the hints."""
    hand = view.get("hand") or []
    choices = view.get("choices")
    if pick is not None and (choices is None or pick.turn != view["turn"]):
        pick = None
    lines = [
        t("topdrop.console.hand", lang, cards=cards_text(hand)) if hand else t("topdrop.console.empty", lang)
    ]
    top = view["top"]
    lines.append(
        t("topdrop.console.top", lang, card=card_text(top), direction=direction_text(view["direction"], lang))
        if top
        else t("topdrop.console.no_top", lang, direction=direction_text(view["direction"], lang))
    )
    if view["finished"]:
        lines.append(t("topdrop.console.over", lang))
    elif view["phase"] == "opening":
        lines.append(t("topdrop.console.opening", lang))
    elif choices is None:
        lines.append(t("topdrop.console.turn_of", lang, name=name(view["current"])))
    else:
        lines.append(step_text(view, pick, lang))
    embed = discord.Embed(
        title=t("topdrop.console.title", lang), description="\n".join(lines)[:4096], colour=GAME.colour
    )
    turn = view["freshness"]["turn"]
    enabled = playable_now(view, pick)
    so_far: dict[str, Any] = {}
    if pick is not None:
        so_far = {"mode": pick.mode or NO_ACTION, "first": pick.cards[0] if pick.cards else None}
    items: list[discord.ui.Item[Any]] = []
    for card in hand:
        items.append(
            components.button(
                PICK.encode(session_id, turn=turn, card=card["card"], **so_far),
                str(card["card"]),
                emoji=COLOUR_MARKS.get(card["colour"]),
                style=discord.ButtonStyle.primary,
                disabled=card["card"] not in enabled,
                row=0,
            )
        )
    if choices is not None:
        items += turn_buttons(session_id, view, choices, pick, lang)
    if not view["finished"]:
        hinted = view.get("hinted") or "hint" not in (view.get("offered_to_you") or [])
        for index, phrase in enumerate(HINTS):
            items.append(
                components.button(
                    HINT.encode(session_id, turn=turn, phrase=phrase),
                    t(HINTS[phrase], lang),
                    disabled=bool(hinted),
                    row=3 + index // 4,
                )
            )
    return Table(embed, items)


def _wild(view: View, kind: str) -> bool:
    """An action is used with its own card while one is left, else with a wild card."""
    return int(view["action_cards"].get(kind, 0)) <= 0


def step_text(view: View, pick: Pick | None, lang: str) -> str:
    """Where the player's turn stands: what to choose next, or what Play will place."""
    if pick is None or (pick.mode is None and not pick.cards):
        return t("topdrop.console.your_turn", lang)
    used = "" if pick.mode is None else action_label(pick.mode, _wild(view, pick.mode), lang)
    if pick.mode == "skip":
        return t("topdrop.console.confirm_skip", lang, action=used)
    chosen = cards_text({"card": c, "colour": _colour(view, c)} for c in pick.cards)
    if not pick.cards:
        return t("topdrop.console.after_action", lang, action=used)
    if pick.mode is None:
        return t("topdrop.console.chosen", lang, cards=chosen)
    return t("topdrop.console.chosen_action", lang, action=used, cards=chosen)


def _colour(view: View, card: int) -> str:
    return next((c["colour"] for c in view.get("hand") or [] if c["card"] == card), "")


def turn_buttons(
    session_id: int, view: View, choices: dict[str, Any], pick: Pick | None, lang: str
) -> list[discord.ui.Item[Any]]:
    """On the player's turn: the action cards usable first (before any card is chosen), then Play for the
    turn chosen so far, and Back to start the turn over."""
    turn = view["freshness"]["turn"]
    items: list[discord.ui.Item[Any]] = []
    if pick is None or (pick.mode is None and not pick.cards):
        usable = {
            "skip": bool(choices["skip"]),
            "flip": bool(choices["flip"]),
            "color": bool(choices["color"]),
        }
        for kind in ACTIONS:
            if usable[kind]:
                label = action_label(kind, _wild(view, kind), lang)
                items.append(components.button(USE.encode(session_id, turn=turn, action=kind), label, row=1))
        return items
    mode = pick.mode or NO_ACTION
    wild = int(pick.mode is not None and _wild(view, pick.mode))
    if pick.mode == "skip" or pick.cards:
        first = pick.cards[0] if pick.cards else None
        second = pick.cards[1] if len(pick.cards) > 1 else None
        play = PLAY.encode(session_id, turn=turn, mode=mode, wild=wild, first=first, second=second)
        if pick.mode == "skip":
            label = t("topdrop.button.play_skip", lang)
        elif second is None:
            label = t("topdrop.button.play_one", lang, card=first)
        else:
            label = t("topdrop.button.play_two", lang, first=first, second=second)
        items.append(components.button(play, label, style=discord.ButtonStyle.success, row=2))
    items.append(components.button(BACK.encode(session_id, turn=turn), t("topdrop.button.back", lang), row=2))
    return items


def pick_so_far(args: dict[str, Any]) -> Pick | None:
    """The turn in the making a card's button carries (None for an id from before buttons carried it)."""
    mode = args.get("mode")
    if mode is None:
        return None
    first = args.get("first")
    return Pick(args["turn"], None if mode == NO_ACTION else mode, () if first is None else (first,))


def turn_action(args: dict[str, Any]) -> dict[str, Any]:
    """The rules' `turn` action a Play button says: the action card (its own or a wild), then the cards."""
    action: dict[str, Any] = {"do": "turn", "turn": args["turn"]}
    if args["mode"] != NO_ACTION:
        action["action"] = args["mode"]
        if args["wild"]:
            action["wild"] = True
    action["cards"] = [card for card in (args.get("first"), args.get("second")) if card is not None]
    return action


def news_lines(events: Iterable[Event], lang: str) -> list[str]:
    """The cards a refill brought: told to the player who drew them alone, in their console."""
    return [
        t(
            "topdrop.news.drawn",
            lang,
            cards=cards_text({"card": c, "colour": colour_of(c)} for c in event["cards"]),
        )
        for event in events
        if event.get("type") == "cards_drawn"
    ]
