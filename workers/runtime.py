"""What runs beside the rq workers of ``kurier worker``: each worker's heartbeat, and the sweep
that enqueues again the jobs a dead worker lost (service/store/liveness.py, service/store/owed.py).

Both threads use Redis clients of their own: a forking worker's work-horse must not inherit a
connection pool whose lock one of these threads held at the fork.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from typing import TYPE_CHECKING, Any

import redis
from rq import Queue, SimpleWorker, Worker
from rq.exceptions import InvalidJobOperation
from rq.executions import Execution
from rq.job import Job
from rq.registry import StartedJobRegistry

from service.store import Store, liveness, owed

log = logging.getLogger("kurier.worker")


def _own_client(connection: redis.Redis) -> redis.Redis:
    pool = connection.connection_pool
    return redis.Redis(
        connection_pool=redis.ConnectionPool(
            connection_class=pool.connection_class, **pool.connection_kwargs
        )
    )


#: The longest wait between a worker's attempts to reach Redis when it is away. rq doubles
#: the wait up to 60 s: after a 16 s outage a worker slept up to 16 s more (32 s after a
#: longer one) while resolutions waited (tests/test_worker_reconnect.py). An attempt is one
#: cheap command; one log line per attempt while Redis is away.
RECONNECT_SECONDS = 2.0


# The mixin's base, for the type checker only: at run time the worker class it is mixed into.
if TYPE_CHECKING:
    _WorkerBase = Worker
else:
    _WorkerBase = object


class _Beating(_WorkerBase):
    """Mixin for rq workers: a live heartbeat (``kurier:alive:<name>``) while the worker runs,
    and attempts to reach Redis again at least every ``RECONNECT_SECONDS``."""

    _stop_beating: threading.Event | None = None
    max_connection_wait_time = RECONNECT_SECONDS

    def bootstrap(self, *args: Any, **kwargs: Any) -> None:
        stop = threading.Event()
        self._stop_beating = stop
        client = _own_client(self.connection)
        name: str = self.name
        queues: list[str] = self.queue_names()
        pid = os.getpid()
        # Alive before rq registers the worker: whoever sees it registered sees it alive.
        liveness.beat(client, name, queues)
        super().bootstrap(*args, **kwargs)

        def beat() -> None:
            while not stop.is_set() and os.getpid() == pid:
                # Redis away: the worker's own loop reports it and retries.
                with contextlib.suppress(redis.RedisError):
                    liveness.beat(client, name, queues)
                stop.wait(liveness.BEAT_SECONDS)

        threading.Thread(target=beat, name="kurier-heartbeat", daemon=True).start()

    def teardown(self) -> None:
        if self._stop_beating is not None:
            self._stop_beating.set()
            with contextlib.suppress(redis.RedisError):  # else the key expires on its own
                liveness.forget(self.connection, self.name)
        super().teardown()  # type: ignore[no-untyped-call]  # rq leaves it unannotated


class _Twice(_WorkerBase):
    """Mixin for rq workers: a job that another worker ran to its end at the same time is done,
    not failed. Two copies run at once when a worker stalls past its liveness (a SIGSTOP, a
    machine paused) and the sweep enqueues its job again; every owed job is idempotent, and
    the first copy to finish deletes a job that keeps no result (``result_ttl=0``), so rq's
    bookkeeping of the second finds no job (only the fields its heartbeat wrote since)."""

    def handle_job_success(
        self, job: Job, queue: Queue, started_job_registry: StartedJobRegistry, execution: Execution
    ) -> None:
        try:
            super().handle_job_success(job, queue, started_job_registry, execution)
        except InvalidJobOperation:
            if self.connection.hget(job.key, "status") is not None:
                raise
            # Gone but for this copy's own heartbeat fields: the other copy ended and deleted it.
            log.info("job %s was finished by another worker as well", job.id)
            with contextlib.suppress(redis.RedisError), self.connection.pipeline() as pipe:
                self.cleanup_execution(job, pipe, execution)
                pipe.delete(job.key)
                pipe.execute()


class GameWorker(_Twice, _Beating, SimpleWorker):
    """Game work in the worker's own process (see service/cli.py ``_worker_class``)."""


class WebhookWorker(_Twice, _Beating, Worker):
    """One forked work-horse per webhook attempt."""


class Sweeper:
    """Every ``owed.SWEEP_SECONDS``, enqueue again the owed jobs no live worker has, and relay
    the outboxes their writers left behind (service/store/outbox.py)."""

    def __init__(self, store: Store) -> None:
        self.store = Store(store.url, store.queue_url)  # clients of its own
        self.owner = f"{os.uname().nodename}:{os.getpid()}"
        self._stop = threading.Event()

    def start(self) -> Sweeper:
        threading.Thread(target=self._run, name="kurier-sweeper", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        down = False  # one line per Redis outage, not one per sweep
        while not self._stop.wait(owed.SWEEP_SECONDS):
            try:
                found = owed.try_sweep(self.store.queue_raw, self.owner)
                relayed = self.store.relay.sweep() if found is not None else []
            except redis.RedisError as error:
                if not down:
                    log.warning("sweeps skipped while Redis is unreachable: %s", error)
                down = True
                continue
            down = False
            if found:
                log.warning("enqueued again %d lost job(s): %s", len(found), " ".join(found))
            if relayed:
                log.warning(
                    "relayed %d outbox(es) left behind: %s", len(relayed), " ".join(relayed)
                )
