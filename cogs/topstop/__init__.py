"""Top Stop (the word race) in a channel: the cog and its table message."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogs.topstop.cog import TopStopCog

if TYPE_CHECKING:
    from bot.app import TopBot


async def setup(bot: TopBot) -> None:
    await bot.add_cog(TopStopCog(bot))
