"""Discord's documented limits that its OpenAPI spec cannot express (../shared/LIMITS.md)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import regex

from .spec import Problem

CONTENT_MAX = 2000
EMBED_TOTAL_MAX = 6000
MESSAGE_ROWS_MAX = 5
ROW_BUTTONS_MAX = 5
CUSTOM_ID_MAX = 100
MODAL_COMPONENTS_MAX = 5
COMMAND_DESCRIPTION_MAX = 100
COMMAND_TOTAL_MAX = 8000
EPHEMERAL = 1 << 6
IS_COMPONENTS_V2 = 1 << 15
# The documented pattern for CHAT_INPUT command and option names; `regex` knows \p{sc=…}.
COMMAND_NAME = regex.compile(r"^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$")

_BUTTON, _TEXT_INPUT, _LINK_STYLE = 2, 4, 5
_SELECTS = {3, 5, 6, 7, 8}
_SUBCOMMAND, _GROUP = 1, 2
_CHAT_INPUT = 1

Path = tuple[str | int, ...]


def check_message(body: Any, path: Path = ()) -> list[Problem]:
    """A message create/edit body, a webhook execute body or the data of a message callback."""
    if not isinstance(body, dict):
        return []
    problems: list[Problem] = []
    content = body.get("content")
    if isinstance(content, str) and len(content) > CONTENT_MAX:
        problems.append(
            Problem(
                (*path, "content"),
                f"Must be {CONTENT_MAX} or fewer in length (got {len(content)}).",
                "BASE_TYPE_MAX_LENGTH",
            )
        )
    embeds = body.get("embeds") or []
    total = sum(_embed_size(embed) for embed in embeds if isinstance(embed, dict))
    if total > EMBED_TOTAL_MAX:
        problems.append(
            Problem(
                (*path, "embeds"),
                f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX} (got {total}).",
                "MAX_EMBED_SIZE_EXCEEDED",
            )
        )
    components = body.get("components") or []
    flags = body.get("flags") or 0
    if isinstance(components, list):
        if not (isinstance(flags, int) and flags & IS_COMPONENTS_V2) and len(components) > MESSAGE_ROWS_MAX:
            problems.append(
                Problem(
                    (*path, "components"),
                    f"A message has at most {MESSAGE_ROWS_MAX} action rows (got {len(components)}).",
                    "BASE_TYPE_MAX_LENGTH",
                )
            )
        for index, row in enumerate(components):
            if isinstance(row, dict) and row.get("type") == 1:
                problems += _check_row(row, (*path, "components", index))
        problems += _check_custom_ids(components, (*path, "components"))
    return problems


def _embed_size(embed: dict[str, Any]) -> int:
    """The characters Discord counts towards the 6000 total of a message's embeds."""
    size = len(embed.get("title") or "") + len(embed.get("description") or "")
    size += len((embed.get("footer") or {}).get("text") or "")
    size += len((embed.get("author") or {}).get("name") or "")
    for field in embed.get("fields") or []:
        size += len(field.get("name") or "") + len(field.get("value") or "")
    return size


def _check_row(row: dict[str, Any], path: Path) -> list[Problem]:
    children = [c for c in row.get("components") or [] if isinstance(c, dict)]
    problems: list[Problem] = []
    buttons = [c for c in children if c.get("type") == _BUTTON]
    selects = [c for c in children if c.get("type") in _SELECTS]
    if len(buttons) > ROW_BUTTONS_MAX:
        problems.append(
            Problem(
                (*path, "components"),
                f"An action row holds at most {ROW_BUTTONS_MAX} buttons (got {len(buttons)}).",
                "BASE_TYPE_MAX_LENGTH",
            )
        )
    if selects and len(children) > 1:
        problems.append(
            Problem(
                (*path, "components"),
                "A select menu must be alone in its action row.",
                "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
            )
        )
    for index, button in enumerate(children):
        if button.get("type") != _BUTTON:
            continue
        is_link = button.get("style") == _LINK_STYLE
        if is_link and (button.get("custom_id") or not button.get("url")):
            problems.append(
                Problem(
                    (*path, "components", index),
                    "A link button needs a url and no custom_id.",
                    "BUTTON_INVALID",
                )
            )
        if not is_link and button.get("style") != 6 and not button.get("custom_id"):
            problems.append(
                Problem(
                    (*path, "components", index, "custom_id"),
                    "This button needs a custom_id.",
                    "BASE_TYPE_REQUIRED",
                )
            )
    return problems


def _walk(components: Any, path: Path) -> Iterator[tuple[dict[str, Any], Path]]:
    """Every component in a tree of rows, sections, containers and labels, with its path."""
    if not isinstance(components, list):
        return
    for index, component in enumerate(components):
        if not isinstance(component, dict):
            continue
        here = (*path, index)
        yield component, here
        yield from _walk(component.get("components"), (*here, "components"))
        for key in ("component", "accessory"):
            child = component.get(key)
            if isinstance(child, dict):
                yield child, (*here, key)
                yield from _walk(child.get("components"), (*here, key, "components"))


def _check_custom_ids(components: Any, path: Path) -> list[Problem]:
    problems: list[Problem] = []
    seen: dict[str, Path] = {}
    for component, where in _walk(components, path):
        custom_id = component.get("custom_id")
        if custom_id is None:
            continue
        if not isinstance(custom_id, str) or not 1 <= len(custom_id) <= CUSTOM_ID_MAX:
            size = len(custom_id) if isinstance(custom_id, str) else "not a string"
            problems.append(
                Problem(
                    (*where, "custom_id"),
                    f"custom_id must be 1 to {CUSTOM_ID_MAX} characters (got {size}).",
                    "BASE_TYPE_BAD_LENGTH",
                )
            )
        elif custom_id in seen:
            problems.append(
                Problem(
                    (*where, "custom_id"),
                    f"custom_id {custom_id!r} is used twice (first at {'.'.join(map(str, seen[custom_id]))}).",
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                )
            )
        else:
            seen[custom_id] = where
    return problems


def check_modal(data: Any, path: Path = ("data",)) -> list[Problem]:
    """The data of a MODAL (9) callback: 1–5 components, ids 1–100 and unique."""
    if not isinstance(data, dict):
        return []
    problems: list[Problem] = []
    components = data.get("components") or []
    if not 1 <= len(components) <= MODAL_COMPONENTS_MAX:
        problems.append(
            Problem(
                (*path, "components"),
                f"A modal holds 1 to {MODAL_COMPONENTS_MAX} components (got {len(components)}).",
                "BASE_TYPE_BAD_LENGTH",
            )
        )
    custom_id = data.get("custom_id")
    if isinstance(custom_id, str) and not 1 <= len(custom_id) <= CUSTOM_ID_MAX:
        problems.append(
            Problem(
                (*path, "custom_id"),
                f"custom_id must be 1 to {CUSTOM_ID_MAX} characters.",
                "BASE_TYPE_BAD_LENGTH",
            )
        )
    problems += _check_custom_ids(components, (*path, "components"))
    return problems


def check_interaction_callback(body: Any) -> list[Problem]:
    """The body of POST /interactions/{id}/{token}/callback, by callback type."""
    if not isinstance(body, dict):
        return []
    kind, data = body.get("type"), body.get("data")
    if kind in (4, 7):
        return check_message(data, ("data",))
    if kind == 9:
        return check_modal(data)
    if kind == 5 and isinstance(data, dict):
        # A deferred reply may carry only the EPHEMERAL flag.
        extra = sorted(set(data) - {"flags"})
        flags = data.get("flags") or 0
        if extra or (isinstance(flags, int) and flags & ~EPHEMERAL):
            return [
                Problem(
                    ("data",), f"A deferred reply may carry only EPHEMERAL (got {data}).", "BASE_TYPE_INVALID"
                )
            ]
    return []


def check_commands(commands: Any, path: Path = ()) -> list[Problem]:
    """A bulk overwrite of application commands (global or guild)."""
    if not isinstance(commands, list):
        return []
    problems: list[Problem] = []
    seen: set[tuple[Any, Any]] = set()
    for index, command in enumerate(commands):
        if not isinstance(command, dict):
            continue
        key = (command.get("type", _CHAT_INPUT), command.get("name"))
        if key in seen:
            problems.append(
                Problem(
                    (*path, index, "name"),
                    f"Command name {key[1]!r} is used twice.",
                    "APPLICATION_COMMANDS_DUPLICATE_NAME",
                )
            )
        seen.add(key)
        problems += check_command(command, (*path, index))
    return problems


def check_command(command: dict[str, Any], path: Path = ()) -> list[Problem]:
    """One application command: names, descriptions, option order and its 8000-character total."""
    if command.get("type", _CHAT_INPUT) != _CHAT_INPUT:
        if command.get("description"):
            return [
                Problem(
                    (*path, "description"), "Context-menu commands take no description.", "BASE_TYPE_INVALID"
                )
            ]
        return []
    problems = _check_named(command, path)
    problems += _check_options(command.get("options") or [], (*path, "options"))
    total = _command_size(command)
    if total > COMMAND_TOTAL_MAX:
        problems.append(
            Problem(
                path,
                f"A command totals at most {COMMAND_TOTAL_MAX} characters (got {total}).",
                "BASE_TYPE_MAX_LENGTH",
            )
        )
    return problems


def _check_named(item: dict[str, Any], path: Path) -> list[Problem]:
    """Name pattern, lowercase, description 1–100 — for a command or one of its options."""
    problems: list[Problem] = []
    names = [((*path, "name"), item.get("name"))]
    names += [
        ((*path, "name_localizations", loc), v) for loc, v in (item.get("name_localizations") or {}).items()
    ]
    for where, name in names:
        if not isinstance(name, str) or not COMMAND_NAME.match(name):
            problems.append(
                Problem(
                    where,
                    f"Name {name!r} does not match {COMMAND_NAME.pattern}.",
                    "APPLICATION_COMMAND_INVALID_NAME",
                )
            )
        elif name != name.lower():
            problems.append(
                Problem(where, f"Name {name!r} must be lowercase.", "APPLICATION_COMMAND_INVALID_NAME")
            )
    descriptions = [((*path, "description"), item.get("description"))]
    descriptions += [
        ((*path, "description_localizations", loc), v)
        for loc, v in (item.get("description_localizations") or {}).items()
    ]
    for where, text in descriptions:
        if not isinstance(text, str) or not 1 <= len(text) <= COMMAND_DESCRIPTION_MAX:
            size = len(text) if isinstance(text, str) else "missing"
            problems.append(
                Problem(
                    where,
                    f"Description must be 1 to {COMMAND_DESCRIPTION_MAX} characters (got {size}).",
                    "BASE_TYPE_BAD_LENGTH",
                )
            )
    return problems


def _check_options(options: list[Any], path: Path) -> list[Problem]:
    problems: list[Problem] = []
    seen_optional = False
    names: set[Any] = set()
    for index, option in enumerate(options):
        if not isinstance(option, dict):
            continue
        where = (*path, index)
        problems += _check_named(option, where)
        if option.get("name") in names:
            problems.append(
                Problem(
                    (*where, "name"), f"Option name {option.get('name')!r} is used twice.", "DUPLICATE_NAME"
                )
            )
        names.add(option.get("name"))
        if option.get("type") in (_SUBCOMMAND, _GROUP):
            problems += _check_options(option.get("options") or [], (*where, "options"))
            continue
        if option.get("required"):
            if seen_optional:
                problems.append(
                    Problem(
                        (*where, "required"),
                        "Required options must be placed before optional options.",
                        "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                    )
                )
        else:
            seen_optional = True
    return problems


def _command_size(item: dict[str, Any]) -> int:
    """Names, descriptions and choice names/values of a command and everything under it."""
    size = len(str(item.get("name") or "")) + len(str(item.get("description") or ""))
    for choice in item.get("choices") or []:
        size += len(str(choice.get("name") or "")) + len(str(choice.get("value") or ""))
    for option in item.get("options") or []:
        if isinstance(option, dict):
            size += _command_size(option)
    return size


def check_request(operation_id: str, body: Any) -> list[Problem]:
    """The limits that apply to a route's JSON body, chosen by the spec's operationId."""
    if operation_id == "create_interaction_response":
        return check_interaction_callback(body)
    if operation_id in {
        "create_message",
        "update_message",
        "execute_webhook",
        "update_webhook_message",
        "update_original_webhook_message",
    }:
        return check_message(body)
    if operation_id in {"bulk_set_application_commands", "bulk_set_guild_application_commands"}:
        return check_commands(body)
    if operation_id in {
        "create_application_command",
        "create_guild_application_command",
        "update_application_command",
        "update_guild_application_command",
    }:
        return check_command(body) if isinstance(body, dict) else []
    return []
