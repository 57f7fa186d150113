"""Which rq workers are alive now, from heartbeats of our own.

rq's registrations say little about that: a worker killed with SIGKILL stays registered for
minutes (its key's TTL), and an idle rq worker refreshes its heartbeat only once per dequeue
timeout (minutes). So every Kurier worker process runs a thread (workers/runtime.py) that sets
``kurier:alive:<worker name>`` every ``BEAT_SECONDS``, with a TTL of ``ALIVE_MS`` and its queues
as the value: a worker is alive while that key exists, and dead at most ``ALIVE_MS`` after its
last beat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rq.executions import WORKER_EXECUTIONS_KEY_TEMPLATE
from rq.worker import BaseWorker
from rq.worker_registration import REDIS_WORKER_KEYS

from service.store.record import as_text

ALIVE_PREFIX = "kurier:alive:"
BEAT_SECONDS = 1.0
#: A few missed beats: a busy machine may delay one, a dead worker is noticed within 4 s.
ALIVE_MS = 4000
RQ_WORKER_PREFIX = BaseWorker.redis_worker_namespace_prefix


@dataclass(frozen=True)
class LiveWorker:
    name: str
    queues: tuple[str, ...]


def alive_key(worker_name: str) -> str:
    return f"{ALIVE_PREFIX}{worker_name}"


def beat(client: Any, worker_name: str, queues: list[str]) -> None:
    client.set(alive_key(worker_name), ",".join(queues), px=ALIVE_MS)


def forget(client: Any, worker_name: str) -> None:
    client.delete(alive_key(worker_name))


def live_workers(client: Any) -> list[LiveWorker]:
    """The registered rq workers whose heartbeat is current."""
    keys = sorted(as_text(k) for k in client.smembers(REDIS_WORKER_KEYS))
    names = [k.removeprefix(RQ_WORKER_PREFIX) for k in keys]
    if not names:
        return []
    values = client.mget([alive_key(n) for n in names])
    return [
        LiveWorker(name, tuple(as_text(value).split(",")))
        for name, value in zip(names, values, strict=True)
        if value is not None
    ]


def running_job_ids(client: Any, workers: list[LiveWorker]) -> set[str]:
    """The ids of the jobs the given workers are executing (rq's per-worker execution sets)."""
    if not workers:
        return set()
    with client.pipeline(transaction=False) as pipe:
        for worker in workers:
            pipe.smembers(WORKER_EXECUTIONS_KEY_TEMPLATE.format(worker.name))
        found = pipe.execute()
    # Members are "<job id>:<execution id>"; job ids hold no colon (ours are [A-Za-z0-9_-]).
    return {as_text(member).rsplit(":", 1)[0] for members in found for member in members}
