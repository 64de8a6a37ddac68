"""/settings and /profile against the fake Discord: only members who manage the server change its settings
(a server that shows the commands to everyone still gets a private refusal); the channels, the cap and the
games' defaults apply to the next lobby; a player sees, deletes and anonymises what the bot keeps."""

from __future__ import annotations

from typing import Any

import pytest

from bot.store import ResultRow
from bot.store.repositories import is_anonymous

from .conftest import requires_product
from .driver import Player, Reply, Table
from .objects import MEMBER_PERMISSIONS

pytestmark = requires_product


MANAGE_GUILD = 1 << 5


async def shown_to_everyone(table: Table, member: Player, command: str, **options: Any) -> Reply:
    """`member` runs a command a server chose to show to everyone (Discord's client then offers it)."""
    data = table.build_command(command, options)
    record = await table.fake.send_interaction(member.user, 2, data, channel_id=table.channel_id)
    return await member._answered(record, f"{member.name} running /{command}", True, None)


async def test_settings_are_refused_privately_to_a_member_who_does_not_manage_the_server(
    product_bot: Any, table: Table
) -> None:
    alice = table.user("alice")
    with pytest.raises(AssertionError, match="alice cannot use /settings"):
        await alice.slash("settings show")  # the client does not even show it to her
    refused = await shown_to_everyone(table, alice, "settings max_games", number=1)
    assert refused.ephemeral and "Only members with Manage Server" in refused.text
    refused = await shown_to_everyone(table, alice, "settings channels anywhere")
    assert refused.ephemeral and "Only members with Manage Server" in refused.text
    assert (await product_bot.store.guild_settings.settings(table.fake.guild_id)).max_games is None

    moderator = table.user("mod", permissions=MEMBER_PERMISSIONS | MANAGE_GUILD)
    shown = await moderator.slash("settings show")
    assert shown.ephemeral and "anywhere" in shown.text and "(the bot's limit)" in shown.text


async def test_games_start_only_in_the_servers_channels(product_bot: Any, table: Table) -> None:
    admin, alice = table.user("dev"), table.user("alice")
    games = table.fake.channel_named("games")
    said = await admin.slash("settings channels add", options={"channel": "games"})
    assert said.ephemeral and f"only in: <#{games['id']}>" in said.text

    refused = await alice.slash("topple new", channel="general")
    assert refused.ephemeral and f"only in these channels on this server: <#{games['id']}>" in refused.text
    assert table.channel_messages("general") == []
    opened = await alice.slash("topple new", channel="games")
    assert opened.linked is not None and opened.linked.button_labels[0] == "Join"

    await admin.slash("settings channels anywhere")
    assert (await table.user("bob").slash("topple new", channel="general")).linked is not None


async def test_a_server_cap_below_the_bots_limits_its_open_games(product_bot: Any, table: Table) -> None:
    admin, alice, bob = table.user("dev"), table.user("alice"), table.user("bob")
    too_many = await admin.slash("settings max_games", number=product_bot.settings.max_games_per_server + 1)
    assert too_many.ephemeral and f"from 1 to {product_bot.settings.max_games_per_server}" in too_many.text
    said = await admin.slash("settings max_games", number=1)
    assert said.ephemeral and "up to 1 game open at once" in said.text

    assert (await alice.slash("topdrop new", channel="general")).linked is not None
    refused = await bob.slash("topdrop new", channel="games")
    assert refused.ephemeral and "This server has 1 game open, its most" in refused.text
    assert table.channel_messages("games") == []

    await admin.slash("settings max_games")  # back to the bot's limit
    assert (await bob.slash("topdrop new", channel="games")).linked is not None


async def test_a_server_default_applies_to_a_new_lobby_and_the_hosts_option_wins(
    product_bot: Any, table: Table
) -> None:
    admin, alice, bob = table.user("dev"), table.user("alice"), table.user("bob")
    suggested = await admin.autocomplete("settings default", "setting", "", game="Topple")
    assert [c["value"] for c in suggested.choices] == ["variant", "turn_seconds"]
    suggested = await admin.autocomplete("settings default", "value", "you", game="Topple", setting="variant")
    assert [c["value"] for c in suggested.choices] == ["young"]

    bad = await admin.slash("settings default", game="Topple", setting="turn_seconds", value="5")
    assert bad.ephemeral and "turn_seconds" in bad.text and "10" in bad.text  # the rules' own bounds
    unknown = await admin.slash("settings default", game="Topple", setting="target", value="50")
    assert unknown.ephemeral and "there are: variant, turn_seconds" in unknown.text
    assert (await product_bot.store.guild_settings.settings(table.fake.guild_id)).defaults == {}

    said = await admin.slash("settings default", game="Topple", setting="turn_seconds", value="300")
    assert said.ephemeral and "**300**" in said.text
    shown = await admin.slash("settings show")
    assert "`turn_seconds` Seconds before an idle turn is played for its player: **300**" in shown.text

    lobby = (await alice.slash("topple new", channel="general")).linked
    assert lobby is not None and "300 s per turn" in lobby.text
    own = (await bob.slash("topple new", channel="games", turn_seconds=60)).linked
    assert own is not None and "60 s per turn" in own.text

    cleared = await admin.slash("settings default", game="Topple", setting="turn_seconds")
    assert cleared.ephemeral and "back to the game's own default" in cleared.text
    assert (await product_bot.store.guild_settings.settings(table.fake.guild_id)).defaults == {}


@pytest.mark.both_databases
async def test_a_player_sees_deletes_and_anonymises_what_the_bot_keeps(
    product_bot: Any, table: Table
) -> None:
    alice = table.user("alice", locale="fr")
    await alice.slash("profile birthday", month=2, day=29)
    shown = await alice.slash("profile show")
    assert shown.ephemeral and "29/02" in shown.text and "Avis de tour" in shown.text

    asked = await alice.slash("profile delete")
    assert asked.ephemeral and "c'est définitif" in asked.text
    assert await product_bot.store.profiles.get(str(alice.user.id)) is not None  # nothing yet
    kept = await alice.click(asked.answer, "Tout garder")
    assert kept.answer is not None and "Rien n'a été modifié" in asked.answer.text
    assert await product_bot.store.profiles.get(str(alice.user.id)) is not None

    asked = await alice.slash("profile delete")
    await alice.click(asked.answer, "Supprimer mon profil")
    assert "Votre profil est supprimé" in asked.answer.text and asked.answer.buttons == []
    assert await product_bot.store.profiles.get(str(alice.user.id)) is None

    # A game's results: anonymised, they stay for the other player's leaderboard.
    sessions, store = product_bot.sessions, product_bot.store
    record = await sessions.open_lobby(table.fake.guild_id, 999, "topdrop", str(alice.user.id), {})
    rows = [ResultRow("222", 10, 1, True), ResultRow(str(alice.user.id), 3, 2, False)]
    async with store.transaction() as tx:
        await store.results.record(tx, record.id, table.fake.guild_id, "topdrop", rows, 1.0)
    await sessions.cancel(record.id, reason="the test's results are written")
    assert (
        "Résultats de parties à votre nom (un par partie terminée)\n1"
        in (await alice.slash("profile show")).text
    )

    asked = await alice.slash("profile anonymise")
    await alice.click(asked.answer, "Anonymiser mes résultats")
    assert "résultats rendus anonymes\u00a0: 1" in asked.answer.text
    [theirs, hers] = await store.results.for_session(record.id)
    assert theirs.user_id == "222" and is_anonymous(hers.user_id)
    assert (
        "Résultats de parties à votre nom (un par partie terminée)\n0"
        in (await alice.slash("profile show")).text
    )
