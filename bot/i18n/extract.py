"""The catalogue's extraction method (pyproject.toml's [tool.babel]): the keys are the string literals
passed to a call of a marking name (`t`, `N_`, `Text`, `command_text`, the error classes...).

Babel's own Python extractor reads tokens, not syntax: a marking name followed by any bracket counts, so
a timer `t` read as `t["at"]` was taken for the key "at" (Babel 2.19). Here only a call counts, found in
the syntax tree: a variable that shares a marking name is never a message, and a marking function keeps
its short name. What the call's arguments are is still Babel's to read (the keyword specs, such as
`refusal:2`): this yields every positional argument, a string literal as itself and any other as None.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator, Mapping
from typing import IO, Any

# Babel's extraction result: line, marking name, the call's positional arguments, translator comments.
Extracted = tuple[int, str, tuple[str | None, ...], list[str]]


def extract_calls(
    fileobj: IO[bytes],
    keywords: Collection[str],
    comment_tags: Collection[str],
    options: Mapping[str, Any],
) -> Iterator[Extracted]:
    """Every call of a name in `keywords` (`t(...)`, `errors.GameError(...)`), in the order of the source."""
    tree = ast.parse(fileobj.read(), filename=getattr(fileobj, "name", "<source>"))
    calls = [
        (node.lineno, node.col_offset, name, node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and (name := _called_name(node.func)) in keywords
    ]
    for line, _, name, call in sorted(calls, key=lambda found: found[:2]):
        yield line, name, tuple(_literal(argument) for argument in call.args), []


def _called_name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _literal(argument: ast.expr) -> str | None:
    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
        return argument.value
    return None
