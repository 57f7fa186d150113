"""Messages at a game's table (service/domain/messages.py)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.domain import inputs
from service.domain.messages import MAX_TEXT, PAGE
from service.http.schemas.common import Cursor, QueryInteger, strict_integer, text_field

#: Line breaks are allowed in a message; other control characters are not.
MESSAGE_TEXT_PATTERN = inputs.MESSAGE.pattern
#: A Redis stream id. Each part is 64 bits there: 20 digits could pass 2**64 (Redis then refuses
#: the id, which was a 500); 19 always fit, and real ids have 13 and 1.
MESSAGE_ID_PATTERN = r"^[0-9]{1,19}-[0-9]{1,19}$"


class MessagePost(ma.Schema):
    text = text_field(
        inputs.MESSAGE,
        required=True,
        metadata={
            "description": f"Plain text, 1-{MAX_TEXT} characters; shown as written (escaped)"
        },
    )
    to_seat = strict_integer(
        allow_none=True,
        load_default=None,
        validate=validate.Range(*inputs.SEAT_NUMBERS),
        metadata={"description": "A seat for a private message; absent or null: the table"},
    )


class Message(ma.Schema):
    id = fields.String(required=True, metadata={"description": "Also the paging cursor"})
    from_seat = fields.Integer(required=True)
    to_seat = fields.Integer(allow_none=True, metadata={"description": "null: to the table"})
    text = fields.String(
        allow_none=True, metadata={"description": "null when hidden (except for its sender)"}
    )
    hidden = fields.Boolean(
        required=True, metadata={"description": "hidden by the creator or a moderator"}
    )
    at = fields.Float(required=True, metadata={"description": "Unix time it was posted"})


class MessagesQuery(ma.Schema):
    after = Cursor(
        MESSAGE_ID_PATTERN,
        "a message id such as 1732400000000-0",
        load_default=None,
        metadata={"description": "next_cursor of the previous page"},
    )
    limit = QueryInteger(load_default=PAGE, validate=validate.Range(min=1, max=PAGE))


class MessagePage(ma.Schema):
    items = fields.List(fields.Nested(Message), required=True)
    next_cursor = fields.String(allow_none=True, required=True)
