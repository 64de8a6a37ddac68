"""TopWords in a channel: the lobby, `/topwords play|pass|rack|status|propose_end|end`, the table message
with the board picture, the rack, challenges, disputes and votes.

Thin: the rules (bot/games/topwords) decide everything; this module turns commands and clicks into
actions, answers privately in the user's language and shows the public view (table.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.engine.errors import GameError, NotYourTurn
from bot.engine.game import Event
from bot.engine.sessions import ActResult
from bot.games.topwords import RuleBroken, parse_square, square_name
from bot.games.topwords.commands import tiles_for_command
from bot.render.topwords_board import render_board
from bot.store import SessionRecord
from bot.ui import components
from bot.ui.gamecog import GameCog
from bot.ui.replies import NO_MENTIONS, reply_private
from cogs.topwords import table
from cogs.topwords.table import GAME
from cogs.topwords.texts import (
    COMMAND_TRANSLATIONS,
    Lang,
    Refusal,
    error_text,
    lang_of,
    swap_letter,
    text,
    word_letters,
)

if TYPE_CHECKING:
    from bot.app import TopBot

log = logging.getLogger(__name__)

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


class TopWordsCog(GameCog, name="TopWords"):
    game_name = GAME
    title = "TopWords"
    colour = table.COLOUR
    # The rulebook has no early end: a game ended by the host is cancelled and stored without a result.
    end_action = None
    command_translations = COMMAND_TRANSLATIONS

    def __init__(self, bot: TopBot) -> None:
        super().__init__(bot)
        for action, handler in (
            ("rack", self._on_rack),
            ("challenge", self._on_challenge),
            ("dispute", self._on_dispute),
            ("allow", self._on_allow),
            ("vote", self._on_vote),
        ):
            components.register_component(GAME, action, handler)

    group = app_commands.Group(name="topwords", description="TopWords: German 3-D Scrabble", guild_only=True)

    def describe_options(self, options: dict[str, Any]) -> str:
        return next(c.name for c in MODE_CHOICES if c.value == options.get("mode", "strict"))

    # -- commands ---------------------------------------------------------------------------------

    @group.command(name="new", description="Open a TopWords lobby in this channel (2–4 players)")
    @app_commands.describe(mode="strict (the dictionary checks every move) or challenge (players challenge)")
    @app_commands.choices(mode=MODE_CHOICES)
    async def new(
        self, interaction: discord.Interaction[Any], mode: app_commands.Choice[str] | None = None
    ) -> None:
        async with answering(interaction):
            await self.open_lobby(interaction, {"mode": mode.value if mode else "strict"})

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
        async with answering(interaction) as lang:
            record = await self._player_game(interaction)
            letters = word_letters(word)
            start = square_name(*parse_square(square))
            view = await self.bot.sessions.view(record.id, str(interaction.user.id))
            tiles = tiles_for_command(view, letters, start, direction.value)
            # The dictionary's first check loads it (about a second): answer Discord before the work.
            await interaction.response.defer(ephemeral=True, thinking=True)
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
                await answer_privately(interaction, message, view=components.view_of(ask))
                return
            await self.show(result.session, result.events)
            await answer_privately(interaction, self._after_move(lang, interaction, result))

    @group.command(
        name="pass", description="Pass your turn; you may put one tile back into the bag and draw one"
    )
    @app_commands.describe(swap="A tile from your rack to swap with one from the bag (optional)")
    async def pass_(
        self, interaction: discord.Interaction[Any], swap: app_commands.Range[str, 1, 3] | None = None
    ) -> None:
        async with answering(interaction) as lang:
            record = await self._player_game(interaction)
            action: dict[str, Any] = {"do": "pass"}
            if swap is not None:
                action["swap"] = swap_letter(swap)
            await interaction.response.defer(ephemeral=True, thinking=True)
            result = await self._act(interaction, record.id, action)
            await self.show(result.session, result.events)
            mine = _own_rack_event(result.private_to(str(interaction.user.id)))
            if mine is not None and mine.get("returned"):
                reply = text(lang, "swapped", returned=mine["returned"], drawn=mine.get("drawn") or "—")
            else:
                reply = text(lang, "passed")
            view = await self.bot.sessions.view(record.id, str(interaction.user.id))
            await answer_privately(interaction, f"{reply}\n{table.rack_text(lang, view)}")

    @group.command(name="rack", description="Your tiles (only you see them)")
    async def rack(self, interaction: discord.Interaction[Any]) -> None:
        async with answering(interaction) as lang:
            record = await self._player_game(interaction)
            await self._send_rack(interaction, record.id, lang)

    @group.command(name="status", description="The board and scores, with your rack (only you see it)")
    async def status(self, interaction: discord.Interaction[Any]) -> None:
        async with answering(interaction) as lang:
            record = await self._channel_game(interaction)
            if record.status == "lobby":
                await reply_private(interaction, embed=self.lobby_embed(record, lang=lang))
                return
            player = str(interaction.user.id)
            view = await self.bot.sessions.view(record.id, player)
            embed, _, file = await self._table(record, [], lang)
            if "rack" in view:
                embed.description = f"{table.rack_text(lang, view)}\n{embed.description or ''}"[:4096]
            await reply_private(interaction, embed=embed, file=file)

    @group.command(
        name="propose_end", description="Nobody can form a new word? Propose to end (all must agree)"
    )
    async def propose_end(self, interaction: discord.Interaction[Any]) -> None:
        async with answering(interaction) as lang:
            record = await self._player_game(interaction)
            await interaction.response.defer(ephemeral=True, thinking=True)
            result = await self._act(interaction, record.id, {"do": "propose_end"})
            await self.show(result.session, result.events)
            await answer_privately(interaction, text(lang, "end_proposed"))

    @group.command(
        name="end", description="End the game in this channel without a result (host or Manage Server)"
    )
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        async with answering(interaction) as lang:
            record = await self._channel_game(interaction)
            if not self.may_manage(interaction, record):
                raise Refusal("not_manager")
            lobby = record.status == "lobby"  # the manager's record: cancelling changes its status
            await interaction.response.defer(ephemeral=True, thinking=True)
            await self.end_game(record)
            await answer_privately(interaction, text(lang, "lobby_closed" if lobby else "ended"))

    # -- buttons ----------------------------------------------------------------------------------

    async def _on_rack(
        self, interaction: discord.Interaction[Any], session_id: int, _arg: str | None
    ) -> None:
        async with answering(interaction) as lang:
            await self._require_player(interaction, session_id)
            await self._send_rack(interaction, session_id, lang)

    async def _on_challenge(
        self, interaction: discord.Interaction[Any], session_id: int, arg: str | None
    ) -> None:
        """The button names the board it was offered on (the rules' freshness): on an older message, after
        another move, the click is refused (stale_action) rather than challenge the newer move."""
        async with answering(interaction):
            await self._require_player(interaction, session_id)
            move, _ = _move_arg(arg)
            await interaction.response.defer()  # the dictionary checks every word of the move
            result = await self._act(interaction, session_id, {"do": "challenge"} | _with_move(move))
            await self.show(result.session, result.events)

    async def _on_dispute(
        self, interaction: discord.Interaction[Any], session_id: int, arg: str | None
    ) -> None:
        """From the table ("3": the board's number of moves): ask which word when the move made several;
        from that choice ("3.BAUM"): vote. A button of an older board is refused by the rules."""
        async with answering(interaction) as lang:
            player = await self._require_player(interaction, session_id)
            move, word = _move_arg(arg)
            if word is None:
                view = await self.bot.sessions.view(session_id, player)
                words = table.disputable_words(view, player, move)
                if len(words) > 1:
                    shown = view["freshness"]["move"]
                    choice = components.view_of(*table.word_items(session_id, words, shown))
                    await reply_private(interaction, text(lang, "pick_word"), view=choice)
                    return
            await interaction.response.defer()
            action = {"do": "dispute"} | _with_move(move) | ({"word": word} if word else {})
            result = await self._act(interaction, session_id, action)
            # Two players: nobody but the mover could vote, so the dictionary decided at once.
            decided = any(event.get("type") == "vote_result" for event in result.events)
            await self._confirm_vote_opened(interaction, lang, picked=word is not None, decided=decided)
            await self.show(result.session, result.events)

    async def _on_allow(
        self, interaction: discord.Interaction[Any], session_id: int, arg: str | None
    ) -> None:
        """Strict mode: the player puts their refused move to the vote (the move rides in the button's id)."""
        async with answering(interaction) as lang:
            player = await self._require_player(interaction, session_id)
            letters, square, direction, move = _refused_move(arg)
            view = await self.bot.sessions.view(session_id, player)
            tiles = tiles_for_command(view, letters, square, direction)
            await interaction.response.defer()
            action = {"do": "dispute", "tiles": [list(t) for t in tiles]} | _with_move(move)
            result = await self._act(interaction, session_id, action)
            await self._confirm_vote_opened(interaction, lang, picked=True)
            await self.show(result.session, result.events)

    async def _on_vote(self, interaction: discord.Interaction[Any], session_id: int, arg: str | None) -> None:
        async with answering(interaction) as lang:
            await self._require_player(interaction, session_id)
            answer, _, number = (arg or "").partition(".")  # "yes.3": the answer and the vote it is for
            action: dict[str, Any] = {"do": "vote", "accept": answer == "yes"}
            if number.isdigit():
                action["vote"] = int(number)
            await interaction.response.defer()  # an allowed move is placed at once
            result = await self._act(interaction, session_id, action)
            await self.show(result.session, result.events)
            await interaction.followup.send(text(lang, "vote_cast"), ephemeral=True)

    # -- the table --------------------------------------------------------------------------------

    async def post_table(self, interaction: discord.Interaction[Any], result: ActResult) -> None:
        """The game started: the table, and the host (who pressed Start) sees their rack."""
        await self.show(result.session, result.events)
        view = await self.bot.sessions.view(result.session.id, str(interaction.user.id))
        await interaction.followup.send(table.rack_text(lang_of(interaction.locale), view), ephemeral=True)

    async def on_events(self, record: SessionRecord, events: list[Event]) -> None:
        kinds = {event.get("type") for event in events}
        if "lobby_expired" in kinds:
            await self.close_expired_lobby(record)
        else:
            await self.show(record, events)

    async def end_game(self, record: SessionRecord) -> None:
        """Ended early (end_action is None: no result): the lobby says so, or the table loses its buttons and
        a note says no result counts. Whether the game had started is known only before cancelling."""
        started = record.status != "lobby"
        record = await self.bot.sessions.cancel(record.id)
        lang = await self._table_language(record)
        channel = self.bot.get_partial_messageable(record.channel_id)
        if started:
            await self._retire(channel, record)
            await channel.send(text(lang, "channel_ended", id=record.id), allowed_mentions=NO_MENTIONS)
        elif record.message_id is not None:
            note = text(lang, "lobby_closed")
            await channel.get_partial_message(record.message_id).edit(
                embed=self.lobby_embed(record, note, lang), view=None
            )

    async def show(self, record: SessionRecord, events: list[Event]) -> None:
        """Edit the table message, or retire it and post a new one (with a new picture) after a move."""
        embed, items, file = await self._table(record, events, await self._table_language(record))
        channel = self.bot.get_partial_messageable(record.channel_id)
        buttons = components.view_of(*items)
        if record.message_id is not None and not table.starts_new_message(events):
            try:
                await channel.get_partial_message(record.message_id).edit(
                    embed=embed, view=buttons, attachments=[file]
                )
                return
            except discord.NotFound:
                log.info("table message of session %d is gone; posting a new one", record.id)
        else:
            await self._retire(channel, record)
        message = await channel.send(embed=embed, view=buttons, file=file, allowed_mentions=NO_MENTIONS)
        await self.bot.sessions.set_message(record.id, message.id)

    async def _table(
        self, record: SessionRecord, events: list[Event], lang: Lang
    ) -> tuple[discord.Embed, list[discord.ui.Item[Any]], discord.File]:
        view = await self.bot.sessions.view(record.id, None)  # it says which buttons the rules offer
        closes = self.bot.sessions.deadline(record, "vote") or self.bot.sessions.deadline(record, "final")
        embed = table.table_embed(record, view, events, lang, closes=closes)
        items = table.table_items(record.id, view, lang)
        names = {player: record.name(player) for player in view["players"]}
        png = await asyncio.to_thread(render_board, view, names=names, lang=lang)
        return embed, items, table.board_file(png, lang)

    async def _retire(self, channel: discord.PartialMessageable, record: SessionRecord) -> None:
        """The previous table message keeps its board and text, without buttons."""
        if record.message_id is None:
            return
        try:
            await channel.get_partial_message(record.message_id).edit(view=None)
        except discord.HTTPException:
            log.warning("could not retire the old table message of session %d", record.id)

    async def _table_language(self, record: SessionRecord) -> Lang:
        """The channel's messages follow the server's language setting (`/settings language`)."""
        language = await self.bot.store.guild_settings.language(
            record.guild_id, self.bot.settings.default_language
        )
        return lang_of(language)

    # -- helpers ----------------------------------------------------------------------------------

    async def _act(
        self, interaction: discord.Interaction[Any], session_id: int, action: dict[str, Any]
    ) -> ActResult:
        try:
            return await self.bot.sessions.act(
                session_id, str(interaction.user.id), action, interaction_id=str(interaction.id)
            )
        except NotYourTurn:
            record = await self.bot.sessions.session(session_id)
            turn = (await self.bot.sessions.view(session_id, None))["turn"]
            raise Refusal("not_your_turn", name=record.name(turn) if turn else "—") from None

    async def _send_rack(self, interaction: discord.Interaction[Any], session_id: int, lang: Lang) -> None:
        view = await self.bot.sessions.view(session_id, str(interaction.user.id))
        await reply_private(interaction, table.rack_text(lang, view))

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
            await interaction.edit_original_response(content=note, view=None)
        else:
            await interaction.followup.send(note, ephemeral=True)

    async def _channel_game(self, interaction: discord.Interaction[Any]) -> SessionRecord:
        assert interaction.channel_id is not None
        record = await self.bot.sessions.open_in_channel(interaction.channel_id)
        if record is None or record.game != GAME:
            raise Refusal("no_game")
        return record

    async def _player_game(self, interaction: discord.Interaction[Any]) -> SessionRecord:
        record = await self._channel_game(interaction)
        if str(interaction.user.id) not in record.players:
            raise Refusal("not_a_player")
        return record

    async def _require_player(self, interaction: discord.Interaction[Any], session_id: int) -> str:
        player = str(interaction.user.id)
        if player not in (await self.bot.sessions.session(session_id)).players:
            raise Refusal("not_a_player")
        return player


@contextlib.asynccontextmanager
async def answering(interaction: discord.Interaction[Any]) -> AsyncIterator[Lang]:
    """Yields the user's language; a refusal inside becomes a private error in that language."""
    lang = lang_of(interaction.locale)
    try:
        yield lang
    except GameError as error:
        try:
            await answer_privately(interaction, f"⚠️ {error_text(error, lang)}")
        except discord.HTTPException:
            log.warning("could not deliver a refusal to interaction %s", interaction.id)


async def answer_privately(interaction: discord.Interaction[Any], content: str, **kwargs: Any) -> None:
    """After a private "thinking…" deferral the answer replaces it; otherwise it is a new private message."""
    if interaction.response.type is discord.InteractionResponseType.deferred_channel_message:
        await interaction.edit_original_response(content=content, **kwargs)
    else:
        await reply_private(interaction, content, **kwargs)


def _own_rack_event(private: list[Event]) -> Event | None:
    """The player's new rack, from the events told to them alone."""
    return next((e for e in private if e.get("type") == "rack"), None)


def _refused_move(arg: str | None) -> tuple[str, str, str, int | None]:
    """The "WORD.E5.across.4" a refused move's button carries (4: the moves on the board it was refused
    on; older buttons carry no number)."""
    parts = (arg or "").split(".")
    if len(parts) == 4 and parts[3].isdigit():
        return parts[0], parts[1], parts[2], int(parts[3])
    if len(parts) != 3:
        raise Refusal("no_move")
    letters, square, direction = parts
    return letters, square, direction, None


def _move_arg(arg: str | None) -> tuple[int | None, str | None]:
    """ "3" (the board's number of moves a table button was offered on) or "3.BAUM" (and the word); an
    older bot's bare "BAUM"."""
    if not arg:
        return None, None
    head, _, rest = arg.partition(".")
    if head.isdigit():
        return int(head), rest or None
    return None, arg


def _with_move(move: int | None) -> dict[str, Any]:
    return {} if move is None else {"move": move}
