"""A worker takes up work within seconds of Redis coming back, however long it was away.

rq's worker waits between attempts to reach Redis, doubling the wait each time up to 60 s:
after an outage of 16 s a worker could sleep another 16 s (a webhook worker 32 s after a
longer one) while resolutions waited. Kurier's workers try again every
``workers.runtime.RECONNECT_SECONDS`` at most. A real ``kurier worker`` on a Redis of its own
(with its AOF, so its queues outlive the restart), Redis stopped for 16 s and started again."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import redis
from rq import Queue, Worker
from rq.serializers import JSONSerializer

from service.store.queues import DEFAULT_QUEUE, RATE_JOB
from service.store.redis_server import RedisServer
from tests.conftest import ROOT, short_tmp, stop

OUTAGE_SECONDS = 16
#: From Redis answering again to the job done: the longest wait between attempts, the job.
BOUND_SECONDS = 6


@pytest.fixture
def redis_and_worker() -> Iterator[tuple[RedisServer, subprocess.Popen[bytes]]]:
    tmp = short_tmp("kur-reconn-")
    server = RedisServer(tmp / "redis")
    server.start()
    env = {**os.environ, "REDIS_URL": server.url, "KURIER_OUTBOX": str(tmp / "outbox")}
    env.pop("KURIER_QUEUE_URL", None)
    log = open(tmp / "worker.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "worker"], env=env, cwd=ROOT, stdout=log, stderr=log
    )
    try:
        client = redis.Redis.from_url(server.url)
        deadline = time.monotonic() + 30
        # Listening: past its start's maintenance (rq quits on an outage during that).
        while [w.get_state() for w in Worker.all(connection=client)] != ["idle"]:
            assert proc.poll() is None, (tmp / "worker.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "the worker did not listen within 30 s"
            time.sleep(0.1)
        proc.log_path = tmp / "worker.log"
        yield server, proc
    finally:
        stop(proc)
        log.close()
        server.stop()


def test_a_worker_runs_a_job_soon_after_redis_is_back(
    redis_and_worker: tuple[RedisServer, subprocess.Popen[bytes]],
) -> None:
    server, proc = redis_and_worker
    server.stop()
    time.sleep(OUTAGE_SECONDS)  # the outage itself is what is tested
    assert proc.poll() is None, proc.log_path.read_text()[-3000:]
    again = RedisServer(server.data_dir)
    again.start()
    try:
        back = time.monotonic()
        client = redis.Redis.from_url(again.url)
        queue = Queue(DEFAULT_QUEUE, connection=client, serializer=JSONSerializer)
        job = queue.enqueue(RATE_JOB, "g_nowhere", job_id="rate-after-outage")
        deadline = back + 60
        while job.get_status(refresh=True) != "finished":
            assert time.monotonic() < deadline, job.get_status()
            time.sleep(0.1)
        took = time.monotonic() - back
        assert took <= BOUND_SECONDS, f"the job ran {took:.1f} s after Redis was back"
    finally:
        again.stop()
