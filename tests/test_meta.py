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


def command_texts(cog):
    """Every translatable English text of a cog's slash commands: descriptions and choice names."""
    texts = set()
    for _, command in walk(cog.get_app_commands()):
        texts.add(command.description)
        for parameter in getattr(command, "parameters", []):
            texts.add(parameter.description)
            texts.update(choice.name for choice in parameter.choices)
    # Names (games, languages) and figures read the same in every language.
    from cogs.general import GAME_CHOICES, LANGUAGE_CHOICES

    same_everywhere = {"…"} | {c.name for c in GAME_CHOICES + LANGUAGE_CHOICES}
    return {text for text in texts if any(ch.isalpha() for ch in text)} - same_everywhere


async def test_command_translations_are_complete_current_and_short(bot):
    translated = [cog for cog in bot.cogs.values() if getattr(cog, "command_translations", None)]
    assert {type(cog).__name__ for cog in translated} >= {"General"}
    for cog in translated:
        texts = command_texts(cog)
        for language, table in cog.command_translations.items():
            assert language in {"de", "fr"}, cog
            missing, stale = texts - set(table), set(table) - texts
            assert not missing and not stale, (type(cog).__name__, language, missing, stale)
            assert all(1 <= len(text) <= 100 for text in table.values()), (cog, language)


async def test_synced_payloads_carry_the_translations(bot):
    from bot.ui.translator import CommandTranslator

    await bot.tree.set_translator(
        CommandTranslator(cog.command_translations for cog in [bot.get_cog("General")])
    )
    help_command = bot.tree.get_command("help")
    payload = await help_command.get_translated_payload(bot.tree, bot.tree.translator)
    assert payload["description_localizations"]["de"] == "Was dieser Bot kann und wie man spielt"
    assert payload["description_localizations"]["fr"] == "Ce que fait ce bot et comment jouer"
    assert "name_localizations" not in payload or not payload["name_localizations"]  # names stay typed as is
