"""The advanced game's cards on Discord: the Level in force, the Ba Oossee cards played, The Draw's private
prompts and `/topstop cards`.

Pure functions of the session record and the rules' view (`view["cards"]`, bot/games/topstop/advanced.py),
like table.py. The table shows what everyone may see (the Level in force, the cards played, how many Level
cards each player holds); which Level cards a player holds, a face-down card or a peeked card reach only
that player, ephemerally.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.games.topstop.cards import CARD_NAMES, CARD_TEXTS, CATEGORY_NAMES, LEVEL_TEXTS, SET_SIZE, stack_worth
from bot.i18n import N_, t
from bot.store import SessionRecord
from bot.ui import components

GAME = "topstop"
# Words per page of the writing form: a modal holds five inputs; rounds of 6 or 10 words get a second page.
PAGE = 5
CHOICE_KINDS = ("target", "take", "letter", "peek")
TAKE_KEYS = {"ba_oossee": N_("topstop.cards.take_ba_oossee"), "level": N_("topstop.cards.take_level")}


def card_name(card: str, lang: str) -> str:
    if card in LEVEL_TEXTS:
        return t("topstop.level_name", lang, level=card)
    return t(CARD_NAMES[card], lang)


def card_text(card: str, lang: str) -> str:
    return t(LEVEL_TEXTS[card] if card in LEVEL_TEXTS else CARD_TEXTS[card], lang)


def level_of(view: dict[str, Any]) -> str | None:
    """The Level this round is played under (None: the base rules)."""
    cards = view["cards"]
    current = cards.get("round")
    level = current.get("level") if current else cards.get("level")
    return str(level) if level is not None else None


def category_of(view: dict[str, Any]) -> str | None:
    """Level VII's category this round, once its card has shown it."""
    category = (view["cards"].get("round") or {}).get("category")
    return str(category) if category else None


def level_line(view: dict[str, Any], lang: str) -> str:
    """The Level in force this round (or the base rules), with the letters or category its card shows."""
    current = view["cards"].get("round") or {}
    level = level_of(view)
    if level is None:
        return t("topstop.cards.no_level", lang)
    line = t("topstop.cards.level", lang, name=card_name(level, lang), text=card_text(level, lang))
    category = current.get("category")
    if category:
        line += "\n" + t("topstop.cards.category", lang, category=t(CATEGORY_NAMES[category], lang))
    elif current.get("letters"):
        line += "\n" + t("topstop.cards.letters", lang, letters=" · ".join(current["letters"]))
    if current.get("second_letter") and (view.get("round") or {}).get("letter"):
        start = view["round"]["letter"] + current["second_letter"]
        line += "\n" + t("topstop.cards.begins", lang, start=start)
    return line


def played_lines(record: SessionRecord, view: dict[str, Any], lang: str) -> list[str]:
    """The Ba Oossee cards played this round, each with its text and what it did."""
    current = view["cards"].get("round") or {}
    lines = []
    for played in current.get("ba_oossee", []):
        card, player = played["card"], played["player"]
        line = t(
            "topstop.cards.played",
            lang,
            name=card_name(card, lang),
            player=_name(record, player),
            text=card_text(card, lang),
        )
        named = played.get("target") or played.get("loser")
        if named:
            line += " → " + _name(record, named)
        if played.get("take"):
            take = played["take"]
            line += " → " + t(TAKE_KEYS[take], lang)
        points = played.get("points") or {}
        if points:
            line += " (" + ", ".join(f"{_name(record, p)} {n:+d}" for p, n in points.items()) + ")"
        lines.append(line)
    return lines


def table_lines(record: SessionRecord, view: dict[str, Any], lang: str) -> list[str]:
    """What the table message adds in an advanced game: the Level, the cards played, who is awaited."""
    cards = view["cards"]
    lines = [level_line(view, lang), *played_lines(record, view, lang)]
    current = cards.get("round") or {}
    sitting = current.get("sitting_out") or []
    if sitting:
        lines.append(t("topstop.cards.sitting_out", lang, names=", ".join(_name(record, p) for p in sitting)))
    words = current.get("words_per_player") or {}
    if len(set(words.values())) > 1:
        shown = " · ".join(f"{_name(record, p)} {n}" for p, n in words.items())
        lines.append(t("topstop.cards.words_each", lang, words=shown))
    if cards["direction"] != "clockwise":
        lines.append(t("topstop.cards.reversed", lang))
    held = cards.get("held") or {}
    for player, waiting in held.items():
        names = ", ".join(card_name(card, lang) for card in waiting)
        lines.append(t("topstop.cards.held", lang, player=_name(record, player), cards=names))
    choice = cards.get("choice")
    if choice is not None:
        lines.append(
            t(
                "topstop.cards.awaiting",
                lang,
                player=_name(record, choice["player"]),
                name=card_name(choice["card"], lang),
            )
        )
    elif view["phase"] == "draw" and not current.get("decided"):
        spinner = (view.get("round") or {}).get("spinner")
        waits = (
            N_("topstop.cards.draw_waits_levels") if _levels_only(view) else N_("topstop.cards.draw_waits")
        )
        lines.append(t(waits, lang, player=_name(record, spinner or "")))
    return lines


def holdings(view: dict[str, Any]) -> dict[str, int]:
    """How many Level cards (wild cards included) each player holds: public, the cards themselves are not."""
    return dict(view["cards"]["level_cards"])


def draw_prompt(session_id: int, view: dict[str, Any], lang: str) -> tuple[str, list[discord.ui.Item[Any]]]:
    """The spinner's private Draw: draw a Level card first, or only the mandatory Ba Oossee card (FAQ 6)."""
    number = view["round"]["number"]
    spec = components.spec(GAME, "draw")
    levels_only = _levels_only(view)
    items: list[discord.ui.Item[Any]] = []
    if view["cards"]["level_available"]:
        items.append(
            components.button(
                spec.encode(session_id, level="yes", round=number),
                t(
                    N_("topstop.cards.button.level_only")
                    if levels_only
                    else N_("topstop.cards.button.level"),
                    lang,
                ),
                style=discord.ButtonStyle.primary,
                emoji="🎚️",
            )
        )
    items.append(
        components.button(
            spec.encode(session_id, level="no", round=number),
            t(
                N_("topstop.cards.button.no_level")
                if levels_only
                else N_("topstop.cards.button.ba_oossee_only"),
                lang,
            ),
            emoji="🎴",
        )
    )
    prompt = N_("topstop.cards.draw_prompt_levels") if levels_only else N_("topstop.cards.draw_prompt")
    return t(prompt, lang), items


def _levels_only(view: dict[str, Any]) -> bool:
    """The `levels` way to play: The Draw offers a Level card only, there is no Ba Oossee card."""
    return bool(view.get("options", {}).get("mode") == "levels")


def choice_prompt(
    record: SessionRecord, session_id: int, view: dict[str, Any], lang: str
) -> tuple[str, list[discord.ui.Item[Any]]]:
    """The private question of the open choice: a select of players, letters or takes; yes/no for a peek."""
    choice = view["cards"]["choice"]
    number = view["round"]["number"]
    spec = components.spec(GAME, "choose")
    text = t(
        "topstop.cards.choice_prompt",
        lang,
        name=card_name(choice["card"], lang),
        text=card_text(choice["card"], lang),
    )
    kind = choice["kind"]
    if kind == "peek":
        items: list[discord.ui.Item[Any]] = [
            components.button(
                spec.encode(session_id, round=number, choice=choice["number"], kind="peek", peek=answer),
                t(key, lang),
                style=discord.ButtonStyle.primary if answer == "yes" else discord.ButtonStyle.secondary,
            )
            for answer, key in (
                ("yes", N_("topstop.cards.button.peek")),
                ("no", N_("topstop.cards.button.no_peek")),
            )
        ]
        return text, items
    if kind == "target":
        options = [discord.SelectOption(label=record.name(p)[:100], value=p) for p in choice["options"]]
        placeholder = t("topstop.cards.pick_player", lang)
    elif kind == "take":
        options = [discord.SelectOption(label=t(TAKE_KEYS[o], lang), value=o) for o in choice["options"]]
        placeholder = t("topstop.cards.pick_take", lang)
    else:
        options = [discord.SelectOption(label=o, value=o) for o in choice["options"]]
        placeholder = t("topstop.cards.pick_letter", lang)
    select = components.select(
        spec.encode(session_id, round=number, choice=choice["number"], kind=kind),
        options,
        placeholder=placeholder,
    )
    return text, [select]


def private_news(events: list[dict[str, Any]], record: SessionRecord, lang: str) -> list[str]:
    """What the rules told one player privately about the cards: a face-down Level card, a peek, a steal."""
    lines = []
    for event in events:
        kind = event.get("type")
        if kind == "your_level_card":
            level = event["level"]
            lines.append(
                t("topstop.cards.you_drew", lang, name=card_name(level, lang), text=card_text(level, lang))
            )
        elif kind == "peeked":
            lines.append(t("topstop.cards.you_peeked", lang, name=card_name(event["card"], lang)))
        elif kind == "level_card_taken":
            name = card_name(event["level"], lang)
            lines.append(t("topstop.cards.you_took", lang, name=name, player=_name(record, event["from"])))
        elif kind == "level_card_lost":
            name = card_name(event["level"], lang)
            lines.append(t("topstop.cards.you_lost", lang, name=name, player=_name(record, event["to"])))
    return lines


def my_cards(view: dict[str, Any], player: str, lang: str) -> str:
    """`/topstop cards`: the player's own Level cards (and wild cards), a face-down card, held cards."""
    cards = view["cards"]
    mine = cards.get("your_level_cards") or []
    lines = [
        t("topstop.cards.yours", lang, cards=", ".join(card_name(c, lang) for c in mine))
        if mine
        else t("topstop.cards.none", lang)
    ]
    lines.append(t("topstop.cards.towards_set", lang, n=stack_worth(mine) % SET_SIZE))
    for card in cards.get("your_face_down") or []:
        lines.append(t("topstop.cards.face_down", lang, name=card_name(card, lang)))
    held = (cards.get("held") or {}).get(player) or []
    if held:
        lines.append(t("topstop.cards.you_hold", lang, cards=", ".join(card_name(c, lang) for c in held)))
    lines.append(level_line(view, lang))
    return "\n".join(lines)


def words_for(view: dict[str, Any], player: str) -> int:
    """How many words this player writes this round (the 6-vs-10 cards change it)."""
    cards = view.get("cards") or {}
    per_player = (cards.get("round") or {}).get("words_per_player") or {}
    return int(per_player.get(player, view["options"]["words"]))


def word_start(view: dict[str, Any]) -> str:
    """The target letter, or under Level II the two letters every word begins with."""
    letter = str(view["round"]["letter"])
    second = ((view.get("cards") or {}).get("round") or {}).get("second_letter")
    return letter + second if second else letter


def _name(record: SessionRecord, player: str) -> str:
    return discord.utils.escape_markdown(record.name(player))
