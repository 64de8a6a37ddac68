"""Top Stop in a channel: `/topstop new`, the spin, the writing form, STOP, the reveal, disputes and votes.

Thin: every decision is the rules' (bot/games/topstop); the table layer (bot/ui/table.py) finds the game,
acts, redraws and answers errors; this module maps buttons to actions and draws through table.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.engine.errors import BadAction, NotAPlayer, StaleAction
from bot.engine.game import STALE_MESSAGE, Event
from bot.i18n import N_, t
from bot.store import SessionRecord
from bot.ui import codec, components
from bot.ui.components import Click
from bot.ui.replies import reply_private
from bot.ui.table import Table, TableCog, button
from bot.ui.translator import command_text
from cogs.topstop.table import (
    COLOUR,
    GAME,
    LANGUAGE_NAMES,
    NEW_MESSAGE_EVENTS,
    TopStopTable,
    _shown,
    _words_text,
    dispute_choices,
    words_modal,
)

if TYPE_CHECKING:
    from bot.app import TopBot

# Every round-bound button names its round; ids of older messages may lack it (then no stale check).
ROUND = codec.number("round", optional=True)
# /topstop new's bounds, checked here too: Discord's client enforces them, a crafted request may not.
NEW_BOUNDS = {"target": (5, 500), "writing_time": (20, 900), "grace": (1, 120)}
DISPUTE_MENUS = 5  # at most 5 menus of 25 words: one message's worth of components


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
        return TopStopTable(lambda record, key: self.bot.sessions.deadline(record, key), lang)

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
        mode=[app_commands.Choice(name=command_text("topstop.cmd.mode.base"), value="base")],
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

    # -- the table --------------------------------------------------------------------------------------

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

    async def private_panel(self, record: SessionRecord, view: dict[str, Any], lang: str) -> str:
        current = view.get("round") or {}
        mine = current.get("your_words")
        if mine is None:
            return t("topstop.panel.none", lang)
        if not mine:
            return t("topstop.panel.empty", lang)
        return t("topstop.panel.words", lang, words=_words_text(mine))

    # -- buttons ------------------------------------------------------------------------------------------

    @button("spin", ROUND)
    async def on_spin(self, click: Click) -> None:
        await self.act(click.interaction, click.session_id, {"do": "spin", **click.args})

    @button("stop", ROUND)
    async def on_stop(self, click: Click) -> None:
        await self.act(click.interaction, click.session_id, {"do": "stop", **click.args})

    @button("respin", ROUND)
    async def on_respin(self, click: Click) -> None:
        await self.act(click.interaction, click.session_id, {"do": "respin", **click.args})

    @button("vote", codec.choice("answer", "yes", "no"), ROUND, codec.number("dispute", optional=True))
    async def on_vote(self, click: Click) -> None:
        action = {"do": "vote", "accept": click.args.pop("answer") == "yes", **click.args}
        result = await self.act(click.interaction, click.session_id, action)
        closed = any(event.get("type") == "vote_closed" for event in result.events)
        said = N_("topstop.vote.cast_closed") if closed else N_("topstop.vote.cast")
        await click.interaction.followup.send(t(said, self.user_lang(click.interaction)), ephemeral=True)

    @button("write", ROUND)
    async def on_write(self, click: Click) -> None:
        """The form opens at once (a modal must be the first answer), prefilled with the saved words."""
        await self.seated(click.interaction, click.session_id)
        view = await self.bot.sessions.view(click.session_id, click.player)
        current = view.get("round") or {}
        if click.player in view["left"]:
            raise NotAPlayer("topstop.has_left")
        check_round(click.args.get("round"), view)
        if view["phase"] != "writing" or click.player not in current.get("players", []):
            raise BadAction("topstop.refusal.not_writing")
        if current.get("stopped_by") == click.player:
            raise BadAction("topstop.list_final")
        await click.interaction.response.send_modal(
            words_modal(
                click.session_id,
                current["letter"],
                view["options"]["words"],
                current.get("your_words", []),
                current["number"],
                self.user_lang(click.interaction),
            )
        )

    @button("words", ROUND, modal=True)
    async def on_words(self, click: Click) -> None:
        words = [click.values.get(f"word{index}", "") for index in range(1, 6)]
        result = await self.act(
            click.interaction, click.session_id, {"do": "submit", "words": words, **click.args}
        )
        mine: list[str] = next(
            (e["words"] for e in result.private_to(click.player) if e.get("type") == "your_words"), []
        )
        lang = self.user_lang(click.interaction)
        saved = f"**{_words_text(mine)}**" if mine else t("topstop.saved.none", lang)
        await click.interaction.followup.send(t("topstop.saved", lang, words=saved), ephemeral=True)

    @button("dispute", ROUND)
    async def on_dispute(self, click: Click) -> None:
        """A private menu of the round's words open to a dispute (the rules' view lists them)."""
        record = await self.seated(click.interaction, click.session_id)
        view = await self.bot.sessions.view(click.session_id, click.player)
        current = view.get("round") or {}
        if click.player in view["left"]:
            raise NotAPlayer("topstop.has_left")
        check_round(click.args.get("round"), view)
        if view["phase"] != "review" or not current.get("lists"):
            raise BadAction("topstop.refusal.not_review")
        if current.get("dispute"):
            raise BadAction("topstop.one_vote")
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
        action: dict[str, Any] = {"do": "dispute", "of": owner, "word": word}
        if "round" in click.args:
            action["round"] = click.args["round"]
        disputed = t("topstop.dispute.opened", self.user_lang(click.interaction), word=_shown(word))
        await self.act(
            click.interaction,
            click.session_id,
            action,
            acknowledge=lambda: click.interaction.response.edit_message(content=disputed, view=None),
        )


def check_round(named: int | None, view: dict[str, Any]) -> None:
    """A button that opens a form or menu (no action yet) is refused like the rules refuse a stale action."""
    current = (view.get("round") or {}).get("number", 0)
    if named is not None and named != current:
        raise StaleAction(STALE_MESSAGE)


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
