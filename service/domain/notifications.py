"""What a committed change notifies, and the deadline jobs it schedules.

``followups`` runs inside ``Store.transact`` (between the read and the commit) and returns
what records the owed jobs (service/store/owed.py) that the commit brings along: a retried commit
re-plans from its fresh read, and deterministic job ids (game, version, type, seat) mean
nothing is sent twice.

Generic rules derive "your turn" and "your sealed choice" from the pending decisions before
and after the change; game-specific event kinds map to notification types through each
game's ``notify_events`` (in its engine package), so no game's vocabulary is written here.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from typing import Any

from rq.job import Job
from rq.registry import ScheduledJobRegistry

from engine.core import SYSTEM, Event
from engine.registry import get_game
from service.domain import clocks, invites, prefs, timebanks
from service.store import Followups, Store, owed
from service.store.owed import OwedJob, notice_job
from service.store.queues import (
    DEADLINE_JOB,
    DEADLINE_QUEUE,
    NOTIFY_JOB,
    REMIND_JOB,
    deadline_job_id,
    notify_job_id,
    queue,
    remind_job_id,
)
from service.store.record import Change
from service.store.writes import Writes

#: Notice types that ask the seat to act: stale once the seat no longer owes that decision,
#: and told after the news of the same version (a mail says what happened, then what is asked).
ASKING = ("game.turn_started", "game.sealed_needed", "game.deadline_warning")
#: The creator's notice that the last seat of an open game was taken: the game can start.
SEATS_FILLED = "game.seats_filled"


@dataclass
class Notice:
    type: str
    seat: int
    data: dict[str, Any] = field(default_factory=dict)


def notices(
    game_type: str, before: list[dict[str, Any]], change: Change, seats: int
) -> list[Notice]:
    """Who must hear what about this change (only players concerned, nothing hidden)."""
    record = change.record
    out: list[Notice] = []
    if change.entry_kind == "joined" and seats_filled(record):
        out.append(Notice(SEATS_FILLED, record.seats.index(record.creator)))
    if change.entry_kind == "started":
        out += [Notice("game.started", seat) for seat in range(seats)]
    had = {d["seat"]: d for d in before}
    for decision in record.pending if record.status == "active" else []:
        seat = decision["seat"]
        if seat == SYSTEM:
            continue
        data = {"step": decision["step"], "ref": decision.get("ref", "")}
        if decision["kind"] == "move" and seat not in had:
            out.append(Notice("game.turn_started", seat, data))
        elif decision["kind"] == "sealed" and had.get(seat, {}).get("ref") != decision.get("ref"):
            out.append(Notice("game.sealed_needed", seat, data))
    # A change of several actions (``Change.earlier``) is told as a whole: its every event.
    every = [raw for step in change.earlier for raw in step.events] + change.events
    out += news(game_type, every, seats)
    if record.status == "finished" and not any(n.type == "game.ended" for n in out):
        out += [Notice("game.ended", seat, {"result": record.result}) for seat in range(seats)]
    return _dedupe(out)


def news(game_type: str, events: list[dict[str, Any]], seats: int) -> list[Notice]:
    """The notices a change's events make (a missed deadline's timeout, and each kind the
    game maps in its ``notify_events``), to the seats that may see each event."""
    out: list[Notice] = []
    mapping = get_game(game_type).notify_events
    for raw in events:
        event = Event.from_json(raw)
        if event.kind == "timeout_applied" and not event.data.get("same_turn"):
            # One notice a missed deadline: the rest of a late turn goes without one.
            out.append(Notice("game.timeout_applied", event.data["seat"], dict(event.data)))
        name = mapping.get(event.kind)
        if name is None:
            continue
        kind = f"game.{name}"
        audience = range(seats) if event.audience is None else event.audience
        out += [Notice(kind, seat, {"event": event.kind, **event.data}) for seat in audience]
    return out


def resumes_own_turn(entries: list[tuple[int, dict[str, Any]]], seat: int) -> bool:
    """Whether the newest of ``entries`` (a game's log up to one version, oldest first) hands
    ``seat`` back a turn it was in the middle of: that entry is no move (a resolution, a
    sealed choice: an interlude such as a conflict's cards) and the last move before it was
    ``seat``'s own. A "your turn" notice then is no news to the seat (workers/notify.py)."""
    if not entries or entries[-1][1].get("kind") == "move":
        return False
    for _version, entry in reversed(entries):
        if entry.get("kind") == "move":
            return str(entry.get("seat")) == str(seat)
    return False


def seats_filled(record: Any) -> bool:
    """An open game whose every seat is taken, its creator among them: it waits for its
    creator to start it (a game is never started by the join that fills it)."""
    return (
        record.status == "open"
        and len(record.seats) == record.max_seats
        and record.creator in record.seats
    )


def _dedupe(found: list[Notice]) -> list[Notice]:
    seen: set[tuple[str, int]] = set()
    out = []
    for notice in found:
        if (notice.type, notice.seat) not in seen:
            seen.add((notice.type, notice.seat))
            out.append(notice)
    return out


def planner(store: Store) -> Followups:
    """What ``Store.transact`` calls to plan a change's jobs (see ``followups``)."""
    return functools.partial(followups, store)


def followups(store: Store, before: list[dict[str, Any]], change: Change, version: int) -> Any:
    """Plan the notification and deadline jobs of a change; set ``record.deadline_at``.

    Returns a callable that records them in the commit's ``Writes`` (service/store/writes.py).
    """
    record = change.record
    found = notices(record.type, before, change, len(record.seats))
    wanted = _wanted(store, record.seats, found)
    jobs = [
        notice_job(
            notify_job_id(record.id, version, n.type, n.seat),
            NOTIFY_JOB,
            (record.id, version, n.type, n.seat, n.data),
            f"{n.type} to seat {n.seat} of game {record.id}",
        )
        for n in wanted
    ]
    # A new game's invited players hold no seat yet: told by a job per player, owed here so
    # that the game and its invitations are one commit.
    jobs += invites.jobs(store, change)
    previous = record.deadline_at
    banked = clocks.is_bank(record.deadline)
    # Under a time bank each seat whose clock runs has its own deadline (timebanks.settle
    # charges and credits the banks in the record: the same commit as the change).
    dues = timebanks.settle(store, record, before, change) if banked else {}
    record.deadline_at = min(dues.values(), default=None) if banked else _deadline(record)

    def write(writes: Writes) -> None:
        pipe = writes.queue
        for job in jobs:
            owed.owe(pipe, job, store.queue_raw)
        if previous is not None:
            # The new version's deadline replaces the old one (which would no-op anyway).
            # The version before the change (several back when it wrote several entries).
            before_version = version - 1 - len(change.earlier)
            _unschedule(store, pipe, deadline_job_id(record.id, before_version))
            _unschedule(store, pipe, remind_job_id(record.id, before_version))
            for seat in {d["seat"] for d in before} if banked else ():
                _unschedule(store, pipe, deadline_job_id(record.id, before_version, seat))
                _unschedule(store, pipe, remind_job_id(record.id, before_version, seat))
        if banked:
            for seat, due in dues.items():
                _schedule_deadline(store, pipe, record.id, version, due, record.deadline, seat)
        elif record.deadline_at is not None:
            _schedule_deadline(store, pipe, record.id, version, record.deadline_at, record.deadline)

    return write


def _wanted(store: Store, seats: list[str], found: list[Notice]) -> list[Notice]:
    """Only notices some channel would carry: most players of a test game have none."""
    if not found:
        return []
    raws = store.players.notice_fields(seats)
    return [n for n in found if prefs.channels_for(raws[n.seat], n.type)]


def _deadline(record: Any) -> float | None:
    settings = record.deadline or {}
    # A bot's seat runs no clock: its job moves at the game's own bot pace.
    humans = [d for d in record.pending if d["seat"] != SYSTEM and not record.bot_level(d["seat"])]
    if record.status != "active" or not settings.get("hours") or not humans:
        return None
    if any(d["seat"] in record.late_turns() for d in humans):
        return time.time()  # a late turn's rest falls due at once
    return time.time() + float(settings["hours"]) * 3600


def deadline_job(
    game_id: str,
    version: int,
    due: float,
    first_due: float | None = None,
    job_id: str = "",
    seat: int | None = None,
) -> OwedJob:
    """The deadline of ``version``, due at ``due`` (``first_due``: before any postponement);
    ``seat``: the one seat whose time bank runs out then."""
    args: tuple[Any, ...] = (game_id, version, due)
    if first_due is not None or seat is not None:
        args += (first_due or due,)
    if seat is not None:
        args += (seat,)
    return OwedJob(
        id=job_id or deadline_job_id(game_id, version, seat),
        func=DEADLINE_JOB,
        args=args,
        queue=DEADLINE_QUEUE,
        timeout=120,
        result_ttl=3600,
        failure_ttl=7 * 86_400,
        retry=(10, 60, 300),
        at=due,
    )


def _schedule_deadline(
    store: Store,
    pipe: Any,
    game_id: str,
    version: int,
    due: float,
    settings: dict[str, Any],
    seat: int | None = None,
) -> None:
    """The deadline job of ``version`` and its reminder (``seat``: a time bank's, one seat's)."""
    owed.owe(pipe, deadline_job(game_id, version, due, seat=seat), store.queue_raw)
    remind_at = due - float(settings.get("remind_before_hours") or 0) * 3600
    if settings.get("remind_before_hours") and remind_at > time.time():
        remind = OwedJob(
            id=remind_job_id(game_id, version, seat),
            func=REMIND_JOB,
            args=(game_id, version, due) if seat is None else (game_id, version, due, seat),
            queue=DEADLINE_QUEUE,
            timeout=60,
            result_ttl=3600,
            at=remind_at,
        )
        owed.owe(pipe, remind, store.queue_raw)


def _unschedule(store: Store, pipe: Any, job_id: str) -> None:
    pipe.zrem(ScheduledJobRegistry(queue=queue(store.queue_raw, DEADLINE_QUEUE)).key, job_id)
    pipe.delete(Job.key_for(job_id))
    owed.settle(pipe, job_id)
