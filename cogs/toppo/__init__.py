"""Toppo in a channel (docs/rules/toppo.md, "For the table")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogs.toppo.cog import ToppoCog

if TYPE_CHECKING:
    from bot.app import TopBot


async def setup(bot: TopBot) -> None:
    await bot.add_cog(ToppoCog(bot))
