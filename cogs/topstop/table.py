"""The Top Stop table: embeds and buttons drawn from the rules' public view, one message per stage.

Pure functions of the session record and `view_for(state, None)` (bot/games/topstop), so the cog stays a thin
layer of Discord calls and this module is tested without Discord. Only public information is drawn here: a
player's own words reach them through the private panel (cog.py), never through these embeds.
"""

from __future__ import annotations

import functools
from typing import Any

import discord

from bot.engine.game import Event
from bot.games.topstop.game import MAX_WORD_LENGTH
from bot.i18n import N_, t
from bot.store import SessionRecord
from bot.ui import components
from bot.ui.embeds import relative_time
from cogs.topstop import cards

GAME = "topstop"
COLOUR = discord.Colour.orange()
# Why a word is crossed out (RULES-NOTES' codes), and how a vote on a word ended: keys of the catalogue.
REASONS = {
    "not_a_word": N_("topstop.reason.not_a_word"),
    "wrong_letter": N_("topstop.reason.wrong_letter"),
    "proper_noun": N_("topstop.reason.proper_noun"),
    "abbreviation": N_("topstop.reason.abbreviation"),
    "common": N_("topstop.reason.common"),
    "duplicate": N_("topstop.reason.duplicate"),
    "variant": N_("topstop.reason.variant"),
    "level": N_("topstop.reason.level"),
    "category": N_("topstop.reason.category"),
    "voted_out": N_("topstop.reason.voted_out"),
}
LANGUAGE_NAMES = {
    "en": N_("general.language.en"),
    "fr": N_("general.language.fr"),
    "de": N_("general.language.de"),
}
VOTE_RESULTS = {
    "accepted": N_("topstop.vote_result.accepted"),
    "crossed_out": N_("topstop.vote_result.crossed_out"),
    "kept": N_("topstop.vote_result.kept"),
}
EMBED_LIMIT = 6000  # characters in all of a message's embeds
# Room the review phase needs under the reveal for its Review or Vote field.
REVIEW_FIELD_ROOM = 400
CARDS_FIELD_ROOM = 1100  # the advanced game's Cards field: at most 1024 characters and its name
# A new table message starts with each of these, so the channel keeps one message per round and reveal.
NEW_MESSAGE_EVENTS = frozenset({"round_started", "writing_closed", "finished"})
# Discord's limit (LIMITS.md) on a select option's label; its value `owner|word` always fits.
OPTION_LABEL_LIMIT = 100

# The writing form's title and each input's hint say what the Level in force asks (None: the base game,
# and Levels I and II, whose words begin with the letter or letters `letter` names); Level VII's name its
# category.
TITLES = {
    None: N_("topstop.modal.title"),
    "III": N_("topstop.modal.title_three"),
    "IV": N_("topstop.modal.title_four_or_more"),
    "V": N_("topstop.modal.title_without"),
    "VI": N_("topstop.modal.title_ending"),
    "X": N_("topstop.modal.title_staircase"),
}
PLACEHOLDERS = {
    None: N_("topstop.modal.placeholder"),
    "III": N_("topstop.modal.placeholder_three"),
    "IV": N_("topstop.modal.placeholder_four_or_more"),
    "V": N_("topstop.modal.placeholder_without"),
    "VI": N_("topstop.modal.placeholder_ending"),
    "X": N_("topstop.modal.placeholder_position"),
}
CATEGORY_TITLES = {
    "verbs": N_("topstop.modal.title_verbs"),
    "brands": N_("topstop.modal.title_brands"),
    "countries": N_("topstop.modal.title_countries"),
    "first_names": N_("topstop.modal.title_first_names"),
}
CATEGORY_PLACEHOLDERS = {
    "verbs": N_("topstop.modal.placeholder_verb"),
    "brands": N_("topstop.modal.placeholder_brand"),
    "countries": N_("topstop.modal.placeholder_country"),
    "first_names": N_("topstop.modal.placeholder_first_name"),
}
INPUT_LABEL_LIMIT = 45  # Discord's limit (LIMITS.md) on an input's label


class TopStopTable:
    """Draws the table in `lang`; the countdowns come from the view's `deadlines` (the table layer's, by
    meaning: "writing", "vote", …)."""

    colour = COLOUR

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang

    @staticmethod
    def deadline(view: dict[str, Any], meaning: str) -> float | None:
        deadline = (view.get("deadlines") or {}).get(meaning)
        return float(deadline) if deadline is not None else None

    def t(self, key: str, **params: object) -> str:
        """The text of `key` in the table's language."""
        return t(key, self.lang, **params)

    def reason(self, code: str | None) -> str:
        key = REASONS.get(code or "")
        return t(key, self.lang) if key else str(code or "")

    def vote_result(self, result: str) -> str:
        key = VOTE_RESULTS[result]
        return t(key, self.lang)

    def round_title(self, round_info: dict[str, Any]) -> str:
        """Round n (and its letter once spun); `round_info` is the view's round or a history record."""
        number = round_info.get("number", round_info.get("round"))
        letter = round_info.get("letter")
        if letter:
            return self.t("topstop.table.round_letter", number=number, letter=letter)
        return self.t("topstop.table.round", number=number)

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
            embed = discord.Embed(title=self.round_title(history[-1]), colour=self.colour)
            stopper = history[-1]["stopped_by"]
            lines = [self.t("topstop.table.stop_by", name=_name(record, stopper))] if stopper else []
            lines.append(self.t("topstop.table.writing_closed"))
            embed.description = "\n".join(lines)
            return embed
        if "round_scored" in kinds or (history and history[-1]["round"] == current["number"]):
            return self.reveal_embed(record, history[-1], view)
        # The game ended before this round's words were revealed: they stay secret.
        embed = discord.Embed(title=self.round_title(current), colour=self.colour)
        embed.description = self.t("topstop.table.ended_unrevealed")
        return embed

    def first_spin_embed(
        self, record: SessionRecord, view: dict[str, Any], *, closed: bool = False
    ) -> discord.Embed:
        """Who spins first: every spin-off so far, then who is still awaited (or who won it)."""
        embed = discord.Embed(title=self.t("topstop.table.first_spin_title"), colour=self.colour)
        lines = [] if closed else [self.t("topstop.table.first_spin_how")]
        for spins, tied in zip(view["first_spins"], view["first_spin_ties"], strict=True):
            line = " · ".join(f"{_name(record, p)} **{letter}**" for p, letter in spins.items())
            if tied:
                lowest = spins[tied[0]]
                names = ", ".join(_name(record, p) for p in tied)
                line += self.t("topstop.table.tie_again", letter=lowest, names=names)
            lines.append(line)
        if view["phase"] == "first_spin":
            lines += [
                self.t("topstop.table.spun", name=_name(record, p), letter=letter)
                if letter
                else self.t("topstop.table.waiting", name=_name(record, p))
                for p, letter in view["first_spin"].items()
            ]
            deadline = self.deadline(view, "spin")
            if deadline and not closed:
                lines.append(self.t("topstop.table.bot_spins_for", when=relative_time(deadline)))
        elif view.get("round"):
            lines.append(self.t("topstop.table.spins_first", name=_name(record, view["round"]["spinner"])))
        else:
            lines.append(self.t("topstop.table.ended_before_first"))
        embed.description = "\n".join(lines)
        return embed

    def table_embed(self, record: SessionRecord, view: dict[str, Any]) -> discord.Embed:
        phase = view["phase"]
        current = view.get("round") or {}
        embed = discord.Embed(colour=self.colour)
        if phase == "first_spin":
            embed = self.first_spin_embed(record, view)
        elif phase == "spin":
            embed.title = self.round_title(current)
            spins = (
                N_("topstop.table.spinner_tiebreak")
                if current.get("tiebreak")
                else N_("topstop.table.spinner")
            )
            lines = [t(spins, self.lang, name=_name(record, current["spinner"]))]
            if current.get("respun"):
                lines.append(self.t("topstop.table.respun", letters=", ".join(current["respun"])))
            lines += self.writers_lines(record, view)
            deadline = self.deadline(view, "spin")
            if deadline:
                lines.append(self.t("topstop.table.bot_spins", when=relative_time(deadline)))
            embed.description = "\n".join(lines)
        elif phase in ("draw", "choose"):
            embed.title = self.round_title(current)
            lines = [self.t("topstop.table.spinner", name=_name(record, current["spinner"]))]
            deadline = self.deadline(view, phase)
            if deadline:
                lines.append(self.t("topstop.cards.bot_decides", when=relative_time(deadline)))
            embed.description = "\n".join(lines)
        elif phase == "writing":
            embed.title = self.round_title(current)
            count = view["options"]["words"]
            deadline = self.deadline(view, "grace") or self.deadline(view, "writing")
            language_key = LANGUAGE_NAMES[view["options"]["language"]]
            language = t(language_key, self.lang)
            write = N_("topstop.table.write")
            if view.get("cards") and cards.level_of(view) is not None:
                write = N_("topstop.table.write_level")  # the Level (below) says where the letter goes
            lines = [t(write, self.lang, count=count, letter=current["letter"], language=language)]
            lines += self.writers_lines(record, view)
            if current.get("stopped_by"):
                lines.append(self.t("topstop.table.called_stop", name=_name(record, current["stopped_by"])))
            if deadline:
                lines.append(self.t("topstop.table.writing_closes", when=relative_time(deadline)))
            submitted = current.get("submitted", {})
            names = ", ".join(f"{_name(record, p)} ({n})" for p, n in submitted.items())
            lines.append(self.t("topstop.table.submitted", names=names or self.t("topstop.table.nobody_yet")))
            respin = current.get("respin")
            if respin and respin["yes"]:
                lines.append(self.t("topstop.table.respin_asked", n=respin["yes"], total=respin["eligible"]))
            embed.description = "\n".join(lines)
        elif phase == "review":
            # Room for the Review or Vote field, and in an advanced game for the Cards field.
            room = REVIEW_FIELD_ROOM + (CARDS_FIELD_ROOM if view.get("cards") else 0)
            embed = self.reveal_embed(record, view["history"][-1], view, room=room)
            dispute = current.get("dispute")
            if dispute:
                deadline = self.deadline(view, "vote")
                verdict = (
                    self.t("topstop.table.verdict_counted")
                    if dispute["valid"]
                    else self.t("topstop.table.verdict_crossed", reason=self.reason(dispute["reason"]))
                )
                question = self.t(
                    "topstop.table.dispute",
                    by=_name(record, dispute["by"]),
                    word=_shown(dispute["word"]),
                    of=_name(record, dispute["of"]),
                    verdict=verdict,
                    voted=dispute["tally"]["voted"],
                    voters=dispute["tally"]["eligible"],
                    closes=self.t("topstop.table.vote_closes", when=relative_time(deadline))
                    if deadline
                    else ".",
                )
                embed.add_field(name=self.t("topstop.table.vote"), value=question[:1024], inline=False)
            else:
                deadline = self.deadline(view, "review")
                review = self.t("topstop.table.review_how")
                if deadline:
                    review += " " + self.t("topstop.table.scoring", when=relative_time(deadline))
                review += "\n" + self.reviewing_line(record, view)
                embed.add_field(name=self.t("topstop.table.review"), value=review[:1024], inline=False)
        else:
            embed.title = self.t("topstop.table.over_title")
            winners = ", ".join(f"**{_name(record, w)}**" for w in view["winners"])
            key = N_("topstop.table.winner") if len(view["winners"]) == 1 else N_("topstop.table.winners")
            embed.description = t(key, self.lang, names=winners or self.t("topstop.table.nobody"))
        if view.get("cards") and phase != "over":
            lines = cards.table_lines(record, view, self.lang)
            embed.add_field(name=self.t("topstop.cards.title"), value=self._fit(lines), inline=False)
        if phase != "review":
            scores = N_("topstop.table.final_scores") if phase == "over" else N_("topstop.table.scores")
            embed.add_field(name=t(scores, self.lang), value=self._scores(record, view), inline=False)
        embed.set_footer(text=self.t("topstop.table.footer", target=view["options"]["target"], id=record.id))
        return embed

    def reviewing_line(self, record: SessionRecord, view: dict[str, Any]) -> str:
        """Who has not said "nothing to dispute" yet: the round is scored as soon as nobody is left."""
        current, left = view["round"], set(view.get("left", []))
        ready = set(current.get("ready", []))
        waiting = [p for p in current["players"] if p not in left and p not in ready]
        if not ready:
            return self.t("topstop.table.reviewing_all")
        return self.t("topstop.table.reviewing", names=", ".join(_name(record, p) for p in waiting))

    def writers_lines(self, record: SessionRecord, view: dict[str, Any]) -> list[str]:
        """Who writes this round, when not every seated player does (a tiebreak, a player sitting out)."""
        left = set(view.get("left", []))
        writers = [p for p in view["round"]["players"] if p not in left]
        if len(writers) == len([p for p in view["players"] if p not in left]):
            return []
        return [self.t("topstop.table.writers", names=", ".join(_name(record, p) for p in writers))]

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
        embed = discord.Embed(title=self.round_title(round_record), colour=self.colour)
        lines = [self.t("topstop.table.tiebreak_round")] if round_record.get("tiebreak") else []
        if round_record.get("stopped_by"):
            lines.append(self.t("topstop.table.stop_by", name=_name(record, round_record["stopped_by"])))
        embed.description = "\n".join(lines) or None
        points = round_record.get("points")
        left = set(view.get("left", []))
        # Words Reveal: starting with the STOP caller and moving clockwise (the order of the record's words),
        # then whoever submitted nothing.
        revealed = list(round_record["words"])
        for player in revealed + [p for p in round_record["players"] if p not in round_record["words"]]:
            entries = round_record["words"].get(player, [])
            words = [self._judged(entry, clip) for entry in entries] or [self.t("topstop.table.no_words")]
            penalty = round_record.get("penalties", {}).get(player, 0)
            if penalty:
                words.append(self.t("topstop.table.stop_penalty", n=penalty))
            header = _name(record, player, markdown=False)
            if player in left:
                header += " " + self.t("topstop.table.left")
            elif points is not None:
                header += f" — {points.get(player, 0):+d}"
            else:  # under review: what the list would score now; a vote may still change it
                header += f" — {sum(1 for e in entries if e['valid']) - penalty:+d}"
            embed.add_field(name=header[:256], value="\n".join(words)[:1024], inline=True)
        votes = [
            self.t(
                "topstop.table.vote_line",
                word=_shown(d["word"], clip),
                name=_name(record, d["of"]),
                result=self.vote_result(d["result"]),
                accept=d["accept"],
                reject=d["reject"],
            )
            for d in round_record.get("disputes", [])
        ]
        if votes:
            embed.add_field(name=self.t("topstop.table.votes"), value=self._fit(votes), inline=False)
        scores = N_("topstop.table.scores_before") if points is None else N_("topstop.table.scores")
        embed.add_field(name=t(scores, self.lang), value=self._scores(record, view), inline=False)
        return embed

    def _judged(self, entry: dict[str, Any], clip: int | None) -> str:
        """A revealed word: plain if it counts, struck with its reason if not; a verdict this server's
        dictionary gave (a vote in an earlier game) says so, with the day of that vote."""
        word = _shown(entry["word"], clip)
        ruled = entry.get("ruled")
        if entry["valid"]:
            accepted = self.t("topstop.reason.server_accepted", day=ruled)
            return f"{word} *{accepted}*" if ruled else word
        reason = self.reason(entry["reason"])
        if ruled and entry["reason"] == "voted_out":
            reason = self.t("topstop.reason.server_refused", day=ruled)
        return f"~~{word}~~ *{reason}*"

    def _scores(self, record: SessionRecord, view: dict[str, Any]) -> str:
        ordered = sorted(view["scores"].items(), key=lambda item: -item[1])
        left = set(view.get("left", []))
        marked = " " + self.t("topstop.table.left")
        # The advanced game: how many Level cards each holds is public (which ones is not).
        held = cards.holdings(view) if view.get("cards") else {}
        return self._fit(
            [
                f"**{score}** {_name(record, player)}"
                + (f" · 🃏 {held[player]}" if held.get(player) else "")
                + (marked if player in left else "")
                for player, score in ordered
            ]
        )

    def _fit(self, lines: list[str], limit: int = 1024) -> str:
        """Lines joined for one embed field; those that do not fit are counted instead of cut in half."""
        kept: list[str] = []
        for index, line in enumerate(lines):
            more = self.t("topstop.table.more", n=len(lines) - index)
            if len("\n".join([*kept, line])) + len(more) + 1 > limit and index < len(lines) - 1:
                kept.append(more)
                break
            kept.append(line)
        return "\n".join(kept)[:limit]

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
            spin = self.t("topstop.button.spin")
            items.append(make("spin", spin, discord.ButtonStyle.primary, "🎡", round=spin_round))
        elif phase in ("draw", "choose"):
            choice = view["cards"]["choice"]
            if choice is not None:
                label = self.t("topstop.cards.button.choose", player=record.name(choice["player"]))
                items.append(make("choice", label, discord.ButtonStyle.primary, "🎴", round=number))
            elif phase == "draw" and not (view["cards"].get("round") or {}).get("decided"):
                label = self.t("topstop.cards.button.draw", player=record.name(current["spinner"]))
                items.append(make("the_draw", label, discord.ButtonStyle.primary, "🃏", round=number))
        elif phase == "writing":
            # Writing buttons also name the re-spins so far: after a re-spin they no longer act.
            respins = view["freshness"]["respins"]
            write = self.t("topstop.button.write")
            items.append(make("write", write, discord.ButtonStyle.primary, "✍️", round=number, page=1,
                              respins=respins))  # fmt: skip
            if not current.get("stopped_by"):
                stop = self.t("topstop.button.stop")
                items.append(
                    make("stop", stop, discord.ButtonStyle.danger, "🛑", round=number, respins=respins)
                )
                # FAQ 2: until someone has words; never after STOP (the rules say when: `offered`).
                if "respin" in view["offered"]:
                    label = self.t("topstop.button.respin")
                    items.append(make("respin", label, round=number, respins=respins))
        elif phase == "review":
            dispute = current.get("dispute")
            if dispute:
                vote = {"round": number, "dispute": dispute["number"]}
                counts, cross = self.t("topstop.button.counts"), self.t("topstop.button.cross_out")
                items.append(make("vote", counts, discord.ButtonStyle.success, answer="yes", **vote))
                items.append(make("vote", cross, discord.ButtonStyle.danger, answer="no", **vote))
            else:
                items.append(make("dispute", self.t("topstop.button.dispute"), emoji="⚖️", round=number))
                if "review_done" in view["offered"]:  # someone of the round has not said it yet
                    review = view["freshness"]["review"]  # a click made before a vote is stale after it
                    done = self.t("topstop.button.review_done")
                    items.append(make("review_done", done, discord.ButtonStyle.success, "✅", round=number,
                                      review=review))  # fmt: skip
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


def dispute_choices(
    record: SessionRecord, lists: dict[str, list[dict[str, Any]]], lang: str = "en"
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
            if entry["valid"]:
                verdict = "✅ " + t("topstop.table.verdict_counted", lang)
            else:
                verdict = "❌ " + TopStopTable(lang).reason(entry["reason"])
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


@functools.lru_cache(maxsize=1024)
def _word_input_texts(
    lang: str, letter: str, level: str | None, category: str | None, n: int
) -> tuple[str, str]:
    """The label and hint of the form's n-th input: the same for every player of a round, so kept (the form
    is a click's first answer: nothing can be sent before it)."""
    label = t("topstop.modal.staircase", lang, n=n, letter=letter) if level == "X" else None
    hint = CATEGORY_PLACEHOLDERS.get(category or "") or PLACEHOLDERS.get(level, PLACEHOLDERS[None])
    placeholder = t(hint, lang, letter=letter, n=n)
    return (label or t("topstop.modal.word", lang, n=n))[:INPUT_LABEL_LIMIT], placeholder


def words_modal_title(lang: str, letter: str, level: str | None, category: str | None = None) -> str:
    """What the Level in force asks, in the form's title: "Three-letter words on M", "Your brands on B"."""
    key = CATEGORY_TITLES.get(category or "") or TITLES.get(level, TITLES[None])
    return t(key, lang, letter=letter)


def words_modal(
    session_id: int,
    letter: str,
    count: int,
    saved: list[str],
    round_number: int | None = None,
    lang: str = "en",
    *,
    page: int = 1,
    level: str | None = None,
    category: str | None = None,
    respins: int,
) -> discord.ui.Modal:
    """Five inputs a page for the round's words, prefilled with what the player saved before.

    Rounds of 6 or 10 words (the 6-vs-10 cards) have a second page for words 6-10. The title and each
    input's hint follow the Level in force (`letter` is the start a word needs, e.g. "PO" under Level II;
    `category` Level VII's); under Level X each input names the position the letter must take. The saved
    words are normalised (case-folded: `Maße` comes back as `masse`) and at most MAX_WORD_LENGTH long, the
    inputs' max_length. The form's custom_id names its round, page and the re-spins so far, like the buttons.
    """
    first = (page - 1) * cards.PAGE
    inputs: list[discord.ui.TextInput[Any]] = []
    for index in range(first, min(count, first + cards.PAGE)):
        n = index + 1
        label, placeholder = _word_input_texts(lang, letter, level, category, n)
        inputs.append(
            discord.ui.TextInput(
                label=label,
                custom_id=f"word{n}",
                placeholder=placeholder,
                default=saved[index] if index < len(saved) and saved[index] else None,
                required=False,
                max_length=MAX_WORD_LENGTH,
            )
        )
    pages = (count + cards.PAGE - 1) // cards.PAGE
    spec = components.spec(GAME, "words", modal=True)
    custom_id = spec.encode(session_id, round=round_number, respins=respins, page=page if pages > 1 else None)
    title = words_modal_title(lang, letter, level, category)
    if pages > 1:
        title = t("topstop.modal.title_page", lang, title=title, page=page, pages=pages)
    return components.modal(custom_id, title, inputs)


def writing_form(
    session_id: int, view: dict[str, Any], player: str, lang: str, page: int = 1
) -> discord.ui.Modal:
    """The player's writing form for the round in `view` (theirs): its words to write, the Level in force and
    Level VII's category, the words they saved."""
    current = view["round"]
    level = cards.level_of(view) if view.get("cards") else None
    return words_modal(
        session_id,
        cards.word_start(view),
        cards.words_for(view, player),
        current.get("your_words", []),
        current["number"],
        lang,
        page=page,
        level=level,
        category=cards.category_of(view) if level == "VII" else None,
        respins=view["freshness"]["respins"],
    )
