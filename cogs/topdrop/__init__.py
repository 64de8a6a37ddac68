"""Top Drop in a channel (docs/rules/topdrop.md, "For the table")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogs.topdrop.cog import TopDropCog

if TYPE_CHECKING:
    from bot.app import TopBot


async def setup(bot: TopBot) -> None:
    await bot.add_cog(TopDropCog(bot))
