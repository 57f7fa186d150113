"""A game's deadline falling due, and the reminder before it: what the jobs
``workers.notify.deadline`` and ``workers.notify.remind`` do (each commit schedules them:
service/domain/notifications.py).

Both re-check the version they were scheduled for: a deadline or a reminder of an older version
does nothing (someone moved, and that version's deadline was replaced), and each timeout
applies only at that version (or the one its own timeouts moved on to), so a player's move
that wins the race makes the rest stale. A pending player on
vacation pauses the clock, within the game's ``vacation_max_days`` from the first due time;
otherwise every open decision times out by the game's policy (``play.apply_timeout``). A
turn late after a missed deadline (``GameRecord.late_turns``) falls due at once: only its
seat's decisions time out then, without counting another missed deadline, until its player
acts in it (``play.present``: the rest of the turn is theirs, timed afresh).

Under a time bank (service/domain/clocks.py) each seat whose clock runs has a job of its own,
due when its bank reaches zero: ``bank_runs_out`` times out that seat's decisions only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from engine.core import SYSTEM
from service.domain import clocks, notifications, prefs, timebanks
from service.domain.games import play
from service.store import Store, owed, queues
from service.store.record import GameRecord

#: Sends one notice to one seat at once: (game id, version, kind, seat, data). The worker's
#: ``workers.notify.notify``, passed in: the service imports no job.
Notify = Callable[[str, int, str, int, dict[str, Any]], object]


def fall_due(
    store: Store,
    game_id: str,
    version: int,
    due: float,
    first_due: float | None = None,
    seat: int | None = None,
) -> str:
    """The deadline of ``version`` fell due: time out every pending player not on vacation
    (``seat``: under a time bank, that seat's bank ran out)."""
    record = store.get_game(game_id)
    if record.version != version or record.status != "active":
        return "stale"  # someone moved: that version's deadline was replaced
    if seat is not None:
        return bank_runs_out(store, record, seat, first_due or due)
    late = [d for d in record.pending if d["seat"] in record.late_turns()]
    if late:  # the rest of a late turn: the policy's at once, the other seats' clocks run on
        return _time_out(store, game_id, version, late)
    first_due = first_due or due
    settings = record.deadline
    limit = first_due + float(settings.get("vacation_max_days", 14)) * 86_400
    now = time.time()
    away: list[float] = []
    open_decisions = [d for d in record.pending if d["seat"] != SYSTEM]
    for decision in open_decisions:
        raw = store.players.hash(record.seats[decision["seat"]])
        until = prefs.on_vacation(raw, now)
        if until is not None and now < limit:
            away.append(until)
    if away:
        # Vacation pauses the clock: the full deadline again after the vacation, within the limit.
        new_due = min(max(away) + float(settings["hours"]) * 3600, limit)
        job_id = f"{queues.deadline_job_id(game_id, version)}-{int(new_due)}"
        later = notifications.deadline_job(game_id, version, new_due, first_due, job_id)
        with store.raw.pipeline() as pipe:
            owed.owe(pipe, later, store.raw)
            pipe.execute()
        return "postponed"
    return _time_out(store, game_id, version, open_decisions)


def _time_out(store: Store, game_id: str, version: int, decisions: list[dict[str, Any]]) -> str:
    """The game's policy for each of ``decisions``, due at ``version``; each one's outcome,
    joined. Each timeout applied is one commit (one version on); any other commit meanwhile
    makes the rest stale (that commit timed what is pending then)."""
    outcomes = []
    for decision in decisions:
        outcome = play.apply_timeout(store, game_id, decision["seat"], decision, version)
        if outcome == "applied":
            version += 1
        outcomes.append(outcome)
    return ",".join(outcomes)


#: A time bank's job that finds more than this left (the player changed their time zone,
#: which moves their weekends) is scheduled again for the new time.
EARLY_SECONDS = 1.0


def bank_runs_out(store: Store, record: GameRecord, seat: int, first_due: float) -> str:
    """``seat``'s time bank reached zero (its job for the record's version): the game's
    policy for each of its open decisions, unless the player is away (then the bank waits
    for their return, within the game's ``vacation_max_days`` from ``first_due``)."""
    decisions = [d for d in record.pending if d["seat"] == seat]
    if not decisions or seat not in timebanks.clock_seats(record, decisions):
        return "stale"  # a bot holds the seat now
    if seat in record.late_turns():  # the rest of a turn late at zero: at once
        return _time_out(store, record.id, record.version, decisions)
    now = time.time()
    raw = store.players.hash(record.seats[seat])
    limit = first_due + float(record.deadline.get("vacation_max_days", 14)) * 86_400
    until = timebanks.away(raw, now) if now < limit else None
    bank = clocks.Bank.of(record.deadline)
    left = clocks.left_now(bank, record.seating.get("banks", {}), seat, now, timebanks.zone(raw))
    if until is not None or left > EARLY_SECONDS:
        start = max(now, until or now)
        new_due = clocks.runs_out(start, left, timebanks.zone(raw), bank.weekend_pause)
        if until is not None:
            new_due = min(new_due, max(limit, now))
        job_id = f"{queues.deadline_job_id(record.id, record.version, seat)}-{int(new_due)}"
        later = notifications.deadline_job(
            record.id, record.version, new_due, first_due, job_id, seat
        )
        with store.raw.pipeline() as pipe:
            owed.owe(pipe, later, store.raw)
            pipe.execute()
        return "postponed"
    return _time_out(store, record.id, record.version, decisions)


def remind(
    store: Store, game_id: str, version: int, due: float, notify: Notify, seat: int | None = None
) -> str:
    """Warn the pending players (``seat``: that one, whose time bank runs low) that their
    deadline is near (if nobody moved since), each by ``notify``."""
    record = store.get_game(game_id)
    if record.version != version or record.status != "active":
        return "stale"
    sent = 0
    for decision in record.pending:
        if decision["seat"] == SYSTEM or (seat is not None and decision["seat"] != seat):
            continue
        data = {"step": decision["step"], "ref": decision.get("ref", ""), "due": due}
        notify(game_id, version, "game.deadline_warning", decision["seat"], data)
        sent += 1
    return f"reminded {sent}"
