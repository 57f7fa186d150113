"""The jobs a game's commit owes by itself: a resolution it makes due, and a finished game's
compaction and rating. ``Store.transact`` (service/store/games.py) owes them with the commit
(service/store/owed.py); what else a change brings along (notifications, deadlines) the caller's
``followups`` plan (service/domain/notifications.py).

Keys: none of its own; an owed job lives in ``kurier:owed`` and ``kurier:owed:jobs`` on the queue
Redis (service/store/owed.py), its id says what it does (service/store/queues.py).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping
from typing import Any, Final

from service.store.owed import OwedJob
from service.store.queues import (
    BOT_JOB,
    BOT_QUEUE,
    COMPACT_JOB,
    DEFAULT_QUEUE,
    NOTIFY_QUEUE,
    RATE_JOB,
    RESOLVE_JOB,
    bot_job_id,
    compact_job_id,
    rate_job_id,
    resolve_job_id,
)
from service.store.record import GameRecord


def compact_job(game_id: str) -> OwedJob:
    return OwedJob(
        id=compact_job_id(game_id),
        func=COMPACT_JOB,
        args=(game_id,),
        queue=NOTIFY_QUEUE,  # never before a resolution
        timeout=60,
        result_ttl=0,
        failure_ttl=7 * 86_400,
        retry=(10, 60, 600),
        description=f"compact the log of finished game {game_id}",
    )


def rate_job(game_id: str) -> OwedJob:
    """Ratings, players' finished games and the public listing of a finished game
    (service/domain/ratings.py: applied once however often the job runs)."""
    return OwedJob(
        id=rate_job_id(game_id),
        func=RATE_JOB,
        args=(game_id,),
        queue=NOTIFY_QUEUE,  # never before a resolution
        timeout=60,
        result_ttl=0,
        failure_ttl=7 * 86_400,
        retry=(2, 10, 60, 600),
        description=f"rate finished game {game_id}",
    )


def resolve_job(game_id: str, ref: str) -> OwedJob:
    return OwedJob(
        id=resolve_job_id(game_id, ref),
        func=RESOLVE_JOB,
        args=(game_id, ref),
        queue=DEFAULT_QUEUE,
        timeout=60,
        # The game's log records the resolution; a result kept by rq would cost more Redis
        # memory than the whole game (a few KB for an hour; docs/performance.md).
        result_ttl=0,
        failure_ttl=7 * 86_400,
        # A failed run (e.g. rules not deployed yet) is retried; a lost one is swept.
        retry=(2, 10, 30, 120, 600),
        description=f"resolve {ref} of game {game_id}",
    )


#: How a bot seat paces its moves (a game's ``bot_pace`` setting): ``instant`` (the game's
#: ``bot_delay_seconds``, 0 by default), ``seconds`` (like a person at the table: a few seconds,
#: spread) or ``correspondence`` (minutes to hours, spread). Each spread is drawn from the
#: bot's own seed for the move (``bot_seed``), so a move's wait is the same on every run.
BOT_PACES: Final = ("instant", "seconds", "correspondence")
#: ``seconds``: uniform between these (never a reply within the same second).
TABLE_SECONDS: Final = (2.0, 6.0)
#: ``correspondence``: log-uniform between these (10 minutes to 6 hours).
CORRESPONDENCE_SECONDS: Final = (600.0, 6 * 3600.0)


def bot_seed(game_id: str, version: int, seat: int) -> str:
    """A bot's own seed for one move (never the game's): its search and its wait."""
    return f"{game_id}/{version}/{seat}"


def bot_wait(settings: Mapping[str, Any], game_id: str, version: int, seat: int) -> float:
    """Seconds the bot of ``seat`` waits before it answers the game at ``version``."""
    pace = settings.get("bot_pace", "instant")
    rng = random.Random(f"pace/{bot_seed(game_id, version, seat)}")
    if pace == "seconds":
        return rng.uniform(*TABLE_SECONDS)
    if pace == "correspondence":
        low, high = (math.log(bound) for bound in CORRESPONDENCE_SECONDS)
        return math.exp(rng.uniform(low, high))
    return float(settings.get("bot_delay_seconds", 0) or 0)


def bot_jobs(record: GameRecord, version: int) -> list[OwedJob]:
    """A move owed by each bot seat the game now waits for (a move or a sealed choice), at
    ``version``: due at once or after the seat's wait (``bot_wait``), scheduled by rq. A job
    that finds the game moved on does nothing (workers/bots.py); the commit that moved it owes
    the next one."""
    if record.status != "active":
        return []
    now = time.time()
    jobs = []
    for decision in record.pending:
        seat = decision["seat"]
        if decision["kind"] in ("move", "sealed") and record.bot_level(seat):
            wait = bot_wait(record.settings, record.id, version, seat)
            jobs.append(bot_job(record.id, version, seat, now + wait if wait else None))
    return jobs


def bot_job(game_id: str, version: int, seat: int, at: float | None = None) -> OwedJob:
    return OwedJob(
        id=bot_job_id(game_id, version, seat),
        func=BOT_JOB,
        args=(game_id, version, seat),
        queue=BOT_QUEUE,
        # The search's CPU budget is a few seconds; a job still running after this is stuck.
        timeout=120,
        result_ttl=0,  # the game's log records the move
        failure_ttl=7 * 86_400,
        retry=(2, 10, 30, 120, 600),
        description=f"bot move of seat {seat} in game {game_id} at version {version}",
        at=at,
    )
