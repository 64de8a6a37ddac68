"""Buttons and selects that keep working after a restart: `custom_id` = `<game>:<session>:<action>[:<arg>]`.

One DynamicItem template matches every such id; cogs register a handler per (game, action), and the
handler reads the session from the store, so no view has to live in memory.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.ui.replies import reply_error

log = logging.getLogger(__name__)

CUSTOM_ID = re.compile(
    r"(?P<game>[a-z]{2,16}):(?P<session>\d{1,20}):(?P<action>[a-z_]{1,24})(?::(?P<arg>[^:]{1,50}))?"
)

Handler = Callable[[discord.Interaction[Any], int, str | None], Awaitable[None]]
ModalHandler = Callable[[discord.Interaction[Any], int, str | None, dict[str, str]], Awaitable[None]]
_handlers: dict[tuple[str, str], Handler] = {}
_modal_handlers: dict[tuple[str, str], ModalHandler] = {}


def custom_id(game: str, session_id: int, action: str, arg: str | None = None) -> str:
    """Build an id the template matches; refuses anything it would not."""
    value = f"{game}:{session_id}:{action}" + (f":{arg}" if arg is not None else "")
    if len(value) > 100 or not CUSTOM_ID.fullmatch(value):
        raise ValueError(f"invalid custom_id {value!r}")
    return value


def on_component(game: str, action: str) -> Callable[[Handler], Handler]:
    """Register the handler for a button or select; `game` may be a shared prefix such as 'vote'."""

    def register(handler: Handler) -> Handler:
        _handlers[(game, action)] = handler
        return handler

    return register


def register_component(game: str, action: str, handler: Handler) -> None:
    _handlers[(game, action)] = handler


def register_modal(game: str, action: str, handler: ModalHandler) -> None:
    """Handle the submission of modals whose custom_id is `<game>:<session>:<action>[:<arg>]`."""
    _modal_handlers[(game, action)] = handler


def unregister_game(game: str) -> None:
    for registry in (_handlers, _modal_handlers):
        for key in [key for key in registry if key[0] == game]:
            del registry[key]


def modal(
    game: str,
    session_id: int,
    action: str,
    title: str,
    inputs: list[discord.ui.TextInput[Any]],
    arg: str | None = None,
) -> discord.ui.Modal:
    """A modal whose submission is routed by its custom_id, not by an object in memory.

    discord.py keys open modals by custom_id alone, so two players' forms would collide and a restart
    would lose them; `dispatch_modal_submit` reads the submitted values straight from the interaction.
    """
    form = discord.ui.Modal(title=title[:45], custom_id=custom_id(game, session_id, action, arg))
    for text_input in inputs:
        form.add_item(text_input)
    return form


def submitted_values(data: Any) -> dict[str, str]:
    """The text inputs' values by custom_id, from an action row or label layout."""
    values: dict[str, str] = {}
    stack = list(data.get("components", []))
    while stack:
        component = stack.pop(0)
        if "value" in component and "custom_id" in component:
            values[component["custom_id"]] = component["value"]
        stack.extend(component.get("components", []))
        if "component" in component:
            stack.append(component["component"])
    return values


async def dispatch_modal_submit(interaction: discord.Interaction[Any]) -> None:
    """The bot's on_interaction listener for modal submissions of ours."""
    if interaction.type is not discord.InteractionType.modal_submit:
        return
    data: Any = interaction.data or {}
    match = CUSTOM_ID.fullmatch(str(data.get("custom_id", "")))
    handler = _modal_handlers.get((match["game"], match["action"])) if match else None
    if match is None or handler is None:
        return
    try:
        await handler(interaction, int(match["session"]), match["arg"], submitted_values(data))
    except Exception as error:
        await reply_error(interaction, error)


class TableItem(discord.ui.DynamicItem[discord.ui.Item[Any]], template=CUSTOM_ID):
    """Any button or select of ours, rebuilt from its custom_id on every click."""

    def __init__(self, item: discord.ui.Item[Any]) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TableItem:
        return cls(item)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        match = CUSTOM_ID.fullmatch(self.custom_id)
        assert match is not None  # the template matched before discord.py built this item
        game, action = match["game"], match["action"]
        handler = _handlers.get((game, action))
        if handler is None:
            log.warning("no handler for component %s", self.custom_id)
            await interaction.response.send_message("⚠️ This button is no longer in use.", ephemeral=True)
            return
        try:
            await handler(interaction, int(match["session"]), match["arg"])
        except Exception as error:
            await reply_error(interaction, error)


def button(
    game: str,
    session_id: int,
    action: str,
    label: str,
    *,
    arg: str | None = None,
    style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    emoji: str | None = None,
    disabled: bool = False,
    row: int | None = None,
) -> TableItem:
    return TableItem(
        discord.ui.Button(
            label=label[:80],
            style=style,
            emoji=emoji,
            disabled=disabled,
            custom_id=custom_id(game, session_id, action, arg),
            row=row,
        )
    )


def select(
    game: str,
    session_id: int,
    action: str,
    options: list[discord.SelectOption],
    *,
    placeholder: str,
    row: int | None = None,
) -> TableItem:
    return TableItem(
        discord.ui.Select(
            custom_id=custom_id(game, session_id, action),
            options=options[:25],
            placeholder=placeholder[:150],
            min_values=1,
            max_values=1,
            row=row,
        )
    )


def view_of(*items: discord.ui.Item[Any]) -> discord.ui.View:
    """A view that never times out (its items are dynamic, so a restart does not matter)."""
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view


def selected_values(interaction: discord.Interaction[Any]) -> list[str]:
    data: Any = interaction.data or {}
    values = data.get("values", [])
    return [str(v) for v in values]
