"""A player's notification preferences and webhook delivery log.

Preferences live in the player hash ``kurier:player:{p}`` beside name and email:

- ``webhook_url``, ``webhook_secret`` (``whsec_…``, never shown again after it is issued),
  ``webhook_disabled`` (why deliveries stopped, "" while enabled);
- ``notify``: JSON, event type -> channels (``email``, ``webhook``); a missing type means both;
- ``timezone`` (IANA name, for the times in emails, and the leave budget's year),
  ``vacation_until`` (Unix time, "" if none; leave has fields of its own:
  service/domain/leave.py);
- fewer mails: ``digest`` (``off`` or ``daily``) and ``digest_hour`` (local hour, 0-23), and
  ``quiet_start``/``quiet_end`` (local ``HH:MM``, both "" if none): mail notices wait in the
  seat's mailbag (service/domain/mailbag.py) until ``held_until`` says; webhooks never wait.
- ``mail_at_table`` ("1": mail me anyway; missing or "": a player at the game's table,
  service/domain/presence.py, gets that game's mail notices only once they have left).
- ``language`` (``en`` or ``de``, service/common/i18n.py: mails, pictures, mail-in answers, pages;
  missing: English).
- ``confirm_moves`` (the web table, static/board/): ``always`` (missing: a complete staged
  move waits for Confirm, as correspondence players expect: a slip costs days), ``never`` (sent
  at once), ``auto`` (confirm on touch or narrow screens only, where a tap is easily a slip).

Deliveries: ``kurier:player:{p}:deliveries`` sorted set (id -> created time, newest kept) and
``kurier:player:{p}:delivery:<id>`` hash (type, body, status, attempts, last status and error).
"""

from __future__ import annotations

import base64
import json
import os
import re
import secrets
import time
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from service.common import i18n, webhook_urls
from service.common.problems import Problem
from service.domain import accounts, inputs
from service.store import Store
from service.store.keys import player_key

CHANNELS = ("email", "webhook")
#: Every notification type (webhook ``type`` and the ``notify`` preference keys).
EVENT_TYPES = (
    "game.invited",
    "game.seats_filled",
    "game.started",
    "game.turn_started",
    "game.sealed_needed",
    "game.conflict_resolved",
    "game.scored",
    "game.deadline_warning",
    "game.timeout_applied",
    "game.ended",
    "game.message",
    "game.opponent_on_leave",
    "tournament.round_started",
)
WEBHOOK_SECRET_PREFIX = "whsec_"
WEBHOOK_URL_LENGTH = 500
DELIVERY_KEEP = 200
DELIVERY_TTL = 14 * 86_400
DIGESTS = ("off", "daily")
#: The web table's "confirm moves" choices (``auto``: on phones, the default).
CONFIRM_MOVES = ("always", "never", "auto")
DEFAULT_DIGEST_HOUR = 8
#: A local time of day, 00:00-23:59.
CLOCK = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")
#: What ``apply`` changes (PATCH /v1/me's fields).
PATCHABLE = frozenset(
    {
        "name",
        "email",
        "webhook_url",
        "notify",
        "timezone",
        "vacation_until",
        "digest",
        "digest_hour",
        "quiet_hours",
        "language",
        "confirm_moves",
        "mail_at_table",
    }
)


def deliveries_key(player_id: str) -> str:
    return f"{player_key(player_id)}:deliveries"


def delivery_key(player_id: str, delivery_id: str) -> str:
    return f"{player_key(player_id)}:delivery:{delivery_id}"


def read(store: Store, player_id: str) -> dict[str, Any]:
    """The preferences as the API shows them to their owner (never the secret)."""
    return from_hash(store.r.hgetall(player_key(player_id)))


def from_hash(raw: dict[str, Any]) -> dict[str, Any]:
    """The preferences from the player hash already read."""
    vacation = raw.get("vacation_until") or ""
    return {
        "email": raw.get("email") or None,
        "webhook_url": raw.get("webhook_url") or None,
        "webhook_enabled": bool(raw.get("webhook_url")) and not raw.get("webhook_disabled"),
        "webhook_disabled_reason": raw.get("webhook_disabled") or None,
        "has_webhook_secret": bool(raw.get("webhook_secret")),
        "notify": channels_by_type(raw),
        "timezone": raw.get("timezone") or "UTC",
        "vacation_until": float(vacation) if vacation else None,
        "digest": raw.get("digest") or "off",
        "digest_hour": int(raw.get("digest_hour") or DEFAULT_DIGEST_HOUR),
        "quiet_hours": quiet_hours(raw),
        "language": i18n.language(raw.get("language")),
        "confirm_moves": raw.get("confirm_moves") or "always",
        "mail_at_table": bool(raw.get("mail_at_table")),
    }


def quiet_hours(raw: dict[str, Any]) -> dict[str, str] | None:
    start, end = raw.get("quiet_start") or "", raw.get("quiet_end") or ""
    return {"start": start, "end": end} if start and end else None


def zone(raw: dict[str, Any]) -> ZoneInfo:
    try:
        return ZoneInfo(raw.get("timezone") or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def held_until(raw: dict[str, Any], now: float) -> float | None:
    """When a mail notice made ``now`` may go out, if the player's digest or quiet hours hold
    it (None: at once). A digest goes out at the next ``digest_hour`` (local); quiet hours
    hold a notice until they end; a digest hour inside quiet hours waits for their end too.
    Deadlines are not this function's business (service/domain/mailbag.py ``send_time``)."""
    tz = zone(raw)
    local = datetime.fromtimestamp(now, tz)
    when: datetime | None = None
    if raw.get("digest") == "daily":
        hour = int(raw.get("digest_hour") or DEFAULT_DIGEST_HOUR)
        when = _next_clock(local, hour, 0)
    quiet = quiet_hours(raw)
    if quiet is not None:
        at = when or local
        if _inside(at, quiet["start"], quiet["end"]):
            end_h, end_m = (int(part) for part in quiet["end"].split(":"))
            when = _next_clock(at, end_h, end_m)
    return when.timestamp() if when is not None else None


def _minutes(clock: str) -> int:
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


def _inside(local: datetime, start: str, end: str) -> bool:
    """Whether the local time of day is in [start, end), which may wrap past midnight."""
    now, a, b = local.hour * 60 + local.minute, _minutes(start), _minutes(end)
    return a <= now < b if a < b else now >= a or now < b


def _next_clock(local: datetime, hour: int, minute: int) -> datetime:
    """The first local ``hour:minute`` after ``local`` (same zone). A day is added on the
    calendar, not as 24 h, so a change to or from summer time keeps the local hour."""
    candidate = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if candidate <= local:
        day = (local + timedelta(days=1)).date()
        candidate = datetime(day.year, day.month, day.day, hour, minute, tzinfo=local.tzinfo)
    return candidate


def language_of(store: Store, player_id: str) -> str:
    """The player's ``language`` preference ("" if never chosen: the caller picks)."""
    value = store.r.hget(player_key(player_id), "language")
    return value if value in i18n.LANGUAGES else ""


def confirm_moves(store: Store, player_id: str) -> str:
    """The player's ``confirm_moves`` (``always`` if never chosen): the game page's one read."""
    value = store.r.hget(player_key(player_id), "confirm_moves")
    return value if value in CONFIRM_MOVES else "always"


def channels_by_type(raw: dict[str, Any]) -> dict[str, list[str]]:
    chosen = json.loads(raw.get("notify") or "{}")
    return {kind: list(chosen.get(kind, CHANNELS)) for kind in EVENT_TYPES}


def channels_for(raw: dict[str, Any], kind: str) -> list[str]:
    """The channels that would carry ``kind`` to this player now (configured and wanted)."""
    wanted = channels_by_type(raw).get(kind, list(CHANNELS))
    out = []
    if "email" in wanted and raw.get("email"):
        out.append("email")
    if "webhook" in wanted and raw.get("webhook_url") and not raw.get("webhook_disabled"):
        out.append("webhook")
    return out


def vacation_allowed(environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``vacation_until`` (a date, outside the leave budget) may still be set:
    ``KURIER_VACATION_WITHOUT_BUDGET`` (default 1; 0: only ``null`` is taken, and leave,
    service/domain/leave.py, is the way to be away)."""
    env = os.environ if environ is None else environ
    return env.get("KURIER_VACATION_WITHOUT_BUDGET", "1").strip() != "0"


def on_vacation(raw: dict[str, Any], now: float) -> float | None:
    """When the player's time away ends, if they are away at ``now``, else None: the one
    answer every clock asks (deadlines, time banks). Away is a running leave
    (service/domain/leave.py: ``leave_from`` to ``leave_until``) or a ``vacation_until`` still
    ahead; both at once: the later end."""
    ends = [float(raw.get("vacation_until") or 0)]
    if float(raw.get("leave_from") or 0) <= now:
        ends.append(float(raw.get("leave_until") or 0))
    until = max(ends)
    return until if until > now else None


def record_delivery(store: Store, player_id: str, delivery_id: str, fields: dict[str, Any]) -> bool:
    """Create a delivery once (False if it already exists: a job that ran twice)."""
    key = delivery_key(player_id, delivery_id)
    if not store.write(lambda pipe: pipe.hsetnx(key, "id", delivery_id))[0]:
        return False
    now = time.time()
    values = {k: str(v) for k, v in fields.items()}

    def recorded(pipe: Any) -> None:  # one slot (the player's); in order, each step harmless
        pipe.hset(key, mapping={**values, "created_at": repr(now), "updated_at": repr(now)})
        pipe.expire(key, DELIVERY_TTL)
        pipe.zadd(deliveries_key(player_id), {delivery_id: now})
        # Keep the newest DELIVERY_KEEP; older hashes expire on their own.
        pipe.zremrangebyrank(deliveries_key(player_id), 0, -DELIVERY_KEEP - 1)

    store.write(recorded)
    return True


def update_delivery(store: Store, player_id: str, delivery_id: str, **fields: Any) -> None:
    values = {k: "" if v is None else str(v) for k, v in fields.items()}
    values["updated_at"] = repr(time.time())
    store.write(lambda pipe: pipe.hset(delivery_key(player_id, delivery_id), mapping=values))


def get_delivery(store: Store, player_id: str, delivery_id: str) -> dict[str, str]:
    delivery: dict[str, str] = store.r.hgetall(delivery_key(player_id, delivery_id))
    return delivery


def list_deliveries(store: Store, player_id: str, limit: int) -> list[dict[str, Any]]:
    ids = store.r.zrevrange(deliveries_key(player_id), 0, limit - 1)
    with store.r.pipeline(transaction=False) as pipe:
        for delivery_id in ids:
            pipe.hgetall(delivery_key(player_id, delivery_id))
        rows = pipe.execute()
    out = []
    for row in rows:
        if not row:
            continue  # expired
        out.append(
            {
                "id": row["id"],
                "type": row.get("type", ""),
                "game_id": row.get("game_id") or None,
                "status": row.get("status", "pending"),
                "attempts": int(row.get("attempts") or 0),
                "last_status": int(row["last_status"]) if row.get("last_status") else None,
                "last_error": row.get("last_error") or None,
                "created_at": float(row["created_at"]),
                "updated_at": float(row["updated_at"]),
            }
        )
    return out


def new_webhook_secret() -> str:
    """A Standard Webhooks signing secret: ``whsec_`` and 24 random bytes in base64."""
    return WEBHOOK_SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def apply(store: Store, player_id: str, data: Mapping[str, Any]) -> str | None:
    """Store what ``data`` (PATCH /v1/me, the settings page) changes; returns a webhook secret
    issued by it (shown once). Every value is checked here by service/domain/inputs.py's rules,
    the ones the API's schema is made of, so the settings page refuses what the API refuses;
    a ``Problem`` (422, naming the field) is raised before anything is stored."""
    changes = _checked(data)
    if changes.get("email"):
        accounts.check_email_room(store, changes["email"], player_id)
    issued = None
    if "webhook_url" in data:
        url = data["webhook_url"]
        if url:
            try:
                # Before storing anything (nothing changes on error); stores the normal form.
                url = webhook_urls.check(url)
            except webhook_urls.UnsafeWebhookURL as error:
                raise Problem(
                    422, "webhook-url-refused", str(error), field="webhook_url", webhook_url=url
                ) from None
        changes["webhook_url"] = url
        changes["webhook_disabled"] = ""  # setting the URL again re-enables deliveries
        if url and not read(store, player_id)["has_webhook_secret"]:
            issued = changes["webhook_secret"] = new_webhook_secret()
    store.players.update(player_id, changes)
    return issued


def _checked(data: Mapping[str, Any]) -> dict[str, Any]:
    """The hash fields ``data`` sets, each value checked (all but the webhook's address,
    which ``apply`` resolves last)."""
    unknown = sorted(set(data) - PATCHABLE)
    if unknown:
        raise inputs.problem(unknown[0], inputs.Refused("Unknown field."))
    changes: dict[str, Any] = {}
    if "name" in data:
        changes["name"] = inputs.checked("name", inputs.NAME.check, data["name"])
    if "email" in data:
        given = data["email"]
        changes["email"] = None if given is None else inputs.checked("email", inputs.email, given)
    for field, allowed in (("language", i18n.LANGUAGES), ("confirm_moves", CONFIRM_MOVES)):
        if field in data:
            changes[field] = _one_of(field, data[field], allowed)
    if "timezone" in data:
        # Checked here, after authentication, not in the schema: a caller without a token
        # must get 401 whatever the body holds.
        changes["timezone"] = inputs.checked("timezone", inputs.timezone, data["timezone"])
    url = data.get("webhook_url")
    if url is not None and (not isinstance(url, str) or not 1 <= len(url) <= WEBHOOK_URL_LENGTH):
        raise inputs.problem(
            "webhook_url", inputs.Refused(f"Length must be between 1 and {WEBHOOK_URL_LENGTH}.")
        )
    if "notify" in data:
        changes["notify"] = json.dumps(_notify(data["notify"]))
    changes.update(_fewer_mails(data))
    if "mail_at_table" in data:
        if not isinstance(data["mail_at_table"], bool):
            raise inputs.problem("mail_at_table", inputs.Refused("Not a valid boolean."))
        changes["mail_at_table"] = "1" if data["mail_at_table"] else ""
    if "vacation_until" in data:
        until = data["vacation_until"]
        if until is not None:
            until = inputs.checked("vacation_until", inputs.moment, until)
            if not vacation_allowed():
                raise Problem(
                    409,
                    "vacation-needs-leave",
                    "vacation_until is off on this server: take leave instead (POST /v1/me/leave)",
                    field="vacation_until",
                )
        changes["vacation_until"] = repr(until.timestamp()) if until else ""
    return changes


def _notify(chosen: Any) -> dict[str, list[str]]:
    """Event type -> channels: known types, known channels."""
    if not isinstance(chosen, Mapping) or not all(
        kind in EVENT_TYPES
        and isinstance(channels, list)
        and all(isinstance(c, str) and c in CHANNELS for c in channels)
        for kind, channels in chosen.items()
    ):
        raise inputs.problem(
            "notify",
            inputs.Refused(
                f"event types ({', '.join(EVENT_TYPES)}) to lists of {' and '.join(CHANNELS)}"
            ),
        )
    return {kind: list(channels) for kind, channels in chosen.items()}


def _fewer_mails(data: Mapping[str, Any]) -> dict[str, str]:
    """The digest and quiet hours of ``data`` as hash fields, checked (the API's schema checks
    them too; the settings page reaches ``apply`` without it)."""
    changes = {}
    if "digest" in data:
        if data["digest"] not in DIGESTS:
            raise Problem(422, "invalid-digest", "digest is off or daily", field="digest")
        changes["digest"] = data["digest"]
    if "digest_hour" in data:
        hour = data["digest_hour"]
        if isinstance(hour, bool) or not isinstance(hour, int) or not 0 <= hour <= 23:
            raise Problem(
                422, "invalid-digest-hour", "digest_hour is a whole hour 0-23", field="digest_hour"
            )
        changes["digest_hour"] = str(hour)
    if "quiet_hours" in data:
        quiet = data["quiet_hours"]
        if quiet is None:
            return {**changes, "quiet_start": "", "quiet_end": ""}
        start, end = (
            quiet.get(k) if isinstance(quiet, Mapping) else None for k in ("start", "end")
        )
        if not all(isinstance(v, str) and CLOCK.fullmatch(v) for v in (start, end)) or start == end:
            raise Problem(
                422,
                "invalid-quiet-hours",
                'quiet_hours is {"start": "HH:MM", "end": "HH:MM"}, two different local times '
                "(they may span midnight), or null",
                field="quiet_hours",
            )
        changes.update(quiet_start=start, quiet_end=end)
    return changes


def _one_of(field: str, value: Any, allowed: Sequence[str]) -> str:
    """``value`` if it is one of ``allowed``; else 422 ``invalid-<field>`` naming the choices."""
    if value not in allowed:
        raise Problem(
            422,
            f"invalid-{field.replace('_', '-')}",
            f"{field} is one of {', '.join(allowed)}",
            field=field,
        )
    chosen: str = value
    return chosen
