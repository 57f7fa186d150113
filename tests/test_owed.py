"""The owed-jobs record and its sweep (service/store/owed.py) on a real Redis with real rq workers:
what the sweep takes for lost and enqueues again, what it leaves alone, and that a job's success
settles it. The jobs are resolutions of games that do not exist: they succeed at once
("already-resolved"), like any idempotent job run once too often."""

from __future__ import annotations

import time

import pytest
from rq import Queue, SimpleWorker
from rq.registry import FailedJobRegistry, ScheduledJobRegistry
from rq.serializers import JSONSerializer

from service.store import Store, liveness, owed
from service.store.queues import RESOLVE_JOB
from workers import shared

WORKER_SET = liveness.REDIS_WORKER_KEYS  # rq's set of registered workers


@pytest.fixture
def env_store(isolated_redis: Store, monkeypatch: pytest.MonkeyPatch) -> Store:
    monkeypatch.setenv("REDIS_URL", isolated_redis.url)
    monkeypatch.setattr(shared, "_store", None)
    return isolated_redis


def _job(name: str, at: float | None = None) -> owed.OwedJob:
    return owed.OwedJob(
        id=f"resolve-{name}-x",
        func=RESOLVE_JOB,
        args=(name, "x"),
        queue="default",
        timeout=30,
        at=at,
    )


def _owe(store: Store, job: owed.OwedJob) -> None:
    with store.raw.pipeline() as pipe:
        owed.owe(pipe, job, store.raw)
        pipe.execute()


def _queue(store: Store) -> Queue:
    return Queue("default", connection=store.raw, serializer=JSONSerializer)


def _owed_ids(store: Store) -> list[str]:
    return [j.id for j in owed.owed_jobs(store.raw)]


def test_success_settles_and_a_waiting_job_is_not_swept(env_store: Store) -> None:
    job = _job("g1")
    _owe(env_store, job)
    assert _queue(env_store).job_ids == [job.id]
    assert owed.sweep(env_store.raw, grace=0) == []  # waiting in its queue
    SimpleWorker([_queue(env_store)], connection=env_store.raw, serializer=JSONSerializer).work(
        burst=True
    )
    assert _owed_ids(env_store) == []


def test_a_dead_workers_job_is_swept_a_live_workers_is_not(env_store: Store) -> None:
    """A worker killed mid-job leaves the job in its rq execution set: lost once its
    heartbeat is gone, whatever rq's registries still say."""
    job = _job("g2")
    _owe(env_store, job)
    env_store.raw.lpop(_queue(env_store).key)  # taken by worker "w1"...
    env_store.raw.sadd(WORKER_SET, "rq:worker:w1")
    env_store.raw.sadd("rq:worker:w1:executions", f"{job.id}:e1")  # ...which started it
    liveness.beat(env_store.raw, "w1", ["default"])
    assert owed.sweep(env_store.raw, grace=0) == []  # alive: it is running
    assert owed.sweep(env_store.raw, grace=5) == []  # not due for the sweep yet anyway

    liveness.forget(env_store.raw, "w1")  # what 4 s without a beat amount to
    assert owed.sweep(env_store.raw, grace=0) == [job.id]
    assert _queue(env_store).job_ids == [job.id]
    assert owed.sweep(env_store.raw, grace=0) == []  # enqueued once, not again


def test_an_overdue_scheduled_job_is_moved_a_future_one_and_a_failed_one_are_not(
    env_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deadline must fire even when no scheduler moves it (its worker killed while holding
    the scheduler lock); a retry's back-off is respected; a job that failed for good is left
    to the operator except at a worker's start."""
    monkeypatch.setattr(owed, "SCHEDULER_SLACK_SECONDS", 0.0)  # no scheduler runs here anyway
    soon, later, failed = (
        _job("g3", at=time.time() + 1),
        _job("g4", at=time.time() + 60),
        _job("g5"),
    )
    for job in (soon, later):
        _owe(env_store, job)
    _owe(env_store, failed)
    queue = _queue(env_store)
    env_store.raw.lpop(queue.key)
    env_store.raw.zadd(FailedJobRegistry(queue=queue).key, {failed.id: time.time() + 600})
    assert set(ScheduledJobRegistry(queue=queue).get_job_ids()) == {soon.id, later.id}

    assert owed.sweep(env_store.raw, grace=0) == []  # nothing due yet, the failed one skipped
    time.sleep(2.1)  # the first is now due (rq rounds scheduled times up to whole seconds)
    assert owed.sweep(env_store.raw, grace=0) == [soon.id]
    assert queue.job_ids == [soon.id]
    assert ScheduledJobRegistry(queue=queue).get_job_ids() == [later.id]
    assert owed.sweep(env_store.raw, grace=0, include_failed=True) == [failed.id]


def test_an_inbound_mail_job_lost_by_a_dead_worker_is_swept_back(env_store: Store) -> None:
    """Mail-in answers 250 once the job is owed: the relay then forgets the mail, so a job a
    dying worker took off the queue must come back (or a move sent by email would be lost)."""
    from aiosmtpd.smtp import Envelope

    from service.mail.receiver import InboundHandler

    envelope = Envelope()
    envelope.mail_from = "ada@example.org"
    envelope.rcpt_tos = ["play+g1.0.abc@kurier.localhost"]
    raw = b"Message-ID: <m1@example.org>\r\nFrom: ada@example.org\r\n\r\nF BEL\r\n"
    answer = InboundHandler(env_store, "kurier.localhost").accept(envelope, raw)
    assert answer.startswith("250 2.0.0 OK: queued as inbound-")
    [job_id] = _owed_ids(env_store)
    assert env_store.raw.lpop(_queue(env_store).key) == job_id.encode()  # a dead worker's BLPOP

    assert owed.sweep(env_store.raw, grace=0) == [job_id]
    assert _queue(env_store).job_ids == [job_id]


def test_a_webhook_attempt_lost_by_a_dead_worker_is_swept_back_and_frees_its_receiver(
    env_store: Store,
) -> None:
    """Webhook attempts are rate-limited (one in flight per receiver). One that waits for its
    receiver's slot is not lost; one a dead worker took off the queue is enqueued again, and
    the slot it held is freed, or that receiver would get nothing ever again."""
    from rq.rate_limit import RateLimitRegistry

    from service.store.queues import WEBHOOK_JOB, WEBHOOK_QUEUE

    def attempt(n: int) -> owed.OwedJob:
        return owed.OwedJob(
            id=f"wh-d{n}-1",
            func=WEBHOOK_JOB,
            args=("p", f"d{n}", 1),
            queue=WEBHOOK_QUEUE,
            timeout=30,
            rate_limit="receiver-a",
        )

    webhooks = Queue(WEBHOOK_QUEUE, connection=env_store.raw, serializer=JSONSerializer)
    slot = RateLimitRegistry("receiver-a", env_store.raw)
    first, second = attempt(1), attempt(2)
    owed.owe_now(env_store.raw, first)
    owed.owe_now(env_store.raw, second)
    assert webhooks.job_ids == [first.id]
    assert slot.get_rate_limited_job_ids() == [second.id]
    assert owed.sweep(env_store.raw, grace=0) == []  # one queued, one waiting its turn

    assert env_store.raw.lpop(webhooks.key) == first.id.encode()  # a dead worker's BLPOP
    assert owed.sweep(env_store.raw, grace=0) == [first.id]
    # The receiver is not blocked: the waiting attempt got the slot, the lost one waits.
    assert webhooks.job_ids == [second.id]
    assert slot.get_rate_limited_job_ids() == [first.id]
    assert sorted(_owed_ids(env_store)) == [first.id, second.id]
