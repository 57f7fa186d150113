"""Notification jobs: email and webhooks to one player, deadlines and reminders.

Every job is idempotent. A notification re-reads the game and skips what went stale (a "your
turn" for a turn already played); an email is sent once per notification (a ``SET NX`` ledger
keyed like its Message-ID); a webhook delivery exists once (``HSETNX``) and each attempt runs
only if the delivery's attempt count says it is the next one. Deadlines re-check the version
they were scheduled for, so a deadline of an older version does nothing.
"""

from __future__ import annotations

import json
import logging
import os
import random
import secrets
import time
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from rq import Queue, RateLimit
from rq.serializers import JSONSerializer

from engine.core import SYSTEM
from service import config, games, metrics, notifications, prefs
from service.pictures import text_summary
from service.store import GameRecord, Store, player_key
from workers import mail, webhooks
from workers.shared import shared_store

log = logging.getLogger("kurier.notify")
MAIL_LEDGER_TTL = 30 * 86_400
#: Seconds between webhook attempts: now, then these (about an hour in all), then disable.
DEFAULT_RETRY_SCHEDULE = (5.0, 30.0, 120.0, 300.0, 900.0, 1800.0)
MAX_RETRY_AFTER = 6 * 3600.0
WEBHOOK_JOB = "workers.notify.deliver_webhook"
#: Seconds a webhook job may run beyond its attempt's cap (reading Redis, scheduling a retry).
WEBHOOK_JOB_MARGIN = 30
LEGAL_MOVES_SHOWN = 300


def public_url() -> str:
    return config.public_url(os.environ)


def retry_schedule() -> tuple[float, ...]:
    text = os.environ.get("KURIER_WEBHOOK_RETRY_SCHEDULE", "")
    if not text:
        return DEFAULT_RETRY_SCHEDULE
    return tuple(float(part) for part in text.split(",") if part.strip())


def _queue(store: Store, name: str) -> Queue:
    return Queue(name, connection=store.raw, serializer=JSONSerializer)


# -- one notification to one seat ---------------------------------------------------------------

#: What the subject says is asked or happened.
SUBJECTS = {
    "game.started": "the game has started",
    "game.turn_started": "your turn",
    "game.sealed_needed": "your sealed choice is needed",
    "game.conflict_resolved": "a conflict was resolved",
    "game.scored": "scoring",
    "game.deadline_warning": "your deadline is near",
    "game.timeout_applied": "your deadline passed",
    "game.ended": "the game is over",
}
#: Types that ask the seat to act: stale once the seat no longer owes that decision.
ASKING = ("game.turn_started", "game.sealed_needed", "game.deadline_warning")


def notify(game_id: str, version: int, kind: str, seat: int, data: dict[str, Any]) -> str:
    """Email and/or webhook for one notice, per the player's preferences."""
    store = shared_store()
    record = store.get_game(game_id)
    if kind in ASKING and not _still_owed(record, seat, data):
        return "stale"
    player_id = record.seats[seat]
    raw = store.r.hgetall(player_key(player_id))
    channels = prefs.channels_for(raw, kind)
    key = notifications.notify_job_id(game_id, version, kind, seat)
    if "email" in channels:
        _send_mail_once(store, key, _game_mail(store, record, version, kind, seat, data, raw))
    if "webhook" in channels:
        payload = {
            "type": kind,
            "timestamp": datetime.now(UTC).isoformat(),
            "data": {
                "game_id": game_id,
                "game_type": record.type,
                "version": version,
                "seat": seat,
                "link": f"{public_url()}/v1/games/{game_id}",
            },
        }
        start_delivery(store, player_id, f"msg_{key.removeprefix('n-')}", payload, game_id)
    return ",".join(channels) or "no-channel"


def _still_owed(record: GameRecord, seat: int, data: dict[str, Any]) -> bool:
    if record.status != "active":
        return False
    return any(
        d["seat"] == seat and d["step"] == data.get("step") and d.get("ref", "") == data.get("ref")
        for d in record.pending
    )


def _send_mail_once(store: Store, key: str, message: mail.Mail) -> None:
    ledger = f"kurier:mailed:{key}"
    if not store.r.set(ledger, "1", nx=True, ex=MAIL_LEDGER_TTL):
        return  # sent by an earlier run of this job
    try:
        where = mail.deliver(mail.compose(message, time.time()))
    except Exception:
        store.r.delete(ledger)  # not sent: let rq's retry send it
        metrics.record_email_delivery(store.r, "retry")
        raise
    metrics.record_email_delivery(store.r, "delivered")
    log.info("mail %s to %s delivered to %s", message.message_id, message.to, where)


def _game_mail(
    store: Store,
    record: GameRecord,
    version: int,
    kind: str,
    seat: int,
    data: dict[str, Any],
    raw: dict[str, str],
) -> mail.Mail:
    game = record.game
    state = game.load(record.state) if record.state is not None else None
    view = game.view(state, seat) if state is not None else None
    base = f"{public_url()}/v1/games/{record.id}"
    lines = [f"Hello {raw.get('name', '')},", "", _headline(kind, data, record, raw), ""]
    if view is not None:
        lines.append(text_summary(record.type, view).rstrip())
    legal = games.legal_actions(record, seat)["actions"] if kind in ASKING else []
    if legal:
        lines += ["", "Your legal moves (send one as notation):"]
        lines += [f"  {a['notation']}" for a in legal[:LEGAL_MOVES_SHOWN]]
        if len(legal) > LEGAL_MOVES_SHOWN:
            lines.append(f"  … and {len(legal) - LEGAL_MOVES_SHOWN} more (see legal-actions)")
    domain = mail.mail_domain()
    return mail.Mail(
        to=raw["email"],
        to_name=raw.get("name", ""),
        subject=f"{game.title} game {record.id}: {_subject(kind, data)}",
        text="\n".join(lines),
        links=(
            ("Board picture", f"{base}/board.svg"),
            ("Game (API)", base),
            ("Your legal moves (API)", f"{base}/legal-actions"),
        ),
        thread_id=mail.thread_id(record.id),
        message_id=f"<{notifications.notify_job_id(record.id, version, kind, seat)}@{domain}>",
        reply_to=reply_address(record, seat, version),
        # The version the view and legal moves show (public, like the API's ETag).
        extra_headers={"X-Kurier-Version": str(record.version)},
    )


def reply_address(record: GameRecord, seat: int, version: int) -> str:
    """The per-player signed Reply-To (play+<game>.<seat>.<nonce>.<expiry>.<kid>.<mac>@…):
    a reply to it plays by email (workers/mailin.py)."""
    from workers import mailin  # mailin imports this module

    return mailin.issue_address(shared_store(), record, seat)


def _subject(kind: str, data: dict[str, Any]) -> str:
    text = SUBJECTS.get(kind, kind)
    if kind == "game.scored" and data.get("scoring"):
        text = f"{data['scoring']} scoring"
    if kind in ("game.turn_started", "game.sealed_needed") and data.get("step"):
        text += f" ({data['step'].replace('_', ' ')})"
    return text


def _headline(kind: str, data: dict[str, Any], record: GameRecord, raw: dict[str, str]) -> str:
    due = ""
    if record.deadline_at and kind in ASKING:
        due = f" Decide before {_local(record.deadline_at, raw.get('timezone') or 'UTC')}."
    if kind == "game.conflict_resolved":
        cards = "; ".join(
            f"seat {s}: {' '.join(c) or 'nothing'}" for s, c in data.get("cards", {}).items()
        )
        removed = ", ".join(data.get("removed", [])) or "nobody"
        return (
            f"The conflict in {data.get('province')} was resolved. Revealed cards: {cards}. "
            f"Removed: {removed}."
        )
    if kind == "game.scored":
        return f"{str(data.get('scoring', '')).capitalize()} scoring. Scores: {data.get('scores')}."
    if kind == "game.timeout_applied":
        what = data.get("action") or ("a pass" if data.get("decision") == "sealed" else "no move")
        return f"Your deadline for {data.get('step')} passed; the server played {what}."
    if kind == "game.ended":
        return "The game is over."
    return SUBJECTS.get(kind, kind).capitalize() + "." + due


def _local(when: float, zone: str) -> str:
    try:
        tz = ZoneInfo(zone)
    except (KeyError, ValueError):
        tz = ZoneInfo("UTC")
    return datetime.fromtimestamp(when, tz).strftime("%Y-%m-%d %H:%M %Z")


# -- webhooks -----------------------------------------------------------------------------------


def start_delivery(
    store: Store, player_id: str, delivery_id: str, payload: dict[str, Any], game_id: str = ""
) -> None:
    """Record a delivery once and enqueue its first attempt (one job per event and endpoint)."""
    body = json.dumps(payload, separators=(",", ":"))
    fields = {
        "type": payload["type"],
        "body": body,
        "game_id": game_id,
        "status": "pending",
        "attempts": 0,
    }
    prefs.record_delivery(store, player_id, delivery_id, fields)
    current = prefs.get_delivery(store, player_id, delivery_id)
    if current.get("status") == "pending" and current.get("attempts") == "0":
        _queue(store, notifications.WEBHOOK_QUEUE).enqueue(
            WEBHOOK_JOB, **_attempt_job(store, player_id, delivery_id, 1)
        )


def send_test(store: Store, player_id: str) -> str:
    delivery_id = "msg_test_" + secrets.token_hex(8)
    payload = {
        "type": "webhook.test",
        "timestamp": datetime.now(UTC).isoformat(),
        "data": {"player_id": player_id, "link": f"{public_url()}/v1/me"},
    }
    start_delivery(store, player_id, delivery_id, payload)
    return delivery_id


def deliver_webhook(player_id: str, delivery_id: str, attempt: int) -> str:
    """Attempt ``attempt`` of one delivery; schedules the next attempt on failure."""
    store = shared_store()
    delivery = prefs.get_delivery(store, player_id, delivery_id)
    if delivery.get("status") != "pending" or int(delivery.get("attempts") or 0) != attempt - 1:
        return "stale"
    raw = store.r.hgetall(player_key(player_id))
    if not raw.get("webhook_url") or raw.get("webhook_disabled"):
        prefs.update_delivery(store, player_id, delivery_id, status="cancelled")
        return "cancelled"
    result = webhooks.post(
        raw["webhook_url"], raw.get("webhook_secret", ""), delivery_id, delivery["body"]
    )
    state = {"attempts": attempt, "last_status": result.status, "last_error": result.error}
    if result.ok:
        prefs.update_delivery(store, player_id, delivery_id, status="delivered", **state)
        metrics.record_webhook_delivery(store.r, "delivered")
        return "delivered"
    schedule = retry_schedule()
    if result.gone or attempt > len(schedule):
        prefs.update_delivery(store, player_id, delivery_id, status="failed", **state)
        metrics.record_webhook_delivery(store.r, "failed")
        why = "the receiver answered 410 Gone" if result.gone else f"{attempt} attempts failed"
        disable_webhook(store, player_id, f"{why} (last: {result.error})")
        return "failed"
    metrics.record_webhook_delivery(store.r, "retry")
    delay = schedule[attempt - 1] * random.uniform(1.0, 1.1)  # jitter spreads a burst
    if result.retry_after is not None:
        delay = max(delay, min(result.retry_after, MAX_RETRY_AFTER))
    prefs.update_delivery(
        store,
        player_id,
        delivery_id,
        status="pending",
        next_attempt_at=time.time() + delay,
        **state,
    )
    _queue(store, notifications.WEBHOOK_QUEUE).enqueue_in(
        timedelta(seconds=delay),
        WEBHOOK_JOB,
        **_attempt_job(store, player_id, delivery_id, attempt + 1),
    )
    return "retrying"


def _attempt_job(store: Store, player_id: str, delivery_id: str, attempt: int) -> dict[str, Any]:
    """rq options of one attempt's job: on the webhook queue, at most one attempt in flight per
    receiver (RateLimit), so one slow receiver ties up one webhook worker, never all of them."""
    url = store.r.hget(player_key(player_id), "webhook_url") or ""
    return {
        "args": (player_id, delivery_id, attempt),
        "job_id": f"wh-{delivery_id}-{attempt}",
        # The attempt's own cap ends it first; rq's timeout is the backstop.
        "job_timeout": webhooks.attempt_timeout() + WEBHOOK_JOB_MARGIN,
        "result_ttl": 600,
        "rate_limit": RateLimit(webhooks.receiver_key(url), concurrency=1),
    }


def disable_webhook(store: Store, player_id: str, reason: str) -> None:
    """Stop deliveries to a failing endpoint and tell its owner by email (once)."""
    key = player_key(player_id)
    if store.r.hget(key, "webhook_disabled"):
        return
    store.r.hset(key, "webhook_disabled", reason)
    metrics.record_webhook_delivery(store.r, "disabled")
    raw = store.r.hgetall(key)
    log.warning("webhook of %s disabled: %s", player_id, reason)
    if raw.get("email"):
        text = (
            f"Hello {raw.get('name', '')},\n\nKurier stopped sending webhooks to "
            f"{raw.get('webhook_url')}: {reason}.\n\nSet the URL again with PATCH /v1/me to "
            "re-enable it; GET /v1/me/webhook-deliveries shows what failed."
        )
        message = mail.Mail(
            to=raw["email"],
            to_name=raw.get("name", ""),
            subject="Kurier: your webhook was disabled",
            text=text,
            message_id=f"<webhook-disabled-{player_id}-{int(time.time())}@{mail.mail_domain()}>",
        )
        _send_mail_once(store, f"disabled-{player_id}-{int(time.time())}", message)


# -- deadlines ----------------------------------------------------------------------------------


def deadline(game_id: str, version: int, due: float, first_due: float | None = None) -> str:
    """The deadline of ``version`` fell due: time out every pending player not on vacation."""
    store = shared_store()
    record = store.get_game(game_id)
    if record.version != version or record.status != "active":
        return "stale"  # someone moved: that version's deadline was replaced
    first_due = first_due or due
    settings = record.deadline
    limit = first_due + float(settings.get("vacation_max_days", 14)) * 86_400
    now = time.time()
    away: list[float] = []
    owed = [d for d in record.pending if d["seat"] != SYSTEM]
    for decision in owed:
        raw = store.r.hgetall(player_key(record.seats[decision["seat"]]))
        until = prefs.on_vacation(raw, now)
        if until is not None and now < limit:
            away.append(until)
    if away:
        # Vacation pauses the clock: the full deadline again after the vacation, within the limit.
        new_due = min(max(away) + float(settings["hours"]) * 3600, limit)
        _queue(store, notifications.DEADLINE_QUEUE).enqueue_at(
            notifications.run_at(new_due),
            notifications.DEADLINE_JOB,
            args=(game_id, version, new_due, first_due),
            job_id=f"{notifications.deadline_job_id(game_id, version)}-{int(new_due)}",
            job_timeout=120,
        )
        return "postponed"
    results = [games.apply_timeout(store, game_id, d["seat"], d) for d in owed]
    return ",".join(results)


def remind(game_id: str, version: int, due: float) -> str:
    """Warn the pending players that their deadline is near (if nobody moved since)."""
    store = shared_store()
    record = store.get_game(game_id)
    if record.version != version or record.status != "active":
        return "stale"
    sent = 0
    for decision in record.pending:
        if decision["seat"] == SYSTEM:
            continue
        data = {"step": decision["step"], "ref": decision.get("ref", ""), "due": due}
        notify(game_id, version, "game.deadline_warning", decision["seat"], data)
        sent += 1
    return f"reminded {sent}"
