"""docs/commands.md, written from the command tree a server gets, translated as it is synced.

`python -m bot.i18n commands` writes the file; tests/test_commands_doc.py fails when the file differs from
what the tree and the catalogue give now, so the page never drifts from the commands.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import discord

from bot.games.defaults import choice_name
from bot.i18n import LANGUAGES, t

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "commands.md"
SUBCOMMAND, GROUP = 1, 2
OPTION_TYPES = {
    3: "text", 4: "whole number", 5: "yes/no", 6: "member", 7: "channel", 8: "role", 9: "member or role",
    10: "number", 11: "file",
}  # fmt: skip
MANAGE_GUILD = discord.Permissions(manage_guild=True).value

HEADER = """# Commands

Every slash command a server gets, with its options and who may use it. Command and option names are the
same in every language (they are what people type); Discord shows each description and choice in the
reader's language, English (en), French (fr) or German (de), from the catalogue (bot/i18n).

Who may use a command is what Discord lets see it (members with Manage Server, or everyone); the bot checks
it again, so a server that shows a command to everyone still refuses it privately to the others. Within a
game the rules decide further: `/<game> end` ends the game for its host or a member with Manage Server and
asks the players by vote otherwise; `/<game> leave` and the buttons are for its players.

Written by `python -m bot.i18n commands` from the command tree as it is synced; tests/test_commands_doc.py
fails when this page and the commands differ.
"""


async def translated_tree() -> list[dict[str, Any]]:
    """The payload of every top-level command of a bot with every listed game, as `sync_commands` sends it
    (descriptions and choices translated by the CommandTranslator)."""
    from bot.app import EXTENSIONS, TopBot
    from bot.config import Settings
    from bot.ui.translator import CommandTranslator

    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(
            token=None, database_path=Path(folder) / "bot.db", dev_guild_id=None, default_language="en",
            log_level="INFO", lobby_minutes=15, application_id=None,
        )  # fmt: skip
        # Entered, never logged in: the cogs' start-up work waits for a connection that never comes, and
        # asyncio.run cancels it at the end.
        async with TopBot(settings) as bot:
            for extension in EXTENSIONS:
                await bot.load_extension(extension)
            translator = CommandTranslator()
            return [
                await command.get_translated_payload(bot.tree, translator)
                for command in bot.tree.get_commands()
            ]


def _in_languages(node: dict[str, Any], key: str) -> list[str]:
    localised = node.get(f"{key}_localizations") or {}
    return [_cell(node[key] if lang == "en" else localised.get(lang, node[key])) for lang in LANGUAGES]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _who(command: dict[str, Any]) -> str:
    needed = int(command.get("default_member_permissions") or 0)
    where = "on a server" if command.get("dm_permission") is False or command.get("contexts") == [0] else ""
    who = "members with Manage Server" if needed & MANAGE_GUILD else "everyone"
    if needed and not needed & MANAGE_GUILD:
        who = f"members with the permissions {needed:#x}"
    return f"{who}, {where}" if where else who


def _leaves(command: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(path, node) of every runnable command under a top-level one."""
    found: list[tuple[str, dict[str, Any]]] = []

    def walk(node: dict[str, Any], path: str) -> None:
        nested = [o for o in node.get("options") or [] if o["type"] in (SUBCOMMAND, GROUP)]
        if not nested:
            found.append((path, node))
        for child in nested:
            walk(child, f"{path} {child['name']}")

    walk(command, command["name"])
    return found


def _option_rows(node: dict[str, Any]) -> list[str]:
    rows = []
    for option in node.get("options") or []:
        kind = OPTION_TYPES.get(option["type"], str(option["type"]))
        if option.get("min_value") is not None or option.get("max_value") is not None:
            kind += f" {option.get('min_value', '')}–{option.get('max_value', '')}"
        if option.get("autocomplete"):
            kind += ", suggested"
        required = "yes" if option.get("required") else "no"
        descriptions = _in_languages(option, "description")
        for choice in option.get("choices") or []:
            names = _in_languages(choice, "name")
            descriptions = [
                f"{text}<br>• `{choice['value']}`: {name}"
                for text, name in zip(descriptions, names, strict=True)
            ]
        rows.append(f"| `{option['name']}` | {kind} | {required} | " + " | ".join(descriptions) + " |")
    return rows


def _server_defaults() -> list[str]:
    """What `/settings default` offers per game, from each game's declaration."""
    from bot.games import listed_games

    lines = [
        "## Server defaults (`/settings default`)\n",
        "A game's options a server may give a default for: the host's own option wins over it, and it over the"
        " game's own default.\n",
        "| Game | `setting` | en | fr | de |\n|---|---|---|---|---|",
    ]
    for info in listed_games():
        for default in info.server_defaults:
            cells = []
            for lang in LANGUAGES:
                text = t(default.label, lang)
                if default.choices:
                    text += "".join(
                        f"<br>• `{value}`: {choice_name(default, value, lang)}"
                        for value, _ in default.choices
                    )
                cells.append(_cell(text))
            lines.append(f"| {info.title} | `{default.option}` | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _lobby_controls() -> list[str]:
    """The lobby's buttons and selects, and the bot options of `/<game> new` (docs/bots.md), in the three
    languages from the catalogue."""
    from bot.engine.bots import LEVEL_NAMES
    from bot.ui.lobby import LOBBY_BUTTONS

    rows = [(f"`{action}`", key) for action, key in LOBBY_BUTTONS.items()]
    rows += [("`add_bot`", "ui.lobby.add_bot"), ("`remove_bot`", "ui.lobby.remove_bot")]
    lines = [
        "## The lobby\n",
        "`/<game> new` posts a lobby in the channel. Its controls, for every game (Add a bot and Remove a bot"
        " for the host, in the games that have bot players: docs/bots.md):\n",
        "| Control | en | fr | de |\n|---|---|---|---|",
        *(
            f"| {name} | " + " | ".join(_cell(t(key, lang)) for lang in LANGUAGES) + " |"
            for name, key in rows
        ),
        "",
        "In a game with bot players, `/<game> new` also takes `bots` (how many bots to seat, whole number 1–9,"
        " at most the game's seats) and `level`; with enough seats filled the game starts at once:\n",
        "| Option | en | fr | de |\n|---|---|---|---|",
        "| `bots` | " + " | ".join(_cell(t("ui.cmd.new.bots", lang)) for lang in LANGUAGES) + " |",
        "| `level` | "
        + " | ".join(
            _cell(t("ui.cmd.new.level", lang))
            + "".join(f"<br>• `{level.value}`: {t(key, lang)}" for level, key in LEVEL_NAMES.items())
            for lang in LANGUAGES
        )
        + " |",
        "",
    ]
    return lines


def render(tree: list[dict[str, Any]]) -> str:
    lines = [HEADER, *_lobby_controls(), *_server_defaults()]
    for command in sorted(tree, key=lambda c: c["name"]):
        lines.append(f"## /{command['name']}\n")
        lines.append(f"Who: {_who(command)}.\n")
        for path, node in _leaves(command):
            en, fr, de = _in_languages(node, "description")
            lines.append(f"### `/{path}`\n")
            lines.append("| en | fr | de |\n|---|---|---|")
            lines.append(f"| {en} | {fr} | {de} |\n")
            rows = _option_rows(node)
            if rows:
                lines.append("| Option | Type | Required | en | fr | de |\n|---|---|---|---|---|---|")
                lines.extend(rows)
                lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def current() -> str:
    """The page as the commands give it now."""
    return render(asyncio.run(translated_tree()))


def write() -> Path:
    DOC.write_text(current(), encoding="utf-8")
    return DOC
