"""The game-type catalogue and the health check."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields


class GameOption(ma.Schema):
    name = fields.String(required=True)
    default = fields.Raw(required=True)
    choices = fields.List(fields.Raw(), required=True)
    description = fields.String(required=True)


class GameType(ma.Schema):
    id = fields.String(required=True)
    title = fields.String(required=True)
    min_players = fields.Integer(required=True)
    max_players = fields.Integer(required=True)
    rules_version = fields.String(required=True)
    options = fields.List(fields.Nested(GameOption), required=True)


class GameTypes(ma.Schema):
    items = fields.List(fields.Nested(GameType), required=True)


class Health(ma.Schema):
    status = fields.String(
        required=True,
        metadata={
            "description": "ok; degraded (200): no webhook worker alive, deliveries wait; "
            "unavailable (503): Redis unreachable, no game worker alive, or the game store "
            "went back in time (store, store_problem): games stop"
        },
    )
    redis = fields.Boolean(required=True)
    game_workers = fields.Integer(
        required=True,
        metadata={"description": "workers serving game jobs with a live heartbeat (none: 503)"},
    )
    webhook_workers = fields.Integer(
        required=True,
        metadata={"description": "workers delivering webhooks with a live heartbeat"},
    )
    store = fields.String(
        required=True,
        metadata={
            "description": "ok, or rolled-back: the game store lost data (a Redis restarted "
            "without persistence, or from an old snapshot) and every write is refused 503 "
            "store-rolled-back until an operator restores a backup and runs "
            "`kurier store accept` (503)"
        },
    )
    store_problem = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "what went wrong with the store and when (null: nothing)"},
    )
