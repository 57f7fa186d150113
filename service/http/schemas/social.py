"""Blocks, private notes, reports and moderation (service/domain/blocks.py, notes.py,
moderation.py)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.domain import inputs, moderation, notes
from service.http.schemas.common import Cursor, QueryInteger, patterned, ruled, text_field
from service.http.schemas.messages import MESSAGE_ID_PATTERN

#: A player's, a game's or a report's id as the service makes them.
ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
AUDIT_ID_PATTERN = MESSAGE_ID_PATTERN


def _note_text(value: str) -> None:
    if value:
        inputs.NOTE.content(value)


class BlockedPlayer(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)


class BlockedPlayers(ma.Schema):
    items = fields.List(
        fields.Nested(BlockedPlayer), required=True, metadata={"description": "By name"}
    )


class GameNotePut(ma.Schema):
    text = fields.String(
        required=True,
        validate=[validate.Length(max=notes.MAX_TEXT), ruled(_note_text)],
        metadata={
            "description": f"Plain text, at most {notes.MAX_TEXT} characters (line breaks "
            "allowed, other control characters not); empty clears the note"
        },
    )


class GameNote(ma.Schema):
    game_id = fields.String(required=True)
    text = fields.String(required=True, metadata={"description": "Empty: no note"})
    updated_at = fields.Float(
        required=True, allow_none=True, metadata={"description": "Unix time; null: no note"}
    )


class PlayerReportPost(ma.Schema):
    kind = fields.String(required=True, validate=validate.OneOf(moderation.REPORT_KINDS))
    reason = text_field(
        inputs.REASON,
        required=True,
        metadata={"description": f"Why, 1-{inputs.REASON.max_length} characters"},
    )
    game_id = patterned(
        ID_PATTERN, "a game id", load_default=None, metadata={"description": "kind message"}
    )
    message_id = patterned(
        MESSAGE_ID_PATTERN,
        "a message id such as 1732400000000-0",
        load_default=None,
        metadata={"description": "kind message: a message the caller can see"},
    )
    player_id = patterned(
        ID_PATTERN, "a player id", load_default=None, metadata={"description": "kind player"}
    )


class PlayerReport(ma.Schema):
    id = fields.String(required=True, metadata={"description": "The same for the same report"})
    kind = fields.String(required=True, validate=validate.OneOf(moderation.REPORT_KINDS))
    player_id = fields.String(required=True, metadata={"description": "The player reported"})
    game_id = fields.String(allow_none=True, required=True)
    message_id = fields.String(allow_none=True, required=True)
    reason = fields.String(required=True)
    at = fields.Float(required=True, metadata={"description": "Unix time it was made"})
    status = fields.String(required=True, validate=validate.OneOf(("open", "closed")))


class ModerationWarning(ma.Schema):
    reason = fields.String(required=True)
    at = fields.Float(required=True)


class Warnings(ma.Schema):
    items = fields.List(
        fields.Nested(ModerationWarning), required=True, metadata={"description": "Newest"}
    )


class ContextMessage(ma.Schema):
    id = fields.String(required=True)
    from_seat = fields.Integer(required=True)
    from_name = fields.String(required=True)
    private = fields.Boolean(required=True)
    text = fields.String(required=True)
    at = fields.Float(required=True)
    reported = fields.Boolean(required=True)


class ModerationQueueItem(PlayerReport):
    reporter_name = fields.String(required=True)
    player_name = fields.String(required=True)
    private = fields.Boolean(required=True, metadata={"description": "A reported private message"})
    context = fields.List(
        fields.Nested(ContextMessage),
        required=True,
        metadata={
            "description": "A reported table message and the table messages around it; a "
            "reported private message alone; empty for a player's report"
        },
    )


class ModerationQueueQuery(ma.Schema):
    limit = QueryInteger(
        load_default=moderation.QUEUE, validate=validate.Range(min=1, max=moderation.QUEUE)
    )
    after = Cursor(
        ID_PATTERN,
        "a report id",
        load_default=None,
        metadata={"description": "next_cursor of the previous page"},
    )


class ModerationQueue(ma.Schema):
    items = fields.List(
        fields.Nested(ModerationQueueItem),
        required=True,
        metadata={"description": "Oldest first, at most `limit`"},
    )
    next_cursor = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "The last item's id: `after` for the next page; null: the end"},
    )


class ModerationActionPost(ma.Schema):
    action = fields.String(required=True, validate=validate.OneOf(moderation.ACTIONS))
    reason = text_field(inputs.REASON, required=True)
    report_id = patterned(
        ID_PATTERN,
        "a report id",
        load_default=None,
        metadata={"description": "The report this action settles (closed by it)"},
    )
    player_id = patterned(
        ID_PATTERN,
        "a player id",
        load_default=None,
        metadata={"description": "warn, suspend, reinstate without a report"},
    )


class ModerationAuditEntry(ma.Schema):
    id = fields.String(required=True, metadata={"description": "Also the paging cursor"})
    action = fields.String(required=True, validate=validate.OneOf(moderation.ACTIONS))
    reason = fields.String(required=True)
    moderator_id = fields.String(required=True)
    moderator_name = fields.String(required=True)
    player_id = fields.String(allow_none=True, required=True)
    report_id = fields.String(allow_none=True, required=True)
    game_id = fields.String(allow_none=True, required=True)
    message_id = fields.String(allow_none=True, required=True)
    at = fields.Float(required=True)


class ModerationAuditQuery(ma.Schema):
    before = Cursor(
        AUDIT_ID_PATTERN,
        "an audit entry id",
        load_default=None,
        metadata={"description": "next_cursor of the previous page"},
    )


class ModerationAuditPage(ma.Schema):
    items = fields.List(
        fields.Nested(ModerationAuditEntry), required=True, metadata={"description": "Newest"}
    )
    next_cursor = fields.String(allow_none=True, required=True)
