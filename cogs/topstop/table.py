"""The Top Stop table: embeds and buttons drawn from the rules' public view, one message per stage.

Pure functions of the session record and `view_for(state, None)` (bot/games/topstop), so the cog stays a thin
layer of Discord calls and this module is tested without Discord. Only public information is drawn here: a
player's own words reach them through the private panel (cog.py), never through these embeds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord

from bot.engine.game import Event
from bot.games.topstop.game import MAX_WORD_LENGTH
from bot.store import SessionRecord
from bot.ui import components
from bot.ui.embeds import relative_time

GAME = "topstop"
COLOUR = discord.Colour.orange()
REASONS = {
    "not_a_word": "not in the dictionary",
    "wrong_letter": "wrong letter",
    "proper_noun": "proper noun",
    "abbreviation": "abbreviation",
    "common": "written by another player too",
    "duplicate": "used in an earlier round",
    "variant": "a form of an earlier word of yours",
    "level": "breaks the Level card",
    "category": "not in the category",
    "voted_out": "voted out",
}
LANGUAGE_NAMES = {"en": "English", "fr": "French", "de": "German"}
VOTE_RESULTS = {
    "accepted": "counted by vote",
    "crossed_out": "crossed out by vote",
    "kept": "no majority, the verdict stays",
}
EMBED_LIMIT = 6000  # characters in all of a message's embeds
# Room the review phase needs under the reveal for its Review or Vote field.
REVIEW_FIELD_ROOM = 400
# A new table message starts with each of these, so the channel keeps one message per round and reveal.
NEW_MESSAGE_EVENTS = frozenset({"round_started", "writing_closed", "finished"})
# Discord's limit (LIMITS.md) on a select option's label; its value `owner|word` always fits.
OPTION_LABEL_LIMIT = 100

Deadline = Callable[[SessionRecord, str], float | None]


class TopStopTable:
    """Draws the table; `deadline(record, key)` gives a timer's deadline for the countdowns."""

    colour = COLOUR

    def __init__(self, deadline: Deadline) -> None:
        self.deadline = deadline

    def closing_embed(
        self, record: SessionRecord, view: dict[str, Any], events: list[Event]
    ) -> discord.Embed:
        """What the message of the stage that `events` ended keeps: never a word that was not revealed."""
        kinds = {event.get("type") for event in events}
        history = view["history"]
        current = view.get("round")
        if current is None or "first_spinner" in kinds:
            return self.first_spin_embed(record, view, closed=True)
        if "writing_closed" in kinds:
            embed = discord.Embed(title=_round_title(history[-1]), colour=self.colour)
            lines = (
                [f"🛑 STOP by **{_name(record, history[-1]['stopped_by'])}**."]
                if history[-1]["stopped_by"]
                else []
            )
            lines.append("Writing is closed: the words are revealed below.")
            embed.description = "\n".join(lines)
            return embed
        if "round_scored" in kinds or (history and history[-1]["round"] == current["number"]):
            return self.reveal_embed(record, history[-1], view)
        # The game ended before this round's words were revealed: they stay secret.
        embed = discord.Embed(title=_round_title(current), colour=self.colour)
        embed.description = "The game ended before the words of this round were revealed."
        return embed

    def first_spin_embed(
        self, record: SessionRecord, view: dict[str, Any], *, closed: bool = False
    ) -> discord.Embed:
        """Who spins first: every spin-off so far, then who is still awaited (or who won it)."""
        embed = discord.Embed(title="Top Stop — who spins first?", colour=self.colour)
        lines = [] if closed else ["Everyone presses **Spin**: the letter closest to A spins first."]
        for spins, tied in zip(view["first_spins"], view["first_spin_ties"], strict=True):
            line = " · ".join(f"{_name(record, p)} **{letter}**" for p, letter in spins.items())
            if tied:
                lowest = spins[tied[0]]
                line += f" — a tie on **{lowest}**: {', '.join(_name(record, p) for p in tied)} spin again."
            lines.append(line)
        if view["phase"] == "first_spin":
            lines += [
                f"{_name(record, p)}: **{letter}**" if letter else f"{_name(record, p)}: waiting…"
                for p, letter in view["first_spin"].items()
            ]
            deadline = self.deadline(record, "spin")
            if deadline and not closed:
                lines.append(f"The bot spins for whoever has not {relative_time(deadline)}.")
        elif view.get("round"):
            lines.append(f"**{_name(record, view['round']['spinner'])}** spins first.")
        else:
            lines.append("The game ended before the first round.")
        embed.description = "\n".join(lines)
        return embed

    def table_embed(self, record: SessionRecord, view: dict[str, Any]) -> discord.Embed:
        phase = view["phase"]
        current = view.get("round") or {}
        embed = discord.Embed(colour=self.colour)
        if phase == "first_spin":
            embed = self.first_spin_embed(record, view)
        elif phase == "spin":
            embed.title = _round_title(current)
            tiebreak = " (tiebreak)" if current.get("tiebreak") else ""
            lines = [f"**{_name(record, current['spinner'])}** spins the letter{tiebreak}."]
            if current.get("respun"):
                lines.append(f"Re-spun by everyone's wish: {', '.join(current['respun'])}.")
            deadline = self.deadline(record, "spin")
            if deadline:
                lines.append(f"If nobody spins, the bot spins {relative_time(deadline)}.")
            embed.description = "\n".join(lines)
        elif phase == "writing":
            embed.title = _round_title(current)
            count = view["options"]["words"]
            deadline = self.deadline(record, "grace") or self.deadline(record, "writing")
            language = LANGUAGE_NAMES[view["options"]["language"]]
            lines = [f"Write {count} words starting with **{current['letter']}** ({language})."]
            if current.get("stopped_by"):
                lines.append(f"🛑 **{_name(record, current['stopped_by'])}** called STOP!")
            if deadline:
                lines.append(f"Writing closes {relative_time(deadline)}.")
            submitted = current.get("submitted", {})
            lines.append(
                "Submitted: "
                + (
                    ", ".join(f"{_name(record, p)} ({n})" for p, n in submitted.items())
                    if submitted
                    else "nobody yet"
                )
            )
            if current.get("respin_votes"):
                lines.append(f"Re-spin asked by {len(current['respin_votes'])} of {len(current['players'])}.")
            embed.description = "\n".join(lines)
        elif phase == "review":
            embed = self.reveal_embed(record, view["history"][-1], view, room=REVIEW_FIELD_ROOM)
            dispute = current.get("dispute")
            if dispute:
                deadline = self.deadline(record, "vote")
                verdict = (
                    "counted" if dispute["valid"] else f"crossed out ({REASONS.get(dispute['reason'], '')})"
                )
                embed.add_field(
                    name="🗳️ Vote",
                    value=(
                        f"**{_name(record, dispute['by'])}** disputes **{_shown(dispute['word'])}** by "
                        f"**{_name(record, dispute['of'])}**, now {verdict}. Should it count? "
                        f"{len(dispute['voted'])}/{len(dispute['voters'])} voted"
                        + (f"; closes {relative_time(deadline)}." if deadline else ".")
                    )[:1024],
                    inline=False,
                )
            else:
                deadline = self.deadline(record, "review")
                embed.add_field(
                    name="Review",
                    value="Think a verdict is wrong? Press **Dispute a word**."
                    + (f" Scoring {relative_time(deadline)}." if deadline else ""),
                    inline=False,
                )
        else:
            embed.title = "Top Stop — game over"
            winners = ", ".join(f"**{_name(record, w)}**" for w in view["winners"]) or "nobody"
            embed.description = f"🏆 {winners} win{'s' if len(view['winners']) == 1 else ''}!"
        if phase != "review":
            embed.add_field(
                name="Final scores" if phase == "over" else "Scores",
                value=self._scores(record, view),
                inline=False,
            )
        embed.set_footer(text=f"Target {view['options']['target']} · game #{record.id}")
        return embed

    def reveal_embed(
        self, record: SessionRecord, round_record: dict[str, Any], view: dict[str, Any], *, room: int = 0
    ) -> discord.Embed:
        """One round's words, crossed-out ones struck with a short reason, its points, votes and the scores.

        Long words are clipped when the whole would not fit Discord's limits, leaving `room` characters for
        a field the caller adds.
        """
        for clip in (None, 24, 12):
            embed = self._reveal(record, round_record, view, clip)
            if len(embed) + room <= EMBED_LIMIT and all(len(f.value or "") <= 1024 for f in embed.fields):
                break
        return embed

    def _reveal(
        self, record: SessionRecord, round_record: dict[str, Any], view: dict[str, Any], clip: int | None
    ) -> discord.Embed:
        embed = discord.Embed(title=_round_title(round_record), colour=self.colour)
        lines = ["Tiebreak round."] if round_record.get("tiebreak") else []
        if round_record.get("stopped_by"):
            lines.append(f"🛑 STOP by **{_name(record, round_record['stopped_by'])}**")
        embed.description = "\n".join(lines) or None
        points = round_record.get("points")
        left = set(view.get("left", []))
        # Words Reveal: starting with the STOP caller and moving clockwise (the order of the record's words),
        # then whoever submitted nothing.
        revealed = list(round_record["words"])
        for player in revealed + [p for p in round_record["players"] if p not in round_record["words"]]:
            entries = round_record["words"].get(player, [])
            words = [
                _shown(entry["word"], clip)
                if entry["valid"]
                else f"~~{_shown(entry['word'], clip)}~~ *{REASONS.get(entry['reason'], entry['reason'])}*"
                for entry in entries
            ] or ["*(no words)*"]
            penalty = round_record.get("penalties", {}).get(player, 0)
            if penalty:
                words.append(f"STOP penalty −{penalty}")
            header = _name(record, player, markdown=False)
            if player in left:
                header += " (left)"
            elif points is not None:
                header += f" — {points.get(player, 0):+d}"
            else:  # under review: what the list would score now; a vote may still change it
                header += f" — {sum(1 for e in entries if e['valid']) - penalty:+d}"
            embed.add_field(name=header[:256], value="\n".join(words)[:1024], inline=True)
        votes = [
            f"**{_shown(d['word'], clip)}** ({_name(record, d['of'])}): {VOTE_RESULTS[d['result']]}, "
            f"{d['accept']}–{d['reject']}"
            for d in round_record.get("disputes", [])
        ]
        if votes:
            embed.add_field(name="Votes", value=_fit_lines(votes), inline=False)
        if points is None:
            embed.add_field(name="Scores before this round", value=self._scores(record, view), inline=False)
        else:
            embed.add_field(name="Scores", value=self._scores(record, view), inline=False)
        return embed

    @staticmethod
    def _scores(record: SessionRecord, view: dict[str, Any]) -> str:
        ordered = sorted(view["scores"].items(), key=lambda item: -item[1])
        left = set(view.get("left", []))
        return _fit_lines(
            [
                f"**{score}** {_name(record, player)}" + (" (left)" if player in left else "")
                for player, score in ordered
            ]
        )

    def table_items(self, record: SessionRecord, view: dict[str, Any]) -> list[discord.ui.Item[Any]]:
        """The buttons the rules open now; each names its round (0: the first spin), a vote button its vote,
        so that a click on an older message is refused as stale."""
        sid, phase = record.id, view["phase"]
        current = view.get("round") or {}
        number = current.get("number", 0)

        def make(action: str, label: str, style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 emoji: str | None = None, **args: Any) -> discord.ui.Item[Any]:  # fmt: skip
            return components.button(
                components.spec(GAME, action).encode(sid, **args), label, style=style, emoji=emoji
            )

        items: list[discord.ui.Item[Any]] = []
        if phase in ("first_spin", "spin"):
            spin_round = 0 if phase == "first_spin" else number
            items.append(make("spin", "Spin", discord.ButtonStyle.primary, "🎡", round=spin_round))
        elif phase == "writing":
            items.append(make("write", "Write my words", discord.ButtonStyle.primary, "✍️", round=number))
            if not current.get("stopped_by"):
                items.append(make("stop", "STOP!", discord.ButtonStyle.danger, "🛑", round=number))
                # FAQ 2: until someone has words; never after STOP (the rules say when: `offered`).
                if "respin" in view["offered"]:
                    items.append(make("respin", "No words? Ask to re-spin", round=number))
        elif phase == "review":
            dispute = current.get("dispute")
            if dispute:
                vote = {"round": number, "dispute": dispute["number"]}
                items.append(make("vote", "It counts", discord.ButtonStyle.success, answer="yes", **vote))
                items.append(make("vote", "Cross it out", discord.ButtonStyle.danger, answer="no", **vote))
            else:
                items.append(make("dispute", "Dispute a word", emoji="⚖️", round=number))
        return items  # none once the game is over: the buttons go


def _name(record: SessionRecord, player: str, *, markdown: bool = True) -> str:
    """A player's display name as the table shows it (escaped where markdown would read it)."""
    name = record.name(player)
    return discord.utils.escape_markdown(name) if markdown else name


def _shown(word: str, clip: int | None = None) -> str:
    """A word as typed by a player, safe inside markdown; clipped to `clip` characters if given."""
    if clip is not None and len(word) > clip:
        word = word[: clip - 1] + "…"
    return discord.utils.escape_markdown(word)


def _words_text(words: list[str]) -> str:
    return ", ".join(_shown(word) for word in words)


def _round_title(round_info: dict[str, Any]) -> str:
    """Round n (and its letter once spun); `round_info` is the view's round or a history record."""
    number = round_info.get("number", round_info.get("round"))
    letter = round_info.get("letter")
    return f"Top Stop — round {number}" + (f": letter {letter}" if letter else "")


def _fit_lines(lines: list[str], limit: int = 1024) -> str:
    """Lines joined for one embed field; those that do not fit are counted instead of cut in half."""
    kept: list[str] = []
    for index, line in enumerate(lines):
        more = f"…and {len(lines) - index} more"
        if len("\n".join([*kept, line])) + len(more) + 1 > limit and index < len(lines) - 1:
            kept.append(more)
            break
        kept.append(line)
    return "\n".join(kept)[:limit]


def dispute_choices(
    record: SessionRecord, lists: dict[str, list[dict[str, Any]]]
) -> list[discord.SelectOption]:
    """One option per word open to a dispute, within Discord's limits for an option's value and label.

    The value is `owner|word`: an id of ≤ 20 digits and a word of ≤ MAX_WORD_LENGTH characters (counted once
    normalised, as stored) stay well under 100. A word written twice in one list is one choice: the rules
    put its first open copy to the vote.
    """
    seen: set[tuple[str, str]] = set()
    choices = []
    for owner, entries in lists.items():
        for entry in entries:
            word = entry["word"]
            if entry["disputed"] or (owner, word) in seen:
                continue
            seen.add((owner, word))
            verdict = "✅ counted" if entry["valid"] else f"❌ {REASONS.get(entry['reason'], '')}"
            choices.append(
                discord.SelectOption(
                    label=_clipped(f"{word} — {record.name(owner)}", OPTION_LABEL_LIMIT),
                    value=f"{owner}|{word}",
                    description=_clipped(verdict, 100),
                )
            )
    return choices


def _clipped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def words_modal(
    session_id: int, letter: str, count: int, saved: list[str], round_number: int | None = None
) -> discord.ui.Modal:
    """Up to five inputs for the round's words, prefilled with what the player saved before.

    The saved words are normalised (case-folded: `Maße` comes back as `masse`) and at most MAX_WORD_LENGTH
    long, the inputs' max_length. The form's custom_id names its round, like the buttons.
    """
    inputs: list[discord.ui.TextInput[Any]] = [
        discord.ui.TextInput(
            label=f"Word {index + 1}",
            custom_id=f"word{index + 1}",
            placeholder=f"a word starting with {letter}",
            default=saved[index] if index < len(saved) else None,
            required=False,
            max_length=MAX_WORD_LENGTH,
        )
        for index in range(min(count, 5))
    ]
    custom_id = components.spec(GAME, "words", modal=True).encode(session_id, round=round_number)
    return components.modal(custom_id, f"Your words on {letter}", inputs)
