"""Top Stop in a channel: `/topstop new`, the spin, the writing form, STOP, the reveal, disputes and votes.

Thin: every decision is the rules' (bot/games/topstop); the table layer (bot/ui/table.py) finds the game,
acts, redraws and answers errors; this module maps buttons to actions and draws through table.py.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.engine.errors import BadAction
from bot.engine.game import Event
from bot.games.topstop import records
from bot.i18n import N_, t
from bot.store import SessionRecord
from bot.ui import codec, components
from bot.ui.components import Click
from bot.ui.replies import reply_private, update_clicked
from bot.ui.table import Table, TableCog, button
from bot.ui.translator import command_text
from cogs.topstop import cards
from cogs.topstop.table import (
    COLOUR,
    GAME,
    LANGUAGE_NAMES,
    NEW_MESSAGE_EVENTS,
    TopStopTable,
    _name,
    _shown,
    _words_text,
    dispute_choices,
    writing_form,
)

if TYPE_CHECKING:
    from bot.app import TopBot

# Every round-bound button names its round (the rules' freshness): an id without it is refused as stale.
ROUND = codec.fresh("round")
PAGE = codec.number("page", 1, 2, optional=True)  # the writing form's page (rounds of 6 or 10 words)
# A writing button or form also names the re-spins so far: words for the letter before a re-spin are stale.
RESPINS = codec.fresh("respins")
# /topstop new's bounds, checked here too: Discord's client enforces them, a crafted request may not.
NEW_BOUNDS = {"target": (5, 500), "writing_time": (20, 900), "grace": (1, 120)}
DISPUTE_MENUS = 5  # at most 5 menus of 25 words: one message's worth of components
MODE_NAMES = {
    "base": N_("topstop.cmd.mode.base"),
    "levels": N_("topstop.cmd.mode.levels"),
    "advanced": N_("topstop.cmd.mode.advanced"),
}
OPTION_TEXTS = {
    "target": N_("topstop.lobby.target"),
    "writing_time": N_("topstop.lobby.writing_time"),
    "grace": N_("topstop.lobby.grace"),
}


class TopStopCog(TableCog, name="Top Stop"):
    game_name = GAME
    title = "Top Stop"
    colour = COLOUR
    new_message_events = NEW_MESSAGE_EVENTS
    panel_emoji = "✍️"

    group = app_commands.Group(name="topstop", description=command_text("topstop.cmd.group"), guild_only=True)

    def __init__(self, bot: TopBot) -> None:
        super().__init__(bot)
        self.drawer = self.drawing("en")

    def drawing(self, lang: str) -> TopStopTable:
        """The table's drawer in `lang` (the channel's messages speak the table's language)."""
        return TopStopTable(lang)

    # -- commands ---------------------------------------------------------------------------------------

    @group.command(name="new", description=command_text("topstop.cmd.new"))
    @app_commands.describe(
        language=command_text("topstop.cmd.new.language"),
        target=command_text("topstop.cmd.new.target"),
        writing_time=command_text("topstop.cmd.new.writing_time"),
        grace=command_text("topstop.cmd.new.grace"),
        mode=command_text("topstop.cmd.new.mode"),
    )
    @app_commands.choices(
        language=[
            app_commands.Choice(name=command_text(key), value=code) for code, key in LANGUAGE_NAMES.items()
        ],
        mode=[
            app_commands.Choice(name=command_text("topstop.cmd.mode.base"), value="base"),
            app_commands.Choice(name=command_text("topstop.cmd.mode.levels"), value="levels"),
            app_commands.Choice(name=command_text("topstop.cmd.mode.advanced"), value="advanced"),
        ],
    )
    async def new(
        self,
        interaction: discord.Interaction[Any],
        language: app_commands.Choice[str] | None = None,
        target: app_commands.Range[int, 5, 500] | None = None,
        writing_time: app_commands.Range[int, 20, 900] | None = None,
        grace: app_commands.Range[int, 1, 120] | None = None,
        mode: app_commands.Choice[str] | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        check_bounds(target=target, writing_time=writing_time, grace=grace)
        default_language = await self.bot.store.guild_settings.language(
            interaction.guild_id, self.bot.settings.default_language
        )
        options: dict[str, Any] = {"language": language.value if language else default_language}
        for name, value in (("mode", mode.value if mode else None), ("target", target),
                            ("writing_time", writing_time), ("grace", grace)):  # fmt: skip
            if value is not None:
                options[name] = value
        await self.open_lobby(interaction, options)

    def complete_options(self, options: dict[str, Any]) -> dict[str, Any]:
        if options.get("mode") == "advanced":  # the host's or the server's default
            # The birthday card's "today": the day the game was opened, so that a replay gives the same gift.
            return {**options, "today": datetime.datetime.now(datetime.UTC).strftime("%m-%d")}
        return options

    @group.command(name="cards", description=command_text("topstop.cmd.cards"))
    async def my_cards(self, interaction: discord.Interaction[Any]) -> None:
        """Your own Level cards, privately; the table shows only how many each player holds."""
        record = await self.channel_game(interaction)
        await self.seated(interaction, record.id)
        view = await self.bot.sessions.view(record.id, str(interaction.user.id))
        if not view.get("cards"):
            raise BadAction("topstop.cards.base_game")
        lang = self.user_lang(interaction)
        await reply_private(interaction, cards.my_cards(view, str(interaction.user.id), lang))

    async def start_setup(self, record: SessionRecord) -> dict[str, Any]:
        """The advanced game's birthday card needs the birthdays the players registered (/profile birthday)."""
        if record.options.get("mode") != "advanced":
            return {}
        birthdays = {}
        for player in record.players:
            profile = await self.bot.store.profiles.get(player)
            if profile is not None and profile.birth_month and profile.birth_day:
                birthdays[player] = f"{profile.birth_month:02d}-{profile.birth_day:02d}"
        return {"birthdays": birthdays} if birthdays else {}

    def describe_options(self, options: dict[str, Any], lang: str) -> str:
        """The lobby's options as players read them: "English · Base game · target 50"."""
        parts = [t(LANGUAGE_NAMES.get(options.get("language", "en"), LANGUAGE_NAMES["en"]), lang)]
        parts.append(t(MODE_NAMES.get(options.get("mode", "base"), MODE_NAMES["base"]), lang))
        for name, key in OPTION_TEXTS.items():
            if options.get(name) is not None:
                parts.append(t(key, lang, n=options[name]))
        return " · ".join(parts)

    # -- the table --------------------------------------------------------------------------------------

    async def record_lines(self, guild_id: int, user_id: str, lang: str) -> list[str]:
        """The valid-word rate, the longest valid word and the most disputed word, from the revealed lists
        of the member's finished games (words still being written when a game ended were never revealed)."""
        rows = await self.bot.store.stats.member_entries(
            guild_id, user_id, self.game_name, each=records.ROUNDS, keyed=records.LISTS, fields=records.FIELDS
        )
        record = records.word_record(rows)
        if not record.revealed:
            return []
        lines = [
            t(
                "topstop.stats.valid",
                lang,
                valid=record.valid,
                revealed=record.revealed,
                rate=record.valid_percent,
            )
        ]
        if record.longest is not None:
            lines.append(t("topstop.stats.longest", lang, word=record.longest))
        if record.most_disputed is not None:
            lines.append(t("topstop.stats.disputed", lang, word=record.most_disputed, times=record.disputes))
        return lines

    async def render(
        self, record: SessionRecord, view: dict[str, Any], events: list[Event], lang: str
    ) -> Table:
        drawer = self.drawing(lang)
        return Table(drawer.table_embed(record, view), drawer.table_items(record, view))

    def retired(
        self, record: SessionRecord, view: dict[str, Any], events: list[Event], lang: str
    ) -> discord.Embed | None:
        return self.drawing(lang).closing_embed(record, view, events)

    def offers_panel(self, view: dict[str, Any]) -> bool:
        return bool(view["phase"] == "writing")  # a player's words are secret only while writing

    def panel_text(self, lang: str) -> str:
        return t("topstop.button.mine", lang)

    async def private_panel(self, record: SessionRecord, view: dict[str, Any], lang: str) -> Table:
        """The player's words this round, and the button that opens the form while they write."""
        current = view.get("round") or {}
        mine = current.get("your_words")
        if mine is None:
            said = t("topstop.panel.none", lang)
        elif not mine:
            said = t("topstop.panel.empty", lang)
        else:
            said = t("topstop.panel.words", lang, words=_words_text(mine))
        items: list[discord.ui.Item[Any]] = []
        if view["phase"] == "writing":  # how far the others are: the console follows the table live
            submitted = current.get("submitted") or {}
            names = ", ".join(f"{_name(record, p)} ({n})" for p, n in submitted.items())
            said += "\n" + t(
                "topstop.table.submitted", lang, names=names or t("topstop.table.nobody_yet", lang)
            )
        if view["phase"] == "writing" and mine is not None:
            write = components.spec(GAME, "write").encode(
                record.id, round=current.get("number"), respins=view["freshness"]["respins"]
            )
            label = t("topstop.console.write", lang)
            items.append(components.button(write, label, style=discord.ButtonStyle.primary, emoji="✍️"))
        return Table(discord.Embed(description=said, colour=COLOUR), items)

    async def news_lines(self, session_id: int, events: list[Event], lang: str) -> list[str]:
        """A Level card drawn face down for the player by a timer, one stolen from them, a peek."""
        return cards.private_news(events, await self.bot.sessions.session(session_id), lang)

    # -- buttons ------------------------------------------------------------------------------------------

    @button("spin", ROUND)
    async def on_spin(self, click: Click) -> None:
        await self.act(click.interaction, click.session_id, {"do": "spin", **click.args})

    @button("stop", ROUND, RESPINS)
    async def on_stop(self, click: Click) -> None:
        await self.act(click.interaction, click.session_id, {"do": "stop", **click.args})

    @button("respin", ROUND, RESPINS)
    async def on_respin(self, click: Click) -> None:
        await self.act(click.interaction, click.session_id, {"do": "respin", **click.args})

    @button("vote", codec.choice("answer", "yes", "no"), ROUND, codec.fresh("dispute"))
    async def on_vote(self, click: Click) -> None:
        action = {"do": "vote", "accept": click.args.pop("answer") == "yes", **click.args}
        result = await self.act(click.interaction, click.session_id, action)
        closed = any(event.get("type") == "vote_closed" for event in result.events)
        said = N_("topstop.vote.cast_closed") if closed else N_("topstop.vote.cast")
        await click.interaction.followup.send(t(said, self.user_lang(click.interaction)), ephemeral=True)

    @button("review_done", ROUND, codec.fresh("review"))
    async def on_review_done(self, click: Click) -> None:
        """Nothing (more) to dispute: the round is scored once every player of the round has said it."""
        result = await self.act(click.interaction, click.session_id, {"do": "review_done", **click.args})
        scored = any(event.get("type") == "round_scored" for event in result.events)
        said = N_("topstop.review_done.last") if scored else N_("topstop.review_done.said")
        await click.interaction.followup.send(t(said, self.user_lang(click.interaction)), ephemeral=True)

    @button("write", ROUND, RESPINS, PAGE, opens_form=True, opens={"do": "submit", "words": []})
    async def on_write(self, click: Click) -> None:
        """The form opens at once (a modal must be the first answer), prefilled with the saved words; the
        layer has checked that the rules take this player's list now."""
        view = await self.bot.sessions.view(click.session_id, click.player)
        count = cards.words_for(view, click.player)
        page = click.args.get("page") or 1
        if (page - 1) * cards.PAGE >= count:
            raise BadAction("topstop.refusal.no_page", count=count)
        lang = self.user_lang(click.interaction)
        await click.interaction.response.send_modal(
            writing_form(click.session_id, view, click.player, lang, page)
        )

    @button("words", ROUND, RESPINS, PAGE, modal=True)
    async def on_words(self, click: Click) -> None:
        page = click.args.pop("page", None) or 1
        first = (page - 1) * cards.PAGE
        view = await self.bot.sessions.view(click.session_id, click.player)
        current = view.get("round") or {}
        count = cards.words_for(view, click.player)
        # This page's inputs replace their slots; the words saved on the other page stay.
        words = list(current.get("your_words") or [])
        words += [""] * max(0, max(count, first + cards.PAGE) - len(words))
        for index in range(first, first + cards.PAGE):
            words[index] = click.values.get(f"word{index + 1}", "")
        while words and not words[-1]:
            words.pop()
        result = await self.act(
            click.interaction, click.session_id, {"do": "submit", "words": words, **click.args}
        )
        mine: list[str] = next(
            (e["words"] for e in result.private_to(click.player) if e.get("type") == "your_words"), []
        )
        lang = self.user_lang(click.interaction)
        shown = [w for w in mine if w]
        saved = f"**{_words_text(shown)}**" if shown else t("topstop.saved.none", lang)
        message = t("topstop.saved", lang, words=saved)
        if count <= cards.PAGE:
            await click.interaction.followup.send(message, ephemeral=True)
            return
        # A second page: a modal cannot open another, so a button opens the other page.
        other = 2 if page == 1 else 1
        first_word, last_word = (other - 1) * cards.PAGE + 1, min(count, other * cards.PAGE)
        label = (
            t("topstop.button.page", lang, first=first_word, last=last_word)
            if last_word > first_word
            else t("topstop.button.page_one", lang, n=first_word)
        )
        again = components.button(
            components.spec(GAME, "write").encode(
                click.session_id, round=current.get("number"), page=other, respins=click.args.get("respins")
            ),
            label,
            style=discord.ButtonStyle.primary,
            emoji="✍️",
        )
        message += "\n" + t("topstop.saved.count", lang, n=len(shown), count=count)
        await click.interaction.followup.send(message, ephemeral=True, view=components.view_of(again))

    # -- the advanced game's cards ------------------------------------------------------------------------

    @button("the_draw", ROUND, opens={"do": "draw", "level": False})
    async def on_the_draw(self, click: Click) -> None:
        """The spinner's Draw, privately: a Level card first or not, then the Ba Oossee card."""
        view = await self.bot.sessions.view(click.session_id, click.player)
        text, items = cards.draw_prompt(click.session_id, view, self.user_lang(click.interaction))
        await reply_private(click.interaction, text, view=components.view_of(*items))

    @button("draw", codec.choice("level", "yes", "no"), ROUND)
    async def on_draw(self, click: Click) -> None:
        action = {"do": "draw", "level": click.args.pop("level") == "yes", **click.args}
        await self.card_action(click, action)

    @button("choice", ROUND, opens="choose")
    async def on_choice(self, click: Click) -> None:
        """The open choice's question, privately, to the player who makes it."""
        record = await self.bot.sessions.session(click.session_id)
        view = await self.bot.sessions.view(click.session_id, click.player)
        lang = self.user_lang(click.interaction)
        text, items = cards.choice_prompt(record, click.session_id, view, lang)
        await reply_private(click.interaction, text, view=components.view_of(*items))

    @button("choose", ROUND, codec.fresh("choice"), codec.choice("kind", *cards.CHOICE_KINDS),
            codec.choice("peek", "yes", "no", optional=True))  # fmt: skip
    async def on_choose(self, click: Click) -> None:
        kind = click.args.pop("kind")
        if kind == "peek":
            answer: Any = click.args.pop("peek", None) == "yes"
        else:
            click.args.pop("peek", None)
            if len(click.selected) != 1:
                raise BadAction("topstop.refusal.pick_one")
            answer = click.selected[0]
        await self.card_action(click, {"do": "choose", kind: answer, **click.args})

    async def card_action(self, click: Click, action: dict[str, Any]) -> None:
        """A Draw or a choice made in a private prompt: the prompt says it is done, then come the player's
        own news (a face-down Level card, a peek, a stolen card) and their next question, if any."""
        lang = self.user_lang(click.interaction)
        done = t("topstop.cards.done", lang)
        result = await self.act(
            click.interaction,
            click.session_id,
            action,
            confirm=lambda: update_clicked(click.interaction, content=done, view=None),
        )
        lines = cards.private_news(result.private_to(click.player), result.session, lang)
        view = await self.bot.sessions.view(click.session_id, click.player)
        choice = (view.get("cards") or {}).get("choice")
        items: list[discord.ui.Item[Any]] = []
        if choice is not None and choice["player"] == click.player:
            text, items = cards.choice_prompt(result.session, click.session_id, view, lang)
            lines.append(text)
        if lines:
            await click.interaction.followup.send(
                "\n".join(lines),
                ephemeral=True,
                view=components.view_of(*items) if items else discord.utils.MISSING,
            )

    @button("dispute", ROUND, opens="dispute")
    async def on_dispute(self, click: Click) -> None:
        """A private menu of the round's words open to a dispute (the rules' view lists them)."""
        record = await self.bot.sessions.session(click.session_id)
        view = await self.bot.sessions.view(click.session_id, click.player)
        current = view.get("round") or {}
        lang = self.user_lang(click.interaction)
        choices = dispute_choices(record, current["lists"], lang)
        if not choices:
            raise BadAction("topstop.refusal.all_disputed")
        spec = components.spec(GAME, "pick")
        menus = [
            components.select(
                spec.encode(click.session_id, round=current["number"], menu=index),
                choices[start : start + 25],
                placeholder=t("topstop.dispute.placeholder", lang),
            )
            for index, start in enumerate(range(0, min(len(choices), 25 * DISPUTE_MENUS), 25))
        ]
        await reply_private(
            click.interaction, t("topstop.dispute.pick", lang), view=components.view_of(*menus)
        )

    @button("pick", ROUND, codec.number("menu", 0, DISPUTE_MENUS - 1, optional=True))
    async def on_pick(self, click: Click) -> None:
        values = click.selected
        if len(values) != 1 or "|" not in values[0]:
            raise BadAction("topstop.refusal.pick_one")
        owner, word = values[0].split("|", 1)
        action: dict[str, Any] = {"do": "dispute", "of": owner, "word": word, "round": click.args["round"]}
        disputed = t("topstop.dispute.opened", self.user_lang(click.interaction), word=_shown(word))
        await self.act(
            click.interaction,
            click.session_id,
            action,
            confirm=lambda: update_clicked(click.interaction, content=disputed, view=None),
        )


def check_bounds(**values: int | None) -> None:
    """/topstop new's numbers within their bounds, with a clear refusal (NEW_BOUNDS)."""
    for name, value in values.items():
        low, high = NEW_BOUNDS[name]
        if value is not None and not low <= value <= high:
            key = (
                N_("topstop.refusal.target_bounds")
                if name == "target"
                else N_("topstop.refusal.seconds_bounds")
            )
            raise BadAction(key, name=name, low=low, high=high, value=value)
