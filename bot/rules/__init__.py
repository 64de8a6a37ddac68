"""The rules pages `/rules` serves, shipped with the package.

Each `<game>.md` here is a link to `docs/rules/<game>.md`, where the rulings are written; building the
package copies the page itself, so an installed bot serves it too (`importlib.resources`).
"""

from __future__ import annotations

from importlib import resources


def page(game: str) -> str | None:
    """The rules page of `game` as Markdown, or None when it is not written yet."""
    if not game.isidentifier():
        return None
    source = resources.files(__name__).joinpath(f"{game}.md")
    return source.read_text(encoding="utf-8") if source.is_file() else None
