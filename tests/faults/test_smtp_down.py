"""SMTP relay down: the notification mail fails, rq retries the job, and the mail arrives once
the relay is back, exactly once.

The notify job's retry schedule is fixed in service/domain/notifications.py (30 s, 120 s, ...): the
first attempt fails while nothing listens on the relay's port, the relay comes back, and the
first retry delivers. The test moves the scheduled retries' time to now in rq's schedule
instead of waiting the 30 s (rq's scheduler then enqueues them at its next tick). Bounded: one
game, 60 s at most; loopback only (aiosmtpd from tests/receivers.py).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from aiosmtpd.controller import Controller
from rq.registry import ScheduledJobRegistry

from service.store.queues import NOTIFY_QUEUE
from tests.notify_stack import NotifyStack
from tests.receivers import SmtpSink, wait_for


@pytest.fixture
def stack() -> Iterator[NotifyStack]:
    stack = NotifyStack().start()
    yield stack
    stack.stop()


def test_mail_is_retried_and_arrives_when_smtp_returns(stack: NotifyStack) -> None:
    assert stack.store is not None
    port = stack.smtp.port
    stack.smtp.stop()  # the relay goes down: connections to its port are refused
    players = [stack.player(f"S{i}", email=f"s{i}@mail.test")[0] for i in range(2)]
    game_id = stack.game(players, seed="smtp-down")

    # Every game-started mail failed once and waits for rq's retry.
    registry = ScheduledJobRegistry(NOTIFY_QUEUE, connection=stack.store.raw)
    wait_for(lambda: registry.count >= 2, 20, "the failed notify jobs to be scheduled again")
    down_at = time.monotonic()

    sink = SmtpSink()  # a new relay on the same port
    sink.port = port
    sink.controller = Controller(sink, hostname="127.0.0.1", port=port)
    stack.smtp = sink.start()  # the stack's teardown stops it
    # The 30 s of the retry's back-off pass: each retry is due now.
    stack.store.raw.zadd(registry.key, dict.fromkeys(registry.get_job_ids(), time.time()))
    for address in ("s0@mail.test", "s1@mail.test"):
        mails = wait_for(lambda a=address: sink.to(a), 50, f"the retried mail to {address}")
        assert game_id in str(mails[0]["Subject"])
    assert time.monotonic() - down_at < 50
    time.sleep(1)  # nothing more is on its way: each notice is mailed once
    ids = [str(r.message["Message-ID"]) for r in sink.messages]
    assert len(ids) == len(set(ids)), ids
