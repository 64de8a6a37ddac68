"""One place that answers an interaction: ephemeral errors for refused actions, logging for the unexpected.

Private replies speak the user's Discord language (interaction.locale).
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.engine.errors import GameError
from bot.i18n import language_of, t
from bot.ui.news import answer_news

log = logging.getLogger(__name__)

NO_MENTIONS = discord.AllowedMentions.none()


async def acknowledge(interaction: discord.Interaction[Any], *, public: bool = False) -> None:
    """Answer Discord at once, before any work, so that a click or command feels instant.

    A click (or a form sent from a message) is acknowledged silently: the work then edits the table, the
    clicked message (`update_clicked`) or follows up privately. A slash command shows a private "thinking…"
    (a public one for `public` commands) that its answer replaces.
    """
    if interaction.response.is_done():
        return
    if (
        interaction.message is not None
        and interaction.type is not discord.InteractionType.application_command
    ):
        await interaction.response.defer()
    else:
        await interaction.response.defer(ephemeral=not public, thinking=True)


async def update_clicked(interaction: discord.Interaction[Any], **kwargs: Any) -> None:
    """Edit the message whose button was clicked (after `acknowledge`, or as the click's answer)."""
    if interaction.response.is_done():
        await interaction.edit_original_response(**kwargs)
    else:
        await interaction.response.edit_message(**kwargs)


async def reply(interaction: discord.Interaction[Any], content: str | None = None, **kwargs: Any) -> None:
    """Answer, or follow up when the interaction was already answered (e.g. deferred)."""
    kwargs.setdefault("allowed_mentions", NO_MENTIONS)
    news = answer_news(interaction) if kwargs.get("ephemeral") else None
    if news is not None:  # a player's waiting news go at the top of their next private answer
        told = await news.text()
        if told:
            content = f"{told}\n\n{content}" if content else told
    try:
        await _send(interaction, content, **kwargs)
    except BaseException:
        if news is not None:
            news.unsent()  # they stay stored for the next answer
        raise
    if news is not None:
        await news.sent()


async def _send(interaction: discord.Interaction[Any], content: str | None, **kwargs: Any) -> None:
    if interaction.response.type is discord.InteractionResponseType.deferred_channel_message:
        # A "thinking…" is waiting for this answer: it becomes the answer (private or public as it is).
        kwargs.pop("ephemeral", None)
        attachments = [*kwargs.pop("files", []), *([kwargs.pop("file")] if "file" in kwargs else [])]
        if attachments:
            kwargs["attachments"] = attachments
        await interaction.edit_original_response(content=content, **kwargs)
    elif interaction.response.is_done():
        await interaction.followup.send(content or discord.utils.MISSING, **kwargs)
    else:
        await interaction.response.send_message(content, **kwargs)


async def reply_private(
    interaction: discord.Interaction[Any], content: str | None = None, **kwargs: Any
) -> None:
    """An ephemeral answer: only the user who acted sees it."""
    await reply(interaction, content, ephemeral=True, **kwargs)


async def reply_error(interaction: discord.Interaction[Any], error: BaseException) -> None:
    """A refused action gets its clear message in the user's language; anything else is logged and gets a
    generic apology."""
    lang = language_of(interaction.locale)
    if isinstance(error, GameError):
        message = f"⚠️ {error.text(lang)}"
    else:
        log.error("unexpected error in an interaction", exc_info=error)
        message = "⚠️ " + t("ui.unexpected", lang)
    try:
        await reply_private(interaction, message)
    except discord.HTTPException:
        log.warning("could not deliver an error reply to interaction %s", interaction.id)


def unwrap(error: BaseException) -> BaseException:
    """The GameError inside an app-command error, if there is one."""
    original = getattr(error, "original", None)
    return original if isinstance(original, BaseException) else error
