"""A player's API tokens."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields

from service.domain import inputs
from service.http.schemas.common import text_field


class TokenCreate(ma.Schema):
    name = text_field(inputs.TOKEN_NAME, required=True, metadata={"description": "e.g. my bot"})


class Token(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    created_at = fields.Float(required=True)


class TokenCreated(Token):
    token = fields.String(required=True, metadata={"description": "Shown once: keep it"})


class TokenList(ma.Schema):
    items = fields.List(fields.Nested(Token), required=True)
