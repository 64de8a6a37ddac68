"""Discord's official OpenAPI description, used to validate what the bot sends and what the fake answers."""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

log = logging.getLogger(__name__)

SPEC_ENV = "DISCORD_OPENAPI_SPEC"
REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SPEC_PATH = REPO_ROOT.parent / "shared" / "discord-api-spec" / "openapi.json"
# The registry serves the whole document under this URI, so "#/components/..." refs inside it resolve.
_BASE_URI = "urn:discord-openapi"
_METHODS = ("get", "put", "post", "patch", "delete")
_INVALID = "BASE_TYPE_INVALID"

# Discord's error codes for the jsonschema keywords that fail most often.
_DISCORD_CODES = {
    "maxLength": "BASE_TYPE_MAX_LENGTH",
    "minLength": "BASE_TYPE_MIN_LENGTH",
    "maxItems": "BASE_TYPE_MAX_LENGTH",
    "minItems": "BASE_TYPE_MIN_LENGTH",
    "required": "BASE_TYPE_REQUIRED",
    "enum": "BASE_TYPE_CHOICES",
    "const": "BASE_TYPE_CHOICES",
    "pattern": "STRING_TYPE_REGEX",
    "maximum": "NUMBER_TYPE_MAX",
    "minimum": "NUMBER_TYPE_MIN",
}


@dataclass(frozen=True)
class Problem:
    """One reason a body is invalid: where (a path into the body), why, and Discord's code for it."""

    path: tuple[str | int, ...]
    message: str
    code: str = "BASE_TYPE_INVALID"

    def __str__(self) -> str:
        where = ".".join(str(p) for p in self.path) or "<body>"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class Operation:
    """A route of the spec: method, path template and where its schemas live in the document."""

    method: str
    template: str
    operation_id: str
    request_pointer: str | None
    response_pointers: dict[str, str]


def find_spec_path() -> Path | None:
    """The spec named by DISCORD_OPENAPI_SPEC, else the shared copy beside the repository."""
    configured = os.environ.get(SPEC_ENV)
    path = Path(configured) if configured else DEFAULT_SPEC_PATH
    return path if path.is_file() else None


def _relax(document: dict[str, Any]) -> None:
    """Where the spec is stricter than Discord itself, follow Discord.

    SnowflakeType is a digit string in the spec, but Discord's parser takes integer snowflakes too, and
    discord.py sends new attachments' ids as the integers 0, 1, … (the index of files[n]).
    """
    schemas = document["components"]["schemas"]
    snowflake = schemas["SnowflakeType"]
    schemas["SnowflakeType"] = {"anyOf": [snowflake, {"type": "integer", "minimum": 0}]}


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


class OpenApiSpec:
    """Route matching and body validation against Discord's OpenAPI 3.1 document."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        _relax(self.document)
        resource = Resource.from_contents(self.document, default_specification=DRAFT202012)
        self._registry: Registry = Registry().with_resource(_BASE_URI, resource)
        self._validators: dict[str, Draft202012Validator] = {}
        # The verdict comes from a compiled validator (about a thousand times faster: the command tree a bot
        # syncs at each start took 0.35 s to check in pure Python); only a body it refuses is walked again by
        # jsonschema, for the leaf causes Discord would name. Formats are annotations in 2020-12, for both.
        self._fast_registry = jsonschema_rs.Registry(
            [(_BASE_URI, self.document)], draft=jsonschema_rs.Draft202012
        )
        self._fast_validators: dict[str, jsonschema_rs.Validator] = {}
        # Set to a list, every body is judged by both validators and each disagreement is kept there.
        self.disagreements: list[tuple[str, Any]] | None = None
        self._routes: list[tuple[re.Pattern[str], Operation]] = []
        for template, item in self.document["paths"].items():
            for method in _METHODS:
                if method in item:
                    self._routes.append((self._compile(template), self._operation(method, template, item)))
        # A literal segment ("@original") must win over a parameter ("{message_id}") at the same place.
        self._routes.sort(key=lambda route: route[1].template.count("{"))
        log.info(
            "Discord OpenAPI spec loaded from %s (%d paths, %d schemas)",
            path,
            len(self.document["paths"]),
            len(self.document["components"]["schemas"]),
        )

    @staticmethod
    def _compile(template: str) -> re.Pattern[str]:
        parts = re.split(r"(\{[^}]+\})", template)
        pattern = "".join("[^/]+" if part.startswith("{") else re.escape(part) for part in parts)
        return re.compile(f"^{pattern}$")

    @staticmethod
    def _operation(method: str, template: str, item: dict[str, Any]) -> Operation:
        op = item[method]
        base = f"#/paths/{_escape(template)}/{method}"
        request = None
        if "application/json" in op.get("requestBody", {}).get("content", {}):
            request = f"{base}/requestBody/content/application~1json/schema"
        responses = {
            status: f"{base}/responses/{status}/content/application~1json/schema"
            for status, answer in op.get("responses", {}).items()
            if "application/json" in answer.get("content", {})
        }
        return Operation(method.upper(), template, op.get("operationId", ""), request, responses)

    def match(self, method: str, path: str) -> Operation | None:
        """The spec's operation for a concrete request path (without the /api/v10 prefix)."""
        for pattern, op in self._routes:
            if op.method == method.upper() and pattern.match(path):
                return op
        return None

    def _validator(self, pointer: str) -> Draft202012Validator:
        validator = self._validators.get(pointer)
        if validator is None:
            validator = Draft202012Validator({"$ref": _BASE_URI + pointer}, registry=self._registry)
            self._validators[pointer] = validator
        return validator

    def fast_validator(self, pointer: str) -> jsonschema_rs.Validator:
        validator = self._fast_validators.get(pointer)
        if validator is None:
            # A fragment is a URI part: the path templates' braces are percent-encoded there.
            reference = _BASE_URI + quote(pointer, safe="/~#@")
            validator = jsonschema_rs.Draft202012Validator(
                {"$ref": reference}, registry=self._fast_registry, validate_formats=False
            )
            self._fast_validators[pointer] = validator
        return validator

    def validate_request(self, op: Operation, body: Any) -> list[Problem]:
        """Leaf causes of every way the body breaks the route's request schema."""
        if op.request_pointer is None:
            return []
        return self.problems(op.request_pointer, body)

    def validate_response(self, op: Operation, status: int, body: Any) -> list[Problem]:
        """Checks the fake's own answer, so the fake cannot drift from Discord's shapes."""
        pointer = op.response_pointers.get(str(status))
        if pointer is None:
            return []
        return self.problems(pointer, body)

    def validate_schema(self, name: str, value: Any) -> list[Problem]:
        """Validates a value against a named component schema (e.g. a gateway payload part)."""
        return self.problems(f"#/components/schemas/{name}", value)

    def problems(self, pointer: str, body: Any) -> list[Problem]:
        """Nothing when the compiled validator accepts the body, else jsonschema's leaf causes."""
        accepted = self.fast_validator(pointer).is_valid(body)
        if self.disagreements is not None:
            problems = self.slow_problems(pointer, body)
            if accepted == bool(problems):
                self.disagreements.append((pointer, body))
            return problems
        return [] if accepted else self.slow_problems(pointer, body)

    def slow_problems(self, pointer: str, body: Any) -> list[Problem]:
        """Every leaf cause jsonschema finds (tests compare its verdicts with the compiled validator's)."""
        problems: list[Problem] = []
        for error in self._validator(pointer).iter_errors(body):
            for problem in _leaves(error):
                if problem not in problems:
                    problems.append(problem)
        return problems


def _misses_discriminator(error: ValidationError) -> bool:
    """True when a union branch was rejected only because it is a different kind of thing.

    Discord's unions are told apart by a `type` field (component type, callback type …) or by the
    JSON type (null or object); a branch failing there says nothing about what is wrong with the body.
    """
    relative = list(error.relative_path)
    if error.validator in ("enum", "const") and relative == ["type"]:
        return True
    return error.validator == "type" and not relative


def _leaves(error: ValidationError) -> Iterator[Problem]:
    """Flattens anyOf/oneOf failures into the causes inside the branches that were meant."""
    if error.validator not in ("anyOf", "oneOf") or not error.context:
        yield Problem(
            tuple(error.absolute_path), _describe(error), _DISCORD_CODES.get(str(error.validator), _INVALID)
        )
        return
    branches: dict[Any, list[ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    meant = [errors for errors in branches.values() if not any(_misses_discriminator(e) for e in errors)]
    if meant:
        for errors in meant:
            for sub in errors:
                yield from _leaves(sub)
        return
    # Every branch is of another kind: the discriminator itself is wrong.
    allowed = sorted(
        {value for sub in error.context if sub.validator == "enum" for value in sub.validator_value}
        | {sub.validator_value for sub in error.context if sub.validator == "const"},
        key=lambda value: (type(value).__name__, value),
    )
    instance = error.instance
    if isinstance(instance, dict) and "type" in instance and allowed:
        message = f"Value {instance['type']!r} is not one of {allowed}."
        yield Problem((*error.absolute_path, "type"), message, "BASE_TYPE_CHOICES")
    else:
        yield Problem(tuple(error.absolute_path), f"Not a valid value here: {_short(instance)}.", _INVALID)


def _short(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _describe(error: ValidationError) -> str:
    """Discord-like wording, without echoing a whole 2001-character string back."""
    value, instance = error.validator_value, error.instance
    if error.validator == "maxLength":
        return f"Must be {value} or fewer in length (got {len(instance)})."
    if error.validator == "minLength":
        return f"Must be {value} or more in length (got {len(instance)})."
    if error.validator == "maxItems":
        return f"Must be {value} or fewer in length (got {len(instance)} items)."
    if error.validator == "minItems":
        return f"Must be {value} or more in length (got {len(instance)} items)."
    if error.validator in ("enum", "const"):
        return f"Value {_short(instance)} is not one of {_short(value)}."
    if error.validator == "required":
        return error.message
    return f"{error.message[:200]}"


def discord_errors(problems: list[Problem]) -> dict[str, Any]:
    """Nests problems the way Discord's 50035 answer does: {"content": {"_errors": [...]}}."""
    tree: dict[str, Any] = {}
    for problem in problems:
        node = tree
        for part in problem.path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": problem.code, "message": problem.message})
    return tree
