"""A table's Discord markdown as HTML, and the rating chart as SVG: text is always escaped, only a fixed set of
tags is produced, mentions become names, timestamps and figures are written in the reader's language."""

from __future__ import annotations

import re
from xml.etree import ElementTree

from bot.web.chart import Series, rating_chart
from bot.web.markup import to_html

HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>"
ALLOWED_TAGS = {"strong", "em", "u", "s", "span", "code", "br", "blockquote"}


def tags(html: str) -> set[str]:
    return set(re.findall(r"<\s*/?\s*([a-zA-Z]+)", html))


def test_text_and_names_are_escaped_and_only_known_tags_come_out() -> None:
    html = to_html(f"**<@7>** wrote {HOSTILE} `{HOSTILE}` *{HOSTILE}*", {"7": HOSTILE}, "en")
    assert "<script" not in html and "<img" not in html
    assert tags(html) <= ALLOWED_TAGS
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 4


def test_markdown_becomes_emphasis_and_lines_become_breaks() -> None:
    html = to_html("**won** with *style*, ~~not~~ __this__\n> quoted\n`a **b**`", {}, "en")
    assert "<strong>won</strong>" in html and "<em>style</em>" in html
    assert "<s>not</s>" in html and "<u>this</u>" in html
    assert "<blockquote>quoted</blockquote>" in html
    assert "<code>a **b**</code>" in html  # nothing inside code is markdown


def test_a_mention_is_the_players_name_and_an_unknown_one_its_id() -> None:
    html = to_html("<@1> and <@!2>", {"1": "Ann"}, "en")
    assert '<span class="mention">@Ann</span>' in html and '<span class="mention">@2</span>' in html


def test_timestamps_are_written_in_the_readers_language() -> None:
    moment = 1_700_000_000  # 2023-11-14 22:13:20 UTC
    assert str(to_html(f"<t:{moment}:D>", {}, "en")) == "November 14, 2023"
    assert str(to_html(f"<t:{moment}:D>", {}, "fr")) == "14 novembre 2023"
    assert str(to_html(f"<t:{moment}:d>", {}, "de")) == "14.11.23"
    assert str(to_html(f"<t:{moment}:R>", {}, "en", now=moment - 3600)) == "in 1 hour"
    assert str(to_html(f"<t:{moment}:R>", {}, "de", now=moment + 120)) == "vor 2 Minuten"


def test_the_chart_is_well_formed_svg_with_a_point_per_game_and_escaped_labels() -> None:
    series = [Series(HOSTILE, 0x336699, [(1_700_000_000.0, 1234.5), (1_700_086_400.0, 1300.0)])]
    svg = str(rating_chart(series, "de", "Spielstärke <b>"))
    root = ElementTree.fromstring(svg)  # well-formed: nothing from a label became markup
    assert root.tag.endswith("svg")
    assert len(root.findall(".//{http://www.w3.org/2000/svg}circle")) == 2
    assert "<script" not in svg and "&lt;script&gt;" in svg
    assert "1.234,5" in svg  # the lowest figure on the axis, as German writes it
    assert "14.11.2023" in svg and "15.11.2023" in svg


def test_nothing_to_draw_is_no_chart() -> None:
    assert str(rating_chart([], "en", "Rating")) == ""
