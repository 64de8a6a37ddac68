"""The product, as `python -m bot` runs it, but for one ruling: a table whose last person has left plays on
with its bots (docs/bots.md, "no person left", ends such a table at once). bench_bots_load.py's tables are the
bots issue's bot-only tables: each host opens one and leaves it to the bots."""

from __future__ import annotations

from typing import Any

from bot.__main__ import main as product
from bot.engine.sessions import SessionManager


async def _played_on(self: SessionManager, session_id: int, result: Any, received: float) -> Any:
    """The check's work as the product does it after each action at a table with bots (who still plays),
    without its ending."""
    if result.session.bots and result.session.status == "active":
        await self._playing(session_id)
    return result


def main() -> int:
    SessionManager._unless_abandoned = _played_on  # type: ignore[method-assign]
    return product()
