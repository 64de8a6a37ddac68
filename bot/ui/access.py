"""Who may do what beyond playing: checked by the bot itself, not only by Discord's default permissions
(a server may show a command to anyone)."""

from __future__ import annotations

from typing import Any

import discord


def manages_server(interaction: discord.Interaction[Any]) -> bool:
    """Whether the member may manage the server, as Discord resolved their permissions for this interaction
    (an administrator has every permission)."""
    if interaction.guild_id is None:
        return False
    permissions = interaction.permissions
    return bool(permissions.manage_guild or permissions.administrator)
