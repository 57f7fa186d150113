"""One job run by two workers at once (a worker stalled past its liveness, its job enqueued
again by the sweep, then the stalled one resumes): both copies end cleanly, the second
without rq's "Failed to retrieve status" traceback, since every owed job is idempotent and the
first copy to finish deletes a job that keeps no result."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from rq import Worker
from rq.registry import StartedJobRegistry

from service.store import Store
from service.store.queues import DEFAULT_QUEUE, queue
from service.store.redis_server import EPHEMERAL_FLAGS, RedisServer
from tests.conftest import short_tmp, worker_process
from tests.receivers import wait_for


@pytest.fixture
def own_store() -> Iterator[Store]:
    """A Redis of this test's own: no other test's worker takes the job."""
    server = RedisServer(short_tmp("kur-twice-"), EPHEMERAL_FLAGS)
    server.start()
    store = Store(server.url)
    yield store
    store.close()
    server.stop()


def _logs(*procs: object) -> str:
    """The workers' logs, one after the other (each in its own folder beside its outbox)."""
    paths = [Path(p.outbox).parent / "worker.log" for p in procs]
    return "".join(path.read_text() for path in paths)


def test_a_job_finished_by_two_workers_at_once_ends_without_a_traceback(own_store: Store) -> None:
    jobs = queue(own_store.queue_raw, DEFAULT_QUEUE)
    started = StartedJobRegistry(queue=jobs)
    job_id = f"twice-{secrets.token_hex(4)}"
    with ExitStack() as stack:
        first = stack.enter_context(worker_process(own_store))
        second = stack.enter_context(worker_process(own_store))
        wait_for(lambda: Worker.count(connection=own_store.queue_raw) == 2, 30, "two workers")
        jobs.enqueue("time.sleep", 3, job_id=job_id, result_ttl=0)
        wait_for(lambda: job_id in started.get_job_ids(), 20, "the first copy to start")
        # One worker is busy with it: the other takes the copy enqueued again.
        jobs.enqueue("time.sleep", 3, job_id=job_id, result_ttl=0)
        try:
            wait_for(lambda: _logs(first, second).count(f"3) ({job_id})") == 2, 20, "two starts")
            wait_for(lambda: _logs(first, second).count("Job OK") == 2, 30, "two ends")
        except AssertionError as timeout:
            raise AssertionError(_logs(first, second)[-4000:]) from timeout
    logs = _logs(first, second)
    assert "finished by another worker as well" in logs, logs[-3000:]
    assert "Traceback" not in logs and "InvalidJobOperation" not in logs, logs[-3000:]
