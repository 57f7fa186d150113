"""What the OpenAPI document says beyond what marshmallow can: the per-game-type schemas
(views, action objects, events, decisions) joined by ``oneOf`` and a ``discriminator``, the
response headers every answer carries, and the 429/503 answers every operation may give.

The document is finished here, once, as a whole (``finish``), so an endpoint added elsewhere
gets the same headers and answers without a decorator of its own. Issue 14: client authors
generate typed clients (openapi-python-client) from this document.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import apispec

from engine.registry import game_ids

GAMETYPES = Path(__file__).with_name("gametypes.json")
SCHEMAS = "#/components/schemas/"
HEADERS = "#/components/headers/"
#: Not rate limited (service/domain/ratelimit.py EXEMPT_PATHS).
UNLIMITED = {"/healthz"}
#: Never read Redis, so never answered 503 by service/http/outage.py (/healthz says 503 itself).
NO_REDIS = {"/v1", "/v1/game-types", "/healthz"}
#: Response headers by (operationId, status): what the views set (service/http/api/*.py).
OPERATION_HEADERS = {
    ("get_game", "200"): ["ETag"],
    ("get_board_svg", "200"): ["ETag"],
    ("play", "200"): ["Idempotent-Replayed"],
    ("play", "202"): ["Idempotent-Replayed"],
}
HEADER_COMPONENTS: dict[str, dict[str, Any]] = {
    "X-Request-ID": {
        "description": "The request's id (the caller's own X-Request-ID when it is a short safe "
        "token, else a new one); every log line of the request carries it",
        "schema": {"type": "string"},
    },
    "Retry-After": {
        "description": "Seconds to wait before trying again",
        "schema": {"type": "integer", "minimum": 1},
    },
    "ETag": {
        "description": 'The game\'s version, quoted (e.g. "12"): send it in If-None-Match',
        "schema": {"type": "string"},
    },
    "Idempotent-Replayed": {
        "description": "true: this is the stored answer to an earlier request with the same "
        "Idempotency-Key and body; nothing was applied again",
        "schema": {"type": "string", "enum": ["true"]},
    },
}


def _record(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    props = {**required, **(optional or {})}
    out = {"type": "object", "properties": props, "additionalProperties": True}
    return {**out, "required": sorted(required)} if required else out


_INT, _STR, _BOOL = {"type": "integer"}, {"type": "string"}, {"type": "boolean"}
#: Events the service adds to every game type's log (service/domain/games.py, seats.py,
#: pinning.py), with their data.
SERVICE_EVENTS: dict[str, dict[str, Any]] = {
    "game_created": _record(
        {
            "type": _STR,
            "options": {"type": "object"},
            "seats": _INT,
            "seed_commitment": _STR,
            "deadline": {"type": "object", "nullable": True},
        }
    ),
    "player_joined": _record({"seat": _INT, "name": _STR}),
    "game_started": _record({"players": _INT, "rules_version": _STR, "seed_commitment": _STR}),
    "sealed_committed": _record({"ref": _STR, "seat": _INT, "commitment": _STR}),
    "sealed_revealed": _record(
        {
            "ref": _STR,
            "scheme": _STR,
            "choices": {
                "type": "array",
                "items": _record(
                    {"seat": _INT}, {"choice": _STR, "salt": _STR, "commitment": _STR}
                ),
            },
        }
    ),
    "timeout_applied": _record(
        {"seat": _INT, "step": _STR, "decision": _STR, "policy": _STR}, {"action": _STR}
    ),
    "seat_abandoned": _record({"seat": _INT, "missed": _INT, "claimable": _BOOL}),
    "win_claimed": _record({"seat": _INT, "against": _INT}),
    "seat_offered": _record({"seat": _INT}),
    "seat_replaced": _record({"seat": _INT, "previous": _STR, "name": _STR}),
    "rules_upgraded": _record({"from": _STR, "to": _STR}),
    "game_over": _record(
        {
            "result": {"type": "object", "additionalProperties": True},
            "seed": _STR,
            "seed_commitment": _STR,
        }
    ),
}


@cache
def game_types() -> dict[str, Any]:
    """The derived schemas of every game type (service/http/schemas/derive.py writes them)."""
    derived: dict[str, Any] = json.loads(GAMETYPES.read_text())
    return derived


def camel(name: str) -> str:
    """``attila-wargame`` -> ``AttilaWargame``, ``card_played`` -> ``CardPlayed``."""
    return "".join(part.capitalize() for part in name.replace("-", "_").split("_"))


def ref(name: str) -> dict[str, str]:
    return {"$ref": SCHEMAS + name}


def nullable_ref(name: str) -> dict[str, Any]:
    """A reference that may be null, as OpenAPI 3.0 spells it (a ``$ref`` takes no siblings)."""
    return {"allOf": [ref(name)], "nullable": True}


# -- the per-game-type schemas ---------------------------------------------------------------


def game_schemas() -> dict[str, dict[str, Any]]:
    """Every named schema of the game types, by component name."""
    out: dict[str, dict[str, Any]] = {}
    for type_id in game_ids():
        out.update(_one_game(type_id, game_types()[type_id]))
    out["Action"] = {
        "description": "An action object of any game type (action objects carry no game type, "
        "and some types, such as `end` or `resign`, exist in several games: anyOf); the game "
        "type's own schema (`AttilaAction`, ...) tells its actions apart by `type`",
        "anyOf": [ref(camel(t) + "Action") for t in game_ids()],
    }
    out.update(_events())
    return out


def _one_game(type_id: str, derived: dict[str, Any]) -> dict[str, dict[str, Any]]:
    name = camel(type_id)
    out: dict[str, dict[str, Any]] = {
        name + "View": {**derived["view"], "description": f"The {type_id} game as a seat sees it"},
        name + "DecisionStep": {"type": "string", "enum": derived["steps"]},
        name + "Decision": {
            "allOf": [
                ref("Decision"),
                {"type": "object", "properties": {"step": ref(name + "DecisionStep")}},
            ],
            "description": f"A decision of a {type_id} game, its step one of the game's steps",
        },
    }
    mapping = {}
    for action_type, schema in derived["actions"].items():
        component = f"{name}{camel(action_type)}Action"
        out[component] = _tagged(schema, "type", action_type)
        mapping[action_type] = SCHEMAS + component
    out[name + "Action"] = {
        "oneOf": [{"$ref": target} for target in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
        "description": f"An action object of a {type_id} game, named by its `type`",
    }
    out[name + "GameView"] = {
        "allOf": [
            ref("GameViewCommon"),
            {
                "type": "object",
                "properties": {
                    "type": {"type": "string", "enum": [type_id]},
                    "view": nullable_ref(name + "View"),
                },
            },
        ],
        "description": f"A game of {type_id} as the caller may see it",
    }
    return out


def _tagged(schema: dict[str, Any], tag: str, value: str) -> dict[str, Any]:
    """``schema`` with its ``tag`` property fixed to ``value`` and required."""
    out = copy.deepcopy(schema)
    out.setdefault("properties", {})[tag] = {"type": "string", "enum": [value]}
    out["required"] = sorted({*out.get("required", []), tag})
    out["type"] = "object"
    return out


def event_kinds() -> dict[str, dict[str, Any]]:
    """Every event kind of every game type: its data schema (merged over the game types that
    share the kind) and the game types that produce it."""
    kinds: dict[str, dict[str, Any]] = {
        kind: {"games": ["every game type (the service)"], "data": data}
        for kind, data in SERVICE_EVENTS.items()
    }
    for type_id in game_ids():
        for kind, schema in game_types()[type_id]["events"].items():
            entry = kinds.setdefault(kind, {"games": [], "data": schema})
            entry["games"].append(type_id)
            entry["data"] = _merge(entry["data"], schema)
    return dict(sorted(kinds.items()))


def _merge(one: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    if one == other:
        return one
    if one.get("type") != "object" or other.get("type") != "object":
        return {}
    props = dict(one.get("properties", {}))
    for key, schema in other.get("properties", {}).items():
        props[key] = _merge(props[key], schema) if key in props else schema
    required = sorted(set(one.get("required", [])) & set(other.get("required", [])))
    merged: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": True}
    if required:
        merged["required"] = required
    return merged


def _fields(schema: dict[str, Any]) -> str:
    props = schema.get("properties", {})
    required = set(schema.get("required", []))
    parts = []
    for name, prop in props.items():
        kind = prop.get("type", "any")
        if kind == "array":
            kind = f"{prop['items'].get('type', 'any')}[]" if prop.get("items") else "array"
        optional = "" if name in required else "?"
        parts.append(f"`{name}{optional}`: {kind}{' or null' if prop.get('nullable') else ''}")
    return ", ".join(parts) or "(none)"


def event_table() -> str:
    """The Markdown table of every event kind of every game type (docs/api.md, Events)."""
    lines = ["| Game type | Event kind | Data fields (`?`: not always there) |", "|---|---|---|"]
    for kind, schema in SERVICE_EVENTS.items():
        lines.append(f"| (every type: the service) | `{kind}` | {_fields(schema)} |")
    for type_id in game_ids():
        for kind, schema in game_types()[type_id]["events"].items():
            lines.append(f"| {type_id} | `{kind}` | {_fields(schema)} |")
    return "\n".join(lines) + "\n"


def _events() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    mapping = {}
    for kind, entry in event_kinds().items():
        component = camel(kind) + "Event"
        out[component] = {
            "type": "object",
            "description": f"Event `{kind}` ({', '.join(entry['games'])})",
            "properties": {
                "kind": {"type": "string", "enum": [kind]},
                "data": entry["data"],
                "audience": {
                    "type": "array",
                    "items": {"type": "integer"},
                    "description": "Seats that see it; absent = everyone",
                },
            },
            "required": ["data", "kind"],
        }
        mapping[kind] = SCHEMAS + component
    out["GameEvent"] = {
        "oneOf": [{"$ref": target} for target in mapping.values()],
        "discriminator": {"propertyName": "kind", "mapping": mapping},
        "description": "Something that happened in a game, named by its `kind` (docs/api.md, "
        "Events)",
    }
    return out


def _views(schemas: dict[str, Any]) -> None:
    """``GameView`` becomes the union of the game types' views, told apart by ``type``."""
    common = schemas.pop("GameView")
    common["properties"]["your_decision"] = nullable_ref("Decision")
    schemas["GameViewCommon"] = common
    mapping = {t: SCHEMAS + camel(t) + "GameView" for t in game_ids()}
    schemas["GameView"] = {
        "oneOf": [{"$ref": target} for target in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }


def _actions(schemas: dict[str, Any]) -> None:
    schemas["LegalAction"]["properties"]["action"] = ref("Action")
    request = schemas["ActionRequest"]
    request["properties"]["action"] = ref("Action")
    notation = {k: v for k, v in request["properties"]["notation"].items() if k != "description"}
    request["properties"]["actions"]["items"] = {"oneOf": [notation, ref("Action")]}
    # Exactly one of the three, said without a top-level oneOf (generators then give up the
    # class and type the body as Any): no two, nor none.
    keys = ("notation", "action", "actions")
    request["not"] = {
        "anyOf": [
            *({"required": [a, b]} for i, a in enumerate(keys) for b in keys[i + 1 :]),
            {"not": {"anyOf": [{"required": [key]} for key in keys]}},
        ]
    }
    request["description"] = "Exactly one of `notation`, `action` and `actions`"


# -- headers and answers every operation shares --------------------------------------------------


def _header_refs(names: list[str]) -> dict[str, Any]:
    return {name: {"$ref": HEADERS + name} for name in names}


def _responses(document: dict[str, Any]) -> None:
    components = document["components"]
    components["headers"] = HEADER_COMPONENTS
    for name, response in components["responses"].items():
        names = ["X-Request-ID"]
        if name in ("TOO_MANY_REQUESTS", "SERVICE_UNAVAILABLE"):
            names.append("Retry-After")
        response["headers"] = {**response.get("headers", {}), **_header_refs(names)}
    for path, item in document["paths"].items():
        for operation in item.values():
            if isinstance(operation, dict) and "responses" in operation:
                _operation(path, operation, components["responses"])


def _operation(path: str, operation: dict[str, Any], shared: dict[str, Any]) -> None:
    answers = operation["responses"]
    if path not in UNLIMITED:
        answers.setdefault("429", {"$ref": "#/components/responses/TOO_MANY_REQUESTS"})
        shared.setdefault("TOO_MANY_REQUESTS", _problem_response("Too Many Requests", shared))
    if path not in NO_REDIS:
        answers.setdefault("503", {"$ref": "#/components/responses/SERVICE_UNAVAILABLE"})
        shared.setdefault("SERVICE_UNAVAILABLE", _problem_response("Service Unavailable", shared))
    for status, answer in answers.items():
        if "$ref" in answer:
            continue
        names = ["X-Request-ID", *OPERATION_HEADERS.get((operation["operationId"], status), [])]
        headers = {k: v for k, v in answer.get("headers", {}).items() if k not in names}
        answer["headers"] = {**headers, **_header_refs(names)}


def _problem_response(description: str, shared: dict[str, Any]) -> dict[str, Any]:
    names = ["X-Request-ID", "Retry-After"]
    return {
        "description": description,
        "content": copy.deepcopy(shared["DEFAULT_ERROR"]["content"]),
        "headers": _header_refs(names),
    }


def _plain_nullable_refs(node: Any) -> Any:
    """apispec writes a nullable nested schema as ``anyOf: [nullable object, $ref]``, which
    generators turn into an untyped dict or a union; a nullable ``allOf`` of the one reference
    gives them the class, or None."""
    if isinstance(node, list):
        return [_plain_nullable_refs(item) for item in node]
    if not isinstance(node, dict):
        return node
    choices = node.get("anyOf")
    if isinstance(choices, list) and len(choices) == 2 and choices[0] == _NULL_OBJECT:
        rest = {k: v for k, v in node.items() if k != "anyOf"}
        return {**rest, "allOf": [choices[1]], "nullable": True}
    return {key: _plain_nullable_refs(value) for key, value in node.items()}


_NULL_OBJECT = {"nullable": True, "type": "object"}


def finish(document: dict[str, Any]) -> dict[str, Any]:
    """The document as apispec built it, completed (see the module's docstring)."""
    document["components"]["schemas"] = _plain_nullable_refs(document["components"]["schemas"])
    schemas = document["components"]["schemas"]
    _views(schemas)
    _actions(schemas)
    schemas.pop("GameEvent", None)
    schemas.update(game_schemas())
    _responses(document)
    return document


class ContractSpec(apispec.APISpec):
    """apispec's document, finished by ``finish`` whenever it is built (served or written)."""

    def to_dict(self) -> dict[str, Any]:
        return finish(copy.deepcopy(super().to_dict()))  # apispec hands out its own dicts


def install(spec: apispec.APISpec) -> None:
    """Make the Api's spec a ContractSpec (flask-smorest builds the APISpec itself)."""
    spec.__class__ = ContractSpec
