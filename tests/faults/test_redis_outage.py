"""Redis down under a running API (issue #17): every call is answered 503 ``service-unavailable``
with ``Retry-After`` (never a 500), the outage is logged once (not a traceback per request), and
the API serves again when Redis is back, without a restart.

Bounded: two outages of a few dozen requests each, on loopback and a unix socket.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
import requests

from service.http.app import create_app
from service.store.redis_server import PERSISTENT_FLAGS, RedisServer
from tests.client import Kurier
from tests.conftest import UNLIMITED, serve
from tests.faults.stack import short_tmp

REQUESTS_PER_OUTAGE = 30


@pytest.fixture
def served() -> Iterator[tuple[str, RedisServer]]:
    server = RedisServer(short_tmp("kur-out-"), PERSISTENT_FLAGS)  # data survive the stop
    url = server.start()
    try:
        with serve(create_app({"REDIS_URL": url, **UNLIMITED})) as base:
            yield base, server
    finally:
        server.stop()


def test_redis_outage_is_503_logged_once_and_recovers(
    served: tuple[str, RedisServer], caplog: pytest.LogCaptureFixture
) -> None:
    base, server = served
    k = Kurier(base)
    game_id, players = k.new_game(2, seed="outage", game_type="attika")
    path = f"/v1/games/{game_id}"
    caplog.set_level(logging.INFO)
    for outage in range(2):
        server.stop()
        caplog.clear()
        for i in range(REQUESTS_PER_OUTAGE):
            player = players[i % 2]
            r = (
                k.call("GET", path, player)
                if i % 3
                else k.call("POST", f"{path}/actions", player, json={"notation": "x"})
            )
            assert r.status_code == 503, (outage, i, r.status_code, r.text)
            assert r.headers["Content-Type"] == "application/problem+json"
            assert r.json()["code"] == "service-unavailable"
            assert int(r.headers["Retry-After"]) > 0
        r = requests.get(base + "/v1/players", timeout=10)  # no Redis needed: not refused
        assert r.status_code != 500
        down = [rec for rec in caplog.records if rec.levelno >= logging.ERROR]
        assert [rec.name for rec in down] == ["kurier.outage"], [rec.getMessage() for rec in down]
        assert not any(rec.exc_info for rec in caplog.records)  # no traceback at all

        server.start()  # same socket: the API needs no restart
        caplog.clear()
        r = k.call("GET", path, players[0])
        assert r.status_code == 200, r.text
        back = [rec.getMessage() for rec in caplog.records if rec.name == "kurier.outage"]
        assert len(back) == 1 and "reachable again" in back[0], back
        assert f"{REQUESTS_PER_OUTAGE} request(s) refused" in back[0]
