"""The committed OpenAPI document matches the code, and the docs are served offline."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from flask import Flask

from engine.registry import game_ids
from service.cli import openapi_text
from service.http.schemas.contract import camel

COMMITTED = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"


def test_committed_openapi_matches_the_code() -> None:
    assert COMMITTED.read_text() == openapi_text(), (
        "openapi/openapi.json is stale: run `make openapi` (kurier openapi --output ...)"
    )


def test_served_spec_and_docs(app: Flask) -> None:
    client = app.test_client()
    served = client.get("/v1/openapi.json")
    assert served.status_code == 200
    assert served.json == json.loads(COMMITTED.read_text())
    spec = served.json
    assert spec["openapi"] == "3.0.3"
    for path in (
        "/v1",
        "/v1/players",
        "/v1/me",
        "/v1/me/inbox",
        "/v1/game-types",
        "/v1/games",
        "/v1/games/{game_id}",
        "/v1/games/{game_id}/seats",
        "/v1/games/{game_id}/start",
        "/v1/games/{game_id}/legal-actions",
        "/v1/games/{game_id}/actions",
        "/v1/games/{game_id}/events",
        "/v1/games/{game_id}/record",
        "/healthz",
    ):
        assert path in spec["paths"], path
    assert "application/problem+json" in spec["components"]["responses"]["DEFAULT_ERROR"]["content"]
    docs = client.get("/docs/")
    assert docs.status_code == 200 and b"swagger-ui" in docs.data
    assert b"/v1/openapi.json" in docs.data
    bundle = client.get("/docs/swagger-ui-bundle.js")
    assert bundle.status_code == 200 and len(bundle.data) > 100_000
    bundle.close()


def test_the_document_shows_no_rst_markup() -> None:
    """View docstrings become summaries and descriptions, rendered as Markdown by /docs."""
    assert "``" not in COMMITTED.read_text()


def test_v1_is_an_index_of_links_that_answer(app: Flask) -> None:
    client = app.test_client()
    index = client.get("/v1")
    assert index.status_code == 200
    assert index.json["version"] == "1"
    for name, path in index.json["links"].items():
        answer = client.get(path)
        assert answer.status_code in ((200, 503) if name == "health" else (200,)), path
        answer.close()


def test_every_operation_has_a_stable_snake_case_operation_id() -> None:
    """Issue 14: generated clients name their functions after operationId (without one:
    `post_v1_games_game_id_actions`). Each is set on its view, once, in snake_case."""
    document = json.loads(COMMITTED.read_text())
    ids = [
        operation.get("operationId")
        for item in document["paths"].values()
        for method, operation in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]
    assert all(isinstance(i, str) and re.fullmatch(r"[a-z][a-z0-9_]*", i) for i in ids), ids
    assert len(set(ids)) == len(ids), ids


def _operations(document: dict[str, object]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]


def test_the_document_declares_headers_limits_and_optional_security() -> None:
    """Issue 14: what generated clients need beyond the bodies."""
    document = json.loads(COMMITTED.read_text())
    shared = document["components"]["responses"]
    for path, operation in _operations(document):
        for status, answer in operation["responses"].items():
            answer = shared[answer["$ref"].rsplit("/", 1)[1]] if "$ref" in answer else answer
            assert "X-Request-ID" in answer["headers"], (path, status)
        if path != "/healthz":  # not rate limited
            assert "429" in operation["responses"], path
    assert "Retry-After" in shared["TOO_MANY_REQUESTS"]["headers"]
    assert "Retry-After" in shared["SERVICE_UNAVAILABLE"]["headers"]
    assert "503" in document["paths"]["/v1/games/{game_id}/actions"]["post"]["responses"]
    spectators = ["", "/events", "/record", "/messages"]
    for suffix in spectators:
        operation = document["paths"]["/v1/games/{game_id}" + suffix]["get"]
        assert {} in operation["security"], suffix
    game = document["paths"]["/v1/games/{game_id}"]["get"]["responses"]["200"]
    assert "ETag" in game["headers"]
    play = document["paths"]["/v1/games/{game_id}/actions"]["post"]["responses"]["200"]
    assert "Idempotent-Replayed" in play["headers"]


def test_the_document_types_game_parts() -> None:
    """Issue 37: per-game schemas whole (no allOf narrowing a loose parent's field), unions
    with explicit mappings and a fallback, exactly one of notation / action."""
    schemas = json.loads(COMMITTED.read_text())["components"]["schemas"]
    ref = "#/components/schemas/"
    for union in ("GameView", "LegalActions", "GameRecord"):
        assert schemas[union]["discriminator"] == {
            "propertyName": "type",
            "mapping": {t: f"{ref}{camel(t)}{union}" for t in game_ids()},
        }
        for type_id in game_ids():
            own = schemas[camel(type_id) + union]
            assert "allOf" not in own and own["properties"]["type"]["enum"] == [type_id]
            assert "type" in own["required"]
    view = schemas["AttilaGameView"]["properties"]
    assert view["view"]["allOf"] == [{"$ref": ref + "AttilaView"}]
    assert view["your_decision"]["allOf"] == [{"$ref": ref + "AttilaDecision"}]
    assert view["result"]["allOf"] == [{"$ref": ref + "AttilaResult"}]
    assert view["options"] == {"$ref": ref + "AttilaOptions"}
    legal = schemas["AttilaLegalActions"]["properties"]["actions"]["items"]
    assert schemas[legal["$ref"].rsplit("/", 1)[1]]["properties"]["action"] == {
        "$ref": ref + "AttilaAction"
    }
    # Known kinds in a discriminated union, any other one in the fallback beside it.
    for union, known, tag, fallback in (
        ("GameEvent", "KnownGameEvent", "kind", "OtherEvent"),
        ("AttilaAction", "AttilaKnownAction", "type", "AttilaOtherAction"),
    ):
        mapping = schemas[known]["discriminator"]["mapping"]
        assert schemas[known]["discriminator"]["propertyName"] == tag
        assert sorted(schemas[known]["oneOf"], key=str) == sorted(
            ({"$ref": target} for target in mapping.values()), key=str
        )
        assert schemas[union]["oneOf"] == [{"$ref": ref + known}, {"$ref": ref + fallback}]
        assert sorted(schemas[fallback]["properties"][tag]["not"]["enum"]) == sorted(mapping)
    request = schemas["ActionRequest"]
    alternatives = {"ActionByNotation": "notation", "ActionByObject": "action"}
    alternatives["ActionsInOrder"] = "actions"
    assert "not" not in request
    assert request["oneOf"] == [{"$ref": ref + name} for name in alternatives]
    for name, key in alternatives.items():  # each requires its one field, and has no other's
        assert schemas[name]["required"] == [key]
        assert not set(alternatives.values()) - {key} & set(schemas[name]["properties"])
        assert schemas[name]["additionalProperties"] is False
    assert schemas["GameCreate"]["properties"]["type"]["enum"] == list(game_ids())


#: Components no operation refers to, on purpose: the streams' SSE payloads (a text/event-stream
#: body has no schema; examples/streams.py parses them) and flask-smorest's own pagination
#: schema, which it always adds.
UNREFERENCED = {"InboxChange", "StreamedMessage", "StreamEnd", "PaginationMetadata"}


def test_every_schema_is_reached_from_an_operation() -> None:
    """Issue 37: the per-game views and decisions were classes no operation returned (an
    allOf narrowing a loose parent field, dropped by generators)."""
    document = json.loads(COMMITTED.read_text())
    schemas = document["components"]["schemas"]
    reached: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            target = node.get("$ref", "")
            if target.startswith("#/components/schemas/"):
                name = target.rsplit("/", 1)[1]
                if name not in reached:
                    reached.add(name)
                    walk(schemas[name])
            for value in node.values():
                walk(value)

    walk(document["paths"])
    walk(document["components"]["responses"])
    assert set(schemas) - reached == UNREFERENCED


#: Properties that are any JSON on purpose: an option's default (a string, a number, a map…),
#: the fallback event's data (a kind this document does not know) and a problem's field errors.
ANY_JSON = {("GameOption", "default"), ("OtherEvent", "data"), ("Problem", "errors")}


def test_no_property_is_an_untyped_object() -> None:
    """Issue 37: views, results, options, deadlines and reveals were `dict[str, Any]` in
    generated clients although the document could say what they are."""
    schemas = json.loads(COMMITTED.read_text())["components"]["schemas"]
    loose = set()
    for name, schema in schemas.items():
        for key, prop in schema.get("properties", {}).items():
            untyped = prop.get("type") == "object" and not prop.get("properties")
            if prop == {} or (untyped and prop.get("additionalProperties") in ({}, True, None)):
                loose.add((name, key))
    assert loose == ANY_JSON
