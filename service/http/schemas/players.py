"""Players, tokens and the caller's inbox."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from service.common.i18n import LANGUAGES
from service.domain import inputs
from service.domain.leave import MAX_DAYS_PER_YEAR
from service.domain.prefs import (
    CHANNELS,
    CLOCK,
    CONFIRM_MOVES,
    DIGESTS,
    EVENT_TYPES,
    WEBHOOK_URL_LENGTH,
)
from service.http.schemas.common import (
    Decision,
    Email,
    StrictBoolean,
    patterned,
    ruled,
    strict_integer,
    text_field,
)

NAME_LENGTH = inputs.NAME.max_length
#: What service.common.webhook_urls can accept at all, for the document (it checks more:
#: port, host).
WEBHOOK_URL_PATTERN = r"^https?://[^\x00-\x20\x7f-\x9f\u2028\u2029]+$"
#: The shape of an IANA zone name (Europe/Berlin, UTC, Etc/GMT+5). The document says it; a
#: well-formed name the tz database lacks is refused by prefs.apply (422 invalid-timezone).
TIMEZONE_PATTERN = inputs.TIMEZONE_PATTERN


#: ``notify``: a known event type -> channels; an unknown type is refused (422) and the
#: document says so (additionalProperties: false).
class _Notify(ma.Schema):
    @ma.post_load
    def by_event_type(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        # Attribute names cannot hold dots (marshmallow would nest them): back to the types.
        return {self.fields[name].data_key or name: channels for name, channels in data.items()}


NotifyPreferences = _Notify.from_dict(
    {
        kind.replace(".", "_"): fields.List(
            fields.String(validate=validate.OneOf(CHANNELS)), data_key=kind
        )
        for kind in EVENT_TYPES
    },
    name="NotifyPreferences",
)


class QuietHours(ma.Schema):
    """Local times of day (the player's ``timezone``); they may span midnight."""

    start = patterned(
        CLOCK.pattern, "a local time HH:MM", required=True, metadata={"example": "22:00"}
    )
    end = patterned(
        CLOCK.pattern, "a local time HH:MM", required=True, metadata={"example": "07:00"}
    )

    @ma.validates_schema
    def not_empty(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("start") and data.get("start") == data.get("end"):
            raise ma.ValidationError("start and end differ", field_name="end")


class PlayerCreate(ma.Schema):
    name = text_field(inputs.NAME, required=True)
    email = Email(allow_none=True, validate=validate.Length(max=inputs.EMAIL_LENGTH))


class PlayerPatch(ma.Schema):
    name = text_field(inputs.NAME)
    email = Email(allow_none=True, validate=validate.Length(max=inputs.EMAIL_LENGTH))
    webhook_url = fields.String(
        allow_none=True,
        validate=validate.Length(min=1, max=WEBHOOK_URL_LENGTH),
        metadata={
            "description": "https URL; one whose host does not resolve, or resolves to a "
            "private, loopback or link-local address, is refused (422 webhook-url-refused)",
            "pattern": WEBHOOK_URL_PATTERN,
        },
    )
    notify = fields.Nested(
        NotifyPreferences,
        metadata={"description": "Event type -> channels (email, webhook); absent type: both"},
    )
    timezone = patterned(
        TIMEZONE_PATTERN,
        inputs.TIMEZONE_ERROR,
        checks=[validate.Length(min=1, max=64)],
        metadata={
            "description": "IANA name for times in emails, e.g. Europe/Berlin; an unknown "
            "name is refused with 422 invalid-timezone",
        },
    )
    vacation_until = fields.AwareDateTime(
        allow_none=True,
        validate=ruled(inputs.moment),
        metadata={
            "description": "Pauses your deadlines until then (within the game's limit); "
            f"from {inputs.FIRST_YEAR}-01-01 to {inputs.LAST_YEAR}-12-31 in UTC"
        },
    )
    digest = fields.String(
        validate=validate.OneOf(DIGESTS),
        metadata={
            "description": "daily: mail notices wait and go out once a day at "
            "digest_hour (local); off: as they come (webhooks are never held)"
        },
    )
    digest_hour = strict_integer(
        validate=validate.Range(0, 23),
        metadata={"description": "The local hour of the daily digest (default 8)"},
    )
    quiet_hours = fields.Nested(
        QuietHours,
        allow_none=True,
        metadata={
            "description": "Mail notices in these local hours wait until they end; "
            "a turn with a deadline is still told in time (docs/email.md); null: none"
        },
    )
    language = fields.String(
        validate=validate.OneOf(LANGUAGES),
        metadata={
            "description": "The language of your mails, pictures, mail-in answers and web "
            "pages (the API's titles and codes stay English)"
        },
    )
    confirm_moves = fields.String(
        validate=validate.OneOf(CONFIRM_MOVES),
        metadata={
            "description": "The web table: always wait for Confirm (the default), never (a "
            "complete move is sent at once), or auto (confirm on touch and narrow screens only)"
        },
    )
    mail_at_table = StrictBoolean(
        metadata={
            "description": "true: mail notices of a game even while you are at its table (its "
            "web page open and visible); false (the default): they wait until you have left, "
            'and what you saw there is not mailed (docs/email.md, "At the table"). '
            "Webhooks are sent either way"
        },
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
    digest = fields.String(required=True, validate=validate.OneOf(DIGESTS))
    digest_hour = fields.Integer(required=True)
    quiet_hours = fields.Nested(QuietHours, allow_none=True, required=True)
    language = fields.String(required=True, validate=validate.OneOf(LANGUAGES))
    confirm_moves = fields.String(required=True, validate=validate.OneOf(CONFIRM_MOVES))
    mail_at_table = fields.Boolean(required=True)
    leave_until = fields.Float(
        metadata={
            "description": "When your running or last leave ends (Unix time); "
            "GET /v1/me/leave tells more"
        }
    )


class LeaveRequest(ma.Schema):
    days = strict_integer(
        required=True,
        validate=validate.Range(1, MAX_DAYS_PER_YEAR),
        metadata={
            "description": "Whole days of leave from now, at least the server's `min_days` "
            "and at most the days left this year (else 422, naming `days`)"
        },
    )


class CurrentLeave(ma.Schema):
    start = fields.Float(
        required=True, data_key="from", attribute="from", metadata={"description": "Unix time"}
    )
    until = fields.Float(required=True, metadata={"description": "Unix time"})
    days = fields.Integer(required=True)


class LeaveStatus(ma.Schema):
    """The caller's leave budget (per calendar year in their time zone) and running leave."""

    year = fields.Integer(required=True, metadata={"description": "The budget's year"})
    budget_days = fields.Integer(required=True, metadata={"description": "Days a year"})
    min_days = fields.Integer(required=True, metadata={"description": "The shortest leave"})
    used_days = fields.Integer(required=True, metadata={"description": "Taken this year"})
    left_days = fields.Integer(required=True, metadata={"description": "Left this year"})
    current = fields.Nested(
        CurrentLeave,
        allow_none=True,
        required=True,
        metadata={"description": "The leave running now; null if none"},
    )


class LeaveEnded(LeaveStatus):
    returned_days = fields.Integer(
        required=True, metadata={"description": "Unused whole days given back to the budget"}
    )


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
    deadline_at = fields.Float(
        required=True,
        allow_none=True,
        metadata={
            "description": "Unix time the decision times out: when your time bank runs out in "
            "a bank game, else the game's deadline; null: no deadline"
        },
    )


class Inbox(ma.Schema):
    items = fields.List(fields.Nested(InboxItem), required=True)
