"""Jobs the service owes: the record that a job's work must still happen, and the sweep that
enqueues again what a worker lost.

rq alone can lose a job for good: Redis serves a blocked BLPOP to a worker that dies before it
starts the job (the job then sits in no queue and no registry, its status still "queued"), and a
worker killed mid-job leaves it to rq's cleanup minutes later. So a job whose work must happen
(a resolution, a notification, a deadline) is *owed*:

- ``owe(pipe, job, connection)`` records it (``kurier:owed``: job id -> when it is due;
  ``kurier:owed:jobs``: job id -> its spec) and enqueues it (or schedules it, for a time to
  come), inside the caller's MULTI/EXEC: a commit and the jobs it makes due are one write.
- ``settle(client, job_id)`` forgets it once its work is done: from the job's success callback,
  or in the very commit that does the work (a resolution).
- ``sweep(client)`` enqueues again every owed job due for ``grace`` seconds that is neither
  waiting in its queue, nor scheduled for later, nor being run by a live worker
  (service/store/liveness.py); rq's job status is not trusted. Workers run it every
  ``SWEEP_SECONDS`` (workers/runtime.py), so a lost job is found within seconds.

A job may therefore run more than once: every owed job is idempotent (a resolution is a
compare-and-set on the game's version; see workers/jobs.py and workers/notify.py).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from rq import Callback, Queue, Retry
from rq.rate_limit import RateLimit, RateLimitRegistry
from rq.registry import FailedJobRegistry, ScheduledJobRegistry

from service.store import liveness
from service.store.queues import NOTIFY_QUEUE
from service.store.queues import queue as queue_on
from service.store.record import as_text

OWED_INDEX = "kurier:owed"
OWED_SPECS = "kurier:owed:jobs"
SWEEP_LOCK = "kurier:owed:sweeping"
#: Seconds an owed job may be out of sight before the sweep enqueues it again: far above the
#: milliseconds between a worker's dequeue and the start it records, and the scheduler's tick.
GRACE_SECONDS = 2.0
SWEEP_SECONDS = 2.0
#: More for a job still in the scheduled registry: rq's scheduler moves it within a second or
#: so, but a busy machine can delay that, and a deadline run twice is wasted work.
SCHEDULER_SLACK_SECONDS = 3.0
MAX_SWEPT = 1000  # owed jobs looked at per sweep: bounded work; the next sweep takes the rest
SETTLE_CALLBACK = "service.store.owed.settle_on_success"


@dataclass(frozen=True)
class OwedJob:
    """Everything needed to enqueue a job again, JSON all through."""

    id: str  # deterministic: [A-Za-z0-9_-]
    func: str  # dotted path
    args: tuple[Any, ...]
    queue: str
    timeout: int
    result_ttl: int | None = None
    failure_ttl: int | None = None
    #: rq's retries of a failed run: the delay before each (their number is the maximum).
    retry: tuple[int, ...] = ()
    description: str = ""
    #: Not before this time (a deadline); None: now.
    at: float | None = None
    #: rq's RateLimit key (concurrency 1): one job of this key runs at a time (a webhook
    #: receiver's attempts). Such a job cannot be enqueued in a transaction: see ``owe_now``.
    rate_limit: str = ""
    #: rq's failure callback (dotted path), called after every failed run; the job's
    #: ``should_retry`` says whether rq will run it again (a review's "failed" status).
    on_failure: str = ""

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: bytes | str) -> OwedJob:
        data = json.loads(text)
        return cls(**{**data, "args": tuple(data["args"]), "retry": tuple(data["retry"])})


def notice_job(
    job_id: str, func: str, args: tuple[Any, ...], description: str, at: float | None = None
) -> OwedJob:
    """A notice to one player (a mail, a webhook, a message, a tournament's round, an
    invitation): on the notify queue, behind every resolution; a failed run retried for about
    an hour and a half (an SMTP server down), then kept a week among the failed jobs."""
    return OwedJob(
        id=job_id,
        func=func,
        args=args,
        queue=NOTIFY_QUEUE,
        timeout=60,
        result_ttl=600,
        failure_ttl=7 * 86_400,
        retry=(30, 120, 600, 1800, 3600),
        description=description,
        at=at,
    )


def run_at(when: float) -> datetime:
    """When to schedule a job due at ``when``: rq keeps scheduled times in whole seconds,
    truncated, so round up or a deadline could fire up to a second before it is due."""
    return datetime.fromtimestamp(math.ceil(when), UTC)


def owe(pipe: Any, job: OwedJob, connection: Any) -> None:
    """Record ``job`` as owed and enqueue (or schedule) it, in ``pipe``'s transaction.

    ``connection`` is the bytes client ``pipe`` came from (rq reads the server version)."""
    pipe.zadd(OWED_INDEX, {job.id: job.at or time.time()})
    pipe.hset(OWED_SPECS, job.id, job.to_json())
    _enqueue(pipe, job, connection, now=time.time())


def owe_now(client: Any, job: OwedJob) -> None:
    """Record ``job`` as owed, then enqueue (or schedule) it, outside any transaction: for
    rate-limited jobs, which rq enqueues only on its own. A crash between the two steps leaves
    the job owed and not queued: the sweep enqueues it."""
    with client.pipeline(transaction=True) as pipe:
        pipe.zadd(OWED_INDEX, {job.id: job.at or time.time()})
        pipe.hset(OWED_SPECS, job.id, job.to_json())
        pipe.execute()
    _enqueue(None, job, client, now=time.time())


def owe_again(client: Any, job: OwedJob) -> None:
    """Owe ``job`` once more after it failed for good: its copy in rq's failed registry goes
    (the new run's outcome is what counts), then as ``owe_now``."""
    client.zrem(FailedJobRegistry(queue=queue_on(client, job.queue)).key, job.id)
    owe_now(client, job)


def settle(client: Any, job_id: str) -> None:
    """The job's work is done (or moot): nothing is owed any more. ``client`` may be a pipeline."""
    client.zrem(OWED_INDEX, job_id)
    client.hdel(OWED_SPECS, job_id)


def settle_on_success(job: Any, connection: Any, result: Any, *args: Any, **kwargs: Any) -> None:
    """rq success callback of every owed job."""
    settle(connection, job.id)


def owed_jobs(client: Any, func: str | None = None, due_before: float = math.inf) -> list[OwedJob]:
    """The jobs owed now (of one function, if given) that fell due before ``due_before``."""
    ids = client.zrange(OWED_INDEX, "-inf", due_before, byscore=True)
    specs = client.hmget(OWED_SPECS, ids) if ids else []
    jobs = [OwedJob.from_json(s) for s in specs if s is not None]
    return [j for j in jobs if func is None or j.func == func]


def backlog(client: Any) -> tuple[int, float]:
    """How many jobs are owed, and how long the oldest has been due (0 if none is)."""
    with client.pipeline(transaction=False) as pipe:
        pipe.zcard(OWED_INDEX)
        pipe.zrange(OWED_INDEX, 0, 0, withscores=True)
        count, oldest = pipe.execute()
    return int(count), max(0.0, time.time() - oldest[0][1]) if oldest else 0.0


def _enqueue(pipe: Any, job: OwedJob, connection: Any, now: float) -> None:
    """Enqueue or schedule ``job`` in ``pipe``, or at once when ``pipe`` is None (the only way
    for a rate-limited job)."""
    queue = queue_on(connection, job.queue)
    options: dict[str, Any] = {
        "args": job.args,
        "timeout": job.timeout,
        "result_ttl": job.result_ttl,
        "failure_ttl": job.failure_ttl,
        "description": job.description or None,
        "job_id": job.id,
        "retry": Retry(max=len(job.retry), interval=list(job.retry)) if job.retry else None,
        "on_success": Callback(SETTLE_CALLBACK),
        "on_failure": Callback(job.on_failure) if job.on_failure else None,
    }
    if job.rate_limit:
        assert pipe is None, "rq enqueues rate-limited jobs outside a transaction only"
        options["rate_limit"] = RateLimit(job.rate_limit, concurrency=1)
    if job.at is not None and job.at > now:
        queue.schedule_job(queue.create_job(job.func, **options), run_at(job.at), pipeline=pipe)
    elif pipe is None:
        queue.enqueue_job(queue.create_job(job.func, **options))
    else:
        queue.enqueue_many([Queue.prepare_data(job.func, **options)], pipeline=pipe)


# -- the sweep ----------------------------------------------------------------------------------


def sweep(client: Any, grace: float = GRACE_SECONDS, include_failed: bool = False) -> list[str]:
    """Enqueue again the owed jobs that are lost; returns their ids.

    ``client`` is a bytes client (rq's). A job whose retries are exhausted (in rq's failed
    registry) is left to the operator, unless ``include_failed`` (a worker's start: the fix may
    just have been deployed)."""
    now = time.time()
    ids = [
        as_text(i)
        for i in client.zrange(
            OWED_INDEX, "-inf", now - grace, byscore=True, offset=0, num=MAX_SWEPT
        )
    ]
    if not ids:
        return []
    specs = client.hmget(OWED_SPECS, ids)
    jobs = [OwedJob.from_json(s) for s in specs if s is not None]
    for job_id, spec in zip(ids, specs, strict=True):
        if spec is None:
            client.zrem(OWED_INDEX, job_id)  # half an entry (settled meanwhile): nothing owed
    lost = _lost(client, jobs, now - grace, include_failed)
    for job in lost:
        _enqueue_again(client, job, now)
    return [job.id for job in lost]


def _lost(
    client: Any, jobs: list[OwedJob], due_before: float, include_failed: bool
) -> list[OwedJob]:
    running = liveness.running_job_ids(client, liveness.live_workers(client))
    queues = sorted({job.queue for job in jobs})
    with client.pipeline(transaction=False) as pipe:
        for name in queues:
            queue = queue_on(client, name)
            pipe.lrange(queue.key, 0, -1)
        for job in jobs:
            queue = queue_on(client, job.queue)
            pipe.zscore(ScheduledJobRegistry(queue=queue).key, job.id)
            pipe.zscore(FailedJobRegistry(queue=queue).key, job.id)
            # Waiting for its rate-limit slot (held by another job of the same key): not lost.
            slot = RateLimitRegistry(job.rate_limit or "-", client).rate_limited_key
            pipe.zscore(slot, job.id)
        found = pipe.execute()
    waiting = {as_text(i) for ids in found[: len(queues)] for i in ids}
    lost = []
    for index, job in enumerate(jobs):
        scheduled, failed, held_back = found[len(queues) + 3 * index : len(queues) + 3 * index + 3]
        if job.id in waiting or job.id in running or (job.rate_limit and held_back is not None):
            continue
        if scheduled is not None and scheduled >= due_before - SCHEDULER_SLACK_SECONDS:
            continue  # a retry's back-off, or a scheduler tick away: not lost yet
        if failed is not None and not include_failed:
            continue
        lost.append(job)
    return lost


def _enqueue_again(client: Any, job: OwedJob, now: float) -> None:
    with client.pipeline(transaction=True) as pipe:
        queue = queue_on(client, job.queue)
        # Overdue in the scheduled registry means no scheduler is moving it: we do.
        pipe.zrem(ScheduledJobRegistry(queue=queue).key, job.id)
        pipe.zrem(FailedJobRegistry(queue=queue).key, job.id)
        if not job.rate_limit:
            _enqueue(pipe, job, client, now)
        # Due again from now: the grace then covers the new copy's way to a worker.
        pipe.zadd(OWED_INDEX, {job.id: now}, xx=True)
        pipe.execute()
    if job.rate_limit:
        # The lost copy may still hold its key's slot (taken off the queue by a worker that
        # died before it started it: rq never frees that one): free it, which also promotes
        # the oldest job waiting for the slot, then queue the new copy behind it.
        RateLimitRegistry(job.rate_limit, client).release_and_enqueue(job.id)
        _enqueue(None, job, client, now)


def try_sweep(client: Any, owner: str) -> list[str] | None:
    """One periodic sweep, unless another process swept in the last ``SWEEP_SECONDS`` (None)."""
    if not client.set(SWEEP_LOCK, owner, nx=True, px=int(SWEEP_SECONDS * 1000) - 100):
        return None
    return sweep(client)
