"""A game's deadline falling due, and the reminder before it: what the jobs
``workers.notify.deadline`` and ``workers.notify.remind`` do (each commit schedules them:
service/domain/notifications.py).

Both re-check the version they were scheduled for: a deadline or a reminder of an older version
does nothing (someone moved, and that version's deadline was replaced). A pending player on
vacation pauses the clock, within the game's ``vacation_max_days`` from the first due time;
otherwise every open decision times out by the game's policy (``play.apply_timeout``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from engine.core import SYSTEM
from service.domain import notifications, prefs
from service.domain.games import play
from service.store import Store, owed, queues

#: Sends one notice to one seat at once: (game id, version, kind, seat, data). The worker's
#: ``workers.notify.notify``, passed in: the service imports no job.
Notify = Callable[[str, int, str, int, dict[str, Any]], object]


def fall_due(
    store: Store, game_id: str, version: int, due: float, first_due: float | None = None
) -> str:
    """The deadline of ``version`` fell due: time out every pending player not on vacation."""
    record = store.get_game(game_id)
    if record.version != version or record.status != "active":
        return "stale"  # someone moved: that version's deadline was replaced
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
    results = [play.apply_timeout(store, game_id, d["seat"], d) for d in open_decisions]
    return ",".join(results)


def remind(store: Store, game_id: str, version: int, due: float, notify: Notify) -> str:
    """Warn the pending players that their deadline is near (if nobody moved since), each
    by ``notify``."""
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
