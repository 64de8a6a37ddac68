"""Top Stop in a channel: the lobby, the spin, the writing modal, STOP, the reveal, disputes and votes.

The cog is thin: every decision is the rules' (bot/games/topstop); this module only turns clicks into
actions and the public view into one table message per phase.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.engine.errors import BadAction, NotAPlayer, StaleAction
from bot.engine.game import STALE_MESSAGE, Event
from bot.engine.sessions import ActResult
from bot.games.topstop.game import MAX_WORD_LENGTH
from bot.store import SessionRecord
from bot.ui import components
from bot.ui.embeds import mention, relative_time
from bot.ui.gamecog import GameCog, lobby_text
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
VOTE_RESULTS = {
    "accepted": "counted by vote",
    "crossed_out": "crossed out by vote",
    "kept": "no majority, the verdict stays",
}
EMBED_LIMIT = 6000  # characters in all of a message's embeds
# Room the review phase needs under the reveal for its Review or Vote field.
REVIEW_FIELD_ROOM = 400
# A new table message starts with each of these, so the channel keeps one message per round and reveal.
NEW_MESSAGE_EVENTS = {"round_started", "writing_closed", "finished"}
# Discord's limit (LIMITS.md) on a select option's label; its value `owner|word` always fits.
OPTION_LABEL_LIMIT = 100
# /topstop new's bounds, checked here too: Discord's client enforces them, a crafted request may not.
NEW_BOUNDS = {"target": (5, 500), "writing_time": (20, 900), "grace": (1, 120)}


class TopStop(GameCog, name="Top Stop"):
    game_name = GAME
    title = "Top Stop"
    colour = discord.Colour.orange()
    command_translations = {
        "de": {
            "Top Stop: the word race": "Top Stop: das Wortrennen",
            "Open a Top Stop lobby in this channel": "Eine Top-Stop-Lobby in diesem Kanal öffnen",
            "Language of the words (default: the server's)": "Sprache der Wörter (Standard: die des Servers)",
            "Winning score (default by player count: 50, 100 or 150)": (
                "Siegpunktzahl (Standard nach Spielerzahl: 50, 100 oder 150)"
            ),
            "Seconds to write before writing closes (default 180)": "Sekunden zum Schreiben (Standard 180)",
            "Seconds the others get after STOP (default 10)": "Sekunden für die anderen nach STOP (Standard 10)",
            "Base game (the only mode so far)": "Grundspiel (bisher der einzige Modus)",
            "Base game": "Grundspiel",
            "French": "Französisch",
            "German": "Deutsch",
            "The game in this channel, with your own words": "Das Spiel in diesem Kanal, mit deinen Wörtern",
            "Leave the game in this channel (it goes on while two remain)": (
                "Das Spiel in diesem Kanal verlassen (es geht weiter, solange zwei bleiben)"
            ),
            "End the game here (host or Manage Server; other players ask by vote)": (
                "Das Spiel hier beenden (Gastgeber oder Server verwalten; andere fragen per Abstimmung)"
            ),
        },
        "fr": {
            "Top Stop: the word race": "Top Stop : la course aux mots",
            "Open a Top Stop lobby in this channel": "Ouvrir un salon Top Stop dans ce canal",
            "Language of the words (default: the server's)": "Langue des mots (par défaut : celle du serveur)",
            "Winning score (default by player count: 50, 100 or 150)": (
                "Score gagnant (par défaut selon le nombre de joueurs : 50, 100 ou 150)"
            ),
            "Seconds to write before writing closes (default 180)": "Secondes pour écrire (180 par défaut)",
            "Seconds the others get after STOP (default 10)": "Secondes laissées aux autres après STOP (10 par défaut)",
            "Base game (the only mode so far)": "Jeu de base (le seul mode pour l'instant)",
            "Base game": "Jeu de base",
            "French": "Français",
            "German": "Allemand",
            "The game in this channel, with your own words": "La partie de ce canal, avec vos mots",
            "Leave the game in this channel (it goes on while two remain)": (
                "Quitter la partie de ce canal (elle continue tant que deux joueurs restent)"
            ),
            "End the game here (host or Manage Server; other players ask by vote)": (
                "Terminer la partie (hôte ou Gérer le serveur ; les autres demandent par un vote)"
            ),
        },
    }

    def __init__(self, bot: TopBot) -> None:
        super().__init__(bot)
        # One action-and-redraw at a time per table: a new table message is posted and its id stored
        # before the next click is applied, or that click would redraw the previous message.
        self._table_locks: dict[int, asyncio.Lock] = {}
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
        mode="Base game (the only mode so far)",
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
        grace: app_commands.Range[int, 1, 120] | None = None,
        mode: app_commands.Choice[str] | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        _check_bounds(target=target, writing_time=writing_time, grace=grace)
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
            options["grace"] = grace
        await self.open_lobby(interaction, options)

    @group.command(name="status", description="The game in this channel, with your own words")
    async def status(self, interaction: discord.Interaction[Any]) -> None:
        record = await self._channel_game(interaction)
        if record.status == "lobby":
            lang = await self.lobby_language(record)
            await reply_private(interaction, embed=self.lobby_embed(record, lang=lang))
            return
        view = await self.bot.sessions.view(record.id, str(interaction.user.id))
        embed = self.table_embed(record, view)
        mine = (view.get("round") or {}).get("your_words")
        if mine is not None:
            embed.add_field(
                name="Your words (only you see this)", value=_words_text(mine) or "—", inline=False
            )
        await reply_private(interaction, embed=embed)

    @group.command(name="leave", description="Leave the game in this channel (it goes on while two remain)")
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        record = await self._channel_game(interaction)
        if record.status == "lobby":
            record = await self.bot.sessions.leave_lobby(record.id, str(interaction.user.id))
            await reply_private(interaction, "You left the lobby.")
            await self._edit_lobby(record)
            return
        async with self._table_lock(record.id):
            result = await self.bot.sessions.act(
                record.id, str(interaction.user.id), {"do": "leave"}, interaction_id=str(interaction.id)
            )
            await reply_private(interaction, "You left the game.")
            await self.show(result.session, result.events)

    @group.command(
        name="end", description="End the game here (host or Manage Server; other players ask by vote)"
    )
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        record = await self._channel_game(interaction)
        if not await self._may_end(interaction, record):
            if record.status == "lobby":
                raise NotAPlayer("Only the host or a member with Manage Server can close this lobby.")
            # Another player asks the table; ask_to_end refuses anyone who is not playing.
            await self.ask_to_end(interaction, record)
            return
        if record.status == "lobby":
            record = await self.bot.sessions.cancel(record.id)
            await reply_private(interaction, "The lobby is closed.")
            lang = await self.lobby_language(record)
            await self._edit_lobby(
                record, lobby_text(lang, "cancelled_by", who=mention(str(interaction.user.id)))
            )
            return
        # Ended early: the rules crown the highest score; the host acts as the bot does.
        async with self._table_lock(record.id):
            result = await self.bot.sessions.act(
                record.id, None, {"do": "end"}, interaction_id=str(interaction.id)
            )
            await reply_private(interaction, "The game is over.")
            await self.show(result.session, result.events)

    # -- buttons ----------------------------------------------------------------------------------

    # A round-bound button's custom_id names its round (`topstop:<sid>:stop:<round>`, the vote buttons
    # `…:vote:yes.<round>.<vote>`), passed on in the action so the rules refuse another round's click.
    # Ids from before had no round (or only `yes`/`no`): they still work, without the check.

    async def _on_spin(self, interaction: discord.Interaction[Any], session_id: int, arg: str | None) -> None:
        await self._act_and_show(interaction, session_id, {"do": "spin", **_round_of(arg)})

    async def _on_stop(self, interaction: discord.Interaction[Any], session_id: int, arg: str | None) -> None:
        await self._act_and_show(interaction, session_id, {"do": "stop", **_round_of(arg)})

    async def _on_respin(
        self, interaction: discord.Interaction[Any], session_id: int, arg: str | None
    ) -> None:
        await self._act_and_show(interaction, session_id, {"do": "respin", **_round_of(arg)})

    async def _on_vote(self, interaction: discord.Interaction[Any], session_id: int, arg: str | None) -> None:
        result = await self._act_and_show(interaction, session_id, vote_action(arg))
        if any(event.get("type") == "vote_closed" for event in result.events):
            text = "Your vote is in, and it closed the vote: the result is on the table."
        else:
            text = "Your vote is in; it stays secret until the vote closes."
        await interaction.followup.send(text, ephemeral=True)

    async def _on_write(
        self, interaction: discord.Interaction[Any], session_id: int, arg: str | None
    ) -> None:
        player = str(interaction.user.id)
        record = await self.bot.sessions.session(session_id)
        if player not in record.players:
            raise NotAPlayer("You are not playing in this game; you can watch.")
        view = await self.bot.sessions.view(session_id, player)
        current = view.get("round") or {}
        if player in view["left"]:
            raise NotAPlayer("You have left this game.")
        _check_round(arg, view)
        if view["phase"] != "writing" or player not in current.get("players", []):
            raise BadAction("Writing is not open for you right now.")
        if current.get("stopped_by") == player:
            raise BadAction("You called STOP: your list is final.")
        await interaction.response.send_modal(
            words_modal(
                session_id,
                current["letter"],
                view["options"]["words"],
                current.get("your_words", []),
                current["number"],
            )
        )

    async def _on_words(
        self, interaction: discord.Interaction[Any], session_id: int, arg: str | None, values: dict[str, str]
    ) -> None:
        words = [values.get(f"word{index}", "") for index in range(1, 6)]
        result = await self._act_and_show(
            interaction, session_id, {"do": "submit", "words": words, **_round_of(arg)}
        )
        mine: list[str] = next(
            (
                e["words"]
                for e in result.private_to(str(interaction.user.id))
                if e.get("type") == "your_words"
            ),
            [],
        )
        text = f"**{_words_text(mine)}**" if mine else "no words"
        await interaction.followup.send(
            f"Saved (only you see this): {text}. You can edit them until writing closes.", ephemeral=True
        )

    async def _on_dispute(
        self, interaction: discord.Interaction[Any], session_id: int, arg: str | None
    ) -> None:
        player = str(interaction.user.id)
        record = await self.bot.sessions.session(session_id)
        if player not in record.players:
            raise NotAPlayer("Only players can dispute a word.")
        view = await self.bot.sessions.view(session_id, player)
        current = view.get("round") or {}
        if player in view["left"]:
            raise NotAPlayer("You have left this game.")
        _check_round(arg, view)
        if view["phase"] != "review" or not current.get("lists"):
            raise BadAction("Words can be disputed only while the round's words are under review.")
        if current.get("dispute"):
            raise BadAction("One vote at a time: wait for the current vote to close.")
        choices = dispute_choices(record, current["lists"])
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
            # `<round>.<menu>`: the round the menu belongs to, and which of its menus (ids must differ).
            arg = f"{current['number']}.{index}"
            item.item.custom_id = components.custom_id(GAME, session_id, "pick", arg)  # type: ignore[attr-defined]
        await reply_private(
            interaction,
            "Pick the word to put to the vote. The other players decide by majority; a tie keeps the verdict.",
            view=components.view_of(*items),
        )

    async def _on_pick(self, interaction: discord.Interaction[Any], session_id: int, arg: str | None) -> None:
        values = components.selected_values(interaction)
        if len(values) != 1 or "|" not in values[0]:
            raise BadAction("Pick one word from the list.")
        owner, word = values[0].split("|", 1)
        # `<round>.<menu>`; menus from before named no round: their arg was the menu's index alone.
        number, dot, _ = (arg or "").partition(".")
        action: dict[str, Any] = {
            "do": "dispute",
            "of": owner,
            "word": word,
            **(_round_of(number) if dot else {}),
        }
        async with self._table_lock(session_id):
            result = await self.bot.sessions.act(
                session_id, str(interaction.user.id), action, interaction_id=str(interaction.id)
            )
            await interaction.response.edit_message(
                content=f"You disputed **{_shown(word)}**. The vote is open.", view=None
            )
            await self.show(result.session, result.events)

    # -- showing the table ------------------------------------------------------------------------

    async def _act_and_show(
        self, interaction: discord.Interaction[Any], session_id: int, action: dict[str, Any]
    ) -> ActResult:
        async with self._table_lock(session_id):
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
        async with self._table_lock(result.session.id):
            embed, view = await self.render(result.session)
            channel = self.bot.get_partial_messageable(result.session.channel_id)
            message = await channel.send(embed=embed, view=view, allowed_mentions=NO_MENTIONS)
            await self.bot.sessions.set_message(result.session.id, message.id)

    async def on_events(self, record: SessionRecord, events: list[Event]) -> None:
        if any(e.get("type") == "lobby_expired" for e in events):
            await self.close_expired_lobby(record)
            return
        async with self._table_lock(record.id):
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
        elif record.message_id is not None:
            await self._close_old_message(record, channel, events)
        message = await channel.send(embed=embed, view=view, allowed_mentions=NO_MENTIONS)
        await self.bot.sessions.set_message(record.id, message.id)

    async def _close_old_message(
        self, record: SessionRecord, channel: discord.PartialMessageable, events: list[Event]
    ) -> None:
        """The previous stage's message loses its buttons and keeps a final account of its stage."""
        assert record.message_id is not None
        view = await self.bot.sessions.view(record.id, None)
        try:
            await channel.get_partial_message(record.message_id).edit(
                embed=self.closing_embed(record, view, events), view=None
            )
        except discord.HTTPException:
            log.warning("could not close the old table message of session %d", record.id)

    def closing_embed(
        self, record: SessionRecord, view: dict[str, Any], events: list[Event]
    ) -> discord.Embed:
        """What the message of the stage that `events` ended keeps: never a word that was not revealed."""
        kinds = {event.get("type") for event in events}
        history = view["history"]
        current = view.get("round")
        if current is None or "first_spinner" in kinds:
            return self.first_spin_embed(record, view, closed=True)
        if "writing_closed" in kinds:
            embed = discord.Embed(title=_round_title(history[-1]), colour=self.colour)
            lines = (
                [f"🛑 STOP by **{_name(record, history[-1]['stopped_by'])}**."]
                if history[-1]["stopped_by"]
                else []
            )
            lines.append("Writing is closed: the words are revealed below.")
            embed.description = "\n".join(lines)
            return embed
        if "round_scored" in kinds or (history and history[-1]["round"] == current["number"]):
            return self.reveal_embed(record, history[-1], view)
        # The game ended before this round's words were revealed: they stay secret.
        embed = discord.Embed(title=_round_title(current), colour=self.colour)
        embed.description = "The game ended before the words of this round were revealed."
        return embed

    async def render(self, record: SessionRecord) -> tuple[discord.Embed, discord.ui.View]:
        view = await self.bot.sessions.view(record.id, None)
        return self.table_embed(record, view), self.table_view(record, view)

    def first_spin_embed(
        self, record: SessionRecord, view: dict[str, Any], *, closed: bool = False
    ) -> discord.Embed:
        """Who spins first: every spin-off so far, then who is still awaited (or who won it)."""
        embed = discord.Embed(title="Top Stop — who spins first?", colour=self.colour)
        lines = [] if closed else ["Everyone presses **Spin**: the letter closest to A spins first."]
        for spins, tied in zip(view["first_spins"], view["first_spin_ties"], strict=True):
            line = " · ".join(f"{_name(record, p)} **{letter}**" for p, letter in spins.items())
            if tied:
                lowest = spins[tied[0]]
                line += f" — a tie on **{lowest}**: {', '.join(_name(record, p) for p in tied)} spin again."
            lines.append(line)
        if view["phase"] == "first_spin":
            lines += [
                f"{_name(record, p)}: **{letter}**" if letter else f"{_name(record, p)}: waiting…"
                for p, letter in view["first_spin"].items()
            ]
            deadline = self.bot.sessions.deadline(record, "spin")
            if deadline and not closed:
                lines.append(f"The bot spins for whoever has not {relative_time(deadline)}.")
        elif view.get("round"):
            lines.append(f"**{_name(record, view['round']['spinner'])}** spins first.")
        else:
            lines.append("The game ended before the first round.")
        embed.description = "\n".join(lines)
        return embed

    def table_embed(self, record: SessionRecord, view: dict[str, Any]) -> discord.Embed:
        phase = view["phase"]
        current = view.get("round") or {}
        embed = discord.Embed(colour=self.colour)
        if phase == "first_spin":
            embed = self.first_spin_embed(record, view)
        elif phase == "spin":
            embed.title = _round_title(current)
            tiebreak = " (tiebreak)" if current.get("tiebreak") else ""
            lines = [f"**{_name(record, current['spinner'])}** spins the letter{tiebreak}."]
            if current.get("respun"):
                lines.append(f"Re-spun by everyone's wish: {', '.join(current['respun'])}.")
            deadline = self.bot.sessions.deadline(record, "spin")
            if deadline:
                lines.append(f"If nobody spins, the bot spins {relative_time(deadline)}.")
            embed.description = "\n".join(lines)
        elif phase == "writing":
            embed.title = _round_title(current)
            count = view["options"]["words"]
            deadline = self.bot.sessions.deadline(record, "grace") or self.bot.sessions.deadline(
                record, "writing"
            )
            language = LANGUAGE_NAMES[view["options"]["language"]]
            lines = [f"Write {count} words starting with **{current['letter']}** ({language})."]
            if current.get("stopped_by"):
                lines.append(f"🛑 **{_name(record, current['stopped_by'])}** called STOP!")
            if deadline:
                lines.append(f"Writing closes {relative_time(deadline)}.")
            submitted = current.get("submitted", {})
            lines.append(
                "Submitted: "
                + (
                    ", ".join(f"{_name(record, p)} ({n})" for p, n in submitted.items())
                    if submitted
                    else "nobody yet"
                )
            )
            if current.get("respin_votes"):
                lines.append(f"Re-spin asked by {len(current['respin_votes'])} of {len(current['players'])}.")
            embed.description = "\n".join(lines)
        elif phase == "review":
            embed = self.reveal_embed(record, view["history"][-1], view, room=REVIEW_FIELD_ROOM)
            dispute = current.get("dispute")
            if dispute:
                deadline = self.bot.sessions.deadline(record, "vote")
                verdict = (
                    "counted" if dispute["valid"] else f"crossed out ({REASONS.get(dispute['reason'], '')})"
                )
                embed.add_field(
                    name="🗳️ Vote",
                    value=(
                        f"**{_name(record, dispute['by'])}** disputes **{_shown(dispute['word'])}** by "
                        f"**{_name(record, dispute['of'])}**, now {verdict}. Should it count? "
                        f"{len(dispute['voted'])}/{len(dispute['voters'])} voted"
                        + (f"; closes {relative_time(deadline)}." if deadline else ".")
                    )[:1024],
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
            winners = ", ".join(f"**{_name(record, w)}**" for w in view["winners"]) or "nobody"
            embed.description = f"🏆 {winners} win{'s' if len(view['winners']) == 1 else ''}!"
        if phase != "review":
            embed.add_field(
                name="Final scores" if phase == "over" else "Scores",
                value=self._scores(record, view),
                inline=False,
            )
        embed.set_footer(text=f"Target {view['options']['target']} · game #{record.id}")
        return embed

    def reveal_embed(
        self, record: SessionRecord, round_record: dict[str, Any], view: dict[str, Any], *, room: int = 0
    ) -> discord.Embed:
        """One round's words, crossed-out ones struck with a short reason, its points, votes and the scores.

        Long words are clipped when the whole would not fit Discord's limits, leaving `room` characters for
        a field the caller adds.
        """
        for clip in (None, 24, 12):
            embed = self._reveal(record, round_record, view, clip)
            if len(embed) + room <= EMBED_LIMIT and all(len(f.value or "") <= 1024 for f in embed.fields):
                break
        return embed

    def _reveal(
        self, record: SessionRecord, round_record: dict[str, Any], view: dict[str, Any], clip: int | None
    ) -> discord.Embed:
        embed = discord.Embed(title=_round_title(round_record), colour=self.colour)
        lines = ["Tiebreak round."] if round_record.get("tiebreak") else []
        if round_record.get("stopped_by"):
            lines.append(f"🛑 STOP by **{_name(record, round_record['stopped_by'])}**")
        embed.description = "\n".join(lines) or None
        points = round_record.get("points")
        left = set(view.get("left", []))
        # Words Reveal: starting with the STOP caller and moving clockwise (the order of the record's words),
        # then whoever submitted nothing.
        revealed = list(round_record["words"])
        for player in revealed + [p for p in round_record["players"] if p not in round_record["words"]]:
            entries = round_record["words"].get(player, [])
            words = [
                _shown(entry["word"], clip)
                if entry["valid"]
                else f"~~{_shown(entry['word'], clip)}~~ *{REASONS.get(entry['reason'], entry['reason'])}*"
                for entry in entries
            ] or ["*(no words)*"]
            penalty = round_record.get("penalties", {}).get(player, 0)
            if penalty:
                words.append(f"STOP penalty −{penalty}")
            header = _name(record, player, markdown=False)
            if player in left:
                header += " (left)"
            elif points is not None:
                header += f" — {points.get(player, 0):+d}"
            else:  # under review: what the list would score now; a vote may still change it
                header += f" — {sum(1 for e in entries if e['valid']) - penalty:+d}"
            embed.add_field(name=header[:256], value="\n".join(words)[:1024], inline=True)
        votes = [
            f"**{_shown(d['word'], clip)}** ({_name(record, d['of'])}): {VOTE_RESULTS[d['result']]}, "
            f"{d['accept']}–{d['reject']}"
            for d in round_record.get("disputes", [])
        ]
        if votes:
            embed.add_field(name="Votes", value=_fit_lines(votes), inline=False)
        if points is None:
            embed.add_field(name="Scores before this round", value=self._scores(record, view), inline=False)
        else:
            embed.add_field(name="Scores", value=self._scores(record, view), inline=False)
        return embed

    @staticmethod
    def _scores(record: SessionRecord, view: dict[str, Any]) -> str:
        ordered = sorted(view["scores"].items(), key=lambda item: -item[1])
        left = set(view.get("left", []))
        return _fit_lines(
            [
                f"**{score}** {_name(record, player)}" + (" (left)" if player in left else "")
                for player, score in ordered
            ]
        )

    def table_view(self, record: SessionRecord, view: dict[str, Any]) -> discord.ui.View:
        sid, phase = record.id, view["phase"]
        current = view.get("round") or {}
        number = str(current.get("number", 0))  # every button names its round (0: the first spin)
        items: list[discord.ui.Item[Any]] = []
        if phase in ("first_spin", "spin"):
            spin_round = "0" if phase == "first_spin" else number
            items.append(
                components.button(
                    GAME, sid, "spin", "Spin", arg=spin_round, emoji="🎡", style=discord.ButtonStyle.primary
                )
            )
        elif phase == "writing":
            items.append(
                components.button(
                    GAME,
                    sid,
                    "write",
                    "Write my words",
                    arg=number,
                    emoji="✍️",
                    style=discord.ButtonStyle.primary,
                )
            )
            if not current.get("stopped_by"):
                items.append(
                    components.button(
                        GAME, sid, "stop", "STOP!", arg=number, emoji="🛑", style=discord.ButtonStyle.danger
                    )
                )
                # FAQ 2: until someone has words; never after STOP (the rules say when: `offered`).
                if "respin" in view["offered"]:
                    items.append(
                        components.button(GAME, sid, "respin", "No words? Ask to re-spin", arg=number)
                    )
        elif phase == "review":
            dispute = current.get("dispute")
            if dispute:
                vote = f"{number}.{dispute['number']}"
                items.append(
                    components.button(
                        GAME, sid, "vote", "It counts", arg=f"yes.{vote}", style=discord.ButtonStyle.success
                    )
                )
                items.append(
                    components.button(
                        GAME, sid, "vote", "Cross it out", arg=f"no.{vote}", style=discord.ButtonStyle.danger
                    )
                )
            else:
                items.append(components.button(GAME, sid, "dispute", "Dispute a word", arg=number, emoji="⚖️"))
        return components.view_of(*items)  # empty once the game is over: the buttons go

    # -- helpers ----------------------------------------------------------------------------------

    async def _may_end(self, interaction: discord.Interaction[Any], record: SessionRecord) -> bool:
        """The host — the first seat still playing, once the game has begun — or Manage Server."""
        if record.status == "lobby":
            return self.may_manage(interaction, record)
        host = (await self.bot.sessions.view(record.id, None))["host"]
        permissions = getattr(interaction.user, "guild_permissions", None)
        return str(interaction.user.id) == host or bool(permissions and permissions.manage_guild)

    def _table_lock(self, session_id: int) -> asyncio.Lock:
        return self._table_locks.setdefault(session_id, asyncio.Lock())

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
        lang = await self.lobby_language(record)  # the lobby speaks the table's language, as GameCog draws it
        view = self.lobby_view(record, lang) if record.status == "lobby" else None
        await channel.get_partial_message(record.message_id).edit(
            embed=self.lobby_embed(record, note, lang), view=view
        )


def _name(record: SessionRecord, player: str, *, markdown: bool = True) -> str:
    """A player's display name as the table shows it (escaped where markdown would read it)."""
    name = record.name(player)
    return discord.utils.escape_markdown(name) if markdown else name


def _shown(word: str, clip: int | None = None) -> str:
    """A word as typed by a player, safe inside markdown; clipped to `clip` characters if given."""
    if clip is not None and len(word) > clip:
        word = word[: clip - 1] + "…"
    return discord.utils.escape_markdown(word)


def _words_text(words: list[str]) -> str:
    return ", ".join(_shown(word) for word in words)


def _round_title(round_info: dict[str, Any]) -> str:
    """Round n (and its letter once spun); `round_info` is the view's round or a history record."""
    number = round_info.get("number", round_info.get("round"))
    letter = round_info.get("letter")
    return f"Top Stop — round {number}" + (f": letter {letter}" if letter else "")


def _fit_lines(lines: list[str], limit: int = 1024) -> str:
    """Lines joined for one embed field; those that do not fit are counted instead of cut in half."""
    kept: list[str] = []
    for index, line in enumerate(lines):
        more = f"…and {len(lines) - index} more"
        if len("\n".join([*kept, line])) + len(more) + 1 > limit and index < len(lines) - 1:
            kept.append(more)
            break
        kept.append(line)
    return "\n".join(kept)[:limit]


def _round_of(arg: str | None) -> dict[str, int]:
    """The round a button names, as an action field; nothing for ids that named none."""
    return {"round": int(arg)} if arg is not None and arg.isdigit() else {}


def vote_action(arg: str | None) -> dict[str, Any]:
    """A vote button's action: `yes.<round>.<vote>` (or `yes` / `no` alone, as ids were before)."""
    choice, _, rest = (arg or "").partition(".")
    action: dict[str, Any] = {"do": "vote", "accept": choice == "yes"}
    number, _, dispute = rest.partition(".")
    if number.isdigit() and dispute.isdigit():
        action.update(round=int(number), dispute=int(dispute))
    return action


def _check_round(arg: str | None, view: dict[str, Any]) -> None:
    """A button that opens a form or menu (no action yet) is refused like the rules refuse a stale action."""
    named = _round_of(arg).get("round")
    current = (view.get("round") or {}).get("number", 0)
    if named is not None and named != current:
        raise StaleAction(STALE_MESSAGE)


def _check_bounds(**values: int | None) -> None:
    """/topstop new's numbers within their bounds, with a clear refusal (NEW_BOUNDS)."""
    for name, value in values.items():
        low, high = NEW_BOUNDS[name]
        if value is not None and not low <= value <= high:
            what = "the winning score" if name == "target" else "seconds"
            raise BadAction(f"{name} is {low} to {high} ({what}); {value} is out of bounds.")


def dispute_choices(
    record: SessionRecord, lists: dict[str, list[dict[str, Any]]]
) -> list[discord.SelectOption]:
    """One option per word open to a dispute, within Discord's limits for an option's value and label.

    The value is `owner|word`: an id of ≤ 20 digits and a word of ≤ MAX_WORD_LENGTH characters (counted once
    normalised, as stored) stay well under 100. A word written twice in one list is one choice: the rules
    put its first open copy to the vote.
    """
    seen: set[tuple[str, str]] = set()
    choices = []
    for owner, entries in lists.items():
        for entry in entries:
            word = entry["word"]
            if entry["disputed"] or (owner, word) in seen:
                continue
            seen.add((owner, word))
            verdict = "✅ counted" if entry["valid"] else f"❌ {REASONS.get(entry['reason'], '')}"
            choices.append(
                discord.SelectOption(
                    label=_clipped(f"{word} — {record.name(owner)}", OPTION_LABEL_LIMIT),
                    value=f"{owner}|{word}",
                    description=_clipped(verdict, 100),
                )
            )
    return choices


def _clipped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _needs_new_message(events: list[Event]) -> bool:
    return any(event.get("type") in NEW_MESSAGE_EVENTS for event in events)


def words_modal(
    session_id: int, letter: str, count: int, saved: list[str], round_number: int | None = None
) -> discord.ui.Modal:
    """Up to five inputs for the round's words, prefilled with what the player saved before.

    The saved words are normalised (case-folded: `Maße` comes back as `masse`) and at most MAX_WORD_LENGTH
    long, the inputs' max_length. The form's custom_id names its round, like the buttons.
    """
    inputs: list[discord.ui.TextInput[Any]] = [
        discord.ui.TextInput(
            label=f"Word {index + 1}",
            custom_id=f"word{index + 1}",
            placeholder=f"a word starting with {letter}",
            default=saved[index] if index < len(saved) else None,
            required=False,
            max_length=MAX_WORD_LENGTH,
        )
        for index in range(min(count, 5))
    ]
    arg = str(round_number) if round_number is not None else None
    return components.modal(GAME, session_id, "words", f"Your words on {letter}", inputs, arg=arg)


async def setup(bot: TopBot) -> None:
    await bot.add_cog(TopStop(bot))
