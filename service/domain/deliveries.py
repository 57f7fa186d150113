"""Webhook deliveries: recording one and enqueueing its attempts.

A delivery is recorded once per (event, receiver) under the player (service/domain/prefs.py) and its
attempts are rq jobs on the webhook queue, made by ``workers.notify.deliver_webhook``, at most
one in flight per receiver (rq's RateLimit), so a slow receiver ties up one webhook worker,
never all of them. The API (a test delivery) and the notify job both start deliveries here.
"""

from __future__ import annotations

import json
import os
import secrets
from datetime import UTC, datetime
from typing import Any

from service.common import webhook_urls
from service.common.numbers import is_ascii_digits
from service.domain import prefs
from service.store import Store, owed, queues
from service.store.keys import player_key
from service.store.owed import OwedJob

#: Seconds one attempt may take in all (KURIER_WEBHOOK_TIMEOUT), and the range allowed.
DEFAULT_ATTEMPT_TIMEOUT = 10
ATTEMPT_TIMEOUT_RANGE = (1, 60)
#: Seconds a webhook job may run beyond its attempt's cap (reading Redis, scheduling a retry).
WEBHOOK_JOB_MARGIN = 30


def attempt_timeout() -> int:
    """The wall-clock cap on one attempt; a bad value falls back to the default (and
    ``kurier config check`` reports it)."""
    text = os.environ.get("KURIER_WEBHOOK_TIMEOUT", "").strip()
    low, high = ATTEMPT_TIMEOUT_RANGE
    if is_ascii_digits(text) and low <= int(text) <= high:
        return int(text)
    return DEFAULT_ATTEMPT_TIMEOUT


def attempt_job(
    store: Store, player_id: str, delivery_id: str, attempt: int, at: float | None = None
) -> OwedJob:
    """One attempt's job: on the webhook queue, at most one attempt in flight per receiver
    (rq's RateLimit), so one slow receiver ties up one webhook worker, never all of them. It is
    owed (service/store/owed.py): an attempt a dying worker took is swept back."""
    url = store.r.hget(player_key(player_id), "webhook_url") or ""
    return OwedJob(
        id=f"wh-{delivery_id}-{attempt}",
        func=queues.WEBHOOK_JOB,
        args=(player_id, delivery_id, attempt),
        queue=queues.WEBHOOK_QUEUE,
        # The attempt's own cap ends it first; rq's timeout is the backstop.
        timeout=attempt_timeout() + WEBHOOK_JOB_MARGIN,
        result_ttl=600,
        at=at,
        rate_limit=webhook_urls.receiver_key(url),
    )


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
        owed.owe_now(store.queue_raw, attempt_job(store, player_id, delivery_id, 1))


def send_test(store: Store, player_id: str, public_url: str) -> str:
    """A ``webhook.test`` event to the player's webhook, linking to ``public_url``'s /v1/me
    (the site's address, from its settings: service/ops/config.py ``public_url``)."""
    delivery_id = "msg_test_" + secrets.token_hex(8)
    payload = {
        "type": "webhook.test",
        "timestamp": datetime.now(UTC).isoformat(),
        "data": {"player_id": player_id, "link": f"{public_url}/v1/me"},
    }
    start_delivery(store, player_id, delivery_id, payload)
    return delivery_id
