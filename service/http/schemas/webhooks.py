"""Webhooks: the signing secret, test deliveries and the delivery log."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.http.schemas.common import QueryInteger


class WebhookSecret(ma.Schema):
    webhook_secret = fields.String(
        required=True,
        metadata={"description": "whsec_… (Standard Webhooks); shown this once, keep it"},
    )


class WebhookTest(ma.Schema):
    delivery_id = fields.String(required=True, metadata={"description": "The webhook-id sent"})


class DeliveriesQuery(ma.Schema):
    limit = QueryInteger(load_default=50, validate=validate.Range(min=1, max=200))


class Delivery(ma.Schema):
    id = fields.String(required=True, metadata={"description": "webhook-id, stable on retries"})
    type = fields.String(required=True)
    game_id = fields.String(allow_none=True)
    status = fields.String(
        required=True, metadata={"description": "pending, delivered, failed or cancelled"}
    )
    attempts = fields.Integer(required=True)
    last_status = fields.Integer(allow_none=True, metadata={"description": "HTTP status"})
    last_error = fields.String(allow_none=True)
    created_at = fields.Float(required=True)
    updated_at = fields.Float(required=True)


class Deliveries(ma.Schema):
    items = fields.List(fields.Nested(Delivery), required=True)
