"""Validate JSON against schemas of the committed OpenAPI document (OpenAPI 3.0 schemas turned
into JSON Schema: ``nullable`` becomes a ``null`` type), with jsonschema_rs."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

DOCUMENT = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"
_SCHEMA_LISTS = ("allOf", "oneOf", "anyOf")


def to_json_schema(schema: Any) -> Any:
    """One OpenAPI 3.0 schema object as JSON Schema (draft 7)."""
    if not isinstance(schema, dict):
        return schema
    out = {k: v for k, v in schema.items() if k not in ("nullable", "discriminator")}
    if "properties" in out:
        out["properties"] = {k: to_json_schema(v) for k, v in out["properties"].items()}
    for key in ("items", "additionalProperties", "not"):
        if isinstance(out.get(key), dict):
            out[key] = to_json_schema(out[key])
    for key in _SCHEMA_LISTS:
        if key in out:
            out[key] = [to_json_schema(s) for s in out[key]]
    if not schema.get("nullable"):
        return out
    if "type" in out and not any(k in out for k in ("$ref", *_SCHEMA_LISTS)):
        out["type"] = [out["type"], "null"]
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        return out
    return {"anyOf": [{"type": "null"}, out]}


@cache
def document() -> dict[str, Any]:
    return json.loads(DOCUMENT.read_text())


@cache
def _definitions() -> dict[str, Any]:
    schemas = document()["components"]["schemas"]
    return {"components": {"schemas": {k: to_json_schema(v) for k, v in schemas.items()}}}


def validator(schema: dict[str, Any]) -> Any:
    """A validator of ``schema`` (which may ``$ref`` the document's components)."""
    return jsonschema_rs.Draft7Validator({**_definitions(), **to_json_schema(schema)})


@cache
def component(name: str) -> Any:
    return validator({"$ref": f"#/components/schemas/{name}"})


def errors(check: Any, value: Any) -> list[str]:
    """What is wrong with ``value`` (empty: it validates), at most three messages."""
    return [f"{e.instance_path}: {e.message}"[:300] for e in check.iter_errors(value)][:3]
