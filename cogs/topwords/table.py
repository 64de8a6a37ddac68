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
from bot.games.topwords.messages import reason_text
from bot.store import SessionRecord
from bot.ui import components
from bot.ui.embeds import relative_time
from cogs.topwords.texts import Lang, text

GAME = "topwords"
# What a button's id may carry: a word as tiles (capitals, umlauts) and a square such as E5 or J10.
LETTERS = r"[A-ZÄÖÜ]{1,15}"
SQUARE = r"[A-J](?:10|[1-9])"
COLOUR = discord.Colour.dark_teal()
BOARD_FILE = "board.png"
# The board or the turn changes with these (and a vote opens with its own message): the table moves to a
# new message with a new picture, and the previous one stays in the channel, without buttons, as a record.
NEW_MESSAGE_EVENTS = frozenset({"started", "moved", "passed", "taken_back", "vote_open", "game_over"})

Namer = Callable[[str], str]
View = dict[str, Any]


def starts_new_message(events: Iterable[Event]) -> bool:
    return any(event.get("type") in NEW_MESSAGE_EVENTS for event in events)


def namer(record: SessionRecord) -> Namer:
    """Display names, with markdown escaped (they are shown in bold)."""
    return lambda player: discord.utils.escape_markdown(record.name(player))


# -- what may be done now: the rules say it in the view (`actions`, `actions_of`, `freshness`) ----------


def disputable_words(view: View, player: str, move: int | None = None) -> list[str]:
    """The words of the last move `player` may put to the vote, in order; none when the rules offer them
    no dispute of a word (their own move, a restore of their move taken back, nothing open) or when
    `move` (what the clicked button was made against) is not the table's any more: the action then gets
    the rules' answer."""
    if move is not None and view["freshness"]["move"] != move:
        return []
    if "dispute" not in view["actions_of"].get(player, []) or not view["history"]:
        return []
    taken = view["taken_back"]
    if taken is not None and taken["player"] == player:
        return []
    return list(dict.fromkeys(word["word"] for word in view["history"][-1]["words"]))


# -- texts ----------------------------------------------------------------------------------------------


def move_text(lang: Lang, move: dict[str, Any], name: Namer | None = None) -> str:
    """ "**Ann**: BAUM (4) · AB (2) → **12** points (doubled, +2 bonus)"; without `name`, for the mover."""
    words = " · ".join(f"**{word['word']}** ({word['points']})" for word in move["words"])
    extras = []
    if move.get("doubled"):
        extras.append(text(lang, "doubled"))
    if move.get("bonus"):
        extras.append(text(lang, "bonus", bonus=move["bonus"]))
    shown = f" ({', '.join(extras)})" if extras else ""
    if name is None:
        return text(lang, "move_mine", words=words, points=move["points"], extras=shown)
    return text(lang, "move", name=name(move["player"]), words=words, points=move["points"], extras=shown)


def rack_text(lang: Lang, view: View) -> str:
    """The owner's rack: only ever sent ephemerally to them (`view` is their own view)."""
    rack = " ".join(view["rack"])
    return text(lang, "rack", rack=f"**{rack}**" if rack else text(lang, "rack_empty"), bag=view["bag_count"])


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
                text(lang, "news_swapped" if event["swapped"] else "news_passed", name=name(event["player"]))
            )
        elif kind == "challenged":
            who = {"by": name(event["by"]), "of": name(event["of"])}
            if event["success"]:
                lines.append(
                    text(lang, "news_challenge_won", words=judged_words(lang, event["words"]), **who)
                )
            else:
                lines.append(text(lang, "news_challenge_lost", **who))
        elif kind == "taken_back":
            lines.append(text(lang, "news_taken_back", name=name(event["player"]), points=event["points"]))
        elif kind == "final_challenge":
            when = relative_time(closes) if closes else text(lang, "when_window")
            lines.append(text(lang, "news_final", name=name(event["player"]), when=when))
        elif kind == "vote_result" and not (event["kind"] == "end" and event["allowed"]):
            lines.append(_vote_result(lang, event))  # an agreed end is told by game_over
        elif kind == "player_left":
            lines.append(text(lang, "news_left", name=name(event["player"])))
        elif kind == "turn_timed_out":
            lines.append(text(lang, "news_timed_out", name=name(event["player"])))
        elif kind == "player_idle_left":
            lines.append(text(lang, "news_idle_left", name=name(event["player"]), turns=event["turns"]))
        elif kind == "vote_cancelled":
            lines.append(text(lang, "news_vote_cancelled"))
        elif kind == "game_over":
            lines += _end_lines(lang, name, view, event)
    return lines


def _start_lines(lang: Lang, name: Namer, view: View) -> list[str]:
    """The start draw ("Der Startspieler wird ausgelost"): closest to A begins, the tied draw again."""
    lines = []
    for index, draw in enumerate(view["start_draw"]):
        draws = " · ".join(f"{name(player)} **{letter}**" for player, letter in draw.items())
        lines.append(text(lang, "start_draw" if index == 0 else "draw_again", draws=draws))
    first = name(view["first_player"])
    lines.append(text(lang, "begins" if view["start_draw"] else "begins_set", name=first))
    lines.append(text(lang, "see_rack"))
    return lines


def _vote_result(lang: Lang, event: Event) -> str:
    if event["kind"] == "end":
        return text(lang, "news_end_refused")
    words = ", ".join(f"**{word}**" for word in event["words"])
    yes, no = event["yes"], event["no"]
    if yes == no:  # the dictionary decided: say which way
        key = "news_tie_allowed" if event["allowed"] else "news_tie_refused"
    else:
        key = "news_allowed" if event["allowed"] else "news_refused"
    return text(lang, key, words=words, yes=yes, no=no)


def _end_lines(lang: Lang, name: Namer, view: View, event: Event) -> list[str]:
    reason = event["reason"]
    if reason == "out":
        lines = [text(lang, "end_out", name=name(view["history"][-1]["player"]))]
    else:
        ends = {"passes": "end_passes", "players_left": "end_players_left"}
        lines = [text(lang, ends.get(reason, "end_no_words"))]
    winners = [f"**{name(player)}**" for player in event["winners"]]
    key = "winner" if len(winners) == 1 else "winners"
    lines.append(text(lang, key, names=text(lang, "and").join(winners)))
    return lines


def vote_text(lang: Lang, name: Namer, vote: dict[str, Any], closes: float | None) -> str:
    kind = vote["kind"]
    words = judged_words(lang, vote["words"])
    lines = [text(lang, f"vote_{kind}", by=name(vote["by"]), of=name(vote["of"]), words=words)]
    if kind != "end":
        lines.append(text(lang, "vote_majority"))
    status = text(lang, "vote_count", voted=len(vote["voted"]), voters=len(vote["voters"]))
    if closes:
        status += " · " + text(lang, "vote_closes", time=relative_time(closes))
    lines.append(status)
    return "\n".join(lines)


def scores_text(lang: Lang, name: Namer, view: View) -> str:
    """Scores, best first; while playing with each rack's size, at the end with the rack penalties."""
    lines = []
    for player in sorted(view["players"], key=lambda p: -view["scores"][p]):
        score = view["scores"][player]
        if not view["finished"]:
            lines.append(
                text(lang, "score_line", score=score, name=name(player), tiles=view["rack_counts"][player])
            )
            continue
        line = text(lang, "final_line", score=score, name=name(player))
        penalty = view["penalties"].get(player, 0)
        if penalty:
            line += text(lang, "penalty", penalty=penalty, tiles=view["rack_counts"][player])
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
        title = text(lang, "title_play", name=record.name(view["turn"]))
    else:
        title = text(lang, {"vote": "title_vote", "final_challenge": "title_final"}.get(phase, "title_over"))
    lines = news_lines(lang, name, view, events, closes)
    if phase == "play":
        lines.append(text(lang, "how_to_play"))
        if turn_ends:
            lines.append(text(lang, "turn_closes", when=relative_time(turn_ends)))
    embed = discord.Embed(title=title[:256], description="\n".join(lines)[:4096], colour=COLOUR)
    if view["history"]:
        embed.add_field(
            name=text(lang, "field_last_move"), value=move_text(lang, view["history"][-1], name)[:1024]
        )
    if view["vote"] is not None:
        embed.add_field(
            name=text(lang, "field_vote"), value=vote_text(lang, name, view["vote"], closes)[:1024]
        )
    scores = "field_final" if view["finished"] else "field_scores"
    embed.add_field(name=text(lang, scores), value=scores_text(lang, name, view)[:1024], inline=False)
    mode = text(lang, f"mode_{view['mode']}")
    embed.set_footer(text=text(lang, "footer", bag=view["bag_count"], mode=mode, id=record.id))
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
    someone at the table (`view["actions"]`). The table layer adds the private rack button."""
    if view["finished"]:
        return []
    items: list[discord.ui.Item[Any]] = []
    offered = set(view["actions"])
    fresh = view["freshness"]
    vote = view["vote"]
    if "vote" in offered and vote is not None:
        yes, no = (
            ("button_end", "button_play_on")
            if vote["kind"] == "end"
            else ("button_allowed", "button_not_allowed")
        )
        # Each button names the vote it answers ("yes.3"): a click on an older message is refused.
        number = fresh["vote"]
        items.append(
            _button(
                session_id,
                "vote",
                text(lang, yes),
                answer="yes",
                vote=number,
                style=discord.ButtonStyle.success,
            )
        )
        items.append(
            _button(
                session_id, "vote", text(lang, no), answer="no", vote=number, style=discord.ButtonStyle.danger
            )
        )
        return items
    # Challenge and Dispute name the board they were offered on: after another move they no longer act.
    move = fresh["move"]
    if "challenge" in offered:
        items.append(
            _button(session_id, "challenge", text(lang, "button_challenge"), move=move, emoji="❓",
                    style=discord.ButtonStyle.danger)
        )  # fmt: skip
    if "dispute" in offered:
        items.append(_button(session_id, "dispute", text(lang, "button_dispute"), move=move, emoji="⚖️"))
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
        text(lang, "button_ask_table"),
        letters=letters,
        square=square,
        direction=direction,
        move=move,
        emoji="⚖️",
        style=discord.ButtonStyle.primary,
    )


def board_file(png: bytes, lang: Lang) -> discord.File:
    return discord.File(io.BytesIO(png), filename=BOARD_FILE, description=text(lang, "board_picture"))
