"""Skeleton in a channel: the template cog (docs/adding-a-game.md). Loaded only where EXTRA_GAMES names it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogs.skeleton.cog import SkeletonCog

if TYPE_CHECKING:
    from bot.app import TopBot


async def setup(bot: TopBot) -> None:
    await bot.add_cog(SkeletonCog(bot))
