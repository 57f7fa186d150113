"""What the OpenAPI document says beyond what marshmallow can: the per-game-type schemas
(views, decisions, legal actions, results, options, records, action objects, events) joined by
``oneOf`` and a ``discriminator``, the response headers every answer carries, and the 429/503
answers every operation may give.

The document is finished here, once, as a whole (``finish``), so an endpoint added elsewhere
gets the same headers and answers without a decorator of its own. Client authors generate
typed clients (openapi-python-client, openapi-typescript) from this document, and generators
read it literally:

- Each game type's view, legal actions and record is a whole schema of its own
  (``AttilaGameView`` names ``view: AttilaView`` itself). An ``allOf`` that narrows a loose
  field of a shared parent is dropped by openapi-python-client, which kept the parent's untyped
  dict.
- Every union has an explicit discriminator mapping (game views, legal actions and records by
  the game's ``type``, events by ``kind``, a game's actions by ``type``), and every alternative
  requires its tag with a single-valued ``enum``: a generator that ignores the discriminator and
  tries the alternatives in order (openapi-python-client 0.29) still lands on the right class.
- A newer server may add event kinds and action types. ``GameEvent`` is ``oneOf``
  ``KnownGameEvent`` (the discriminated union of the kinds named here) and ``OtherEvent``, whose
  tag is any string but the known ones (``not: enum``); each game's ``…Action`` likewise
  (``AttilaKnownAction`` or ``AttilaOtherAction``). The ``oneOf`` stays exact for a validator,
  and a client generated today parses tomorrow's kind as the fallback class instead of failing
  the whole answer. The fallback is outside the discriminated union: inside it, a generator
  that reads the discriminator (openapi-typescript) fixes the fallback's tag to its schema's
  name, the mapping's implicit value.
- ``ActionRequest`` is ``oneOf`` alternatives that each require their one field
  (``ActionByNotation``, ``ActionByObject``, ``ActionsInOrder``): an alternative that joins
  them later changes none of the others.
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


def ref(name: str) -> dict[str, str]:
    return {"$ref": SCHEMAS + name}


def nullable_ref(name: str, description: str | None = None) -> dict[str, Any]:
    """A reference that may be null, as OpenAPI 3.0 spells it (a ``$ref`` takes no siblings)."""
    out: dict[str, Any] = {"allOf": [ref(name)], "nullable": True}
    return {**out, "description": description} if description else out


def _record(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    props = {**required, **(optional or {})}
    out = {"type": "object", "properties": props, "additionalProperties": True}
    return {**out, "required": sorted(required)} if required else out


_INT, _STR, _BOOL = {"type": "integer"}, {"type": "string"}, {"type": "boolean"}
_INTS = {"type": "array", "items": _INT}
#: A sealed step's reveal: the ``sealed_revealed`` event's data and each of a record's reveals.
SEALED_REVEAL = _record(
    {
        "ref": _STR,
        "scheme": _STR,
        "choices": {
            "type": "array",
            "items": _record({"seat": _INT}, {"choice": _STR, "salt": _STR, "commitment": _STR}),
        },
    }
)
#: What engine.core.rank_with_resigned adds to any game's result once a seat has resigned.
RESIGNED_RESULT = {
    "resigned": {**_INTS, "description": "Seats that resigned, in the order they did"},
    "standing": {
        "type": "array",
        "items": _INTS,
        "description": "Seats best first, ties together; resigned seats last",
    },
}
#: Events the service adds to every game type's log (service/domain/games/, seats.py,
#: pinning.py), with their data.
SERVICE_EVENTS: dict[str, dict[str, Any]] = {
    "game_created": _record(
        {
            "type": _STR,
            "options": ref("GameOptions"),
            "seats": _INT,
            "seed_commitment": _STR,
            "deadline": nullable_ref("Deadline"),
        }
    ),
    "player_joined": _record({"seat": _INT, "name": _STR}),
    "game_started": _record({"players": _INT, "rules_version": _STR, "seed_commitment": _STR}),
    "sealed_committed": _record({"ref": _STR, "seat": _INT, "commitment": _STR}),
    "sealed_revealed": ref("SealedReveal"),
    "timeout_applied": _record(
        {"seat": _INT, "step": _STR, "decision": _STR, "policy": _STR},
        {"action": _STR, "same_turn": _BOOL, "bot_level": _STR},
    ),
    "seat_abandoned": _record({"seat": _INT, "missed": _INT, "claimable": _BOOL}),
    "win_claimed": _record({"seat": _INT, "against": _INT}),
    "seat_offered": _record({"seat": _INT}),
    "seat_replaced": _record({"seat": _INT, "previous": _STR, "name": _STR}),
    "rematch_offered": _record({"game_id": _STR, "seat": _INT}),
    "rules_upgraded": _record({"from": _STR, "to": _STR}),
    "game_over": _record({"result": ref("GameResult"), "seed": _STR, "seed_commitment": _STR}),
}
AUDIENCE = {
    "type": "array",
    "items": {"type": "integer"},
    "description": "Seats that see it; absent = everyone",
}
#: A step of a newer rules version than this document's: a decision still parses.
UNKNOWN_STEP = {
    "type": "string",
    "description": "A step this document does not name (a newer rules version's)",
}


@cache
def game_types() -> dict[str, Any]:
    """The derived schemas of every game type (service/http/schemas/derive.py writes them)."""
    derived: dict[str, Any] = json.loads(GAMETYPES.read_text())
    return derived


def camel(name: str) -> str:
    """``attila-wargame`` -> ``AttilaWargame``, ``card_played`` -> ``CardPlayed``."""
    return "".join(part.capitalize() for part in name.replace("-", "_").split("_"))


# -- the per-game-type schemas ---------------------------------------------------------------


def game_schemas(base: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every named schema of the game types, by component name. ``base``: the document's
    schemas as marshmallow made them (``GameView``, ``LegalActions``, ``LegalAction``,
    ``GameRecord``, ``ActionResult``, ``Decision``), whose fields each game's own schema
    repeats, typed."""
    out: dict[str, dict[str, Any]] = {}
    unions: dict[str, dict[str, str]] = {
        "GameView": {},
        "LegalActions": {},
        "GameRecord": {},
        "ActionResult": {},
    }
    known_actions: list[dict[str, str]] = []
    for type_id in game_ids():
        name = camel(type_id)
        out.update(_one_game(type_id, game_types()[type_id], base))
        for union, names in unions.items():
            names[type_id] = name + union
        known_actions.append(ref(name + "KnownAction"))
    for union, names in unions.items():
        what = {
            "GameView": "view",
            "LegalActions": "legal actions",
            "GameRecord": "record",
            "ActionResult": "answer to a move",
        }[union]
        out[union] = _union(names, "type", f"A game's {what}, by the game's `type`")
    out["Action"] = {
        "description": "An action object of any game type, to send (`ActionByObject`). Action "
        "objects carry no game type and some types (`end`, `resign`) exist in several games, "
        "so this is the `anyOf` of every game's known actions; legal actions come typed by "
        "their game (`AttilaLegalActions`, ...)",
        "anyOf": known_actions,
    }
    out["GameOptions"] = _merged_options()
    out["GameResult"] = {
        **_merged([out[camel(t) + "Result"] for t in game_ids()]),
        "description": "A game's result, the fields every game type's result may have (the "
        "game's own, e.g. `AttilaResult`, names all of them)",
    }
    out["SealedReveal"] = {
        **SEALED_REVEAL,
        "description": "A sealed step's reveal: every seat's choice and salt (docs/api.md, "
        "Verifying commitments)",
    }
    out.update(_events())
    return out


def _one_game(type_id: str, derived: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    name = camel(type_id)
    decision = name + "Decision"
    out: dict[str, dict[str, Any]] = {
        name + "View": {**derived["view"], "description": f"The {type_id} game as a seat sees it"},
        name + "DecisionStep": {"type": "string", "enum": derived["steps"]},
        decision: _with(
            base["Decision"],
            step={
                "anyOf": [ref(name + "DecisionStep"), UNKNOWN_STEP],
                "description": f"One of the {type_id} game's steps",
            },
        )
        | {"description": f"A decision of an {type_id} game"},
        name + "Result": _result(type_id, derived["result"]),
        name + "Options": options_schema(type_id),
    }
    mapping = {}
    for action_type, schema in derived["actions"].items():
        component = f"{name}{camel(action_type)}Action"
        out[component] = _tagged(schema, "type", action_type)
        mapping[action_type] = component
    out[name + "OtherAction"] = _other(
        "type",
        list(mapping),
        f"An action object of an {type_id} game whose `type` this document does not know (a "
        "newer server's): send it back as it came, or ignore it",
        {},
    )
    out[name + "KnownAction"] = _union(
        mapping, "type", f"An action object of an {type_id} game, named by its `type`"
    )
    out[name + "Action"] = {
        "oneOf": [ref(name + "KnownAction"), ref(name + "OtherAction")],
        "description": f"An action object of an {type_id} game: one this document names, or "
        "another (a newer server's)",
    }
    out[name + "LegalAction"] = _with(base["LegalAction"], action=ref(name + "Action"))
    out[name + "LegalActions"] = _typed(
        base["LegalActions"],
        type_id,
        decision=nullable_ref(decision),
        actions={"type": "array", "items": ref(name + "LegalAction")},
    )
    out[name + "GameView"] = _typed(
        base["GameView"],
        type_id,
        view=nullable_ref(name + "View", "The game, as you may see it"),
        your_decision=nullable_ref(decision, "Your first pending decision (null: none)"),
        waiting_for={"type": "array", "items": ref(decision)},
        result=nullable_ref(name + "Result", "null until the game is over"),
        options=ref(name + "Options"),
    )
    out[name + "ActionResult"] = _typed(
        base["ActionResult"],
        type_id,
        waiting_for={"type": "array", "items": ref(decision)},
    )
    out[name + "GameRecord"] = _typed(
        base["GameRecord"],
        type_id,
        options=ref(name + "Options"),
        result=nullable_ref(name + "Result", "null until the game is over"),
        reveals={"type": "array", "items": ref("SealedReveal")},
    )
    return out


def _with(schema: dict[str, Any], **properties: Any) -> dict[str, Any]:
    """``schema`` (an object) with ``properties`` replaced: their descriptions kept."""
    out = copy.deepcopy(schema)
    for key, value in properties.items():
        said = out["properties"].get(key, {}).get("description")
        described = "$ref" not in value and "description" not in value and said
        out["properties"][key] = {**value, "description": said} if described else value
    return out


def _typed(common: dict[str, Any], type_id: str, **properties: Any) -> dict[str, Any]:
    """A game type's own copy of ``common``: its ``type`` fixed and required (the tag of its
    union), ``properties`` typed for the game."""
    out = _with(common, **properties)
    out["properties"]["type"] = {"type": "string", "enum": [type_id]}
    out["required"] = sorted({*out.get("required", []), "type"})
    return out


def _tagged(schema: dict[str, Any], tag: str, value: str) -> dict[str, Any]:
    """``schema`` with its ``tag`` property fixed to ``value`` and required."""
    out = copy.deepcopy(schema)
    out.setdefault("properties", {})[tag] = {"type": "string", "enum": [value]}
    out["required"] = sorted({*out.get("required", []), tag})
    out["type"] = "object"
    return out


def _other(
    tag: str, known: list[str], description: str, required: dict[str, Any], **optional: Any
) -> dict[str, Any]:
    """The fallback beside a discriminated union: its ``tag`` any string but the ``known``
    ones, so that exactly one of the two alternatives holds for any value."""
    return {
        "type": "object",
        "description": description,
        "properties": {
            tag: {
                "type": "string",
                "not": {"enum": sorted(known)},
                "description": "None of the values this document names",
            },
            **required,
            **optional,
        },
        "required": sorted([tag, *required]),
        "additionalProperties": True,
    }


def _union(names: dict[str, str], tag: str, description: str) -> dict[str, Any]:
    """``oneOf`` the components ``names`` (by their tag's value), with the explicit mapping."""
    mapping = {value: SCHEMAS + n for value, n in names.items()}
    return {
        "oneOf": [ref(n) for n in names.values()],
        "discriminator": {"propertyName": tag, "mapping": mapping},
        "description": description,
    }


def _result(type_id: str, derived: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(derived)
    out["properties"] = {**out.get("properties", {}), **RESIGNED_RESULT}
    out["description"] = f"The result of an {type_id} game (docs/rules/{type_id}.md)"
    return out


def options_schema(type_id: str) -> dict[str, Any]:
    """A game type's rule options (GET /v1/game-types): every name, typed, none required (a
    game keeps the options it was created with)."""
    return {
        "type": "object",
        "description": f"The rule options of an {type_id} game (GET /v1/game-types)",
        "properties": game_types()[type_id]["options"],
        "additionalProperties": True,
    }


def _merged_options() -> dict[str, Any]:
    """Every game type's options in one object: what GameCreate takes (its ``type`` says which
    apply) and game_created events carry."""
    props: dict[str, Any] = {}
    for type_id in game_ids():
        for key, schema in options_schema(type_id)["properties"].items():
            told = {**schema, "description": f"{type_id}: {schema['description']}"}
            if key not in props:
                props[key] = told
                continue
            same = {k: v for k, v in schema.items() if k != "description"}
            if same != {k: v for k, v in props[key].items() if k != "description"}:
                props[key] = {}  # shapes differ between games: any JSON
            said = f"{props[key].get('description', '')} {told['description']}"
            props[key]["description"] = said.strip()
    return {
        "type": "object",
        "description": "Rule options of any game type, by name (GET /v1/game-types lists each "
        "type's); a name the game type does not have is refused (422 unknown-option)",
        "properties": props,
        "additionalProperties": True,
    }


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


def _merged(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    merged = schemas[0]
    for schema in schemas[1:]:
        merged = _merge(merged, schema)
    return merged


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


def _kind(prop: dict[str, Any]) -> str:
    if "$ref" in prop or "allOf" in prop:
        name = (prop.get("$ref") or prop["allOf"][0]["$ref"]).rsplit("/", 1)[1]
        return f"{name}{' or null' if prop.get('nullable') else ''}"
    kind = prop.get("type", "any")
    if kind == "array":
        kind = f"{prop['items'].get('type', 'any')}[]" if prop.get("items") else "array"
    return f"{kind}{' or null' if prop.get('nullable') else ''}"


def _fields(schema: dict[str, Any]) -> str:
    schema = _COMPONENT_DATA.get(schema.get("$ref", ""), schema)
    props = schema.get("properties", {})
    required = set(schema.get("required", []))
    parts = []
    for name, prop in props.items():
        optional = "" if name in required else "?"
        parts.append(f"`{name}{optional}`: {_kind(prop)}")
    return ", ".join(parts) or "(none)"


#: Event data that is a component of its own (for the table in docs/api.md).
_COMPONENT_DATA = {SCHEMAS + "SealedReveal": SEALED_REVEAL}


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
                "audience": AUDIENCE,
            },
            "required": ["data", "kind"],
        }
        mapping[kind] = component
    out["OtherEvent"] = _other(
        "kind",
        list(mapping),
        "An event whose `kind` this document does not know (a newer server's): treat it as "
        "'something happened' and read the game view again",
        {"data": {"type": "object", "additionalProperties": True}},
        audience=AUDIENCE,
    )
    out["KnownGameEvent"] = _union(
        mapping, "kind", "An event of a kind this document names (docs/api.md, Events)"
    )
    out["GameEvent"] = {
        "oneOf": [ref("KnownGameEvent"), ref("OtherEvent")],
        "description": "Something that happened in a game, named by its `kind`: a kind this "
        "document names, or another (a newer server's)",
    }
    return out


# -- what the marshmallow schemas say loosely -------------------------------------------------


def _requests(schemas: dict[str, Any]) -> None:
    """``ActionRequest``: exactly one of its alternatives, each requiring its one field.
    ``GameCreate.options``: the options of every game type."""
    request = schemas.pop("ActionRequest")
    props = request["properties"]
    notation = {k: v for k, v in props["notation"].items() if k != "description"}
    in_order = {**props["actions"], "items": {"oneOf": [notation, ref("Action")]}}
    alternatives = {
        "ActionByNotation": ("notation", props["notation"], "A move in the game's notation"),
        "ActionByObject": ("action", ref("Action"), "A move as an action object"),
        "ActionsInOrder": (
            "actions",
            in_order,
            "Several moves (notations or action objects) applied in order as one atomic change",
        ),
    }
    for name, (key, schema, description) in alternatives.items():
        schemas[name] = {
            "type": "object",
            "description": description,
            "properties": {key: schema, "expected_version": props["expected_version"]},
            "required": [key],
            "additionalProperties": False,
        }
    schemas["ActionRequest"] = {
        "oneOf": [ref(name) for name in alternatives],
        "description": "Exactly one of its alternatives, told apart by the field each requires "
        "(`notation`, `action` or `actions`); more alternatives may join them (docs/api.md)",
    }
    create = schemas["GameCreate"]["properties"]
    create["options"] = {**ref("GameOptions")}
    # A tournament's games' options (service/domain/tournaments.py): the same as one game's.
    for name in ("TournamentCreate", "TournamentSummary", "Tournament"):
        schemas[name]["properties"]["options"] = {**ref("GameOptions")}
    schemas["FinishedGame"]["properties"]["result"] = ref("GameResult")


def _stream_payloads(schemas: dict[str, Any]) -> None:
    """The ``data`` of the two streams' SSE events (text/event-stream, which a document cannot
    type): named here so that generated clients have their classes (examples/streams.py)."""
    schemas["InboxChange"] = {
        "type": "object",
        "description": "`event: inbox` of GET /v1/me/stream: one of your games moved",
        "properties": {
            "game_id": _STR,
            "game_type": _STR,
            "version": _INT,
            "status": {"type": "string", "description": "open, active or finished"},
            "your_decision": nullable_ref("InboxItem", "What you owe there now (null: nothing)"),
        },
        "required": ["game_id", "game_type", "status", "version", "your_decision"],
        "additionalProperties": False,
    }
    message = copy.deepcopy(schemas["Message"])
    message["properties"]["game_id"] = _STR
    message["required"] = sorted({*message["required"], "game_id"})
    schemas["StreamedMessage"] = {
        **message,
        "description": "`event: message` of GET /v1/me/stream: a message you may see",
    }
    schemas["StreamEnd"] = {
        "type": "object",
        "description": "`event: end` of GET /v1/games/{game_id}/stream: nothing more will come",
        "properties": {
            "status": {"type": "string", "description": "finished, or gone (archived)"},
            "version": _INT,
        },
        "required": ["status", "version"],
        "additionalProperties": False,
    }
    # `event: entry` of the game stream is a LogEntry, as GET .../events lists it.


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
    schemas = _plain_nullable_refs(document["components"]["schemas"])
    document["components"]["schemas"] = schemas
    loose = ("GameView", "LegalActions", "LegalAction", "GameRecord", "ActionResult")
    base = {name: schemas.pop(name) for name in loose} | {"Decision": schemas["Decision"]}
    schemas.pop("GameEvent", None)
    schemas.update(game_schemas(base))
    _requests(schemas)
    _stream_payloads(schemas)
    _responses(document)
    return document


class ContractSpec(apispec.APISpec):
    """apispec's document, finished by ``finish`` whenever it is built (served or written)."""

    def to_dict(self) -> dict[str, Any]:
        return finish(copy.deepcopy(super().to_dict()))  # apispec hands out its own dicts


def install(spec: apispec.APISpec) -> None:
    """Make the Api's spec a ContractSpec (flask-smorest builds the APISpec itself)."""
    spec.__class__ = ContractSpec
