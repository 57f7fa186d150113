"""The API's index: where to start."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields


class IndexLinks(ma.Schema):
    docs = fields.String(required=True, metadata={"description": "Interactive API docs"})
    openapi = fields.String(required=True, metadata={"description": "This OpenAPI document"})
    game_types = fields.String(required=True, metadata={"description": "The games served"})
    health = fields.String(required=True, metadata={"description": "Redis and workers up"})


class Index(ma.Schema):
    title = fields.String(required=True)
    version = fields.String(required=True, metadata={"description": "API version"})
    links = fields.Nested(IndexLinks, required=True)
