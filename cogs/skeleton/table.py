"""Skeleton's messages, drawn from the rules' views (bot/games/skeleton): the table from the public view,
the hand from the player's own. Pure functions, tested without Discord; a hand is drawn only by `hand_text`
and `card_items`, which the cog sends ephemerally.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord

from bot.engine.game import Event
from bot.games.skeleton import GAME, value
from bot.i18n import N_, t
from bot.ui import codec, components
from bot.ui.embeds import relative_time

SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
CARD = codec.token("card", r"[1-5][shdc]")
TURN = codec.number("turn", 1)  # the turn a button was offered on: a click from an older turn is stale
# The ids of the buttons (the cog declares the same arguments with @button). "Play a card" on the table
# opens the player's hand privately (`show_hand`); each card is then a button of its own (`play`).
DRAW = codec.Spec(GAME.name, "draw", (TURN,))
SHOW_HAND = codec.Spec(GAME.name, "show_hand", (TURN,))
PASS = codec.Spec(GAME.name, "pass", (TURN,))
PLAY = codec.Spec(GAME.name, "play", (TURN, CARD))
# The table's buttons for the actions the rules offer now, in this order.
TABLE_BUTTONS = {
    "draw": (DRAW, N_("skeleton.button.draw"), discord.ButtonStyle.primary),
    "play": (SHOW_HAND, N_("skeleton.button.play"), discord.ButtonStyle.success),
    "pass": (PASS, N_("skeleton.button.pass"), discord.ButtonStyle.secondary),
}
# What the table says of each public event of the last action.
EVENT_TEXTS = {
    "drew": N_("skeleton.event.drew"),
    "played": N_("skeleton.event.played"),
    "timed_out": N_("skeleton.event.timed_out"),
    "left": N_("skeleton.event.left"),
}

Names = Callable[[str], str]


def card_text(card: str) -> str:
    return f"{card[:-1]}{SUITS[card[-1]]}"


def cards_text(cards: list[str]) -> str:
    return " ".join(f"**{card_text(card)}**" for card in cards)


def table_embed(
    view: dict[str, Any], events: list[Event], lang: str, name: Names, turn_ends: float | None
) -> discord.Embed:
    """The public table: whose turn, the scores and hand sizes, the pile, the deck, what just happened."""
    if view["finished"]:
        title = t("skeleton.table.title_over", lang)
        lines = [
            t("skeleton.table.winners", lang, names=", ".join(f"**{name(p)}**" for p in view["winners"]))
        ]
    else:
        current = name(view["current"])
        title = t("skeleton.table.title_turn", lang, name=current)
        doing = (
            N_("skeleton.table.phase_draw") if view["phase"] == "draw" else N_("skeleton.table.phase_play")
        )
        lines = [t(doing, lang, name=current)]
        if turn_ends is not None:
            lines.append(t("skeleton.table.turn_ends", lang, when=relative_time(turn_ends)))
    for event in events:
        said = EVENT_TEXTS.get(str(event.get("type")))
        if said is not None:
            card = event.get("card")
            shown = card_text(card) if isinstance(card, str) else ""
            lines.append(t(said, lang, name=name(event["player"]), card=shown, points=event.get("points", 0)))
    embed = discord.Embed(title=title[:256], description="\n".join(lines)[:4096], colour=GAME.colour)
    scores = "\n".join(
        t(
            "skeleton.table.score_line",
            lang,
            name=name(p),
            points=view["scores"][p],
            cards=view["hand_counts"][p],
        )
        for p in view["players"]
        if p not in view["left"]
    )
    embed.add_field(name=t("skeleton.table.scores", lang, target=view["target"]), value=scores[:1024] or "—")
    pile = cards_text(view["pile"]) if view["pile"] else t("skeleton.table.pile_empty", lang)
    embed.add_field(name=t("skeleton.table.pile", lang, n=view["pile_count"]), value=pile[:1024])
    embed.set_footer(text=t("skeleton.table.deck", lang, n=view["deck_count"]))
    return embed


def table_items(session_id: int, view: dict[str, Any], lang: str) -> list[discord.ui.Item[Any]]:
    """A button per action the rules offer now, carrying the turn it was offered on."""
    turn = view["freshness"]["turn"]
    items: list[discord.ui.Item[Any]] = []
    for action, (spec, label, style) in TABLE_BUTTONS.items():
        if action in view["offered"]:
            items.append(components.button(spec.encode(session_id, turn=turn), t(label, lang), style=style))
    return items


def hand_text(view: dict[str, Any], lang: str) -> str:
    """The player's own hand (ephemeral only), and what they may do now."""
    hand = view.get("hand") or []
    lines = [
        t("skeleton.panel.hand", lang, cards=cards_text(hand)) if hand else t("skeleton.panel.empty", lang)
    ]
    offered = view.get("offered_to_you") or []
    if "draw" in offered:
        lines.append(t("skeleton.panel.your_turn_draw", lang))
    elif "play" in offered or "pass" in offered:
        lines.append(t("skeleton.panel.your_turn_play", lang))
    return "\n".join(lines)


def card_items(session_id: int, view: dict[str, Any]) -> list[discord.ui.Item[Any]]:
    """The player's hand as buttons, one per card, each worth its rank."""
    turn = view["freshness"]["turn"]
    return [
        components.button(
            PLAY.encode(session_id, turn=turn, card=card), f"{card_text(card)} (+{value(card)})"
        )
        for card in sorted(set(view.get("hand") or []))[:25]
    ]
