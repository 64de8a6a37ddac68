"""Buttons, selects and modals that keep working after a restart, routed by their typed custom_id.

One DynamicItem template takes every component click (whatever its id: a forged or damaged one gets a clear
private refusal, not Discord's "This interaction failed"); a cog registers one handler per (game, action)
with the action's argument declaration (bot/ui/codec.py), and the handler reads the session from the store,
so no view has to live in memory.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.engine.errors import BadAction, StaleAction
from bot.engine.game import STALE_MESSAGE
from bot.i18n import N_
from bot.ui import codec
from bot.ui.codec import Arg, MalformedId, MissingFreshness, Spec
from bot.ui.replies import acknowledge, reply_error
from bot.ui.turns import my_turn

log = logging.getLogger(__name__)

# Every id but those discord.py gives the items of in-memory views (32 hex digits), which it routes itself.
ANY_ID = re.compile(r"(?s)(?![0-9a-f]{32}\Z)(?P<id>.{1,100})")


FORM_KEPT_SECONDS = 15 * 60  # how long discord.py keeps a form it sent (an interaction token's lifetime)


class DamagedComponent(BadAction):
    """A custom_id that is not one this bot builds: refused privately, nothing changes."""


@dataclass
class Click:
    """A click on a button or select, or a modal's submission, with its id's arguments parsed and typed."""

    interaction: discord.Interaction[Any]
    session_id: int  # 0 for a control that needs no session (`<game>::<action>`)
    args: dict[str, Any]
    values: dict[str, str] = field(default_factory=dict)  # a modal's text inputs by custom_id

    @property
    def player(self) -> str:
        return str(self.interaction.user.id)

    @property
    def selected(self) -> list[str]:
        data: Any = self.interaction.data or {}
        return [str(value) for value in data.get("values", [])]


Handler = Callable[[Click], Awaitable[None]]


@dataclass(frozen=True)
class Route:
    spec: Spec
    handler: Handler
    opens_form: bool = False  # the handler's answer is a modal, which must be the click's first answer


_components: dict[tuple[str, str], Route] = {}
_modals: dict[tuple[str, str], Route] = {}


def register(
    game: str,
    action: str,
    handler: Handler,
    *args: Arg,
    modal: bool = False,
    opens_form: bool = False,
    sessionless: bool = False,
) -> Spec:
    """Route `<game>:<session>:<action>[:args]` to `handler`; returns the spec that builds such ids.

    `modal`: the handler takes a form's submission; `opens_form`: the click's answer is a form (a modal).
    Every other click is acknowledged before its handler runs. `sessionless`: a control that needs no
    session (`<game>::<action>[:args]`, e.g. a leaderboard's page); its click has session_id 0.
    """
    spec = Spec(game, action, tuple(args), sessionless=sessionless)
    (_modals if modal else _components)[(game, action)] = Route(spec, handler, opens_form)
    return spec


def spec(game: str, action: str, *, modal: bool = False) -> Spec:
    return (_modals if modal else _components)[(game, action)].spec


def unregister_game(game: str) -> None:
    for registry in (_components, _modals):
        for key in [key for key in registry if key[0] == game]:
            del registry[key]


def resolve(
    custom_id: str, *, modal: bool = False, locale: object = None
) -> tuple[Route, int, dict[str, Any]]:
    """The handler and typed arguments of an id, or DamagedComponent with the reason in the log (an id
    without the freshness value its action carries is refused as stale)."""
    try:
        parsed = codec.parse(custom_id)
        route = (_modals if modal else _components).get((parsed.game, parsed.action))
        if route is None:
            raise MalformedId(f"no handler for {parsed.game}:{parsed.action}")
        if route.spec.sessionless != (parsed.session_id is None):
            raise MalformedId("a session where none belongs, or none where one must be")
        return route, parsed.session_id or 0, route.spec.decode(parsed.arg)
    except MissingFreshness as error:
        log.info("refused a component id %r: %s", custom_id[:100], error)
        raise StaleAction(STALE_MESSAGE) from None
    except MalformedId as error:
        log.info("refused a component id %r: %s", custom_id[:100], error)
        raise DamagedComponent(N_("ui.damaged")) from None


_handling = 0  # clicks and forms whose handler has not returned yet


def handling() -> bool:
    """A click's or a form's handler is still at work (tests and the bench wait for quiet: after an
    acknowledgement, the table changes only when the handler's action is through)."""
    return _handling > 0


async def _route(interaction: discord.Interaction[Any], custom_id: str, *, modal: bool) -> None:
    global _handling
    _handling += 1
    try:
        route, session_id, args = resolve(custom_id, modal=modal)
        if not route.opens_form:
            await acknowledge(interaction)
            await my_turn()  # a burst's handlers, one per turn of the loop
        values = submitted_values(interaction.data or {}) if modal else {}
        await route.handler(Click(interaction, session_id, args, values))
    except Exception as error:
        await reply_error(interaction, error)
    finally:
        _handling -= 1


async def dispatch_interaction(interaction: discord.Interaction[Any]) -> None:
    """The bot's on_interaction listener: every modal submission gets routed or a private refusal, and so
    does a click whose id is not on its message (discord.py drops those silently: Discord's client would
    then say "This interaction failed")."""
    data: Any = interaction.data or {}
    custom_id = str(data.get("custom_id", ""))[:200]
    if interaction.type is discord.InteractionType.modal_submit:
        await _route(interaction, custom_id, modal=True)
    elif (
        interaction.type is discord.InteractionType.component
        and ANY_ID.fullmatch(custom_id)
        and not _on_message(interaction.message, custom_id, data.get("component_type"))
    ):
        await _route(interaction, custom_id, modal=False)


def custom_ids(message: discord.Message) -> list[str]:
    """The ids of every button and select the message shows."""
    found: list[str] = []
    stack: list[Any] = list(message.components)
    while stack:
        component = stack.pop()
        stack.extend(getattr(component, "children", None) or [])
        custom_id = getattr(component, "custom_id", None)
        if isinstance(custom_id, str):
            found.append(custom_id)
    return found


def _on_message(message: discord.Message | None, custom_id: str, component_type: object) -> bool:
    """Whether discord.py will route this click to TableItem: the message shows a component with its id."""
    if message is None:
        return False
    stack: list[Any] = list(message.components)
    while stack:
        component = stack.pop()
        stack.extend(getattr(component, "children", None) or [])
        if getattr(component, "custom_id", None) == custom_id:
            return bool(component.type.value == component_type)
    return False


class TableItem(discord.ui.DynamicItem[discord.ui.Item[Any]], template=ANY_ID):
    """Any button or select of ours, rebuilt from its custom_id on every click."""

    def __init__(self, item: discord.ui.Item[Any]) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TableItem:
        return cls(item)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _route(interaction, self.custom_id, modal=False)


def submitted_values(data: Any) -> dict[str, str]:
    """The text inputs' values by custom_id, from an action row or label layout."""
    values: dict[str, str] = {}
    stack = list(data.get("components", []) or [])
    while stack:
        component = stack.pop(0)
        if not isinstance(component, dict):
            continue
        if "value" in component and "custom_id" in component:
            values[str(component["custom_id"])] = str(component["value"])
        stack.extend(component.get("components", []) or [])
        if "component" in component:
            stack.append(component["component"])
    return values


def button(
    custom_id: str,
    label: str,
    *,
    style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    emoji: str | None = None,
    disabled: bool = False,
    row: int | None = None,
) -> TableItem:
    return TableItem(
        discord.ui.Button(
            label=label[:80], style=style, emoji=emoji, disabled=disabled, custom_id=custom_id, row=row
        )
    )


def select(
    custom_id: str, options: list[discord.SelectOption], *, placeholder: str, row: int | None = None
) -> TableItem:
    return TableItem(
        discord.ui.Select(
            custom_id=custom_id,
            options=options[:25],
            placeholder=placeholder[:150],
            min_values=1,
            max_values=1,
            row=row,
        )
    )


def modal(custom_id: str, title: str, inputs: list[discord.ui.TextInput[Any]]) -> discord.ui.Modal:
    """A modal whose submission is routed by its custom_id, not by an object in memory.

    discord.py keys open modals by custom_id alone, so two players' forms would collide and a restart
    would lose them; `dispatch_interaction` reads the submitted values straight from the interaction.
    """
    # discord.py keeps every form it sent until it is submitted or times out: one never sent back would
    # stay for good. Its submission needs no such copy (see above).
    form = discord.ui.Modal(title=title[:45], custom_id=custom_id, timeout=FORM_KEPT_SECONDS)
    for text_input in inputs:
        form.add_item(text_input)
    return form


def view_of(*items: discord.ui.Item[Any]) -> discord.ui.View:
    """A view that never times out (its items are dynamic, so a restart does not matter)."""
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view
