"""docs/commands.md is the command tree as it is synced, in the three languages: it never drifts."""

from __future__ import annotations

from bot.ui.command_docs import DOC, current


def test_the_commands_page_is_what_the_synced_command_tree_gives():
    written = DOC.read_text(encoding="utf-8")
    assert written == current(), "docs/commands.md is out of date: run `python -m bot.i18n commands`"


def test_the_commands_page_names_every_command_with_who_may_use_it_in_three_languages():
    page = current()
    for command in ("/settings default", "/settings channels add", "/profile anonymise", "/topstop new",
                    "/topwords play", "/leaderboard", "/dictionary add"):  # fmt: skip
        assert f"### `{command}`" in page, command
    assert "## /settings\n\nWho: members with Manage Server, on a server." in page
    assert "## /profile\n\nWho: everyone." in page
    assert "| This server's settings, as they are now | Les réglages actuels de ce serveur |" in page
    assert "| Topple | `variant` |" in page
