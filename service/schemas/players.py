"""Players, tokens and the caller's inbox."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.schemas.common import Decision

NAME = validate.Length(min=1, max=40)


class PlayerCreate(ma.Schema):
    name = fields.String(required=True, validate=NAME)
    email = fields.Email(allow_none=True, validate=validate.Length(max=254))


class PlayerPatch(ma.Schema):
    name = fields.String(validate=NAME)
    email = fields.Email(allow_none=True, validate=validate.Length(max=254))


class Player(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    email = fields.String(allow_none=True, metadata={"description": "Shown to its owner only"})
    created_at = fields.Float(required=True, metadata={"description": "Unix time"})


class PlayerCreated(Player):
    token = fields.String(
        required=True,
        metadata={"description": "Bearer token (kur_pat_…), shown this once; only a hash is kept"},
    )


class InboxItem(Decision):
    game_id = fields.String(required=True)
    game_type = fields.String(required=True)
    version = fields.Integer(required=True)
    waiting_since = fields.Float(required=True, metadata={"description": "Unix time"})


class Inbox(ma.Schema):
    items = fields.List(fields.Nested(InboxItem), required=True)
