"""TopWords in a channel: `/topwords new|play|pass|rack|propose_end` (and the table layer's status, leave and
end), the table message with the board picture, the rack, challenges, disputes and votes.

Thin: the rules (bot/games/topwords) decide everything; the table layer (bot/ui/table.py) finds the game,
acts, redraws and answers errors; this module turns commands and clicks into actions and draws via table.py.
"""

from __future__ import annotations

import json
from typing import Any

import discord
from discord import app_commands

from bot.engine.errors import BadAction, NotAPlayer, NotYourTurn
from bot.engine.game import Event
from bot.engine.sessions import ActResult
from bot.games.topwords import RuleBroken, parse_square, square_name
from bot.games.topwords.commands import tiles_for_command
from bot.i18n import N_, t
from bot.render.topwords_board import render_board
from bot.store import SessionRecord
from bot.ui import codec, components
from bot.ui.components import Click
from bot.ui.replies import reply_private, update_clicked
from bot.ui.table import Table, TableCog, answer, button
from bot.ui.translator import command_text
from cogs.topwords import table
from cogs.topwords.table import GAME, LETTERS, SQUARE
from cogs.topwords.texts import Lang, error_text, lang_of, swap_letter, word_letters

MODE_CHOICES = [
    app_commands.Choice(name=command_text("topwords.cmd.mode.strict"), value="strict"),
    app_commands.Choice(name=command_text("topwords.cmd.mode.challenge"), value="challenge"),
]
DIRECTION_CHOICES = [
    app_commands.Choice(name=command_text("topwords.cmd.direction.across"), value="across"),
    app_commands.Choice(name=command_text("topwords.cmd.direction.down"), value="down"),
]
MOVE = codec.fresh("move")  # the board's number of moves a button was offered on (the rules' freshness)


class TopWordsCog(TableCog, name="TopWords"):
    game_name = GAME
    title = "TopWords"
    colour = table.COLOUR
    # The rulebook has no early end: a game ended by the host is cancelled and stored without a result.
    end_action = None
    new_message_events = table.NEW_MESSAGE_EVENTS
    panel_action = "rack"
    panel_emoji = "🔤"

    group = app_commands.Group(
        name="topwords", description=command_text("topwords.cmd.group"), guild_only=True
    )

    def describe_options(self, options: dict[str, Any], lang: str) -> str:
        return table.options_text(lang_of(lang), options)

    # -- commands ---------------------------------------------------------------------------------------

    @group.command(name="new", description=command_text("topwords.cmd.new"))
    @app_commands.describe(mode=command_text("topwords.cmd.new.mode"))
    @app_commands.choices(mode=MODE_CHOICES)
    async def new(
        self, interaction: discord.Interaction[Any], mode: app_commands.Choice[str] | None = None
    ) -> None:
        await self.open_lobby(interaction, {} if mode is None else {"mode": mode.value})

    @group.command(name="play", description=command_text("topwords.cmd.play"))
    @app_commands.describe(
        word=command_text("topwords.cmd.play.word"),
        square=command_text("topwords.cmd.play.square"),
        direction=command_text("topwords.cmd.play.direction"),
    )
    @app_commands.choices(direction=DIRECTION_CHOICES)
    async def play(
        self,
        interaction: discord.Interaction[Any],
        word: app_commands.Range[str, 1, 20],
        square: app_commands.Range[str, 1, 5],
        direction: app_commands.Choice[str],
    ) -> None:
        lang = lang_of(interaction.locale)
        record = await self._player_game(interaction)
        letters = word_letters(word)
        start = square_name(*parse_square(square))
        view = await self.bot.sessions.view(record.id, str(interaction.user.id))
        tiles = tiles_for_command(view, letters, start, direction.value)
        try:
            result = await self._act(
                interaction, record.id, {"do": "place", "tiles": [list(t) for t in tiles]}
            )
        except RuleBroken as error:
            if error.code != "invalid_word":
                raise
            move = view["freshness"]["move"]  # the board it was refused on
            ask = table.allow_item(record.id, lang, letters, start, direction.value, move)
            message = f"⚠️ {error_text(error, lang)}\n{t('topwords.ask_table', lang)}"
            await answer(interaction, message, view=components.view_of(ask))
            return
        await answer(interaction, self._after_move(lang, interaction, result))

    @group.command(name="pass", description=command_text("topwords.cmd.pass"))
    @app_commands.describe(swap=command_text("topwords.cmd.pass.swap"))
    async def pass_(
        self, interaction: discord.Interaction[Any], swap: app_commands.Range[str, 1, 3] | None = None
    ) -> None:
        lang = lang_of(interaction.locale)
        record = await self._player_game(interaction)
        action: dict[str, Any] = {"do": "pass"}
        if swap is not None:
            action["swap"] = swap_letter(swap)
        result = await self._act(interaction, record.id, action)
        mine = _own_rack_event(result.private_to(str(interaction.user.id)))
        if mine is not None and mine.get("returned"):
            reply = t("topwords.swapped", lang, returned=mine["returned"], drawn=mine.get("drawn") or "—")
        else:
            reply = t("topwords.passed", lang)
        view = await self.bot.sessions.view(record.id, str(interaction.user.id))
        await answer(interaction, f"{reply}\n{table.rack_text(lang, view)}")

    # The table layer's `end` says players may ask by vote; TopWords has no such vote (`ask_to_end`), so its
    # own command says what it does.
    @group.command(name="end", description=command_text("topwords.cmd.end"))
    async def end_here(self, interaction: discord.Interaction[Any]) -> None:
        await self.end(interaction)

    @group.command(name="rack", description=command_text("topwords.cmd.rack"))
    async def rack(self, interaction: discord.Interaction[Any]) -> None:
        record = await self._player_game(interaction)
        view = await self.bot.sessions.view(record.id, str(interaction.user.id))
        await reply_private(interaction, table.rack_text(lang_of(interaction.locale), view))

    @group.command(name="propose_end", description=command_text("topwords.cmd.propose_end"))
    async def propose_end(self, interaction: discord.Interaction[Any]) -> None:
        record = await self._player_game(interaction)
        player = str(interaction.user.id)
        # Once per player per move: a refused proposal must not freeze play again and again.
        move = (await self.bot.sessions.view(record.id, player))["freshness"]["move"]
        for logged in await self.bot.store.actions.for_session(record.id):
            asked = logged.action.get("do") == "propose_end" and logged.action.get("move") == move
            if asked and logged.player == player:
                raise BadAction("topwords.refusal.end_proposed_already")
        await self._act(interaction, record.id, {"do": "propose_end", "move": move})
        await answer(interaction, t("topwords.end_proposed", lang_of(interaction.locale)))

    # -- buttons ----------------------------------------------------------------------------------------

    @button("challenge", MOVE)
    async def on_challenge(self, click: Click) -> None:
        """The button names the board it was offered on (the rules' freshness): on an older message, after
        another move, the click is refused (stale_action) rather than challenge the newer move."""
        await self.seated(click.interaction, click.session_id)
        await self._act(click.interaction, click.session_id, {"do": "challenge", **click.args}, private=False)

    @button("dispute", MOVE, codec.token("word", LETTERS, optional=True), opens="dispute")
    async def on_dispute(self, click: Click) -> None:
        """From the table ("3": the board's number of moves): ask which word when the move made several;
        from that choice ("3.BAUM"): vote. The layer refused a button of an older board, or a dispute the
        rules do not offer this player; the rules say which words they may dispute (`disputable`)."""
        lang = lang_of(click.interaction.locale)
        word = click.args.get("word")
        if word is None:
            view = await self.bot.sessions.view(click.session_id, click.player)
            words = view.get("disputable", [])
            if len(words) > 1:
                shown = view["freshness"]["move"]
                choice = components.view_of(*table.word_items(click.session_id, words, shown))
                await reply_private(click.interaction, t("topwords.pick_word", lang), view=choice)
                return
        result = await self._act(
            click.interaction, click.session_id, {"do": "dispute", **click.args}, private=False
        )
        # Two players: nobody but the mover could vote, so the dictionary decided at once.
        decided = any(event.get("type") == "vote_result" for event in result.events)
        await self._confirm_vote_opened(click.interaction, lang, picked=word is not None, decided=decided)

    @button("allow", codec.token("letters", LETTERS), codec.token("square", SQUARE),
            codec.choice("direction", "across", "down"), MOVE)  # fmt: skip
    async def on_allow(self, click: Click) -> None:
        """Strict mode: the player puts their refused move to the vote (the move rides in the button's id)."""
        lang = lang_of(click.interaction.locale)
        await self.seated(click.interaction, click.session_id)
        view = await self.bot.sessions.view(click.session_id, click.player)
        args = click.args
        tiles = tiles_for_command(view, args["letters"], args["square"], args["direction"])
        action = {"do": "dispute", "tiles": [list(t) for t in tiles], "move": args["move"]}
        await self._act(click.interaction, click.session_id, action, private=False)
        await self._confirm_vote_opened(click.interaction, lang, picked=True)

    @button("vote", codec.choice("answer", "yes", "no"), codec.fresh("vote"))
    async def on_vote(self, click: Click) -> None:
        await self.seated(click.interaction, click.session_id)
        action = {"do": "vote", "accept": click.args["answer"] == "yes", "vote": click.args["vote"]}
        await self._act(click.interaction, click.session_id, action, private=False)
        await click.interaction.followup.send(
            t("topwords.vote_cast", lang_of(click.interaction.locale)), ephemeral=True
        )

    # -- the table ----------------------------------------------------------------------------------------

    async def record_lines(self, guild_id: int, user_id: str, lang: str) -> list[str]:
        """The member's best move: the highest-scoring placement kept on the board (the game's history holds
        the accepted moves; one taken back is gone from it)."""
        best = await self.bot.store.stats.member_items(
            guild_id,
            user_id,
            self.game_name,
            each="$.history",
            owner="$.player",
            fields=("$.points", "$.words"),
            highest="$.points",
        )
        if not best:
            return []
        [(points, words)] = best
        made = ", ".join(str(word["word"]) for word in json.loads(words))
        return [t("topwords.stats.best_move", lang, points=points, words=made)]

    async def render(
        self, record: SessionRecord, view: dict[str, Any], events: list[Event], lang: str
    ) -> Table:
        tw_lang = lang_of(lang)
        deadlines = view.get("deadlines", {})
        closes = deadlines.get("vote") or deadlines.get("final")
        turn_ends = deadlines.get("turn")
        embed = table.table_embed(record, view, events, tw_lang, closes=closes, turn_ends=turn_ends)
        items = table.table_items(record.id, view, tw_lang)
        names = {player: record.name(player) for player in view["players"]}
        png = await self.bot.pictures.draw(render_board, view, names=names, lang=tw_lang)
        return Table(embed, items, table.board_file(png, tw_lang))

    def panel_text(self, lang: str) -> str:
        return t("topwords.button_rack", lang_of(lang))

    async def private_panel(self, record: SessionRecord, view: dict[str, Any], lang: str) -> Table:
        """The rack, whose turn it is, and Pass while it is the player's turn."""
        return table.console(record, view, lang_of(lang))

    async def news_lines(self, session_id: int, events: list[Event], lang: str) -> list[str]:
        return table.rack_news(lang_of(lang), events)

    def awaiting(self, view: dict[str, Any]) -> list[str]:
        return [view["turn"]] if view.get("turn") else []

    @button("console_pass")
    async def on_console_pass(self, click: Click) -> None:
        """Pass from the console: it is redrawn in place (a refusal inside it)."""
        await self.console_press(click, {"do": "pass"})

    async def after_start(self, interaction: discord.Interaction[Any], result: ActResult) -> None:
        """The host (who pressed Start, or started with bots by `/topwords new`) sees their rack."""
        view = await self.bot.sessions.view(result.session.id, str(interaction.user.id))
        await interaction.followup.send(table.rack_text(lang_of(interaction.locale), view), ephemeral=True)

    async def ask_to_end(self, interaction: discord.Interaction[Any], record: SessionRecord) -> None:
        """No vote to end without a result: players end a game with its scores by `/topwords propose_end`."""
        raise BadAction("topwords.not_manager")

    # -- helpers --------------------------------------------------------------------------------------------

    async def _act(
        self,
        interaction: discord.Interaction[Any],
        session_id: int,
        action: dict[str, Any],
        *,
        private: bool = True,
    ) -> ActResult:
        """Act (the dictionary's first check may take a second: the layer answers Discord first); a move out
        of turn is refused naming whose turn it is."""
        try:
            return await self.act(interaction, session_id, action, private=private)
        except NotYourTurn:
            record = await self.bot.sessions.session(session_id)
            turn = (await self.bot.sessions.view(session_id, None))["turn"]
            raise NotYourTurn("topwords.not_your_turn", name=record.name(turn) if turn else "—") from None

    def _after_move(self, lang: Lang, interaction: discord.Interaction[Any], result: ActResult) -> str:
        """The mover's private note: the move's points and the new rack."""
        player = str(interaction.user.id)
        moved = next(event for event in result.events if event.get("type") == "moved")
        lines = [t("topwords.played", lang, move=table.move_text(lang, moved))]
        if result.session.options.get("mode") == "challenge":
            lines.append(t("topwords.challengeable", lang))
        mine = _own_rack_event(result.private_to(player))
        if mine is not None:
            lines.append(table.rack_text(lang, {"rack": mine["rack"], "bag_count": moved["bag_count"]}))
        return "\n".join(lines)

    async def _confirm_vote_opened(
        self, interaction: discord.Interaction[Any], lang: Lang, *, picked: bool, decided: bool = False
    ) -> None:
        """A private choice (a word, the refused move) turns into the confirmation; else a new private note."""
        note = t(N_("topwords.vote_by_dictionary") if decided else N_("topwords.vote_opened"), lang)
        if picked:
            await update_clicked(interaction, content=note, view=None)
        else:
            await reply_private(interaction, note)

    async def _player_game(self, interaction: discord.Interaction[Any]) -> SessionRecord:
        record = await self.channel_game(interaction)
        if str(interaction.user.id) not in record.players:
            raise NotAPlayer("topwords.not_a_player")
        return record


def _own_rack_event(private: list[Event]) -> Event | None:
    """The player's new rack, from the events told to them alone."""
    return next((e for e in private if e.get("type") == "rack"), None)
