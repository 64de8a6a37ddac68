"""The TopWords table: embed, buttons and texts built from the public view — a rack only for its owner.

Everything here is a pure function of the rules' `view_for(...)` (bot/games/topwords) and the session
record, so the cog stays a thin layer of Discord calls and this module is tested without Discord.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from typing import Any

import discord

from bot.engine.game import Event
from bot.games.topwords.game import standings
from bot.games.topwords.messages import reason_text
from bot.i18n import N_, t
from bot.store import SessionRecord
from bot.ui import components
from bot.ui.embeds import relative_time
from bot.ui.table import Table
from cogs.topwords.texts import Lang

GAME = "topwords"
# What a button's id may carry: a word as tiles (capitals, umlauts) and a square such as E5 or J10.
LETTERS = r"[A-ZÄÖÜ]{1,15}"
SQUARE = r"[A-J](?:10|[1-9])"
COLOUR = discord.Colour.dark_teal()
BOARD_FILE = "board.png"
# The board or the turn changes with these (and a vote opens with its own message): the table moves to a
# new message with a new picture, and the previous one stays in the channel, without buttons, as a record.
NEW_MESSAGE_EVENTS = frozenset(
    {"started", "moved", "passed", "turn_timed_out", "taken_back", "vote_open", "game_over"}
)
MODE_TEXTS = {"strict": N_("topwords.mode_strict"), "challenge": N_("topwords.mode_challenge")}
PHASE_TITLES = {"vote": N_("topwords.title_vote"), "final_challenge": N_("topwords.title_final")}
END_REASONS = {"passes": N_("topwords.end_passes"), "players_left": N_("topwords.end_players_left")}
# The question of each kind of vote (the rules' `vote["kind"]`).
VOTE_QUESTIONS = {
    "allow_move": N_("topwords.vote_allow_move"),
    "restore": N_("topwords.vote_restore"),
    "take_back": N_("topwords.vote_take_back"),
    "end": N_("topwords.vote_end"),
}

Namer = Callable[[str], str]
View = dict[str, Any]


def starts_new_message(events: Iterable[Event]) -> bool:
    return any(event.get("type") in NEW_MESSAGE_EVENTS for event in events)


def namer(record: SessionRecord) -> Namer:
    """Display names, with markdown escaped (they are shown in bold)."""
    return lambda player: discord.utils.escape_markdown(record.name(player))


# -- texts ----------------------------------------------------------------------------------------------


def move_text(lang: Lang, move: dict[str, Any], name: Namer | None = None) -> str:
    """ "**Ann**: BAUM (4) · AB (2) → **12** points (doubled, +2 bonus)"; without `name`, for the mover."""
    words = " · ".join(f"**{word['word']}** ({word['points']})" for word in move["words"])
    extras = []
    if move.get("doubled"):
        extras.append(t("topwords.doubled", lang))
    if move.get("bonus"):
        extras.append(t("topwords.bonus", lang, bonus=move["bonus"]))
    shown = f" ({', '.join(extras)})" if extras else ""
    if name is None:
        return t("topwords.move_mine", lang, words=words, points=move["points"], extras=shown)
    return t(
        "topwords.move", lang, name=name(move["player"]), words=words, points=move["points"], extras=shown
    )


def options_text(lang: Lang, options: dict[str, Any]) -> str:
    """The lobby's options as players read them: "strict mode · 10 min a turn"."""
    parts = [t(MODE_TEXTS.get(options.get("mode", "strict"), MODE_TEXTS["strict"]), lang)]
    turn_seconds = options.get("turn_seconds")
    if turn_seconds:
        parts.append(t("topwords.lobby.turn_time", lang, minutes=f"{turn_seconds / 60:g}"))
    return " · ".join(parts)


def rack_text(lang: Lang, view: View) -> str:
    """The owner's rack: only ever sent ephemerally to them (`view` is their own view)."""
    rack = " ".join(view["rack"])
    return t(
        "topwords.rack",
        lang,
        rack=f"**{rack}**" if rack else t("topwords.rack_empty", lang),
        bag=view["bag_count"],
    )


def judged_words(lang: Lang, words: Iterable[dict[str, Any]]) -> str:
    """ "**XYZ** (not in the dictionary), **ABC**" — each word with the dictionary's reason, if any."""
    shown = []
    for word in words:
        reason = word.get("reason")
        why = f" ({reason_text(reason, lang=lang, day=word.get('day'))})" if reason else ""
        shown.append(f"**{word['word']}**{why}")
    return ", ".join(shown)


def news_lines(
    lang: Lang, name: Namer, view: View, events: Iterable[Event], closes: float | None
) -> list[str]:
    """What just happened, from the events (public ones only: a rack event is never shown)."""
    lines: list[str] = []
    for event in events:
        kind = event.get("type")
        if kind == "started":
            lines += _start_lines(lang, name, view)
        elif kind == "passed":
            lines.append(
                t(
                    N_("topwords.news_swapped") if event["swapped"] else N_("topwords.news_passed"),
                    lang,
                    name=name(event["player"]),
                )
            )
        elif kind == "challenged":
            who = {"by": name(event["by"]), "of": name(event["of"])}
            if event["success"]:
                lines.append(
                    t("topwords.news_challenge_won", lang, words=judged_words(lang, event["words"]), **who)
                )
            else:
                lines.append(t("topwords.news_challenge_lost", lang, **who))
        elif kind == "taken_back":
            lines.append(
                t("topwords.news_taken_back", lang, name=name(event["player"]), points=event["points"])
            )
        elif kind == "final_challenge":
            when = relative_time(closes) if closes else t("topwords.when_window", lang)
            lines.append(t("topwords.news_final", lang, name=name(event["player"]), when=when))
        elif kind == "vote_result" and not (event["kind"] == "end" and event["allowed"]):
            lines.append(_vote_result(lang, event))  # an agreed end is told by game_over
        elif kind == "player_left":
            lines.append(t("topwords.news_left", lang, name=name(event["player"])))
        elif kind == "turn_timed_out":
            lines.append(t("topwords.news_timed_out", lang, name=name(event["player"])))
        elif kind == "player_idle_left":
            lines.append(t("topwords.news_idle_left", lang, name=name(event["player"]), turns=event["turns"]))
        elif kind == "vote_cancelled":
            lines.append(t("topwords.news_vote_cancelled", lang))
        elif kind == "game_over":
            lines += _end_lines(lang, name, view, event)
    return lines


def _start_lines(lang: Lang, name: Namer, view: View) -> list[str]:
    """The start draw ("Der Startspieler wird ausgelost"): closest to A begins, the tied draw again."""
    lines = []
    for index, draw in enumerate(view["start_draw"]):
        draws = " · ".join(f"{name(player)} **{letter}**" for player, letter in draw.items())
        key = N_("topwords.start_draw") if index == 0 else N_("topwords.draw_again")
        lines.append(t(key, lang, draws=draws))
    first = name(view["first_player"])
    key = N_("topwords.begins") if view["start_draw"] else N_("topwords.begins_set")
    lines.append(t(key, lang, name=first))
    lines.append(t("topwords.see_rack", lang))
    return lines


def _vote_result(lang: Lang, event: Event) -> str:
    if event["kind"] == "end":
        return t("topwords.news_end_refused", lang)
    words = ", ".join(f"**{word}**" for word in event["words"])
    yes, no = event["yes"], event["no"]
    if event["decided_by"] == "dictionary":  # a tie: say which way the dictionary decided
        key = N_("topwords.news_tie_allowed") if event["allowed"] else N_("topwords.news_tie_refused")
    else:
        key = N_("topwords.news_allowed") if event["allowed"] else N_("topwords.news_refused")
    return t(key, lang, words=words, yes=yes, no=no)


def _end_lines(lang: Lang, name: Namer, view: View, event: Event) -> list[str]:
    reason = event["reason"]
    if reason == "out":
        lines = [t("topwords.end_out", lang, name=name(view["history"][-1]["player"]))]
    else:
        lines = [t(END_REASONS.get(reason, N_("topwords.end_no_words")), lang)]
    winners = [f"**{name(player)}**" for player in event["winners"]]
    key = N_("topwords.winner") if len(winners) == 1 else N_("topwords.winners")
    lines.append(t(key, lang, names=t("topwords.and", lang).join(winners)))
    return lines


def vote_text(lang: Lang, name: Namer, vote: dict[str, Any], closes: float | None) -> str:
    kind = vote["kind"]
    words = judged_words(lang, vote["words"])
    lines = [t(VOTE_QUESTIONS[kind], lang, by=name(vote["by"]), of=name(vote["of"]), words=words)]
    if kind != "end":
        lines.append(t("topwords.vote_majority", lang))
    counted = vote["tally"]
    status = t("topwords.vote_count", lang, voted=counted["voted"], voters=counted["eligible"])
    if closes:
        status += " · " + t("topwords.vote_closes", lang, time=relative_time(closes))
    lines.append(status)
    return "\n".join(lines)


def scores_text(lang: Lang, name: Namer, view: View) -> str:
    """Scores in order of rank (players who left last, marked); while playing with each rack's size, at the
    end with the rack penalties."""
    left = set(view.get("left", []))
    lines = []
    for player in view.get("standings") or standings(view["scores"], view.get("left", [])):
        score = view["scores"][player]
        if player in left:
            lines.append(t("topwords.left_line", lang, score=score, name=name(player)))
        elif not view["finished"]:
            lines.append(
                t(
                    "topwords.score_line",
                    lang,
                    score=score,
                    name=name(player),
                    tiles=view["rack_counts"][player],
                )
            )
        else:
            line = t("topwords.final_line", lang, score=score, name=name(player))
            penalty = view["penalties"].get(player, 0)
            if penalty:
                line += t("topwords.penalty", lang, penalty=penalty, tiles=view["rack_counts"][player])
            lines.append(line)
    return "\n".join(lines)


# -- the message ----------------------------------------------------------------------------------------


def table_embed(
    record: SessionRecord,
    view: View,
    events: Iterable[Event],
    lang: Lang,
    *,
    closes: float | None,
    turn_ends: float | None = None,
) -> discord.Embed:
    """The table for everyone: what happened, the last move, an open vote, the scores and the board."""
    name = namer(record)
    phase = view["phase"]
    if phase == "play":
        title = t("topwords.title_play", lang, name=record.name(view["turn"]))
    else:
        title = t(PHASE_TITLES.get(phase, N_("topwords.title_over")), lang)
    lines = news_lines(lang, name, view, events, closes)
    if phase == "play":
        lines.append(t("topwords.how_to_play", lang))
        if turn_ends:
            lines.append(t("topwords.turn_closes", lang, when=relative_time(turn_ends)))
    embed = discord.Embed(title=title[:256], description="\n".join(lines)[:4096], colour=COLOUR)
    if view["history"]:
        embed.add_field(
            name=t("topwords.field_last_move", lang), value=move_text(lang, view["history"][-1], name)[:1024]
        )
    if view["vote"] is not None:
        embed.add_field(
            name=t("topwords.field_vote", lang), value=vote_text(lang, name, view["vote"], closes)[:1024]
        )
    scores = N_("topwords.field_final") if view["finished"] else N_("topwords.field_scores")
    embed.add_field(name=t(scores, lang), value=scores_text(lang, name, view)[:1024], inline=False)
    mode = t(MODE_TEXTS[view["mode"]], lang)
    embed.set_footer(text=t("topwords.footer", lang, bag=view["bag_count"], mode=mode, id=record.id))
    embed.set_image(url=f"attachment://{BOARD_FILE}")
    return embed


def _button(session_id: int, action: str, label: str, **kwargs: Any) -> discord.ui.Item[Any]:
    """A button of this game; `kwargs` are the action's arguments (see the cog's declarations) and style."""
    style = kwargs.pop("style", discord.ButtonStyle.secondary)
    emoji = kwargs.pop("emoji", None)
    custom_id = components.spec(GAME, action).encode(session_id, **kwargs)
    return components.button(custom_id, label, style=style, emoji=emoji)


def table_items(session_id: int, view: View, lang: Lang) -> list[discord.ui.Item[Any]]:
    """The vote's two buttons while a vote is open; else Challenge and Dispute when the rules offer them to
    someone at the table (`view["offered"]`). The table layer adds the private rack button."""
    if view["finished"]:
        return []
    items: list[discord.ui.Item[Any]] = []
    offered = set(view["offered"])
    fresh = view["freshness"]
    vote = view["vote"]
    if "vote" in offered and vote is not None:
        yes, no = (
            (N_("topwords.button_end"), N_("topwords.button_play_on"))
            if vote["kind"] == "end"
            else (N_("topwords.button_allowed"), N_("topwords.button_not_allowed"))
        )
        # Each button names the vote it answers ("yes.3"): a click on an older message is refused.
        number = fresh["vote"]
        items.append(
            _button(
                session_id,
                "vote",
                t(yes, lang),
                answer="yes",
                vote=number,
                style=discord.ButtonStyle.success,
            )
        )
        items.append(
            _button(
                session_id, "vote", t(no, lang), answer="no", vote=number, style=discord.ButtonStyle.danger
            )
        )
        return items
    # Challenge and Dispute name the board they were offered on: after another move they no longer act.
    move = fresh["move"]
    if "challenge" in offered:
        items.append(
            _button(session_id, "challenge", t("topwords.button_challenge", lang), move=move, emoji="❓",
                    style=discord.ButtonStyle.danger)
        )  # fmt: skip
    if "dispute" in offered:
        items.append(_button(session_id, "dispute", t("topwords.button_dispute", lang), move=move, emoji="⚖️"))
    return items


def word_items(session_id: int, words: list[str], move: int) -> list[discord.ui.Item[Any]]:
    """One button per word of the last move (at most 8: the line and one across per tile): "3.BAUM",
    with the board's number (freshness) the choice was offered on."""
    return [_button(session_id, "dispute", word, move=move, word=word) for word in words]


def allow_item(
    session_id: int, lang: Lang, letters: str, square: str, direction: str, move: int
) -> discord.ui.Item[Any]:
    """Strict mode: the refused move, kept in the button's id with the board's number (freshness) it was
    refused on, can be put to the table's vote ("STRASSE.E10.across.4")."""
    return _button(
        session_id,
        "allow",
        t("topwords.button_ask_table", lang),
        letters=letters,
        square=square,
        direction=direction,
        move=move,
        emoji="⚖️",
        style=discord.ButtonStyle.primary,
    )


def board_file(png: bytes, lang: Lang) -> discord.File:
    return discord.File(io.BytesIO(png), filename=BOARD_FILE, description=t("topwords.board_picture", lang))


# -- the private console --------------------------------------------------------------------------------


def console(record: SessionRecord, view: View, lang: Lang) -> Table:
    """A player's console: their rack, whose turn it is, and a Pass button while it is theirs. Drawn from
    a view without a rack (a spectator's), it shows whose turn it is and nothing to press."""
    lines = [rack_text(lang, view)] if "rack" in view else []
    turn = view.get("turn")
    if turn is not None:
        key = N_("topwords.console.your_turn") if turn == view.get("you") else N_("topwords.console.turn_of")
        lines.append(t(key, lang, name=namer(record)(turn)))
    embed = discord.Embed(
        title=t("topwords.console.title", lang), description="\n".join(lines), colour=COLOUR
    )
    items: list[discord.ui.Item[Any]] = []
    if turn is not None and turn == view.get("you"):
        items.append(_button(record.id, "console_pass", t("topwords.console.pass", lang), emoji="⏭️"))
    return Table(embed, items)


def rack_news(lang: Lang, events: Iterable[Event]) -> list[str]:
    """A player's rack changed by another's action or a timer (a move taken back, a turn passed for them)."""
    return [
        t("topwords.console.rack_news", lang, rack=" ".join(event["rack"]) or "—")
        for event in events
        if event.get("type") == "rack"
    ]
