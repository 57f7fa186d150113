"""Schemas shared by several resources."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate


class Decision(ma.Schema):
    """Who must act and how: ``move`` (open), ``sealed`` (stored unseen) or ``resolve`` (server)."""

    seat = fields.Integer(required=True, metadata={"description": "-1 is the server (SYSTEM)"})
    kind = fields.String(required=True, validate=validate.OneOf(["move", "sealed", "resolve"]))
    step = fields.String(required=True, metadata={"description": "Game step, e.g. play_card"})
    ref = fields.String(metadata={"description": "Sealed step id, e.g. conflict-3"})


class GameEvent(ma.Schema):
    kind = fields.String(required=True)
    data = fields.Dict(required=True)
    audience = fields.List(
        fields.Integer(), metadata={"description": "Seats that see it; absent = everyone"}
    )


class Seat(ma.Schema):
    seat = fields.Integer(required=True)
    player_id = fields.String(required=True)
    name = fields.String(required=True)
