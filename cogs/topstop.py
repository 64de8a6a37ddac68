"""Top Stop in a channel: the lobby, the spin, the writing modal, STOP, the reveal, disputes and votes.

The cog is thin: every decision is the rules' (bot/games/topstop); this module only turns clicks into
actions and the public view into one table message per phase.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.engine.errors import BadAction, NotAPlayer
from bot.engine.game import Event
from bot.engine.sessions import ActResult
from bot.store import SessionRecord
from bot.ui import components
from bot.ui.embeds import relative_time
from bot.ui.gamecog import GameCog
from bot.ui.replies import NO_MENTIONS, reply_private

if TYPE_CHECKING:
    from bot.app import TopBot

log = logging.getLogger(__name__)

GAME = "topstop"
REASONS = {
    "not_a_word": "not in the dictionary",
    "wrong_letter": "wrong letter",
    "proper_noun": "proper noun",
    "abbreviation": "abbreviation",
    "common": "written by another player too",
    "duplicate": "used in an earlier round",
    "variant": "a form of an earlier word of yours",
    "level": "breaks the Level card",
    "category": "not in the category",
    "voted_out": "voted out",
}
LANGUAGE_NAMES = {"en": "English", "fr": "French", "de": "German"}
# A new table message starts with each of these, so the channel keeps one message per round and reveal.
NEW_MESSAGE_EVENTS = {"round_started", "writing_closed", "finished"}


class TopStop(GameCog, name="Top Stop"):
    game_name = GAME
    title = "Top Stop"
    colour = discord.Colour.orange()

    def __init__(self, bot: TopBot) -> None:
        super().__init__(bot)
        for action, handler in (
            ("spin", self._on_spin),
            ("write", self._on_write),
            ("stop", self._on_stop),
            ("respin", self._on_respin),
            ("dispute", self._on_dispute),
            ("pick", self._on_pick),
            ("vote", self._on_vote),
        ):
            components.register_component(GAME, action, handler)
        components.register_modal(GAME, "words", self._on_words)

    group = app_commands.Group(name="topstop", description="Top Stop: the word race", guild_only=True)

    @group.command(name="new", description="Open a Top Stop lobby in this channel")
    @app_commands.describe(
        language="Language of the words (default: the server's)",
        target="Winning score (default by player count: 50, 100 or 150)",
        writing_time="Seconds to write before writing closes (default 180)",
        grace="Seconds the others get after STOP (default 10)",
        mode="Base game (the Advanced cards are coming)",
    )
    @app_commands.choices(
        language=[app_commands.Choice(name=n, value=c) for c, n in LANGUAGE_NAMES.items()],
        mode=[app_commands.Choice(name="Base game", value="base")],
    )
    async def new(
        self,
        interaction: discord.Interaction[Any],
        language: app_commands.Choice[str] | None = None,
        target: app_commands.Range[int, 5, 500] | None = None,
        writing_time: app_commands.Range[int, 20, 900] | None = None,
        grace: app_commands.Range[int, 0, 120] | None = None,
        mode: app_commands.Choice[str] | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        default_language = await self.bot.store.guild_settings.language(
            interaction.guild_id, self.bot.settings.default_language
        )
        options: dict[str, Any] = {"language": language.value if language else default_language}
        if mode is not None:
            options["mode"] = mode.value
        if target is not None:
            options["target"] = target
        if writing_time is not None:
            options["writing_time"] = writing_time
        if grace is not None:
            # The rules want a positive grace; "0" means as short as the bot can make it.
            options["grace"] = max(grace, 1)
        await self.open_lobby(interaction, options)

    @group.command(name="status", description="The game in this channel, with your own words")
    async def status(self, interaction: discord.Interaction[Any]) -> None:
        record = await self._channel_game(interaction)
        if record.status == "lobby":
            await reply_private(interaction, embed=self.lobby_embed(record))
            return
        view = await self.bot.sessions.view(record.id, str(interaction.user.id))
        embed = self.table_embed(record, view)
        mine = (view.get("round") or {}).get("your_words")
        if mine is not None:
            embed.add_field(name="Your words (only you see this)", value=", ".join(mine) or "—", inline=False)
        await reply_private(interaction, embed=embed)

    @group.command(name="leave", description="Leave the game in this channel (it goes on while two remain)")
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        record = await self._channel_game(interaction)
        if record.status == "lobby":
            record = await self.bot.sessions.leave_lobby(record.id, str(interaction.user.id))
            await reply_private(interaction, "You left the lobby.")
            await self._edit_lobby(record)
            return
        result = await self.bot.sessions.act(
            record.id, str(interaction.user.id), {"do": "leave"}, interaction_id=str(interaction.id)
        )
        await reply_private(interaction, "You left the game.")
        await self.show(result.session, result.events)

    @group.command(name="end", description="End the game in this channel (host or Manage Server)")
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        record = await self._channel_game(interaction)
        if not self.may_manage(interaction, record):
            raise NotAPlayer("Only the host or a member with Manage Server can end this game.")
        if record.status == "lobby":
            record = await self.bot.sessions.cancel(record.id)
            await reply_private(interaction, "The lobby is closed.")
            await self._edit_lobby(record, "Closed by the host.")
            return
        # Ended early: the rules crown the highest score; the host acts as the bot does.
        result = await self.bot.sessions.act(
            record.id, None, {"do": "end"}, interaction_id=str(interaction.id)
        )
        await reply_private(interaction, "The game is over.")
        await self.show(result.session, result.events)

    # -- buttons ----------------------------------------------------------------------------------

    async def _on_spin(
        self, interaction: discord.Interaction[Any], session_id: int, _arg: str | None
    ) -> None:
        await self._act_and_show(interaction, session_id, {"do": "spin"})

    async def _on_stop(
        self, interaction: discord.Interaction[Any], session_id: int, _arg: str | None
    ) -> None:
        await self._act_and_show(interaction, session_id, {"do": "stop"})

    async def _on_respin(
        self, interaction: discord.Interaction[Any], session_id: int, _arg: str | None
    ) -> None:
        await self._act_and_show(interaction, session_id, {"do": "respin"})

    async def _on_vote(self, interaction: discord.Interaction[Any], session_id: int, arg: str | None) -> None:
        await self._act_and_show(interaction, session_id, {"do": "vote", "accept": arg == "yes"})
        await interaction.followup.send(
            "Your vote is in; it stays secret until the vote closes.", ephemeral=True
        )

    async def _on_write(
        self, interaction: discord.Interaction[Any], session_id: int, _arg: str | None
    ) -> None:
        player = str(interaction.user.id)
        record = await self.bot.sessions.session(session_id)
        if player not in record.players:
            raise NotAPlayer("You are not playing in this game; you can watch.")
        view = await self.bot.sessions.view(session_id, player)
        current = view.get("round") or {}
        if view["phase"] != "writing" or player not in current.get("players", []):
            raise BadAction("Writing is not open for you right now.")
        if current.get("stopped_by") == player:
            raise BadAction("You called STOP: your list is final.")
        await interaction.response.send_modal(
            words_modal(
                session_id, current["letter"], view["options"]["words"], current.get("your_words", [])
            )
        )

    async def _on_words(
        self, interaction: discord.Interaction[Any], session_id: int, _arg: str | None, values: dict[str, str]
    ) -> None:
        words = [values.get(f"word{index}", "") for index in range(1, 6)]
        result = await self._act_and_show(interaction, session_id, {"do": "submit", "words": words})
        mine: list[str] = next(
            (e["words"] for e in result.events if e.get("private_to") == str(interaction.user.id)), []
        )
        text = ", ".join(mine) if mine else "no words"
        await interaction.followup.send(
            f"Saved (only you see this): **{text}**. You can edit them until writing closes.", ephemeral=True
        )

    async def _on_dispute(
        self, interaction: discord.Interaction[Any], session_id: int, _arg: str | None
    ) -> None:
        player = str(interaction.user.id)
        record = await self.bot.sessions.session(session_id)
        if player not in record.players:
            raise NotAPlayer("Only players can dispute a word.")
        view = await self.bot.sessions.view(session_id, player)
        current = view.get("round") or {}
        if view["phase"] != "review" or not current.get("lists"):
            raise BadAction("Words can be disputed only while the round's words are under review.")
        if current.get("dispute"):
            raise BadAction("One vote at a time: wait for the current vote to close.")
        choices = [
            discord.SelectOption(
                label=f"{entry['word']} — {record.name(owner)}"[:100],
                value=f"{owner}|{entry['word']}"[:100],
                description=("✅ counted" if entry["valid"] else f"❌ {REASONS.get(entry['reason'], '')}")[
                    :100
                ],
            )
            for owner, entries in current["lists"].items()
            for entry in entries
            if not entry["disputed"]
        ]
        if not choices:
            raise BadAction("Every word of this round has already been put to the vote.")
        chunks = [choices[i : i + 25] for i in range(0, min(len(choices), 125), 25)]
        items = [
            components.select(
                GAME, session_id, "pick", chunk, placeholder="Which word should the table judge?"
            )
            for chunk in chunks
        ]
        for index, item in enumerate(items):
            item.item.custom_id = components.custom_id(GAME, session_id, "pick", str(index))  # type: ignore[attr-defined]
        await reply_private(
            interaction,
            "Pick the word to put to the vote. The other players decide by majority; a tie keeps the verdict.",
            view=components.view_of(*items),
        )

    async def _on_pick(
        self, interaction: discord.Interaction[Any], session_id: int, _arg: str | None
    ) -> None:
        values = components.selected_values(interaction)
        if len(values) != 1 or "|" not in values[0]:
            raise BadAction("Pick one word from the list.")
        owner, word = values[0].split("|", 1)
        result = await self.bot.sessions.act(
            session_id,
            str(interaction.user.id),
            {"do": "dispute", "of": owner, "word": word},
            interaction_id=str(interaction.id),
        )
        await interaction.response.edit_message(
            content=f"You disputed **{word}**. The vote is open.", view=None
        )
        await self.show(result.session, result.events)

    # -- showing the table ------------------------------------------------------------------------

    async def _act_and_show(
        self, interaction: discord.Interaction[Any], session_id: int, action: dict[str, Any]
    ) -> ActResult:
        result = await self.bot.sessions.act(
            session_id, str(interaction.user.id), action, interaction_id=str(interaction.id)
        )
        on_table = interaction.message is not None and interaction.message.id == result.session.message_id
        if on_table and not _needs_new_message(result.events):
            embed, view = await self.render(result.session)
            await interaction.response.edit_message(embed=embed, view=view)
        else:
            await interaction.response.defer()
            await self.show(result.session, result.events)
        return result

    async def post_table(self, interaction: discord.Interaction[Any], result: ActResult) -> None:
        embed, view = await self.render(result.session)
        channel = self.bot.get_partial_messageable(result.session.channel_id)
        message = await channel.send(embed=embed, view=view, allowed_mentions=NO_MENTIONS)
        await self.bot.sessions.set_message(result.session.id, message.id)

    async def on_events(self, record: SessionRecord, events: list[Event]) -> None:
        if any(e.get("type") == "lobby_expired" for e in events):
            await self.close_expired_lobby(record)
            return
        await self.show(record, events)

    async def show(self, record: SessionRecord, events: list[Event]) -> None:
        """Update the table: edit its message, or close it and post a new one when a new stage begins."""
        channel = self.bot.get_partial_messageable(record.channel_id)
        embed, view = await self.render(record)
        if record.message_id is not None and not _needs_new_message(events):
            try:
                await channel.get_partial_message(record.message_id).edit(embed=embed, view=view)
                return
            except discord.NotFound:
                log.info("table message of session %d is gone; posting a new one", record.id)
        if record.message_id is not None:
            await self._close_old_message(record, channel)
        message = await channel.send(embed=embed, view=view, allowed_mentions=NO_MENTIONS)
        await self.bot.sessions.set_message(record.id, message.id)

    async def _close_old_message(self, record: SessionRecord, channel: discord.PartialMessageable) -> None:
        """The previous stage's message loses its buttons; a reveal keeps its final words and points."""
        assert record.message_id is not None
        view = await self.bot.sessions.view(record.id, None)
        history = view["history"]
        old = channel.get_partial_message(record.message_id)
        try:
            if history:
                await old.edit(embed=self.reveal_embed(record, history[-1], view), view=None)
            else:  # the first spin: nothing was revealed yet, its text stays as it was
                await old.edit(view=None)
        except discord.HTTPException:
            log.warning("could not close the old table message of session %d", record.id)

    async def render(self, record: SessionRecord) -> tuple[discord.Embed, discord.ui.View]:
        view = await self.bot.sessions.view(record.id, None)
        return self.table_embed(record, view), self.table_view(record, view)

    def table_embed(self, record: SessionRecord, view: dict[str, Any]) -> discord.Embed:
        phase = view["phase"]
        current = view.get("round") or {}
        names = record.name
        embed = discord.Embed(colour=self.colour)
        if phase == "first_spin":
            embed.title = "Top Stop — who spins first?"
            lines = [
                f"{names(p)}: **{letter}**" if letter else f"{names(p)}: waiting…"
                for p, letter in view["first_spin"].items()
            ]
            embed.description = (
                "Everyone presses **Spin**: the letter closest to A spins first.\n" + "\n".join(lines)
            )
        elif phase == "spin":
            embed.title = f"Top Stop — round {current['number']}"
            tiebreak = " (tiebreak)" if current.get("tiebreak") else ""
            embed.description = f"**{names(current['spinner'])}** spins the letter{tiebreak}."
            if current.get("respun"):
                embed.description += f"\nRe-spun by everyone's wish: {', '.join(current['respun'])}."
        elif phase == "writing":
            embed.title = f"Top Stop — round {current['number']}: letter **{current['letter']}**"
            count = view["options"]["words"]
            deadline = self.bot.sessions.deadline(record, "grace") or self.bot.sessions.deadline(
                record, "writing"
            )
            lines = [
                f"Write {count} words starting with **{current['letter']}** ({LANGUAGE_NAMES[view['options']['language']]})."
            ]
            if current.get("stopped_by"):
                lines.append(f"🛑 **{names(current['stopped_by'])}** called STOP!")
            if deadline:
                lines.append(f"Writing closes {relative_time(deadline)}.")
            submitted = current.get("submitted", {})
            lines.append(
                "Submitted: "
                + (
                    ", ".join(f"{names(p)} ({n})" for p, n in submitted.items())
                    if submitted
                    else "nobody yet"
                )
            )
            if current.get("respin_votes"):
                lines.append(f"Re-spin asked by {len(current['respin_votes'])} of {len(current['players'])}.")
            embed.description = "\n".join(lines)
        elif phase == "review":
            embed = self.reveal_embed(record, view["history"][-1], view)
            dispute = current.get("dispute")
            if dispute:
                deadline = self.bot.sessions.deadline(record, "vote")
                verdict = (
                    "counted" if dispute["valid"] else f"crossed out ({REASONS.get(dispute['reason'], '')})"
                )
                embed.add_field(
                    name="🗳️ Vote",
                    value=(
                        f"{names(dispute['by'])} disputes **{dispute['word']}** by {names(dispute['of'])}, now "
                        f"{verdict}. Should it count? {len(dispute['voted'])}/{len(dispute['voters'])} voted"
                        + (f"; closes {relative_time(deadline)}." if deadline else ".")
                    ),
                    inline=False,
                )
            else:
                deadline = self.bot.sessions.deadline(record, "review")
                embed.add_field(
                    name="Review",
                    value="Think a verdict is wrong? Press **Dispute a word**."
                    + (f" Scoring {relative_time(deadline)}." if deadline else ""),
                    inline=False,
                )
        else:
            embed.title = "Top Stop — game over"
            winners = ", ".join(names(w) for w in view["winners"]) or "nobody"
            embed.description = f"🏆 **{winners}** win{'s' if len(view['winners']) == 1 else ''}!"
        if phase != "review":
            embed.add_field(name="Scores", value=self._scores(record, view), inline=False)
        embed.set_footer(text=f"Target {view['options']['target']} · game #{record.id}")
        return embed

    def reveal_embed(
        self, record: SessionRecord, round_record: dict[str, Any], view: dict[str, Any]
    ) -> discord.Embed:
        """One round's words: crossed-out ones struck with a short reason, points once scored."""
        title = f"Top Stop — round {round_record['round']}: letter {round_record['letter']}"
        embed = discord.Embed(title=title, colour=self.colour)
        if round_record.get("stopped_by"):
            embed.description = f"🛑 STOP by **{record.name(round_record['stopped_by'])}**"
        points = round_record.get("points")
        for player in round_record["players"]:
            entries = round_record["words"].get(player, [])
            lines = [
                entry["word"]
                if entry["valid"]
                else f"~~{entry['word']}~~ *{REASONS.get(entry['reason'], entry['reason'])}*"
                for entry in entries
            ] or ["*(no words)*"]
            header = record.name(player)
            if points is not None:
                header += f" — {points.get(player, 0):+d}"
            penalty = round_record.get("penalties", {}).get(player)
            if penalty:
                lines.append(f"STOP penalty −{penalty}")
            embed.add_field(name=header[:256], value="\n".join(lines)[:1024], inline=True)
        embed.add_field(name="Scores", value=self._scores(record, view), inline=False)
        return embed

    @staticmethod
    def _scores(record: SessionRecord, view: dict[str, Any]) -> str:
        ordered = sorted(view["scores"].items(), key=lambda item: -item[1])
        left = set(view.get("left", []))
        return "\n".join(
            f"**{score}** {record.name(player)}" + (" (left)" if player in left else "")
            for player, score in ordered
        )[:1024]

    def table_view(self, record: SessionRecord, view: dict[str, Any]) -> discord.ui.View:
        sid, phase = record.id, view["phase"]
        current = view.get("round") or {}
        items: list[discord.ui.Item[Any]] = []
        if phase in ("first_spin", "spin"):
            items.append(
                components.button(GAME, sid, "spin", "Spin", emoji="🎡", style=discord.ButtonStyle.primary)
            )
        elif phase == "writing":
            items.append(
                components.button(
                    GAME, sid, "write", "Write my words", emoji="✍️", style=discord.ButtonStyle.primary
                )
            )
            if not current.get("stopped_by"):
                items.append(
                    components.button(
                        GAME, sid, "stop", "STOP!", emoji="🛑", style=discord.ButtonStyle.danger
                    )
                )
            if not current.get("submitted"):
                items.append(components.button(GAME, sid, "respin", "No words? Ask to re-spin"))
        elif phase == "review":
            if current.get("dispute"):
                items.append(
                    components.button(
                        GAME, sid, "vote", "It counts", arg="yes", style=discord.ButtonStyle.success
                    )
                )
                items.append(
                    components.button(
                        GAME, sid, "vote", "Cross it out", arg="no", style=discord.ButtonStyle.danger
                    )
                )
            else:
                items.append(components.button(GAME, sid, "dispute", "Dispute a word", emoji="⚖️"))
        return components.view_of(*items)  # empty once the game is over: the buttons go

    # -- helpers ----------------------------------------------------------------------------------

    async def _channel_game(self, interaction: discord.Interaction[Any]) -> SessionRecord:
        assert interaction.channel_id is not None
        record = await self.bot.sessions.open_in_channel(interaction.channel_id)
        if record is None or record.game != GAME:
            raise BadAction("No Top Stop game is open in this channel. Start one with `/topstop new`.")
        return record

    async def _edit_lobby(self, record: SessionRecord, note: str | None = None) -> None:
        if record.message_id is None:
            return
        channel = self.bot.get_partial_messageable(record.channel_id)
        view = self.lobby_view(record) if record.status == "lobby" else None
        await channel.get_partial_message(record.message_id).edit(
            embed=self.lobby_embed(record, note), view=view
        )


def _needs_new_message(events: list[Event]) -> bool:
    return any(event.get("type") in NEW_MESSAGE_EVENTS for event in events)


def words_modal(session_id: int, letter: str, count: int, saved: list[str]) -> discord.ui.Modal:
    """Up to five inputs for the round's words, prefilled with what the player saved before."""
    inputs: list[discord.ui.TextInput[Any]] = [
        discord.ui.TextInput(
            label=f"Word {index + 1}",
            custom_id=f"word{index + 1}",
            placeholder=f"a word starting with {letter}",
            default=saved[index] if index < len(saved) else None,
            required=False,
            max_length=40,
        )
        for index in range(min(count, 5))
    ]
    return components.modal(GAME, session_id, "words", f"Your words on {letter}", inputs)


async def setup(bot: TopBot) -> None:
    await bot.add_cog(TopStop(bot))
