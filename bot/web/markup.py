"""What a Discord message says, as HTML: the tables' embeds are written in Discord's markdown, with
mentions and timestamps the client would draw. Every piece of text is escaped first; only a fixed set of
tags is ever produced (strong, em, u, s, code, br, blockquote), so a name or a word can never become markup.
Mentions become the player's name, timestamps a date in the reader's language (Babel, UTC)."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from babel.dates import format_date, format_datetime, format_time, format_timedelta
from markupsafe import Markup, escape

# Discord's special tokens: a member's mention, a timestamp, a role or channel mention, a custom emoji.
TOKEN = re.compile(
    r"<@!?(?P<user>\d+)>|<t:(?P<at>-?\d+)(?::(?P<style>[tTdDfFR]))?>|<[#@]&?\d+>|<a?:(?P<emoji>\w+):\d+>"
)
MARKER = "\x00{}\x00"
MARKERS = re.compile("\x00(\\d+)\x00")
SPANS = (
    (re.compile(r"\*\*(.+?)\*\*", re.S), "strong"),
    (re.compile(r"__(.+?)__", re.S), "u"),
    (re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", re.S), "em"),
    (re.compile(r"~~(.+?)~~", re.S), "s"),
    (re.compile(r"\|\|(.+?)\|\|", re.S), "span"),
)
CODE = re.compile(r"`([^`]+)`")


def when(moment: float, style: str | None, lang: str, now: float | None = None) -> str:
    """A Discord timestamp as the reader's language writes it."""
    stamp = datetime.fromtimestamp(moment, UTC)
    if style == "t":
        return str(format_time(stamp, format="short", locale=lang, tzinfo=UTC))
    if style == "T":
        return str(format_time(stamp, format="medium", locale=lang, tzinfo=UTC))
    if style == "d":
        return str(format_date(stamp, format="short", locale=lang))
    if style == "D":
        return str(format_date(stamp, format="long", locale=lang))
    if style == "R":
        delta = moment - (time.time() if now is None else now)
        return str(format_timedelta(timedelta(seconds=delta), add_direction=True, locale=lang))
    return str(format_datetime(stamp, format="medium", locale=lang, tzinfo=UTC))


def to_html(text: str, names: Mapping[str, str], lang: str, now: float | None = None) -> Markup:
    """Discord-flavoured `text` as safe HTML."""
    pieces: list[str] = []

    def token(match: re.Match[str]) -> str:
        if match["user"]:
            shown = Markup('<span class="mention">@{}</span>').format(names.get(match["user"], match["user"]))
        elif match["at"]:
            shown = escape(when(float(match["at"]), match["style"], lang, now))
        elif match["emoji"]:
            shown = escape(f":{match['emoji']}:")
        else:
            shown = escape("#")
        pieces.append(str(shown))
        return MARKER.format(len(pieces) - 1)

    marked = str(escape(TOKEN.sub(token, text)))

    def code(match: re.Match[str]) -> str:
        pieces.append(f"<code>{match[1]}</code>")
        return MARKER.format(len(pieces) - 1)

    marked = CODE.sub(code, marked)  # nothing inside code is markdown
    for pattern, tag in SPANS:
        marked = pattern.sub(rf"<{tag}>\1</{tag}>", marked)
    lines = []
    for line in marked.split("\n"):
        if line.startswith("&gt; "):
            line = f"<blockquote>{line[5:]}</blockquote>"
        elif re.match(r"^#{1,3} ", line):
            line = f"<strong>{line.lstrip('#').strip()}</strong>"
        lines.append(line)
    html = "<br>".join(lines).replace("</blockquote><br>", "</blockquote>")
    return Markup(MARKERS.sub(lambda m: pieces[int(m[1])], html))
