"""A player's API tokens."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields

from service.http.schemas.common import plain_text


class TokenCreate(ma.Schema):
    name = plain_text(max_length=60, required=True, metadata={"description": "e.g. my bot"})


class Token(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    created_at = fields.Float(required=True)


class TokenCreated(Token):
    token = fields.String(required=True, metadata={"description": "Shown once: keep it"})


class TokenList(ma.Schema):
    items = fields.List(fields.Nested(Token), required=True)
