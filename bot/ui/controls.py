"""The commands every game has: `/status` (the table as the channel sees it, with the user's private panel),
`/leave`, `/end` (the host or Manage Server ends the game; a player asks the table, who vote)."""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.engine.errors import BadAction, NotAPlayer
from bot.engine.votes import VoteResult
from bot.i18n import N_, t
from bot.store import SessionRecord, VoteRecord
from bot.ui.embeds import mention
from bot.ui.replies import NO_MENTIONS, reply_private
from bot.ui.table_base import Table, TableBase
from bot.ui.troubles import answer

log = logging.getLogger(__name__)


class Controls(TableBase):
    """`/status`, `/leave`, `/end`, ending a game and the vote to end it (a part of `TableCog`)."""

    # -- /status, /leave, /end --------------------------------------------------------------------------

    async def _status_command(self, interaction: discord.Interaction[Any]) -> None:
        await self.status(interaction)

    async def _leave_command(self, interaction: discord.Interaction[Any]) -> None:
        await self.leave(interaction)

    async def _end_command(self, interaction: discord.Interaction[Any]) -> None:
        await self.end(interaction)

    async def status(self, interaction: discord.Interaction[Any]) -> None:
        """The table as the channel sees it, in the user's language, with their private panel."""
        record = await self.channel_game(interaction)
        lang = self.user_lang(interaction)
        if record.status == "lobby":
            await reply_private(interaction, embed=self.lobby_embed(record, lang=lang))
            return
        view = await self.table_view(record)
        table = await self.render(record, view, [], lang)
        player = str(interaction.user.id)
        if player in record.players:
            await self.consoles.attach_news(interaction, record.id, player)
            panel = await self.private_panel(record, await self.bot.sessions.view(record.id, player), lang)
            text = panel.embed.description if isinstance(panel, Table) else panel
            text = text.description if isinstance(text, discord.Embed) else text
            table.embed.add_field(name=t("ui.only_you", lang), value=(text or "—")[:1024], inline=False)
        kwargs: dict[str, Any] = {"embed": table.embed}
        if table.file is not None:
            kwargs["file"] = table.file
        await reply_private(interaction, **kwargs)

    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        record = await self.channel_game(interaction)
        lang = self.user_lang(interaction)
        player = str(interaction.user.id)
        if record.status == "lobby":
            record = await self.bot.sessions.leave_lobby(record.id, player)
            await reply_private(interaction, t("ui.left_lobby", lang))
            await self._edit_lobby(record)
            return
        if player not in record.players:
            raise NotAPlayer("ui.not_a_player")
        await self.act(interaction, record.id, {"do": "leave"}, private=True)
        await answer(interaction, t("ui.left_game", lang))

    async def end(self, interaction: discord.Interaction[Any]) -> None:
        """The host or Manage Server ends the game; a player asks the table (once per round or move)."""
        record = await self.channel_game(interaction)
        lang = self.user_lang(interaction)
        if not self.may_manage(interaction, await self.host_of(record)):
            if record.status == "lobby":
                raise NotAPlayer("ui.only_host_lobby")
            await self.ask_to_end(interaction, record)
            return
        lobby = record.status == "lobby"
        await self.end_game(record, by=str(interaction.user.id))
        if lobby:
            said = N_("ui.lobby_closed")
        else:
            said = N_("ui.game_ended") if self.end_action is not None else N_("ui.game_ended_no_result")
        await answer(interaction, t(said, lang))

    async def end_game(self, record: SessionRecord, by: str | None = None, *, voted: bool = False) -> None:
        """End now: the rules crown the best score (end_action, told whether the host or the table's vote
        ended it), or the game is cancelled without a result."""
        if record.status == "lobby":
            record = await self.bot.sessions.cancel(record.id)
            lang = await self.table_lang(record)
            note = t("ui.lobby.cancelled_by", lang, who=mention(by)) if by else None
            await self._edit_lobby(record, note)
            return
        if self.end_action is not None:
            action = {**self.end_action, "by": "vote" if voted else "host"}
            result = await self.bot.sessions.act(record.id, None, action)
            self._after_action(result)
            await self.refresh(record.id, result.events)
            return
        record = await self.bot.sessions.cancel(record.id)
        lang = await self.table_lang(record)
        channel = self.bot.get_partial_messageable(record.channel_id)
        if record.message_id is not None:
            await self._retire(channel, record, None)
        try:
            await channel.send(
                t("ui.ended_no_result", lang, game=self.title, id=record.id), allowed_mentions=NO_MENTIONS
            )
        except discord.HTTPException:
            log.warning("could not announce the end of session %d", record.id)

    # -- the vote to end ------------------------------------------------------------------------------------

    @property
    def _end_vote_kind(self) -> str:
        return f"{self.game_name}:end"

    async def ask_to_end(self, interaction: discord.Interaction[Any], record: SessionRecord) -> None:
        """The others vote; a player may ask once per round or move (the rules' freshness says which)."""
        lang = self.user_lang(interaction)
        asker = str(interaction.user.id)
        view = await self.bot.sessions.view(record.id, None)
        still_playing = [p for p in record.players if p not in view.get("left", [])]
        if asker not in still_playing:
            raise NotAPlayer("ui.end.not_allowed")
        moment = await self.bot.sessions.freshness(record.id)
        for vote in await self.bot.store.votes.for_session(record.id, self._end_vote_kind):
            if vote.status == "open":
                raise BadAction("ui.end_vote_open")
            if vote.payload.get("asker") == asker and vote.payload.get("at") == moment:
                raise BadAction("ui.end_asked_already")
        # People decide whether to end: a bot seat casts no ballot here (docs/bots.md).
        voters = [p for p in still_playing if p != asker and p not in record.bots]
        table_lang = await self.table_lang(record)
        channel = self.bot.get_partial_messageable(record.channel_id)
        # Another ask may have opened a vote since the check above: the write itself keeps it to one, and
        # the asker is told only what was written.
        opened = await self.bot.votes.open(
            channel,
            record.channel_id,
            kind=self._end_vote_kind,
            question=t(
                "ui.end.question",
                table_lang,
                name=discord.utils.escape_markdown(record.name(asker)),
                game=self.title,
            ),
            eligible=voters,
            seconds=self.end_vote_seconds,
            lang=table_lang,
            session_id=record.id,
            payload={"asker": asker, "at": moment},
            quorum=True,
        )
        if not opened.created:
            raise BadAction("ui.end_vote_open")
        await reply_private(interaction, t("ui.end.asked", lang))

    async def _end_vote_closed(self, vote: VoteRecord, result: VoteResult) -> None:
        if result != "yes" or vote.session_id is None:
            return
        record = await self.bot.sessions.session(vote.session_id)
        if record.is_open:
            await self.end_game(record, voted=True)
