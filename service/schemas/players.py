"""Players, tokens and the caller's inbox."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.prefs import CHANNELS, EVENT_TYPES
from service.schemas.common import Decision

NAME = validate.Length(min=1, max=40)


class PlayerCreate(ma.Schema):
    name = fields.String(required=True, validate=NAME)
    email = fields.Email(allow_none=True, validate=validate.Length(max=254))


class PlayerPatch(ma.Schema):
    name = fields.String(validate=NAME)
    email = fields.Email(allow_none=True, validate=validate.Length(max=254))
    webhook_url = fields.String(
        allow_none=True,
        validate=validate.Length(min=1, max=500),
        metadata={"description": "https URL; a private/loopback/link-local one is refused (422)"},
    )
    notify = fields.Dict(
        keys=fields.String(validate=validate.OneOf(EVENT_TYPES)),
        values=fields.List(fields.String(validate=validate.OneOf(CHANNELS))),
        metadata={"description": "Event type -> channels (email, webhook); absent type: both"},
    )
    timezone = fields.String(
        validate=validate.Length(min=1, max=64),
        metadata={
            "description": "IANA name for times in emails, e.g. Europe/Berlin; an unknown "
            "name is refused with 422 invalid-timezone"
        },
    )
    vacation_until = fields.AwareDateTime(
        allow_none=True,
        metadata={"description": "Pauses your deadlines until then (within the game's limit)"},
    )


class Player(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    email = fields.String(allow_none=True, metadata={"description": "Shown to its owner only"})
    created_at = fields.Float(required=True, metadata={"description": "Unix time"})


class Me(Player):
    """The caller with its notification preferences (the webhook secret is never shown)."""

    webhook_url = fields.String(allow_none=True)
    webhook_enabled = fields.Boolean(required=True)
    webhook_disabled_reason = fields.String(allow_none=True)
    has_webhook_secret = fields.Boolean(required=True)
    webhook_secret = fields.String(
        metadata={"description": "Only when this request created the first secret (shown once)"}
    )
    notify = fields.Dict(keys=fields.String(), values=fields.List(fields.String()), required=True)
    timezone = fields.String(required=True)
    vacation_until = fields.Float(allow_none=True, metadata={"description": "Unix time"})


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
