"""TopWords in a channel: `/topwords new|play|pass|rack|propose_end` (and the table layer's status, leave and
end), the table message with the board picture, the rack, challenges, disputes and votes.

Thin: the rules (bot/games/topwords) decide everything; the table layer (bot/ui/table.py) finds the game,
acts, redraws and answers errors; this module turns commands and clicks into actions and draws via table.py.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.engine.errors import NotYourTurn
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
from cogs.topwords import table
from cogs.topwords.table import GAME, LETTERS, SQUARE
from cogs.topwords.texts import (
    Lang,
    Refusal,
    error_text,
    lang_of,
    swap_letter,
    text,
    word_letters,
)

MODE_CHOICES = [
    app_commands.Choice(name="strict: the dictionary checks every move (default)", value="strict"),
    app_commands.Choice(
        name="challenge: moves are placed unchecked, players challenge them", value="challenge"
    ),
]
DIRECTION_CHOICES = [
    app_commands.Choice(name="across → (waagrecht)", value="across"),
    app_commands.Choice(name="down ↓ (senkrecht)", value="down"),
]
MODE_TEXTS = {"strict": N_("topwords.cmd.mode.strict"), "challenge": N_("topwords.cmd.mode.challenge")}
MOVE = codec.number("move", optional=True)  # the board a button was offered on (the rules' freshness)


class TopWordsCog(TableCog, name="TopWords"):
    game_name = GAME
    title = "TopWords"
    colour = table.COLOUR
    # The rulebook has no early end: a game ended by the host is cancelled and stored without a result.
    end_action = None
    new_message_events = table.NEW_MESSAGE_EVENTS
    panel_action = "rack"
    panel_emoji = "🔤"

    group = app_commands.Group(name="topwords", description="TopWords: German 3-D Scrabble", guild_only=True)

    def describe_options(self, options: dict[str, Any], lang: str) -> str:
        key = MODE_TEXTS.get(options.get("mode", "strict"), MODE_TEXTS["strict"])
        return t(key, lang)

    # -- commands ---------------------------------------------------------------------------------------

    @group.command(name="new", description="Open a TopWords lobby in this channel (2–4 players)")
    @app_commands.describe(mode="strict (the dictionary checks every move) or challenge (players challenge)")
    @app_commands.choices(mode=MODE_CHOICES)
    async def new(
        self, interaction: discord.Interaction[Any], mode: app_commands.Choice[str] | None = None
    ) -> None:
        options: dict[str, Any] = {"mode": mode.value if mode else "strict"}
        turn_seconds = round(self.bot.settings.topwords_turn_minutes * 60)
        if turn_seconds:  # the server's turn timer (TOPWORDS_TURN_MINUTES; 0: none)
            options["turn_seconds"] = turn_seconds
        await self.open_lobby(interaction, options)

    @group.command(
        name="play", description="Place a word as it will read on the board, from a square, across or down"
    )
    @app_commands.describe(
        word="The whole word as it will read; letters already lying there are reused",
        square="The word's first square: column A–J and row 1–10, like E5",
        direction="across (to the right) or down",
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
            message = f"⚠️ {error_text(error, lang)}\n{text(lang, 'ask_table')}"
            await answer(interaction, message, view=components.view_of(ask))
            return
        await answer(interaction, self._after_move(lang, interaction, result))

    @group.command(
        name="pass", description="Pass your turn; you may put one tile back into the bag and draw one"
    )
    @app_commands.describe(swap="A tile from your rack to swap with one from the bag (optional)")
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
            reply = text(lang, "swapped", returned=mine["returned"], drawn=mine.get("drawn") or "—")
        else:
            reply = text(lang, "passed")
        view = await self.bot.sessions.view(record.id, str(interaction.user.id))
        await answer(interaction, f"{reply}\n{table.rack_text(lang, view)}")

    @group.command(name="rack", description="Your tiles (only you see them)")
    async def rack(self, interaction: discord.Interaction[Any]) -> None:
        record = await self._player_game(interaction)
        view = await self.bot.sessions.view(record.id, str(interaction.user.id))
        await reply_private(interaction, table.rack_text(lang_of(interaction.locale), view))

    @group.command(
        name="propose_end", description="Nobody can form a new word? Propose to end (all must agree)"
    )
    async def propose_end(self, interaction: discord.Interaction[Any]) -> None:
        record = await self._player_game(interaction)
        await self._act(interaction, record.id, {"do": "propose_end"})
        await answer(interaction, text(lang_of(interaction.locale), "end_proposed"))

    # -- buttons ----------------------------------------------------------------------------------------

    @button("challenge", MOVE)
    async def on_challenge(self, click: Click) -> None:
        """The button names the board it was offered on (the rules' freshness): on an older message, after
        another move, the click is refused (stale_action) rather than challenge the newer move."""
        await self.seated(click.interaction, click.session_id)
        await self._act(click.interaction, click.session_id, {"do": "challenge", **click.args}, private=False)

    @button("dispute", MOVE, codec.token("word", LETTERS, optional=True))
    async def on_dispute(self, click: Click) -> None:
        """From the table ("3": the board's number): ask which word when the move made several;
        from that choice ("3.BAUM"): vote. A button of an older board is refused by the rules."""
        lang = lang_of(click.interaction.locale)
        await self.seated(click.interaction, click.session_id)
        move, word = click.args.get("move"), click.args.get("word")
        if word is None:
            view = await self.bot.sessions.view(click.session_id, click.player)
            words = table.disputable_words(view, click.player, move)
            if len(words) > 1:
                shown = view["freshness"]["move"]
                choice = components.view_of(*table.word_items(click.session_id, words, shown))
                await reply_private(click.interaction, text(lang, "pick_word"), view=choice)
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
        action = {"do": "dispute", "tiles": [list(t) for t in tiles]}
        if "move" in args:
            action["move"] = args["move"]
        await self._act(click.interaction, click.session_id, action, private=False)
        await self._confirm_vote_opened(click.interaction, lang, picked=True)

    @button("vote", codec.choice("answer", "yes", "no"), codec.number("vote", optional=True))
    async def on_vote(self, click: Click) -> None:
        await self.seated(click.interaction, click.session_id)
        action: dict[str, Any] = {"do": "vote", "accept": click.args["answer"] == "yes"}
        if "vote" in click.args:
            action["vote"] = click.args["vote"]
        await self._act(click.interaction, click.session_id, action, private=False)
        await click.interaction.followup.send(
            text(lang_of(click.interaction.locale), "vote_cast"), ephemeral=True
        )

    # -- the table ----------------------------------------------------------------------------------------

    async def render(
        self, record: SessionRecord, view: dict[str, Any], events: list[Event], lang: str
    ) -> Table:
        tw_lang = lang_of(lang)
        closes = self.bot.sessions.deadline(record, "vote") or self.bot.sessions.deadline(record, "final")
        turn_ends = self.bot.sessions.deadline(record, "turn")
        embed = table.table_embed(record, view, events, tw_lang, closes=closes, turn_ends=turn_ends)
        items = table.table_items(record.id, view, tw_lang)
        names = {player: record.name(player) for player in view["players"]}
        png = await self.bot.pictures.draw(render_board, view, names=names, lang=tw_lang)
        return Table(embed, items, table.board_file(png, tw_lang))

    def panel_text(self, lang: str) -> str:
        return text(lang_of(lang), "button_rack")

    async def private_panel(self, record: SessionRecord, view: dict[str, Any], lang: str) -> str:
        return table.rack_text(lang_of(lang), view)

    async def after_start(self, click: Click, result: ActResult) -> None:
        """The host (who pressed Start) sees their rack."""
        view = await self.bot.sessions.view(result.session.id, click.player)
        await click.interaction.followup.send(
            table.rack_text(lang_of(click.interaction.locale), view), ephemeral=True
        )

    async def ask_to_end(self, interaction: discord.Interaction[Any], record: SessionRecord) -> None:
        """No vote to end without a result: players end a game with its scores by `/topwords propose_end`."""
        raise Refusal("not_manager")

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
            raise Refusal("not_your_turn", name=record.name(turn) if turn else "—") from None

    def _after_move(self, lang: Lang, interaction: discord.Interaction[Any], result: ActResult) -> str:
        """The mover's private note: the move's points and the new rack."""
        player = str(interaction.user.id)
        moved = next(event for event in result.events if event.get("type") == "moved")
        lines = [text(lang, "played", move=table.move_text(lang, moved))]
        if result.session.options.get("mode") == "challenge":
            lines.append(text(lang, "challengeable"))
        mine = _own_rack_event(result.private_to(player))
        if mine is not None:
            lines.append(table.rack_text(lang, {"rack": mine["rack"], "bag_count": moved["bag_count"]}))
        return "\n".join(lines)

    async def _confirm_vote_opened(
        self, interaction: discord.Interaction[Any], lang: Lang, *, picked: bool, decided: bool = False
    ) -> None:
        """A private choice (a word, the refused move) turns into the confirmation; else a new private note."""
        note = text(lang, "vote_by_dictionary" if decided else "vote_opened")
        if picked:
            await update_clicked(interaction, content=note, view=None)
        else:
            await reply_private(interaction, note)

    async def _player_game(self, interaction: discord.Interaction[Any]) -> SessionRecord:
        record = await self.channel_game(interaction)
        if str(interaction.user.id) not in record.players:
            raise Refusal("not_a_player")
        return record


def _own_rack_event(private: list[Event]) -> Event | None:
    """The player's new rack, from the events told to them alone."""
    return next((e for e in private if e.get("type") == "rack"), None)
