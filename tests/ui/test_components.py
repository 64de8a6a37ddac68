"""The custom_id scheme: `<game>:<session>:<action>[:<arg>]`, at most 100 characters."""

from __future__ import annotations

import pytest

from bot.ui.components import CUSTOM_ID, custom_id


def test_ids_round_trip_through_the_template():
    value = custom_id("topstop", 42, "dispute", "ann")
    match = CUSTOM_ID.fullmatch(value)
    assert (match["game"], match["session"], match["action"], match["arg"]) == (
        "topstop",
        "42",
        "dispute",
        "ann",
    )
    assert CUSTOM_ID.fullmatch(custom_id("vote", 7, "yes"))["arg"] is None


@pytest.mark.parametrize(
    ("game", "action", "arg"), [("Top", "join", None), ("topstop", "join!", None), ("topstop", "join", "a:b")]
)
def test_ids_that_would_not_route_are_refused(game, action, arg):
    with pytest.raises(ValueError):
        custom_id(game, 1, action, arg)


def test_ids_stay_within_discords_limit():
    with pytest.raises(ValueError):
        custom_id("topstop", 1, "x", "a" * 99)
    assert len(custom_id("topstop", 10**12, "a" * 24, "b" * 50)) <= 100


def test_modal_values_are_read_from_rows_and_labels():
    from bot.ui.components import submitted_values

    rows = {"components": [{"type": 1, "components": [{"type": 4, "custom_id": "word1", "value": "pear"}]}]}
    labels = {"components": [{"type": 18, "component": {"type": 4, "custom_id": "word2", "value": "plum"}}]}
    assert submitted_values(rows) == {"word1": "pear"}
    assert submitted_values(labels) == {"word2": "plum"}


def test_modals_are_routed_by_custom_id_so_two_players_never_collide():
    import discord

    from bot.ui.components import modal

    form = modal(
        "topstop", 5, "words", "Your words", [discord.ui.TextInput(label="Word 1", custom_id="word1")]
    )
    payload = form.to_dict()
    assert payload["custom_id"] == "topstop:5:words" and len(payload["title"]) <= 45
