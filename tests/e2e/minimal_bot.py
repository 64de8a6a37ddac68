"""A minimal discord.py bot that exercises every path of the fake: the harness tests itself with it.

It has a slash command group with a choice, a persistent DynamicItem button whose state lives in the
message itself (so it survives a restart), a view bound to an interaction response, a select, a modal,
ephemeral replies, a deferred reply, a follow-up and a file upload. Run it as a process with
`E2E_BOT_MAIN=tests.e2e.minimal_bot:main python tests/e2e/launcher.py`.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import re

import discord
from discord import app_commands
from discord.ext import commands

log = logging.getLogger(__name__)

PLAYERS_PREFIX = "Players: "


def _players(content: str) -> list[str]:
    line = next((li for li in content.splitlines() if li.startswith(PLAYERS_PREFIX)), PLAYERS_PREFIX)
    return [p for p in line.removeprefix(PLAYERS_PREFIX).split(", ") if p]


def lobby_content(language: str, players: list[str]) -> str:
    return f"Lobby ({language})\n{PLAYERS_PREFIX}{', '.join(players)}"


class JoinButton(discord.ui.DynamicItem[discord.ui.Button], template=r"mini:(?P<session>[0-9]+):join"):
    """Persistent: rebuilt from its custom_id, state read back from the message it sits on."""

    def __init__(self, session: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Join", style=discord.ButtonStyle.primary, custom_id=f"mini:{session}:join"
            )
        )
        self.session = session

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]
    ):
        return cls(int(match["session"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        assert interaction.message is not None
        players = _players(interaction.message.content)
        if interaction.user.name in players:
            await interaction.response.send_message("You are already in.", ephemeral=True)
            return
        language = interaction.message.content.split("(", 1)[1].split(")", 1)[0]
        view = discord.ui.View(timeout=None)
        view.add_item(JoinButton(self.session))
        await interaction.response.edit_message(
            content=lobby_content(language, [*players, interaction.user.name]), view=view
        )


class Counter(discord.ui.View):
    """A view bound to the interaction response: needs the callback's with_response message."""

    def __init__(self) -> None:
        super().__init__(timeout=60)
        self.count = 0

    @discord.ui.button(label="+1", style=discord.ButtonStyle.secondary)
    async def plus(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        self.count += 1
        await interaction.response.edit_message(content=f"Count: {self.count}", view=self)


class FruitSelect(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=60)

    @discord.ui.select(
        placeholder="Pick a fruit", options=[discord.SelectOption(label=f) for f in ("Apple", "Pear")]
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select) -> None:
        await interaction.response.send_message(f"You picked {select.values[0]}.", ephemeral=True)


class WordsModal(discord.ui.Modal, title="Your words"):
    word1 = discord.ui.TextInput(label="First word", custom_id="word1", max_length=20)
    word2 = discord.ui.TextInput(label="Second word", custom_id="word2", max_length=20, required=False)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        words = [w for w in (self.word1.value, self.word2.value) if w]
        await interaction.response.send_message(
            f"{interaction.user.mention} wrote {', '.join(words)}",
            allowed_mentions=discord.AllowedMentions.none(),
        )


class MinimalBot(commands.Bot):
    def __init__(self, guild_id: int, *, guild_ready_timeout: float = 0.1) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            guild_ready_timeout=guild_ready_timeout,
        )
        self.dev_guild = discord.Object(guild_id)
        self.slow_started = asyncio.Event()
        self.slow_gate = asyncio.Event()
        self.add_commands()

    async def setup_hook(self) -> None:
        self.add_dynamic_items(JoinButton)
        self.tree.copy_global_to(guild=self.dev_guild)
        await self.tree.sync(guild=self.dev_guild)

    def add_commands(self) -> None:
        tree = self.tree

        @tree.command(description="Answers pong")
        async def ping(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("pong")

        game = app_commands.Group(name="game", description="A small game")

        @game.command(name="new", description="Opens a lobby")
        @app_commands.describe(language="The language of the words")
        @app_commands.choices(
            language=[
                app_commands.Choice(name="English", value="en"),
                app_commands.Choice(name="French", value="fr"),
            ]
        )
        async def game_new(interaction: discord.Interaction, language: app_commands.Choice[str]) -> None:
            view = discord.ui.View(timeout=None)
            view.add_item(JoinButton(interaction.id))
            await interaction.response.send_message(
                lobby_content(language.value, [interaction.user.name]), view=view
            )

        tree.add_command(game)

        @tree.command(description="Only you see the answer")
        async def secret(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("Your secret card: 7", ephemeral=True)
            await interaction.followup.send("And a follow-up only you see.", ephemeral=True)

        @tree.command(description="A counter bound to its reply")
        async def counter(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("Count: 0", view=Counter())

        @tree.command(description="Pick a fruit")
        async def fruit(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("Which fruit?", view=FruitSelect())

        @tree.command(description="Write two words")
        async def words(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(WordsModal())

        @tree.command(description="Thinks, then answers")
        async def think(interaction: discord.Interaction) -> None:
            await interaction.response.defer(thinking=True)
            await interaction.edit_original_response(content="Thought about it.")

        @tree.command(description="Posts a card picture")
        async def card(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(
                "Here is the card.", file=discord.File(_png(), filename="card.png")
            )
            assert interaction.channel is not None
            await interaction.channel.send(
                "A copy in the channel.", file=discord.File(_png(), filename="copy.png")
            )

        @tree.command(description="Answers only when the test lets it")
        async def slow(interaction: discord.Interaction) -> None:
            self.slow_started.set()
            await self.slow_gate.wait()
            await interaction.response.send_message("finally")

        @tree.command(description="Greets someone")
        @app_commands.describe(who="The person to greet", times="How many times")
        async def greet(
            interaction: discord.Interaction, who: discord.Member, times: app_commands.Range[int, 1, 3] = 1
        ) -> None:
            await interaction.response.send_message(
                " ".join([f"Hello {who.mention}!"] * times),
                allowed_mentions=discord.AllowedMentions(users=[who]),
            )


def _png() -> io.BytesIO:
    # The 8-byte PNG signature and an empty IEND chunk are enough for an upload test.
    return io.BytesIO(b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x00IEND\xaeB`\x82")


def main() -> int:
    """Entry point for the launcher: the same settings the product bot reads."""
    logging.basicConfig(
        level=os.environ.get("LOG_LEVEL", "INFO"), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    bot = MinimalBot(int(os.environ["DEV_GUILD_ID"]))
    bot.run(os.environ["DISCORD_TOKEN"], log_handler=None)
    return 0
