"""The lobby every game opens with: `/<game> new` posts it in the channel; Join, Leave, Start and Cancel edit it;
Start opens the table below it, Cancel (the host or Manage Server) or its timer closes it."""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.engine.bots import LEVEL_NAMES, LEVELS, Level
from bot.engine.errors import BadAction, GameOver, NotAPlayer, StaleAction, WrongPhase
from bot.engine.sessions import ActResult
from bot.games import game_info
from bot.games.defaults import lobby_options, server_defaults
from bot.i18n import N_, t
from bot.store import SessionRecord
from bot.ui import components
from bot.ui.bots import bot_name
from bot.ui.components import Click
from bot.ui.embeds import mention, message_link, player_list, relative_time
from bot.ui.replies import NO_MENTIONS, reply_private, update_clicked
from bot.ui.table_base import TableBase, deadlines_of
from bot.ui.table_message import TABLE_OPENED

log = logging.getLogger(__name__)


# Where `/<game> new bots:… level:…` leaves what it asked for (the interaction's extras): (count, Level).
BOTS_WANTED = "bots_wanted"


def allowed_channel(interaction: discord.Interaction[Any], channels: list[int]) -> bool:
    """Whether games may start here: one of the server's channels, or a thread in one."""
    parent = getattr(interaction.channel, "parent_id", None)
    return interaction.channel_id in channels or parent in channels


# The lobby's buttons and their texts' keys.
LOBBY_BUTTONS = {
    "join": N_("ui.lobby.join"),
    "leave": N_("ui.lobby.leave"),
    "start": N_("ui.lobby.start"),
    "cancel": N_("ui.lobby.cancel"),
}
# The host's bot controls (selects), as their placeholders name them.
LOBBY_CONTROLS = {"add_bot": N_("ui.lobby.add_bot"), "remove_bot": N_("ui.lobby.remove_bot")}


def bots_how(game: str, lang: str) -> str:
    """How to play `game` against bots, for `/rules`: the lobby's Add a bot… and Remove a bot… and `/<game> new
    bots: level:`, named as the lobby and the command name them in `lang`."""
    return t(
        "ui.rules.bots",
        lang,
        add=t(LOBBY_CONTROLS["add_bot"], lang),
        remove=t(LOBBY_CONTROLS["remove_bot"], lang),
        start=t(LOBBY_BUTTONS["start"], lang),
        game=game,
        levels=", ".join(t(LEVEL_NAMES[level], lang) for level in LEVELS),
    )


class Lobby(TableBase):
    """The lobby's message and buttons (a part of `TableCog`)."""

    async def open_lobby(
        self, interaction: discord.Interaction[Any], options: dict[str, Any]
    ) -> SessionRecord:
        """`/<game> new`: open a lobby in this channel with the caller as host. `options` are those the host
        gave; the server's settings (`/settings`) add their defaults, say where games may start and how
        many may be open at once."""
        assert interaction.guild_id is not None and interaction.channel_id is not None
        server = await self.bot.store.guild_settings.settings(interaction.guild_id)
        if server.channels and not allowed_channel(interaction, server.channels):
            raise BadAction(
                "ui.lobby.channel_not_allowed",
                channels=" ".join(f"<#{channel}>" for channel in server.channels),
            )
        stored = server.defaults.get(self.game_name, {})
        chosen = server_defaults(game_info(self.game_name), stored) if stored else {}
        record = await self.bot.sessions.open_lobby(
            interaction.guild_id,
            interaction.channel_id,
            self.game_name,
            str(interaction.user.id),
            self.complete_options(lobby_options(self.bot_defaults(), chosen, options)),
            interaction.user.display_name,
            max_games=server.max_games,
        )
        lang = await self.table_lang(record)
        # The lobby is a message of the channel (as the tables are); the command's own answer is private,
        # so that a refusal (a game already here, a bad option) is only ever told to whoever asked.
        channel = self.bot.get_partial_messageable(record.channel_id)
        try:
            message = await channel.send(
                embed=self.lobby_embed(record, lang=lang),
                view=self.lobby_view(record, lang),
                allowed_mentions=NO_MENTIONS,
            )
        except discord.HTTPException as error:
            await self.bot.sessions.cancel(record.id, reason=f"lobby could not be posted: {error}")
            raise BadAction("ui.lobby.post_failed", error=str(error.text or error.status)[:200]) from None
        await self.bot.sessions.set_message(record.id, message.id)
        link = message_link(record.guild_id, record.channel_id, message.id)
        wanted = interaction.extras.get(BOTS_WANTED)
        if wanted is not None and self.offers_bots:
            count, level = wanted
            record = await self.seat_bots(record, record.host_id, count, level)
            if len(record.players) >= self.bot.sessions.games[record.game].min_players:
                # `/<game> new bots:…` with enough seats filled starts at once (docs/bots.md).
                result = await self._start_now(record, message)
                await reply_private(
                    interaction, t("ui.lobby.started_with_bots", self.user_lang(interaction), link=link)
                )
                await self._begin(interaction, result)
                return result.session
            await self._edit_lobby(record)
        await reply_private(interaction, t("ui.lobby.opened", self.user_lang(interaction), link=link))
        return record

    async def _start_now(self, record: SessionRecord, message: discord.Message) -> ActResult:
        """The host's Start, pressed for them: the lobby message says the game started (the caller answers the
        command, then `_begin` follows as after a Start press)."""
        setup = await self.start_setup(record)
        result = await self.bot.sessions.start_game(record.id, record.host_id, setup)
        lang = await self.table_lang(result.session)
        note = t("ui.lobby.started", lang, n=len(result.session.players))
        try:
            await message.edit(embed=self.lobby_embed(result.session, note, lang), view=None)
        except discord.HTTPException:
            log.warning("could not update the lobby message of session %d", record.id)
        return result

    def lobby_embed(self, record: SessionRecord, note: str | None = None, lang: str = "en") -> discord.Embed:
        game = self.bot.sessions.games[record.game]
        embed = discord.Embed(title=t("ui.lobby.title", lang, game=self.title), colour=self.colour)
        embed.add_field(name=t("ui.lobby.host", lang), value=mention(record.host_id), inline=True)
        embed.add_field(
            name=t("ui.lobby.players", lang), value=f"{game.min_players}–{game.max_players}", inline=True
        )
        embed.add_field(
            name=t("ui.lobby.options", lang),
            value=self.describe_options(record.options, lang)[:1024],
            inline=False,
        )
        embed.add_field(
            name=t("ui.lobby.seated", lang, n=len(record.players)),
            value=player_list(record.players, lang, record.names)[:1024],
            inline=False,
        )
        closes = deadlines_of(record).get("lobby")
        if record.status == "lobby":
            lines = [t("ui.lobby.how", lang)]
            if self.offers_bots:
                lines.append(t("ui.lobby.bots_how", lang))
            if closes:
                lines.append(t("ui.lobby.closes", lang, when=relative_time(closes)))
            embed.description = "\n".join(lines)
        if note:
            embed.description = note
        return embed

    def lobby_view(self, record: SessionRecord, lang: str = "en") -> discord.ui.View:
        def lobby_button(action: str, style: discord.ButtonStyle) -> discord.ui.Item[Any]:
            custom_id = components.spec(self.game_name, action).encode(record.id)
            return components.button(custom_id, t(LOBBY_BUTTONS[action], lang), style=style)

        return components.view_of(
            lobby_button("join", discord.ButtonStyle.success),
            lobby_button("leave", discord.ButtonStyle.secondary),
            lobby_button("start", discord.ButtonStyle.primary),
            lobby_button("cancel", discord.ButtonStyle.danger),
            *self.bot_controls(record, lang),
        )

    @property
    def offers_bots(self) -> bool:
        return game_info(self.game_name).bots is not None

    def bot_controls(self, record: SessionRecord, lang: str) -> list[discord.ui.Item[Any]]:
        """The host's Add a bot (a select of the levels, each described by the game's own catalogue key
        `<game>.bots.<level>`) while a seat is free, and Remove a bot while one is seated."""
        if not self.offers_bots:
            return []
        items: list[discord.ui.Item[Any]] = []
        if len(record.players) < self.bot.sessions.games[record.game].max_players:
            levels = [
                discord.SelectOption(
                    label=t(LEVEL_NAMES[level], lang)[:100],
                    value=level.value,
                    description=t(f"{self.game_name}.bots.{level.value}", lang)[:100],
                    emoji="🤖",
                )
                for level in LEVELS
            ]
            custom_id = components.spec(self.game_name, "add_bot").encode(record.id)
            items.append(components.select(custom_id, levels, placeholder=t(LOBBY_CONTROLS["add_bot"], lang)))
        if record.bots:
            seated = [
                discord.SelectOption(label=record.name(seat)[:100], value=seat)
                for seat in record.players
                if seat in record.bots
            ]
            custom_id = components.spec(self.game_name, "remove_bot").encode(record.id)
            items.append(
                components.select(custom_id, seated, placeholder=t(LOBBY_CONTROLS["remove_bot"], lang))
            )
        return items

    async def _add_bot(self, click: Click) -> None:
        record = await self._lobby_record(click)
        [level] = click.selected or [""]
        if level not in {known.value for known in LEVELS}:
            raise BadAction("ui.lobby.no_such_level")
        record = await self.seat_bots(record, click.player, 1, Level(level))
        await self._show_lobby(click.interaction, record)

    async def seat_bots(self, record: SessionRecord, host: str, count: int, level: Level) -> SessionRecord:
        """Seat `count` bots at `level`, each named in the table's language."""
        lang = await self.table_lang(record)
        if self.offers_bots:
            self.bots.warm(level)  # its word data loads in a worker thread meanwhile (bot/ui/bots.py)
        for _ in range(count):
            record, _seat = await self.bot.sessions.add_bot(
                record.id, host, level.value, lambda seat: bot_name(seat, level, lang)
            )
        return record

    async def _remove_bot(self, click: Click) -> None:
        record = await self._lobby_record(click)
        [seat] = click.selected or [""]
        record = await self.bot.sessions.remove_bot(record.id, click.player, seat)
        await self._show_lobby(click.interaction, record)

    async def _show_lobby(
        self, interaction: discord.Interaction[Any], record: SessionRecord, note: str | None = None
    ) -> None:
        lang = await self.table_lang(record)
        view = self.lobby_view(record, lang) if note is None else None
        await update_clicked(interaction, embed=self.lobby_embed(record, note, lang), view=view)

    async def _edit_lobby(self, record: SessionRecord, note: str | None = None) -> None:
        if record.message_id is None:
            return
        channel = self.bot.get_partial_messageable(record.channel_id)
        lang = await self.table_lang(record)
        view = self.lobby_view(record, lang) if record.status == "lobby" and note is None else None
        try:
            await channel.get_partial_message(record.message_id).edit(
                embed=self.lobby_embed(record, note, lang), view=view
            )
        except discord.HTTPException:
            log.warning("could not update the lobby message of session %d", record.id)

    async def _lobby_record(self, click: Click) -> SessionRecord:
        """The lobby a lobby button names: its own message, while it is a lobby (the host's Cancel on the
        old lobby message never touches the game that started from it)."""
        record = await self.own_session(click.interaction, click.session_id)
        if record.status != "lobby":
            raise GameOver("ui.lobby.not_open")
        return record

    async def _join(self, click: Click) -> None:
        try:
            await self._lobby_record(click)
        except (StaleAction, GameOver):
            await self._started_without(click)
            raise
        record = await self.bot.sessions.join(
            click.session_id, click.player, click.interaction.user.display_name
        )
        await self._show_lobby(click.interaction, record)

    async def _started_without(self, click: Click) -> None:
        """Join on a lobby whose game has started: say so, and where to watch it (its table message, or
        the channel while the table is being posted), rather than that the table has moved on."""
        record = await self.bot.sessions.session(click.session_id)
        if record.game != self.game_name or record.status != "active":
            return
        if record.message_id is not None:
            where = message_link(record.guild_id, record.channel_id, record.message_id)
        else:
            where = f"<#{record.channel_id}>"
        raise WrongPhase("ui.lobby.join_started", game=self.title, where=where)

    async def _leave(self, click: Click) -> None:
        await self._lobby_record(click)
        record = await self.bot.sessions.leave_lobby(click.session_id, click.player)
        await self._show_lobby(click.interaction, record)

    async def _start(self, click: Click) -> None:
        record = await self._lobby_record(click)
        setup = await self.start_setup(record)
        result = await self.bot.sessions.start_game(click.session_id, click.player, setup)
        lang = await self.table_lang(result.session)
        await self._show_lobby(
            click.interaction, result.session, t("ui.lobby.started", lang, n=len(result.session.players))
        )
        await self._begin(click.interaction, result)

    async def _begin(self, interaction: discord.Interaction[Any], result: ActResult) -> None:
        """What follows every start, pressed or by `/<game> new bots:…` (its interaction already answered): the
        table, the bots' first look, then the game's own `after_start` for the host who started it."""
        await self.refresh(result.session.id, [{"type": TABLE_OPENED}, *result.events])
        self.bots_play(result.session)
        await self.after_start(interaction, result)

    async def start_setup(self, record: SessionRecord) -> dict[str, Any]:
        """What the rules' setup needs that is only known when the host starts (e.g. the players' birthdays)."""
        return {}

    async def after_start(self, interaction: discord.Interaction[Any], result: ActResult) -> None:
        """The game started and its table is up: e.g. the host's private panel. `interaction` is the host's
        (a Start press or the `/<game> new` that started it), already answered: follow up privately."""

    async def _cancel(self, click: Click) -> None:
        record = await self._lobby_record(click)
        if not self.may_manage(click.interaction, record.host_id):
            raise NotAPlayer("ui.cancel.not_allowed")
        record = await self.bot.sessions.cancel(click.session_id)
        table_lang = await self.table_lang(record)
        note = t("ui.lobby.cancelled_by", table_lang, who=mention(click.player))
        await self._show_lobby(click.interaction, record, note)

    async def close_expired_lobby(self, record: SessionRecord) -> None:
        """The lobby's time ran out: say so on its message and remove the buttons."""
        await self._edit_lobby(record, t("ui.lobby.expired", await self.table_lang(record)))
