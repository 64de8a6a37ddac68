"""Skeleton's messages, drawn from the rules' views (bot/games/skeleton): the table from the public view,
the console from the player's own. Pure functions, tested without Discord; a hand is drawn only by
`console`, which the layer shows to its owner alone (an ephemeral message it keeps live).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import discord

from bot.engine.game import Event
from bot.games.skeleton import GAME, value
from bot.i18n import N_, t
from bot.ui import codec, components
from bot.ui.embeds import relative_time
from bot.ui.table import Table

SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
CARD = codec.token("card", r"[1-5][shdc]")
TURN = codec.number("turn", 1)  # the turn a button was offered on: a press from an older turn is stale
# The console's buttons (the cog declares the same arguments with @button): Draw, a button per card of the
# hand (play it), Pass. The table itself has only the layer's "My hand", which opens the console.
DRAW = codec.Spec(GAME.name, "draw", (TURN,))
PLAY = codec.Spec(GAME.name, "play", (TURN, CARD))
PASS = codec.Spec(GAME.name, "pass", (TURN,))
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


def console(session_id: int, view: dict[str, Any], lang: str, name: Names) -> Table:
    """A player's console, from their own view: their hand, whose turn it is, and on their turn Draw, the
    cards they may play (each a button worth its rank) and Pass. Off turn the cards stay, disabled."""
    hand = view.get("hand") or []
    offered = view.get("offered_to_you") or []
    lines = [
        t("skeleton.panel.hand", lang, cards=cards_text(hand)) if hand else t("skeleton.panel.empty", lang)
    ]
    if view["finished"]:
        lines.append(t("skeleton.console.over", lang))
    elif "draw" in offered:
        lines.append(t("skeleton.panel.your_turn_draw", lang))
    elif offered:
        lines.append(t("skeleton.panel.your_turn_play", lang))
    else:
        lines.append(t("skeleton.console.turn_of", lang, name=name(view["current"])))
    embed = discord.Embed(
        title=t("skeleton.console.title", lang), description="\n".join(lines)[:4096], colour=GAME.colour
    )
    turn = view["freshness"]["turn"]
    items: list[discord.ui.Item[Any]] = []
    if "draw" in offered:
        draw = DRAW.encode(session_id, turn=turn)
        items.append(
            components.button(draw, t("skeleton.button.draw", lang), style=discord.ButtonStyle.primary)
        )
    for card in sorted(set(hand))[:20]:  # twenty cards in the deck: with Draw and Pass, within 25 buttons
        play = PLAY.encode(session_id, turn=turn, card=card)
        label = f"{card_text(card)} (+{value(card)})"
        items.append(
            components.button(play, label, style=discord.ButtonStyle.success, disabled="play" not in offered)
        )
    if "pass" in offered:
        items.append(components.button(PASS.encode(session_id, turn=turn), t("skeleton.button.pass", lang)))
    return Table(embed, items)


def news_lines(events: Iterable[Event], lang: str) -> list[str]:
    """What a player was told by something they did not do: the card the bot drew for them, face down,
    when their turn ran out."""
    return [
        t("skeleton.news.drawn_for_you", lang, card=card_text(event["card"]))
        for event in events
        if event.get("type") == "card_drawn"
    ]
