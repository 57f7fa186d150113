"""Fewer mails: the notices one seat gets within a short window go out as one mail.

A resolved conflict tells a player of the reveal, the scoring and their turn within a second;
a lively table sends several messages a minute. Each mail notice (a move notice of
workers/notify.py ``notify`` or a message's ``notify_message``) is put in the seat's bag, a
Redis stream on the queue Redis, and a job is owed for the end of the current window
(``KURIER_MAIL_BATCH_SECONDS``, default 20; 0 sends every notice at once, as before). That
job (``workers.notify.send_mailbag``) sends everything in the bag as one mail, sent once (the
ledger is keyed by the last notice it holds), then deletes what it sent. Webhooks are not
batched: a client wants them at once.

Notices of one game only: a mail answers one game (its reply address is that seat's).

A player's digest and quiet hours (service/domain/prefs.py ``held_until``) hold notices longer: they
wait in the same bag for a job owed at the digest hour or the end of the quiet hours, even
with no window. A notice that asks the player to decide, in a game with a deadline, is never
held past ``latest_for_deadline`` (docs/email.md, "Fewer mails"): its job is owed for then,
and takes the whole bag with it.

A player at the game's table (service/domain/presence.py) gets no mail of it: their notices
wait in the bag for a job owed when their mark expires, which asks again then (still there:
it waits on; gone: the bag goes out). Notices made while the page was visible are marked seen
(``at_table``) and are left out then, except those that still ask the player to act.
"""

from __future__ import annotations

import json
import math
import os
import time
from typing import Any

from service.domain import prefs
from service.domain.notifications import ASKING
from service.store import Store, owed
from service.store.keys import mailbag_key
from service.store.queues import MAILBAG_JOB, mailbag_job_id
from service.store.record import as_text

#: (entry id, notice): a game's news ``{"kind", "version", "data"}`` or a message's
#: ``{"kind", "message_id"}`` (workers/notify.py).
Bag = list[tuple[str, dict[str, Any]]]
MESSAGE_ID = "message_id"

DEFAULT_WINDOW = 20.0
#: A bag left unsent (all its jobs failed) is dropped after this long.
BAG_TTL = 7 * 86_400  # more than a day: a digest waits up to one


def window() -> float:
    """Seconds a notice may wait for others (the environment can set 0: no batching)."""
    text = os.environ.get("KURIER_MAIL_BATCH_SECONDS", "")
    try:
        return max(float(text), 0.0) if text else DEFAULT_WINDOW
    except ValueError:
        return DEFAULT_WINDOW


def latest_for_deadline(deadline_at: float, settings: dict[str, Any], now: float) -> float:
    """The latest time a "decide now" notice may go out in a game whose deadline is
    ``deadline_at``: the game's reminder time (deadline - ``remind_before_hours``); in a game
    without reminders, once a quarter of the time left has passed (the player is told with at
    least three quarters of it still to go). Never before ``now``: a reminder itself is never
    held."""
    before = float(settings.get("remind_before_hours") or 0) * 3600
    if not before:
        before = 0.75 * (deadline_at - now)
    return max(now, deadline_at - before)


def send_time(
    raw: dict[str, Any],
    now: float,
    asking: bool = False,
    deadline_at: float | None = None,
    settings: dict[str, Any] | None = None,
) -> float | None:
    """When a mail notice made ``now`` should go out if the player holds it (digest, quiet
    hours), else None (the usual window). A notice that asks for a decision before a deadline
    goes out no later than ``latest_for_deadline``."""
    held = prefs.held_until(raw, now)
    if held is None:
        return None
    if asking and deadline_at is not None:
        held = min(held, latest_for_deadline(deadline_at, settings or {}, now))
    # Within the window (or at once): the usual path sends it as soon.
    return held if held > now + window() else None


def put(
    store: Store, game_id: str, seat: int, notice: dict[str, Any], at: float | None = None
) -> str:
    """Add ``notice`` to the seat's bag and owe the job that empties it at the window's end,
    or at ``at`` (a held notice: ``send_time``).

    Windows are fixed slices of time, so every notice of a slice names the same job; a job
    owed twice is the same job, scheduled once. Held notices name their job by its second:
    the notices a player's quiet hours or digest hold share one."""
    key = mailbag_key(game_id, seat)
    with store.queue_r.pipeline(transaction=True) as pipe:
        pipe.xadd(key, {"notice": json.dumps(notice, separators=(",", ":"))})
        pipe.expire(key, BAG_TTL)
        entry_id, _ = pipe.execute()
    if at is not None:
        job = mailbag_job(game_id, seat, f"at{math.ceil(at)}", math.ceil(at))
    else:
        length = window()
        if length:
            slot = int(time.time() // length)
            job = mailbag_job(game_id, seat, str(slot), (slot + 1) * length)
        else:  # no window: a job of its own, now
            job = mailbag_job(game_id, seat, f"n{time.time_ns()}", None)
    owed.owe_now(store.queue_raw, job)
    return as_text(entry_id)


def wait_until(store: Store, game_id: str, seat: int, at: float) -> None:
    """Owe the job that sends the seat's bag at ``at`` (its player is at the table until
    then: service/domain/presence.py). Named by its second, as a held bag's job."""
    owed.owe_now(store.queue_raw, mailbag_job(game_id, seat, f"at{math.ceil(at)}", math.ceil(at)))


def mailbag_job(game_id: str, seat: int, slot: str, at: float | None) -> owed.OwedJob:
    return owed.notice_job(
        mailbag_job_id(game_id, seat, slot),
        MAILBAG_JOB,
        (game_id, seat),
        f"the mail notices to seat {seat} of game {game_id}",
        at=at,
    )


def contents(store: Store, game_id: str, seat: int) -> Bag:
    """The notices waiting, in the order they arrived: (entry id, notice)."""
    # redis-py's hints allow None for the reply and an entry's fields; XRANGE sends neither.
    entries = store.queue_r.xrange(mailbag_key(game_id, seat), "-", "+", count=500) or []
    return [
        (as_text(i), json.loads(fields["notice"])) for i, fields in entries if fields is not None
    ]


def in_order(bag: Bag) -> Bag:
    """``bag`` in the order things happened. The worker runs jobs side by side, so two
    notices may reach the bag in the other order: a table's messages written a moment apart,
    the news of two versions. Messages go in the order they were written (their stream ids),
    the game's news in the order of its versions, within one version what is asked after
    what happened; each of the two keeps the places it has in the bag."""
    messages = sorted(
        (item for item in bag if MESSAGE_ID in item[1]),
        key=lambda item: _stream_order(item[1][MESSAGE_ID]),
    )
    news = sorted(
        (item for item in bag if MESSAGE_ID not in item[1]),
        key=lambda item: (int(item[1]["version"]), item[1]["kind"] in ASKING),
    )
    return [(messages if MESSAGE_ID in notice else news).pop(0) for _entry, notice in bag]


def _stream_order(stream_id: str) -> tuple[int, ...]:
    return tuple(int(part) for part in stream_id.split("-"))


def remove(store: Store, game_id: str, seat: int, entry_ids: list[str]) -> None:
    """Forget notices once their mail is sent (a rerun then finds nothing to send)."""
    if entry_ids:
        store.queue_r.xdel(mailbag_key(game_id, seat), *entry_ids)
