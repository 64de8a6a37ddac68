"""An answer about the server — the leaderboard in the channel, the list of its own dictionary — speaks the
server's language (`/settings language`), else the caller's; never the bot's default over the caller's."""

from __future__ import annotations

from typing import Any

from bot.i18n import t

from .conftest import requires_product
from .driver import Table
from .fake_discord import ALL_PERMISSIONS

pytestmark = requires_product


async def test_a_public_answer_uses_the_servers_language_else_the_callers(
    product_bot: Any, table: Table
) -> None:
    marie = table.user("marie", locale="fr", permissions=ALL_PERMISSIONS)
    board = await marie.slash("leaderboard", game="topwords")  # no server language set: hers
    assert not board.ephemeral and t("general.leaderboard.title", "fr", game="TopWords") in board.text
    listed = await marie.slash("dictionary list")  # the French dictionary, said in French
    assert t("dictionary.list.title", "fr", language=t("general.language.fr", "fr"), n=0) in listed.text

    await table.user("dev").slash("settings language", language="de")
    board = await marie.slash("leaderboard", game="topwords")  # the server's language now
    assert t("general.leaderboard.title", "de", game="TopWords") in board.text
    listed = await marie.slash("dictionary list")
    assert t("dictionary.list.title", "de", language=t("general.language.de", "de"), n=0) in listed.text
