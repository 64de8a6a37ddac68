"""TopWords (German 3-D Scrabble) in a channel: the cog, its table message and its texts in two languages."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogs.topwords.cog import TopWordsCog

if TYPE_CHECKING:
    from bot.app import TopBot


async def setup(bot: TopBot) -> None:
    await bot.add_cog(TopWordsCog(bot))
