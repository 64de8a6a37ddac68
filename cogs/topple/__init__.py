"""Topple in a channel (docs/rules/topple.md, "For the table")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogs.topple.cog import ToppleCog

if TYPE_CHECKING:
    from bot.app import TopBot


async def setup(bot: TopBot) -> None:
    await bot.add_cog(ToppleCog(bot))
