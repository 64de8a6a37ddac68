"""The state a restart restores, read the way the bot reads it: the last snapshot and the log after it."""

from __future__ import annotations

from typing import Any

from bot.engine.sessions import SessionManager
from bot.store import Store


async def restored_state(store: Store, game: Any, session_id: int) -> Any:
    """The session's state as a freshly started manager loads it, dumped as the game stores it."""
    record = await store.sessions.get(session_id)
    assert record is not None
    manager = SessionManager(store, {record.game: game})
    try:
        return game.dump(await manager.state(session_id))
    finally:
        await manager.close()
