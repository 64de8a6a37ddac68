"""The project's own rules: every cog loads, commands are valid for Discord, rules stay free of discord."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from bot.app import EXTENSIONS, TopBot
from bot.config import Settings

ROOT = Path(__file__).resolve().parent.parent
# Discord's pattern: ^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$, lower case; ours are ASCII.
COMMAND_NAME = re.compile(r"^[-_'a-z0-9]{1,32}$")


@pytest.fixture
async def bot(tmp_path):
    settings = Settings(
        token=None, database_path=tmp_path / "bot.db", dev_guild_id=None, default_language="en",
        log_level="INFO", lobby_minutes=15, application_id=None,
    )  # fmt: skip
    bot = TopBot(settings)
    for extension in EXTENSIONS:
        await bot.load_extension(extension)
    yield bot
    await bot.close()


def walk(commands, prefix=""):
    for command in commands:
        yield f"{prefix}{command.name}", command
        yield from walk(getattr(command, "commands", []), f"{prefix}{command.name} ")


async def test_every_cog_loads(bot):
    assert set(EXTENSIONS) <= set(bot.extensions)


async def test_command_names_are_unique_valid_and_described(bot):
    top_level = [command.name for command in bot.tree.get_commands()]
    assert len(top_level) == len(set(top_level))
    for path, command in walk(bot.tree.get_commands()):
        assert COMMAND_NAME.fullmatch(command.name), path
        assert 1 <= len(command.description) <= 100, path
        for parameter in getattr(command, "parameters", []):
            assert COMMAND_NAME.fullmatch(parameter.name), f"{path} {parameter.name}"
            assert 1 <= len(parameter.description) <= 100, f"{path} {parameter.name}"
            assert len(parameter.choices) <= 25, f"{path} {parameter.name}"


async def test_each_command_payload_fits_discord_limits(bot):
    for command in bot.tree.get_commands():
        payload = command.to_dict(bot.tree)
        assert len(str(payload)) < 8000, command.name
        assert len(payload.get("options", [])) <= 25, command.name


@pytest.mark.parametrize("package", ["bot/engine", "bot/games", "bot/words"])
def test_rules_engine_and_words_never_import_discord(package):
    for path in (ROOT / package).rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            assert not any(n == "discord" or n.startswith("discord.") for n in names), path


def test_every_game_has_a_rules_page():
    from bot.games import GAME_TITLES

    for game in GAME_TITLES:
        assert (ROOT / "docs" / "rules" / f"{game}.md").is_file(), game
