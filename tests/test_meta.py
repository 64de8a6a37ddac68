"""The project's own rules: every cog loads, commands are valid for Discord, rules stay free of discord."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from bot.app import extensions
from bot.config import Settings
from bot.games import every_game, games_with_a_table

ROOT = Path(__file__).resolve().parent.parent
# Discord's pattern: ^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$, lower case; ours are ASCII.
COMMAND_NAME = re.compile(r"^[-_'a-z0-9]{1,32}$")


# Every declared game with its cog, offered to servers or not: each one's commands must hold to Discord's rules.
EVERY_EXTENSION = extensions(games_with_a_table())


@pytest.fixture
async def bot(tmp_path):
    from bot.app import TopBot

    settings = Settings(
        token=None, database_path=tmp_path / "bot.db", dev_guild_id=None, default_language="en",
        log_level="INFO", lobby_minutes=15, application_id=None,
        extra_games=tuple(info.name for info in games_with_a_table() if not info.listed),
    )  # fmt: skip
    bot = TopBot(settings)
    for extension in EVERY_EXTENSION:
        await bot.load_extension(extension)
    yield bot
    await bot.close()


def walk(commands, prefix=""):
    for command in commands:
        yield f"{prefix}{command.name}", command
        yield from walk(getattr(command, "commands", []), f"{prefix}{command.name} ")


async def test_every_cog_loads(bot):
    assert set(EVERY_EXTENSION) <= set(bot.extensions)


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
    for info in every_game():
        assert (ROOT / info.rules_page).is_file(), info.name


# -- one place to add a game --------------------------------------------------------------------------
#
# A game declares itself in its own package (bot/games/<game>/__init__.py: GAME = GameInfo(...)); the files
# every game shares derive what they need from the registry and never name a game in their code. Prose
# (comments, docstrings) may cite a game as an example.

SHARED_FILES = (
    "bot/app.py", "bot/replay.py", "bot/games/__init__.py", "bot/games/registry.py",
    "bot/render/pictures.py", "bot/render/stats_chart.py", "bot/records.py", "cogs/general.py",
    "cogs/leaderboard.py", "cogs/dictionary.py", "cogs/stats.py",
    "tests/test_meta.py", "tests/test_scenarios.py", "tests/test_rules_pages.py",
    "tests/engine/test_conformance.py", "tests/e2e/test_languages.py",
)  # fmt: skip
SHARED_PACKAGES = ("bot/ui", "bot/engine", "bot/store", "bot/i18n", "bot/web")


def shared_files() -> list[Path]:
    files = [ROOT / name for name in SHARED_FILES]
    for package in SHARED_PACKAGES:
        files += sorted((ROOT / package).rglob("*.py"))
    return files


def code_words(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every name and string in a file's code: identifiers, attributes, imports, string
    constants; docstrings and comments are prose and left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    words: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            words.append((line, node.value))
        elif isinstance(node, ast.Name):
            words.append((line, node.id))
        elif isinstance(node, ast.Attribute):
            words.append((line, node.attr))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            words.append((line, node.name))
        elif isinstance(node, ast.arg):
            words.append((line, node.arg))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            words += [(line, alias.name) for alias in node.names]
            if isinstance(node, ast.ImportFrom) and node.module:
                words.append((line, node.module))
    return words


def games_named(path: Path, names: list[str]) -> list[str]:
    pattern = re.compile("|".join(re.escape(name) for name in names), re.IGNORECASE)
    return [
        f"{path.relative_to(ROOT)}:{line} names {match.group(0)!r} ({text[:60]!r})"
        for line, text in sorted(code_words(path))
        if (match := pattern.search(text))
    ]


def game_names() -> list[str]:
    names = {info.name for info in every_game()} | {info.title for info in every_game()}
    return sorted(names | {name.replace(" ", "") for name in names}, key=len, reverse=True)


def test_rule_no_shared_file_names_a_game():
    """Adding a game touches only its own package, cog, tests, texts and rules page: every list a shared
    file needs comes from the registry (bot/games/registry.py)."""
    found = [problem for path in shared_files() for problem in games_named(path, game_names())]
    assert found == []


def test_the_name_check_sees_a_game_in_code_but_not_in_prose(tmp_path, monkeypatch):
    """The check above would pass vacuously if it missed a form: a string, a name, an import are found."""
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    path = tmp_path / "shared.py"
    path.write_text(
        '"""Prose may say Demo Game."""\n'
        "# so may a comment: demogame\n"
        "from cogs.demogame import table\n"
        'LIST = ("demogame",)\n'
        "demogame_minutes = 1\n"
        'TITLE = "Demo Game"\n',
        encoding="utf-8",
    )
    assert [problem.split(" names ")[0] for problem in games_named(path, ["demogame", "Demo Game"])] == [
        "shared.py:3", "shared.py:4", "shared.py:5", "shared.py:6",
    ]  # fmt: skip


def test_a_game_whose_cog_is_still_to_come_is_never_loaded_nor_offered(monkeypatch):
    """`rules_only`: the rules run in their tests, but no bot loads a cog that does not exist yet, not even
    where EXTRA_GAMES names the game."""
    from dataclasses import replace

    from bot.games import registry

    first = every_game()[0]
    declared = (
        replace(first, name="ready", listed=False),
        replace(first, name="early", title="Early", listed=True, rules_only=True),
    )
    monkeypatch.setattr(registry, "_discovered", lambda: declared)
    assert [info.name for info in registry.every_game()] == ["ready", "early"]
    assert [info.name for info in registry.games_with_a_table()] == ["ready"]
    assert [info.name for info in registry.loaded_games(("ready", "early"))] == ["ready"]
    assert "early" not in [info.name for info in registry.listed_games()]


@pytest.mark.parametrize("info", every_game(), ids=lambda info: info.name)
def test_each_game_declaration_is_complete(info):
    """What a declaration names exists: the cog extension, the picture modules, the rules page (shipped
    with the package), the /rules summary in every language, and a title no other game uses."""
    import importlib

    from bot import rules
    from bot.i18n import LANGUAGES, has, t

    if not info.rules_only:  # a game whose cog is still to come declares none yet
        assert callable(getattr(importlib.import_module(info.extension), "setup", None)), info.extension
    for module in info.pictures:
        importlib.import_module(module)
    assert rules.page(info.name) == (ROOT / info.rules_page).read_text(encoding="utf-8")
    assert has(info.rules_summary)
    assert len({t(info.rules_summary, lang) for lang in LANGUAGES}) == len(LANGUAGES)
    assert [other.title for other in every_game()].count(info.title) == 1
    assert info.make(None).name == info.name


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


def bot_translator(bot):
    """The translator as the bot sets it up (bot/app.py)."""
    from bot.ui.translator import CommandTranslator

    return CommandTranslator()


async def test_every_command_option_has_a_real_description(bot):
    """Discord shows "…" for an option nobody described (/settings language's `language` did)."""
    options = [
        (name, parameter.name)
        for name, command in walk(bot.tree.get_commands())
        for parameter in getattr(command, "parameters", [])
    ]
    assert len(options) >= 10
    for name, command in walk(bot.tree.get_commands()):
        for parameter in getattr(command, "parameters", []):
            assert parameter.description not in ("", "…"), (name, parameter.name)


async def test_every_command_text_is_translated_and_short(bot):
    """The synced payload of every command carries French and German for each description and choice."""
    from cogs.general import GAME_CHOICES, LANGUAGE_CHOICES

    same_everywhere = {"…"} | {c.name for c in GAME_CHOICES + LANGUAGE_CHOICES}
    translator = bot_translator(bot)
    checked = 0
    for command in bot.tree.get_commands():
        payload = await command.get_translated_payload(bot.tree, translator)
        for node, text_key, localised_key in _localisable(payload):
            text = node[text_key]
            if text in same_everywhere or not any(ch.isalpha() for ch in text):
                continue
            localised = node.get(localised_key) or {}
            for language in ("fr", "de"):
                assert 1 <= len(localised.get(language, "")) <= 100, (command.name, text, language)
            checked += 1
    assert checked >= 35  # the walk found the trees


def _localisable(payload):
    """(node, text key, localisations key) for each description and choice name of a command's payload."""
    yield payload, "description", "description_localizations"
    for option in payload.get("options", []):
        yield from _localisable(option)
        for choice in option.get("choices", []):
            yield choice, "name", "name_localizations"


async def test_synced_payloads_carry_the_translations(bot):
    await bot.tree.set_translator(bot_translator(bot))
    help_command = bot.tree.get_command("help")
    payload = await help_command.get_translated_payload(bot.tree, bot.tree.translator)
    assert payload["description_localizations"]["de"] == "Was dieser Bot kann und wie man spielt"
    assert payload["description_localizations"]["fr"] == "Ce que fait ce bot et comment jouer"
    assert "en-US" not in payload["description_localizations"]  # English is the default
    assert "name_localizations" not in payload or not payload["name_localizations"]  # names stay typed as is


# -- the layers' rules, checked statically ---------------------------------------------------------------
#
# Each rule is a test that names it. Imports are read with `ast` (absolute and relative `import`/`from`,
# `__import__("x")` and `importlib.import_module("x")` with a constant name); a module matches a rule's
# name and everything under it. The layering rules also follow imports between the project's own modules,
# so a game cannot reach discord or the store through a helper; the clock and I/O rules look at the
# game's own files.

GAMES = ROOT / "bot" / "games"
ASYNC = ("asyncio", "trio", "anyio")
CLOCKS = ("time", "datetime", "zoneinfo", "timeit")
IO_MODULES = (
    "os", "pathlib", "io", "socket", "ssl", "select", "selectors", "sqlite3", "aiosqlite", "aiohttp",
    "requests", "urllib", "http", "shutil", "subprocess", "tempfile", "glob", "fileinput", "mmap",
    "shelve", "dbm", "pickle",
)  # fmt: skip
IO_BUILTINS = ("open", "input", "print")
OUTSIDE_THE_RULES = ("bot.store", "bot.ui", "bot.app", "bot.render", "cogs", "discord")
# Chance comes only from the rng the engine passes in: `random.Random` is the one name games may use.
UNSEEDED = ("secrets", "uuid")


def module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# Parsed once per file and root (the rules follow the same modules from every game file: 25 s parsed anew).
_IMPORTS: dict[tuple[Path, Path, int], list[tuple[str, int]]] = {}


def imports_in(path: Path) -> list[tuple[str, int]]:
    """(module, line) for every import of a file; `from a import b` gives a and a.b (b may be a module)."""
    key = (path, ROOT, path.stat().st_mtime_ns)
    if key not in _IMPORTS:
        _IMPORTS[key] = _parse_imports(path)
    return _IMPORTS[key]


def _parse_imports(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here = module_of(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            found.append((base, node.lineno))
            found += [(f"{base}.{alias.name}", node.lineno) for alias in node.names if alias.name != "*"]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else ""
            )
            if name in ("__import__", "import_module") and isinstance(node.args[0].value, str):
                found.append((node.args[0].value, node.lineno))
    return found


def matches(module: str, names: tuple[str, ...]) -> bool:
    return any(module == name or module.startswith(name + ".") for name in names)


def project_file(module: str) -> Path | None:
    base = ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def reachable(path: Path) -> dict[Path, list[str]]:
    """The project's files a file's imports run (parent packages included), each with the import chain."""
    chains: dict[Path, list[str]] = {path: [module_of(path)]}
    todo = [path]
    while todo:
        current = todo.pop()
        for module, _ in imports_in(current):
            parts = module.split(".")
            for depth in range(1, len(parts) + 1):  # importing a.b.c runs a, a.b and a.b.c
                target = project_file(".".join(parts[:depth]))
                if target is not None and target not in chains:
                    chains[target] = [*chains[current], ".".join(parts[:depth])]
                    todo.append(target)
    return chains


def broken(package: Path, names: tuple[str, ...], *, follow: bool = False) -> list[str]:
    """Where a file under `package` imports one of `names` (through the project's modules if `follow`)."""
    found: dict[tuple[Path, int], str] = {}
    for path in sorted(package.rglob("*.py")):
        sources = reachable(path) if follow else {path: [module_of(path)]}
        for source, chain in sources.items():
            for module, line in sorted(imports_in(source), key=lambda m: len(m[0])):
                if matches(module, names) and (source, line) not in found:  # one report per import line
                    via = f" (via {' -> '.join(chain)})" if len(chain) > 1 else ""
                    found[source, line] = f"{source.relative_to(ROOT)}:{line} imports {module}{via}"
    return sorted(found.values())


def test_rule_games_never_import_asyncio():
    """Pure rules: no event loop, no tasks, no sleeping; the engine owns concurrency and timers."""
    assert broken(GAMES, ASYNC, follow=True) == []


def test_rule_games_never_read_a_clock():
    """Pure rules: deadlines are Timers the engine runs; a rule that read the time would not replay."""
    assert broken(GAMES, CLOCKS) == []


def test_rule_games_do_no_io():
    """Pure rules: no files, sockets, databases or HTTP; the words service is handed in, the store is the engine's."""
    problems = broken(GAMES, IO_MODULES)
    for path in sorted(GAMES.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in IO_BUILTINS:
                problems.append(f"{path.relative_to(ROOT)}:{node.lineno} calls {node.func.id}()")
    assert problems == []


def test_rule_games_never_import_the_store_the_ui_or_discord():
    """The rules know nothing of how they are stored or shown: no bot.store, bot.ui, cogs or discord."""
    assert broken(GAMES, OUTSIDE_THE_RULES, follow=True) == []


def test_rule_games_take_chance_only_from_the_rng_they_are_given():
    """Randomness is explicit: chance comes from the seeded rng of new_game/resolve_chance, so the log
    replays; `random.Random` is the one name of `random` a game may use."""
    problems = broken(GAMES, UNSEEDED)
    for path in sorted(GAMES.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.ImportFrom) and node.module == "random":
                problems += [f"{where} imports random.{a.name}" for a in node.names if a.name != "Random"]
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
                and node.attr != "Random"
            ):
                problems.append(f"{where} uses random.{node.attr}")
    assert problems == []


@pytest.mark.parametrize("package", ["bot/store", "bot/render"])
def test_rule_store_and_render_never_import_discord(package):
    """The store keeps data and render draws pictures: both work without discord (and are tested so)."""
    assert broken(ROOT / package, ("discord",), follow=True) == []


def test_the_import_rules_see_every_form_of_import(tmp_path, monkeypatch):
    """The checks above would pass vacuously if the scanner missed a form of import: each form is found."""
    fake_root = tmp_path
    package = fake_root / "bot" / "games" / "demo"
    package.mkdir(parents=True)
    for init in (fake_root / "bot", fake_root / "bot" / "games", package):
        (init / "__init__.py").write_text("", encoding="utf-8")
    (fake_root / "bot" / "helper.py").write_text("import asyncio\n", encoding="utf-8")
    (package / "rules.py").write_text(
        "import os.path\n"
        "from time import monotonic\n"
        "from .. import demo\n"
        "from ...store import database\n"
        "from bot import helper\n"
        "import importlib\n"
        "importlib.import_module('discord')\n"
        "__import__('socket')\n",
        encoding="utf-8",
    )
    monkeypatch.setitem(globals(), "ROOT", fake_root)
    games = fake_root / "bot" / "games"
    modules = {m for m, _ in imports_in(package / "rules.py")}
    assert {"os.path", "time", "bot.games.demo", "bot.store.database", "discord", "socket"} <= modules
    assert broken(games, CLOCKS) == ["bot/games/demo/rules.py:2 imports time"]
    assert broken(games, ("discord",)) == ["bot/games/demo/rules.py:7 imports discord"]
    assert broken(games, ("bot.store",)) == ["bot/games/demo/rules.py:4 imports bot.store"]
    assert broken(games, ASYNC) == []  # not directly …
    assert broken(games, ASYNC, follow=True) == [  # … but through a helper of the project
        "bot/helper.py:1 imports asyncio (via bot.games.demo.rules -> bot.helper)"
    ]
