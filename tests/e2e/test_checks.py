"""The checks themselves, without a server: spec error flattening, route matching and LIMITS.md rules."""

from __future__ import annotations

import pytest

from . import limits
from .spec import OpenApiSpec, discord_errors


def _where(problems: list) -> list[str]:
    return [".".join(map(str, p.path)) for p in problems]


@pytest.fixture
def spec(discord_spec: OpenApiSpec | None) -> OpenApiSpec:
    if discord_spec is None:
        pytest.skip("Discord's OpenAPI spec is missing: spec checks cannot run")
    return discord_spec


def test_literal_segments_win_over_parameters(spec: OpenApiSpec):
    original = spec.match("PATCH", "/webhooks/1/token/messages/@original")
    assert original is not None and original.operation_id == "update_original_webhook_message"
    other = spec.match("PATCH", "/webhooks/1/token/messages/42")
    assert other is not None and other.operation_id == "update_webhook_message"
    assert spec.match("GET", "/no/such/route") is None


def test_union_errors_are_flattened_to_the_meant_branch(spec: OpenApiSpec):
    callback = spec.match("POST", "/interactions/1/token/callback")
    assert callback is not None
    # A message reply (type 4) with a too-long label: the cause, not "not valid under any of the given schemas".
    body = {
        "type": 4,
        "data": {
            "components": [
                {"type": 1, "components": [{"type": 2, "style": 1, "custom_id": "a", "label": "l" * 81}]}
            ]
        },
    }
    [problem] = spec.validate_request(callback, body)
    assert _where([problem]) == ["data.components.0.components.0.label"]
    assert problem.message == "Must be 80 or fewer in length (got 81)."
    [unknown] = spec.validate_request(callback, {"type": 42})
    assert _where([unknown]) == ["type"] and "42" in unknown.message


def test_discord_error_shape(spec: OpenApiSpec):
    create = spec.match("POST", "/channels/1/messages")
    assert create is not None
    errors = discord_errors(spec.validate_request(create, {"embeds": [{"title": "t" * 257}]}))
    assert errors == {
        "embeds": {
            "0": {
                "title": {
                    "_errors": [
                        {
                            "code": "BASE_TYPE_MAX_LENGTH",
                            "message": "Must be 256 or fewer in length (got 257).",
                        }
                    ]
                }
            }
        }
    }


def test_integer_snowflakes_are_accepted_as_discord_does(spec: OpenApiSpec):
    create = spec.match("POST", "/channels/1/messages")
    assert create is not None
    assert (
        spec.validate_request(create, {"content": "x", "attachments": [{"id": 0, "filename": "a.png"}]}) == []
    )


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"content": "x" * 2001}, "content"),
        ({"embeds": [{"description": "d" * 3000}, {"description": "d" * 3000, "title": "t"}]}, "embeds"),
        (
            {
                "components": [
                    {"type": 1, "components": [{"type": 2, "style": 1, "custom_id": f"{i}"}]}
                    for i in range(6)
                ]
            },
            "components",
        ),
        (
            {
                "components": [
                    {
                        "type": 1,
                        "components": [
                            {"type": 3, "custom_id": "s"},
                            {"type": 2, "style": 1, "custom_id": "b"},
                        ],
                    }
                ]
            },
            "components.0.components",
        ),
        (
            {
                "components": [
                    {"type": 1, "components": [{"type": 2, "style": 5, "custom_id": "x", "url": "https://a"}]}
                ]
            },
            "components.0.components.0",
        ),
    ],
)
def test_message_limits_the_spec_cannot_express(body, where):
    assert where in _where(limits.check_message(body))


def test_a_message_within_the_limits_passes():
    row = {
        "type": 1,
        "components": [{"type": 2, "style": 1, "custom_id": f"b{i}", "label": "B"} for i in range(5)],
    }
    body = {
        "content": "x" * 2000,
        "embeds": [{"description": "d" * 4096, "title": "t" * 256}],
        "components": [row] * 1,
    }
    assert limits.check_message(body) == []
    v2 = {"flags": limits.IS_COMPONENTS_V2, "components": [{"type": 10, "content": "text"}] * 8}
    assert limits.check_message(v2) == []  # the five-row rule is for legacy messages only


def test_modal_needs_one_to_five_components():
    field = {"type": 1, "components": [{"type": 4, "custom_id": "f", "style": 1, "label": "F"}]}
    assert limits.check_modal({"custom_id": "m", "title": "T", "components": [field]}) == []
    assert "data.components" in _where(limits.check_modal({"custom_id": "m", "title": "T", "components": []}))
    six = [{"type": 1, "components": [{**field["components"][0], "custom_id": f"f{i}"}]} for i in range(6)]
    assert "data.components" in _where(
        limits.check_modal({"custom_id": "m", "title": "T", "components": six})
    )


def test_a_deferred_reply_carries_only_the_ephemeral_flag():
    assert limits.check_interaction_callback({"type": 5, "data": {"flags": 64}}) == []
    assert limits.check_interaction_callback({"type": 5, "data": {"content": "hi"}}) != []


@pytest.mark.parametrize(
    "name", ["topstop", "top-stop", "top_stop", "l'été", "पहेली", "ทดสอบ", "x" * 32, "n1"]
)
def test_command_names_that_discord_accepts(name):
    assert limits.check_command({"name": name, "description": "ok", "type": 1}) == []


@pytest.mark.parametrize("name", ["TopStop", "top stop", "", "x" * 33, "stop!", "🎲"])
def test_command_names_that_discord_refuses(name):
    assert "name" in _where(limits.check_command({"name": name, "description": "ok", "type": 1}))


def test_command_descriptions_options_and_order():
    command = {
        "name": "game",
        "description": "d" * 101,
        "options": [
            {"type": 3, "name": "optional", "description": "o"},
            {"type": 3, "name": "Required", "description": "", "required": True},
        ],
    }
    assert _where(limits.check_command(command)) == [
        "description",
        "options.1.name",
        "options.1.description",
        "options.1.required",
    ]
    user_command = {"name": "Show Profile", "type": 2, "description": ""}
    assert limits.check_command(user_command) == []  # context-menu names may have capitals and spaces
    duplicate = [{"name": "help", "description": "a"}, {"name": "help", "description": "b"}]
    assert _where(limits.check_commands(duplicate)) == ["1.name"]


BODIES_BOTH_WAYS = [
    ("POST", "/channels/1/messages", {"content": "x"}),
    ("POST", "/channels/1/messages", {"embeds": [{"title": "t" * 257}]}),
    ("POST", "/channels/1/messages", {"content": "x", "attachments": [{"id": 0, "filename": "a.png"}]}),
    ("POST", "/channels/1/messages", {"content": "x", "attachments": [{"id": -1, "filename": "a.png"}]}),
    ("POST", "/channels/1/messages", {"content": 5}),
    ("POST", "/channels/1/messages", {"components": [{"type": 1, "components": [{"type": 99}]}]}),
    ("POST", "/interactions/1/token/callback", {"type": 42}),
    ("POST", "/interactions/1/token/callback", {"type": 6}),
    ("POST", "/interactions/1/token/callback", {"type": 4, "data": {"content": "hi", "flags": 64}}),
    (
        "POST",
        "/interactions/1/token/callback",
        {"type": 9, "data": {"custom_id": "m", "title": "T", "components": []}},
    ),
    (
        "PUT",
        "/applications/1/guilds/2/commands",
        [
            {
                "name": "topstop",
                "description": "d",
                "options": [{"type": 1, "name": "new", "description": "n"}],
            }
        ],
    ),
    (
        "PUT",
        "/applications/1/guilds/2/commands",
        [{"name": "x", "description": "d", "options": [{"type": 77}]}],
    ),
    ("PUT", "/applications/1/guilds/2/commands", {"name": "not-a-list"}),
]


@pytest.mark.parametrize(("method", "path", "body"), BODIES_BOTH_WAYS)
def test_the_compiled_validator_and_jsonschema_agree(spec: OpenApiSpec, method: str, path: str, body):
    # The compiled validator gives the verdict and jsonschema the causes: both must judge alike.
    operation = spec.match(method, path)
    assert operation is not None and operation.request_pointer is not None
    accepted = spec.fast_validator(operation.request_pointer).is_valid(body)
    assert accepted == (spec.slow_problems(operation.request_pointer, body) == [])
