"""A persisted yes/no vote with eligible voters and a window; it survives a restart.

Games whose rules hold their own votes (Top Stop disputes) keep them in the game state; this one serves
the rest (e.g. a disputed dictionary verdict in TopWords): the result goes to the handler of its `kind`.
The vote's message speaks the table's language (kept in its payload); the replies to a voter, theirs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from bot.engine.errors import GameOver
from bot.engine.votes import Rule, Tally, VoteResult, require_voter, tally
from bot.i18n import N_, language_of, t
from bot.store import VoteRecord
from bot.ui import components
from bot.ui.components import Click
from bot.ui.embeds import relative_time
from bot.ui.replies import NO_MENTIONS, reply_private, update_clicked

if TYPE_CHECKING:
    from bot.app import TopBot

log = logging.getLogger(__name__)

VOTE_PREFIX = "vote"
ResultHandler = Callable[[VoteRecord, VoteResult], Awaitable[None]]
OUTCOMES = {"yes": N_("ui.vote.accepted"), "no": N_("ui.vote.rejected"), "tie": N_("ui.vote.tie")}


@dataclass(frozen=True)
class Opened:
    """What `VoteService.open` wrote: a new vote, or (`created` False) the session's vote of that kind that
    was already open, untouched."""

    vote: VoteRecord
    created: bool


class VoteService:
    """Open votes, count ballots, close at the deadline or when every eligible voter has voted."""

    def __init__(self, bot: TopBot, clock: Callable[[], float] = time.time) -> None:
        self.bot = bot
        self.clock = clock
        self.handlers: dict[str, ResultHandler] = {}
        self._timers: dict[int, asyncio.Task[None]] = {}
        components.register(VOTE_PREFIX, "yes", self._on_yes)
        components.register(VOTE_PREFIX, "no", self._on_no)

    async def start(self) -> None:
        """Re-arm the deadline of every open vote of the guilds this process serves, after a restart."""
        for vote in await self.bot.store.votes.all_open(self.bot.sessions.shards):
            self._arm(vote)

    async def close_all(self) -> None:
        for task in self._timers.values():
            task.cancel()
        for task in list(self._timers.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._timers.clear()

    async def open(
        self,
        channel: discord.abc.Messageable,
        channel_id: int,
        *,
        kind: str,
        question: str,
        eligible: list[str],
        seconds: float,
        lang: str,
        session_id: int | None = None,
        payload: dict[str, Any] | None = None,
        quorum: bool = False,
    ) -> Opened:
        """A vote whose message speaks `lang` (the table's); with `quorum`, fewer than half of the eligible
        voting cannot pass it (`Rule.QUORUM`).

        A session has at most one open vote of a kind: whether one is already open is read in the very
        transaction that writes the new one, so two asks at once open exactly one (the second gets the first
        back, `created` False). The vote is written before its message is posted and this returns after both,
        so a caller confirms only what is written.
        """
        vote = VoteRecord(
            id=0,
            session_id=session_id,
            channel_id=channel_id,
            message_id=None,
            kind=kind,
            question=question,
            eligible=list(eligible),
            deadline=self.clock() + seconds,
            status="open",
            result=None,
            payload={**(payload or {}), "lang": lang, **({"quorum": True} if quorum else {})},
            guild_id=_guild_of(channel),
        )
        async with self.bot.store.transaction() as tx:
            if session_id is not None:
                already = await self.bot.store.votes.open_of_kind(tx, session_id, kind)
                if already is not None:
                    return Opened(already, created=False)
            vote.id = await self.bot.store.votes.create(tx, vote, self.clock())
        try:
            message = await channel.send(
                embed=self.embed(vote, {}), view=self.view(vote), allowed_mentions=NO_MENTIONS
            )
        except Exception:
            self._arm(vote)  # no message to vote on, but it closes at its deadline and frees the session
            raise
        async with self.bot.store.transaction() as tx:
            await self.bot.store.votes.set_message(vote.id, message.id, tx)
        vote.message_id = message.id
        self._arm(vote)
        return Opened(vote, created=True)

    def embed(self, vote: VoteRecord, ballots: dict[str, bool]) -> discord.Embed:
        lang = _language(vote)
        counted = _tally(vote, ballots)
        embed = discord.Embed(
            title=t("ui.vote.title", lang), description=vote.question[:4096], colour=discord.Colour.gold()
        )
        embed.add_field(
            name=t("ui.vote.votes", lang),
            value=t("ui.vote.count", lang, yes=counted.yes, no=counted.no, eligible=counted.eligible),
        )
        if vote.status == "open":
            embed.add_field(name=t("ui.vote.closes", lang), value=relative_time(vote.deadline))
        else:
            outcome = OUTCOMES.get(vote.result or "tie")
            embed.add_field(name=t("ui.vote.result", lang), value=t(outcome, lang) if outcome else "—")
        return embed

    def view(self, vote: VoteRecord) -> discord.ui.View:
        lang = _language(vote)
        return components.view_of(
            components.button(
                components.spec(VOTE_PREFIX, "yes").encode(vote.id),
                t("ui.vote.yes", lang),
                style=discord.ButtonStyle.success,
            ),
            components.button(
                components.spec(VOTE_PREFIX, "no").encode(vote.id),
                t("ui.vote.no", lang),
                style=discord.ButtonStyle.danger,
            ),
        )

    async def _on_yes(self, click: Click) -> None:
        await self._cast(click.interaction, click.session_id, True)

    async def _on_no(self, click: Click) -> None:
        await self._cast(click.interaction, click.session_id, False)

    async def _cast(self, interaction: discord.Interaction[Any], vote_id: int, yes: bool) -> None:
        vote = await self.bot.store.votes.get(vote_id)
        if vote is None or vote.status != "open":
            raise GameOver("ui.vote.closed")
        self.bot.sessions.require_served(vote.guild_id, f"vote {vote_id}")
        clicked = interaction.message
        if clicked is not None and vote.message_id is not None and clicked.id != vote.message_id:
            raise GameOver("ui.vote.closed")  # an id of this vote pressed on another message
        if vote.session_id is not None and not (await self.bot.sessions.session(vote.session_id)).is_open:
            raise GameOver("ui.vote.closed")  # the game it is about has ended: it can decide nothing
        voter = str(interaction.user.id)
        require_voter(vote.eligible, voter, refusal=N_("ui.vote.not_eligible"))
        lang = language_of(interaction.locale)
        said = t(N_("ui.vote.your_yes") if yes else N_("ui.vote.your_no"), lang)
        async with self.bot.store.transaction() as tx:
            await self.bot.store.votes.cast(tx, vote_id, voter, yes, self.clock())
        ballots = await self.bot.store.votes.ballots(vote_id)
        if not _tally(vote, ballots).everyone_voted:
            await update_clicked(interaction, embed=self.embed(vote, ballots))
            await reply_private(interaction, t("ui.vote.cast", lang, vote=said))
            return
        # The last ballot closes the vote: the click's own answer shows the result, with no second edit.
        closed = await self._close_in_store(vote_id)
        if closed is None:
            raise GameOver("ui.vote.closed")
        vote, ballots, result = closed
        await update_clicked(interaction, embed=self.embed(vote, ballots), view=None)
        await reply_private(interaction, t("ui.vote.last", lang, vote=said))
        await self._announce(vote, result)

    async def close(self, vote_id: int) -> VoteResult | None:
        """Count and close; None when it was already closed (e.g. timer and last ballot at once)."""
        closed = await self._close_in_store(vote_id)
        if closed is None:
            return None
        vote, ballots, result = closed
        if vote.message_id is not None:
            message = self.bot.get_partial_messageable(vote.channel_id).get_partial_message(vote.message_id)
            try:
                await message.edit(embed=self.embed(vote, ballots), view=None)
            except discord.HTTPException:
                log.warning("could not update the message of vote %d", vote_id)
        await self._announce(vote, result)
        return result

    async def _close_in_store(self, vote_id: int) -> tuple[VoteRecord, dict[str, bool], VoteResult] | None:
        ballots = await self.bot.store.votes.ballots(vote_id)
        vote = await self.bot.store.votes.get(vote_id)
        if vote is None:
            return None
        result = _tally(vote, ballots).result
        async with self.bot.store.transaction() as tx:
            closed = await self.bot.store.votes.close(tx, vote_id, result)
        if not closed:
            return None
        task = self._timers.pop(vote_id, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        vote = await self.bot.store.votes.get(vote_id)
        assert vote is not None
        return vote, ballots, result

    async def _announce(self, vote: VoteRecord, result: VoteResult) -> None:
        handler = self.handlers.get(vote.kind)
        if handler is not None:
            await handler(vote, result)

    def _arm(self, vote: VoteRecord) -> None:
        self._timers[vote.id] = asyncio.create_task(self._wait_and_close(vote))

    async def _wait_and_close(self, vote: VoteRecord) -> None:
        await asyncio.sleep(max(0.0, vote.deadline - self.clock()))
        try:
            await self.close(vote.id)
        except Exception:
            log.exception("closing vote %d failed", vote.id)


def _tally(vote: VoteRecord, ballots: dict[str, bool]) -> Tally:
    return tally(ballots, vote.eligible, Rule.QUORUM if vote.payload.get("quorum") else Rule.MAJORITY)


def _guild_of(channel: discord.abc.Messageable) -> int | None:
    """The channel's guild (None for a channel outside a guild: then the vote's session tells it)."""
    guild = getattr(channel, "guild", None)
    return guild.id if isinstance(guild, discord.Guild) else None


def _language(vote: VoteRecord) -> str:
    lang = vote.payload.get("lang")
    return lang if isinstance(lang, str) else "en"
