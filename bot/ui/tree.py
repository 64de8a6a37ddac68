"""The command tree: every slash command is acknowledged before its callback runs.

A player feels the time to the bot's first answer; the command's work (the store, the rules, a picture)
then replaces the "thinking…". The answer is private, so that a refusal is only ever told to whoever asked;
a command whose answer is for the channel (the leaderboard) says so with `extras={"public_answer": True}`.
A game's public messages (lobbies, tables) are the channel's own messages, not command answers. After its
acknowledgement a command waits for its turn (`bot.ui.turns`): a burst's commands start one per turn of the
event loop.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.ui.replies import acknowledge
from bot.ui.turns import my_turn


class AnsweringTree(app_commands.CommandTree[Any]):
    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        if interaction.type is discord.InteractionType.application_command:
            command = interaction.command
            public = command is not None and bool(command.extras.get("public_answer"))
            await acknowledge(interaction, public=public)
            await my_turn()  # a burst's commands, one per turn of the loop
        return True
