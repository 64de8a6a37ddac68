"""The base of every game cog: the lobby buttons, the table message, events from timers."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.engine.errors import NotAPlayer
from bot.engine.game import Event
from bot.engine.sessions import ActResult
from bot.engine.votes import VoteResult
from bot.i18n import LANGUAGES, N_, language_of, t
from bot.store import SessionRecord, VoteRecord
from bot.ui import components
from bot.ui.embeds import mention, player_list, relative_time
from bot.ui.replies import NO_MENTIONS, reply_private

if TYPE_CHECKING:
    from bot.app import TopBot

log = logging.getLogger(__name__)


def lobby_text(lang: str, key: str, **values: Any) -> str:
    """A lobby text (`ui.lobby.<key>`) in the table's language (see `lobby_language`)."""
    return t(f"ui.lobby.{key}", lang, **values)


# The lobby texts, some named at run time: listed for the catalogue's extraction.
LOBBY_KEYS = (
    N_("ui.lobby.title"),
    N_("ui.lobby.host"),
    N_("ui.lobby.players"),
    N_("ui.lobby.options"),
    N_("ui.lobby.seated"),
    N_("ui.lobby.how"),
    N_("ui.lobby.closes"),
    N_("ui.lobby.join"),
    N_("ui.lobby.leave"),
    N_("ui.lobby.start"),
    N_("ui.lobby.cancel"),
    N_("ui.lobby.started"),
    N_("ui.lobby.cancelled_by"),
    N_("ui.lobby.expired"),
)


class GameCog(commands.Cog):
    """Subclasses set `game_name` and `title`, and implement `post_table` and `on_events`."""

    game_name: str = ""
    title: str = ""
    colour = discord.Colour.blurple()
    # The rules' action that ends a game early (the best score wins); None: ending cancels it.
    end_action: dict[str, Any] | None = {"do": "end"}
    end_vote_seconds = 60.0

    def __init__(self, bot: TopBot) -> None:
        self.bot = bot
        for action, handler in (
            ("join", self._join),
            ("leave", self._leave),
            ("start", self._start),
            ("cancel", self._cancel),
        ):
            components.register_component(self.game_name, action, handler)

    async def cog_load(self) -> None:
        self.bot.table_listeners[self.game_name] = self.on_events
        self.bot.votes.handlers[self._end_vote_kind] = self._end_vote_closed

    async def cog_unload(self) -> None:
        self.bot.table_listeners.pop(self.game_name, None)
        self.bot.votes.handlers.pop(self._end_vote_kind, None)
        components.unregister_game(self.game_name)

    # -- ending a game early ----------------------------------------------------------------------

    @property
    def _end_vote_kind(self) -> str:
        return f"{self.game_name}:end"

    async def end_game(self, record: SessionRecord) -> None:
        """End now: the rules crown the best score (end_action), or the game is cancelled."""
        if self.end_action is None or record.status == "lobby":
            record = await self.bot.sessions.cancel(record.id)
            await self.on_events(record, [{"type": "cancelled"}])
            return
        result = await self.bot.sessions.act(record.id, None, dict(self.end_action))
        await self.on_events(result.session, result.events)

    async def ask_to_end(self, interaction: discord.Interaction[Any], record: SessionRecord) -> None:
        """A player who may not end the game alone asks the others: majority of votes cast, a tie keeps playing."""
        asker = str(interaction.user.id)
        view = await self.bot.sessions.view(record.id, None)
        still_playing = [p for p in record.players if p not in view.get("left", [])]
        if asker not in still_playing:
            raise NotAPlayer("ui.end.not_allowed")
        voters = [p for p in still_playing if p != asker]
        channel = self.bot.get_partial_messageable(record.channel_id)
        await reply_private(interaction, t("ui.end.asked", language_of(interaction.locale)))
        lang = await self.lobby_language(record)
        await self.bot.votes.open(
            channel,
            record.channel_id,
            kind=self._end_vote_kind,
            question=t("ui.end.question", lang, name=record.name(asker), game=self.title),
            eligible=voters,
            seconds=self.end_vote_seconds,
            session_id=record.id,
            lang=lang,
        )

    async def _end_vote_closed(self, vote: VoteRecord, result: VoteResult) -> None:
        if result != "yes" or vote.session_id is None:
            return
        record = await self.bot.sessions.session(vote.session_id)
        if record.is_open:
            await self.end_game(record)

    # -- to implement -----------------------------------------------------------------------------

    def describe_options(self, options: dict[str, Any]) -> str:
        return ", ".join(f"{key}: {value}" for key, value in sorted(options.items())) or "defaults"

    async def post_table(self, interaction: discord.Interaction[Any], result: ActResult) -> None:
        """Show the game that just started (the lobby message has been closed)."""
        raise NotImplementedError

    async def on_events(self, record: SessionRecord, events: list[Event]) -> None:
        """Events of an action nobody clicked (a timer): update the table."""
        raise NotImplementedError

    # -- lobby ------------------------------------------------------------------------------------

    async def open_lobby(
        self, interaction: discord.Interaction[Any], options: dict[str, Any]
    ) -> SessionRecord:
        """`/<game> new`: open a lobby in this channel with the caller as host."""
        assert interaction.guild_id is not None and interaction.channel_id is not None
        record = await self.bot.sessions.open_lobby(
            interaction.guild_id,
            interaction.channel_id,
            self.game_name,
            str(interaction.user.id),
            options,
            interaction.user.display_name,
        )
        lang = await self.lobby_language(record)
        await interaction.response.send_message(
            embed=self.lobby_embed(record, lang=lang),
            view=self.lobby_view(record, lang),
            allowed_mentions=NO_MENTIONS,
        )
        message = await interaction.original_response()
        await self.bot.sessions.set_message(record.id, message.id)
        return record

    async def lobby_language(self, record: SessionRecord) -> str:
        """The game's own language option when it has one (Top Stop), else the server's setting."""
        language = record.options.get("language")
        if isinstance(language, str) and language in LANGUAGES:
            return language
        return await self.bot.store.guild_settings.language(
            record.guild_id, self.bot.settings.default_language
        )

    def lobby_embed(self, record: SessionRecord, note: str | None = None, lang: str = "en") -> discord.Embed:
        game = self.bot.sessions.games[record.game]
        embed = discord.Embed(title=lobby_text(lang, "title", game=self.title), colour=self.colour)
        embed.add_field(name=lobby_text(lang, "host"), value=mention(record.host_id), inline=True)
        embed.add_field(
            name=lobby_text(lang, "players"), value=f"{game.min_players}–{game.max_players}", inline=True
        )
        embed.add_field(
            name=lobby_text(lang, "options"), value=self.describe_options(record.options)[:1024], inline=False
        )
        embed.add_field(
            name=lobby_text(lang, "seated", n=len(record.players)),
            value=player_list(record.players)[:1024],
            inline=False,
        )
        closes = self.bot.sessions.deadline(record, "lobby")
        if record.status == "lobby":
            lines = [lobby_text(lang, "how")]
            if closes:
                lines.append(lobby_text(lang, "closes", when=relative_time(closes)))
            embed.description = "\n".join(lines)
        if note:
            embed.description = note
        return embed

    def lobby_view(self, record: SessionRecord, lang: str = "en") -> discord.ui.View:
        sid, game = record.id, self.game_name
        return components.view_of(
            components.button(game, sid, "join", lobby_text(lang, "join"), style=discord.ButtonStyle.success),
            components.button(game, sid, "leave", lobby_text(lang, "leave")),
            components.button(
                game, sid, "start", lobby_text(lang, "start"), style=discord.ButtonStyle.primary
            ),
            components.button(
                game, sid, "cancel", lobby_text(lang, "cancel"), style=discord.ButtonStyle.danger
            ),
        )

    async def _show_lobby(
        self, interaction: discord.Interaction[Any], record: SessionRecord, note: str | None = None
    ) -> None:
        lang = await self.lobby_language(record)
        view = self.lobby_view(record, lang) if note is None else None
        await interaction.response.edit_message(embed=self.lobby_embed(record, note, lang), view=view)

    async def _join(self, interaction: discord.Interaction[Any], session_id: int, _arg: str | None) -> None:
        record = await self.bot.sessions.join(
            session_id, str(interaction.user.id), interaction.user.display_name
        )
        await self._show_lobby(interaction, record)

    async def _leave(self, interaction: discord.Interaction[Any], session_id: int, _arg: str | None) -> None:
        record = await self.bot.sessions.leave_lobby(session_id, str(interaction.user.id))
        await self._show_lobby(interaction, record)

    async def _start(self, interaction: discord.Interaction[Any], session_id: int, _arg: str | None) -> None:
        result = await self.bot.sessions.start_game(session_id, str(interaction.user.id))
        lang = await self.lobby_language(result.session)
        note = lobby_text(lang, "started", n=len(result.session.players))
        await self._show_lobby(interaction, result.session, note)
        await self.post_table(interaction, result)

    async def _cancel(self, interaction: discord.Interaction[Any], session_id: int, _arg: str | None) -> None:
        record = await self.bot.sessions.session(session_id)
        if not self.may_manage(interaction, record):
            raise NotAPlayer("ui.cancel.not_allowed")
        was_lobby = record.status == "lobby"
        record = await self.bot.sessions.cancel(session_id)
        if was_lobby:
            lang = await self.lobby_language(record)
            note = lobby_text(lang, "cancelled_by", who=mention(str(interaction.user.id)))
            await self._show_lobby(interaction, record, note)
        else:
            await reply_private(interaction, t("ui.cancel.done", language_of(interaction.locale)))

    @staticmethod
    def may_manage(interaction: discord.Interaction[Any], record: SessionRecord) -> bool:
        """The host, or a member allowed to manage the server."""
        if str(interaction.user.id) == record.host_id:
            return True
        permissions = getattr(interaction.user, "guild_permissions", None)
        return bool(permissions and permissions.manage_guild)

    async def close_expired_lobby(self, record: SessionRecord) -> None:
        """The lobby's time ran out: say so on its message and remove the buttons."""
        if record.message_id is None:
            return
        channel = self.bot.get_partial_messageable(record.channel_id)
        lang = await self.lobby_language(record)
        try:
            await channel.get_partial_message(record.message_id).edit(
                embed=self.lobby_embed(record, lobby_text(lang, "expired"), lang), view=None
            )
        except discord.HTTPException:
            log.warning("could not close the lobby message of session %d", record.id)
