"""A store that went back in time is noticed (issue 36, item 12): a Redis restarted without
persistence comes back empty (or from an old RDB snapshot), and newer tokens would answer 401
and newer games 404 for good. The service refuses every write with 503 ``store-rolled-back``
instead, ``/healthz`` says why, and a process started afterwards refuses too, until an operator
has restored a backup and run ``kurier store accept``. A Redis with AOF restarted keeps working.

Real Redis servers (the launcher's), the API served in this process on loopback.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import pytest
import redis
import requests

from service.cli import main
from service.common.problems import Problem
from service.http.app import create_app
from service.store import Store, epoch
from service.store.redis_server import EPHEMERAL_FLAGS, PERSISTENT_FLAGS, RedisServer
from tests.client import Kurier
from tests.conftest import UNLIMITED, serve, short_tmp
from tests.topologies import cluster_setup


@contextmanager
def _api(flags: tuple[str, ...]) -> Iterator[tuple[RedisServer, Kurier]]:
    server = RedisServer(short_tmp("kur-epoch-"), flags)
    server.start()
    try:
        with serve(create_app({"REDIS_URL": server.url, **UNLIMITED})) as base:
            yield server, Kurier(base)
    finally:
        server.stop()


def _checked_again() -> None:
    """Past the interval at which a process looks at the store's epoch."""
    time.sleep(epoch.CHECK_SECONDS + 0.2)


def _health(k: Kurier) -> dict[str, object]:
    return requests.get(f"{k.base}/healthz", timeout=10).json()


def _assert_refused(r: requests.Response) -> None:
    assert r.status_code == 503, r.text
    assert r.headers["Content-Type"] == "application/problem+json"
    problem = r.json()
    assert problem["code"] == "store-rolled-back", problem
    assert "kurier store accept" in problem["detail"], problem


def test_a_redis_restarted_without_persistence_refuses_writes_until_accepted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with _api(EPHEMERAL_FLAGS) as (server, k):
        before = k.new_player("Before")
        assert _health(k)["store"] == "ok"
        server.stop()
        server.start()  # no AOF, no RDB: it comes back empty
        _checked_again()
        _assert_refused(k.call("POST", "/v1/players", json={"name": "After"}))
        # Reads still answer, from the world as it is now: the player is gone.
        assert k.call("GET", "/v1/me", before).status_code == 401
        health = requests.get(f"{k.base}/healthz", timeout=10)
        assert health.status_code == 503
        assert health.json()["store"] == "rolled-back", health.json()
        assert "lost" in str(health.json()["store_problem"]), health.json()
        # A process started now (another API worker, a restarted one) refuses as well: the
        # process that noticed left the verdict in the store.
        with serve(create_app({"REDIS_URL": server.url, **UNLIMITED})) as other:
            _assert_refused(Kurier(other).call("POST", "/v1/players", json={"name": "New"}))
        # The operator restores a backup (here: nothing to restore) and accepts the store.
        monkeypatch.setenv("REDIS_URL", server.url)
        assert main(["store", "accept"]) == 0
        assert "accepted" in capsys.readouterr().out
        _checked_again()
        assert k.call("POST", "/v1/players", json={"name": "Later"}).status_code == 201
        assert _health(k)["store"] == "ok"


def test_a_redis_restarted_from_an_old_snapshot_refuses_writes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The epoch is still there, but older than what this process saw: the writes since the
    snapshot are gone (here: more than the tolerance allows, shortened to 1 s)."""
    monkeypatch.setattr(epoch, "TOLERANCE_SECONDS", 1.0)
    with _api(EPHEMERAL_FLAGS) as (server, k):
        k.new_player("Snapshot")
        client = redis.Redis(unix_socket_path=str(server.socket))
        client.save()  # the RDB the restart will load
        client.close()
        deadline = time.monotonic() + 3 * epoch.CHECK_SECONDS + 1.0
        while time.monotonic() < deadline:  # writes go on after the snapshot
            assert k.call("POST", "/v1/players", json={"name": "Later"}).status_code == 201
            time.sleep(0.2)
        server.stop()  # no save points: the RDB on disk is the old one
        server.start()
        _checked_again()
        _assert_refused(k.call("POST", "/v1/players", json={"name": "After"}))
        assert "lost about" in str(_health(k)["store_problem"])


def test_a_redis_with_aof_restarted_keeps_working() -> None:
    with _api(PERSISTENT_FLAGS) as (server, k):
        player = k.new_player("Durable")
        server.stop()
        server.start()
        _checked_again()
        assert k.call("POST", "/v1/players", json={"name": "After"}).status_code == 201
        made = k.call("POST", "/v1/me/tokens", player, json={"name": "x"})
        assert made.status_code == 201, made.text
        assert _health(k)["store"] == "ok"


def test_flushall_is_a_rollback_too() -> None:
    with _api(PERSISTENT_FLAGS) as (server, k):
        k.new_player("Flushed")
        client = redis.Redis(unix_socket_path=str(server.socket))
        client.flushall()
        client.close()
        _checked_again()
        _assert_refused(k.call("POST", "/v1/players", json={"name": "After"}))


def test_a_cluster_master_that_lost_its_data_is_noticed() -> None:
    """One epoch per master: a master flushed (as one restarted without persistence keeps its
    slots, empty) makes the whole store refuse writes, whichever slot they go to."""
    with ExitStack() as stack:
        queues = RedisServer(short_tmp("kur-epq-"), EPHEMERAL_FLAGS)
        queues.start()
        stack.callback(queues.stop)
        cluster = stack.enter_context(cluster_setup(3))
        store = Store(cluster.url, queues.url)
        stack.callback(store.close)
        store.players.create("Before", None)
        assert len(epoch.epoch_keys(store)) == 3
        assert store.health()["store"] == "ok"
        with cluster.nodes[1].client() as node:
            node.flushall()
        _checked_again()
        with pytest.raises(Problem) as refused:
            store.players.create("After", None)
        assert (refused.value.code, refused.value.problem_code) == (503, "store-rolled-back")
        assert store.health()["store"] == "rolled-back"
        epoch.accept(store)
        _checked_again()
        store.players.create("Accepted", None)
