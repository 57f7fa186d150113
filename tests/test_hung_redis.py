"""A Redis that hangs (stopped, not gone: connections open, nothing answers) is an outage too.

The first request to meet it waits out one socket timeout (the rate limiter's read, 10 s) and
is answered 503;
while the outage lasts, one request at a time goes on to see whether Redis is back and every
other is answered 503 at once, instead of each holding a thread for 5 s while more queue up
behind it. Once Redis answers again, so does the API. Real Redis stopped with SIGSTOP, the app
served on loopback."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from service.http.app import create_app
from service.store.redis_server import EPHEMERAL_FLAGS, RedisServer
from tests.client import Kurier
from tests.conftest import UNLIMITED, serve, short_tmp

SOCKET_TIMEOUT = 5  # the app's client (service/store/connections.py)
RAW_SOCKET_TIMEOUT = 10  # the rate limiter's and the token check's client


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    server = RedisServer(short_tmp("kur-hung-"), EPHEMERAL_FLAGS)
    server.start()
    try:
        yield server
    finally:
        assert server.process is not None
        os.kill(server.process.pid, signal.SIGCONT)
        server.stop()


def _timed_get(url: str, headers: dict[str, str]) -> tuple[int, str, float]:
    started = time.monotonic()
    r = requests.get(url, headers=headers, timeout=30)
    code = r.json().get("code", "") if r.status_code >= 400 else ""
    return r.status_code, code, time.monotonic() - started


def test_a_hung_redis_is_answered_503_at_once_after_the_first_timeout(
    own_redis: RedisServer,
) -> None:
    assert own_redis.process is not None
    with serve(create_app({"REDIS_URL": own_redis.url, **UNLIMITED})) as base:
        player = Kurier(base).new_player("Hung")
        me = f"{base}/v1/me"
        assert requests.get(me, headers=player.auth, timeout=10).status_code == 200
        os.kill(own_redis.process.pid, signal.SIGSTOP)

        status, code, waited = _timed_get(me, player.auth)
        assert (status, code) == (503, "service-unavailable")
        assert waited < RAW_SOCKET_TIMEOUT + 3, waited  # one timeout, not one per step (20 s)

        with ThreadPoolExecutor(12) as pool:
            answers = list(pool.map(lambda _: _timed_get(me, player.auth), range(12)))
        assert {(s, c) for s, c, _ in answers} == {(503, "service-unavailable")}, answers
        quick = [w for _, _, w in answers if w < 1.0]
        assert len(quick) >= 11, answers  # at most one waits: the request that checks Redis
        # What needs no Redis still answers.
        assert requests.get(f"{base}/v1", timeout=10).status_code == 200

        os.kill(own_redis.process.pid, signal.SIGCONT)
        deadline = time.monotonic() + 3 * SOCKET_TIMEOUT
        while requests.get(me, headers=player.auth, timeout=30).status_code != 200:
            assert time.monotonic() < deadline, "the API did not come back with Redis"
            time.sleep(0.1)
        answers = [_timed_get(me, player.auth) for _ in range(5)]
        assert [s for s, _, _ in answers] == [200] * 5
