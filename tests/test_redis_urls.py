"""service/store/redis_urls.py: URL forms for a single Redis, Sentinel and Cluster, checked without
a
server (parse, queue_url) and on real topologies on loopback (tests/topologies.py): connect,
probe, transactions on a cluster, and failovers (kill -9 of a primary or master)."""

from __future__ import annotations

import re
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import redis
from limits.storage import storage_from_string
from redis.exceptions import ClusterError, CrossSlotTransactionError, RedisClusterException

from service.cli import main
from service.ops import config
from service.store.redis_urls import (
    RedisTarget,
    SentinelConnection,
    TopologyError,
    connect,
    limits_options,
    parse,
    probe,
    queue_url,
)
from tests.topologies import ClusterSetup, Node, SentinelSetup, cluster_setup, sentinel_setup

#: Writes must succeed again this soon after kill -9 of the primary or a master.
RECOVERY_LIMIT = 20.0

# -- parse ------------------------------------------------------------------------------------

GOOD_URLS = [
    ("redis://localhost", RedisTarget("single", nodes=(("localhost", 6379),))),
    (
        "redis://:s3cret@10.0.0.5:6380/2",
        RedisTarget("single", nodes=(("10.0.0.5", 6380),), db=2, password="s3cret"),
    ),
    (
        "rediss://kurier:p%40ss@redis.example.org:6390?ssl_cert_reqs=none",
        RedisTarget(
            "single",
            nodes=(("redis.example.org", 6390),),
            username="kurier",
            password="p@ss",
            tls=True,
            tls_options=(("ssl_cert_reqs", "none"),),
        ),
    ),
    ("unix:///tmp/k/redis.sock?db=3", RedisTarget("single", socket_path="/tmp/k/redis.sock", db=3)),
    (
        "redis+sentinel://s1:26379,s2:26380/kurier",
        RedisTarget("sentinel", nodes=(("s1", 26379), ("s2", 26380)), service_name="kurier"),
    ),
    (
        "redis+sentinel://:pw@[::1]:26379/kurier/4",
        RedisTarget(
            "sentinel", nodes=(("::1", 26379),), service_name="kurier", db=4, password="pw"
        ),
    ),
    (
        "redis+cluster://n1:7000,n2:7001,n3:7002/",
        RedisTarget("cluster", nodes=(("n1", 7000), ("n2", 7001), ("n3", 7002))),
    ),
]


@pytest.mark.parametrize(("url", "expected"), GOOD_URLS, ids=[url for url, _ in GOOD_URLS])
def test_parse_reads_every_supported_form(url: str, expected: RedisTarget) -> None:
    assert parse(url) == expected


BAD_URLS = [
    ("", "empty"),
    ("http://localhost:6379", r"unknown Redis URL scheme \(http://\)"),
    ("valkey+cluster://n1:7000", "unknown Redis URL scheme"),
    ("localhost:6379", "unknown Redis URL scheme"),
    ("redis://", "without a host"),
    ("redis://:pw@/0", "without a host"),
    ("redis://:6379", "no host name"),
    ("redis://localhost:notaport", "no valid port"),
    ("redis://localhost:70000", "no valid port"),
    ("redis://localhost/first", "database number must be a number"),
    ("redis://localhost/1?db=2", "database twice"),
    ("redis://localhost?socket_timeout=1", "unknown option 'socket_timeout'"),
    ("redis://localhost?ssl_cert_reqs=none", "needs rediss://"),
    ("redis://localhost?db=1&db=2", "malformed|twice"),
    ("unix://", "without a socket path"),
    ("unix://tmp/redis.sock", "must be absolute"),
    ("redis+sentinel://s1:26379", "without a service name"),
    ("redis+sentinel://s1/kurier", r"'s1' needs a port"),
    ("redis+sentinel://s1:1,,s2:2/kurier", "empty host"),
    ("redis+sentinel:///kurier", "without any host"),
    ("redis+sentinel://s1:1/kurier/zero", "database number must be a number"),
    ("redis+sentinel://s1:1/kurier/0/more", "must be /<service> or /<service>/<db>"),
    ("redis+sentinel://s1:1/kurier?db=1", "unknown option 'db'"),
    ("redis+cluster://n1:7000/0", "only database 0"),
    ("redis+cluster://n1", "needs a port"),
    ("redis+cluster://n1:0", "port 0"),
    ("redis+cluster://[::1:7000", "malformed Redis URL"),
    ("redis://h1:6379,h2:6379", "no valid port"),
    ("rediss+cluster://n1:7000", "TLS works only with a single rediss://"),
]


@pytest.mark.parametrize(("url", "message"), BAD_URLS, ids=[url or "empty" for url, _ in BAD_URLS])
def test_parse_refuses_malformed_urls_saying_what_is_wrong(url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse(url)


def test_parse_errors_and_repr_never_show_the_password() -> None:
    with pytest.raises(ValueError) as refused:
        parse("redis://:hunter2@localhost/first")
    assert "hunter2" not in str(refused.value)
    target = parse("redis+sentinel://:hunter2@s1:26379/kurier")
    assert "hunter2" not in repr(target)
    assert "hunter2" not in target.describe()
    assert target.describe() == "redis+sentinel://s1:26379/kurier"


# -- queue_url --------------------------------------------------------------------------------

CLUSTER = "redis+cluster://n1:7000,n2:7001"
SENTINEL = "redis+sentinel://s1:26379/kurier"


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"REDIS_URL": "redis://state", "KURIER_QUEUE_URL": "redis://jobs"}, "redis://jobs"),
        ({"REDIS_URL": CLUSTER, "KURIER_QUEUE_URL": SENTINEL}, SENTINEL),
        ({"REDIS_URL": "unix:///tmp/r.sock"}, "unix:///tmp/r.sock"),
        ({"REDIS_URL": SENTINEL, "KURIER_QUEUE_URL": ""}, SENTINEL),
    ],
)
def test_queue_url_is_the_queue_url_else_the_state_url(
    environ: dict[str, str], expected: str
) -> None:
    assert queue_url(environ) == expected


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"REDIS_URL": CLUSTER}, "REDIS_URL is a Redis Cluster.*set KURIER_QUEUE_URL"),
        ({"REDIS_URL": "redis://x", "KURIER_QUEUE_URL": CLUSTER}, "cannot be a Redis Cluster"),
        ({}, "neither KURIER_QUEUE_URL nor REDIS_URL"),
        ({"KURIER_QUEUE_URL": "amqp://broker"}, "unknown Redis URL scheme"),
    ],
)
def test_queue_url_refuses_a_cluster_or_nothing(environ: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        queue_url(environ)


# -- real servers: fixtures -------------------------------------------------------------------


@pytest.fixture(scope="module")
def sentinel() -> Iterator[SentinelSetup]:
    with sentinel_setup() as setup:
        print(f"\nSentinel topology up in {setup.started_in:.1f} s")
        yield setup


@pytest.fixture(scope="module")
def cluster() -> Iterator[ClusterSetup]:
    with cluster_setup(masters=3, replicas_per_master=0) as setup:
        print(f"\nCluster (3 masters) up in {setup.started_in:.1f} s")
        yield setup


def _client(url: str, **overrides: Any) -> redis.Redis | redis.RedisCluster:
    options = {"decode_responses": True, "socket_timeout": 5.0, "max_connections": 8}
    return connect(parse(url), **(options | overrides))


# -- real servers: every mode -----------------------------------------------------------------


@pytest.mark.parametrize("mode", ["single", "sentinel", "cluster"])
def test_connect_reads_and_writes_in_every_mode(mode: str, request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue("redis_url") if mode == "single" else _url(mode, request)
    text, raw = _client(url), _client(url, decode_responses=False)
    try:
        text.set(f"kurier:test:{mode}", "é")
        assert text.get(f"kurier:test:{mode}") == "é"
        assert raw.get(f"kurier:test:{mode}") == "é".encode()
    finally:
        text.close()
        raw.close()


def _url(mode: str, request: pytest.FixtureRequest) -> str:
    setup: SentinelSetup | ClusterSetup = request.getfixturevalue(mode)
    return setup.url


def test_probe_says_which_mode_it_found(
    redis_url: str, sentinel: SentinelSetup, cluster: ClusterSetup
) -> None:
    assert re.fullmatch(r"single Redis 6\.2\.\d+", probe(redis_url))
    assert probe(sentinel.url) == (
        f"Sentinel service 'kurier', primary 127.0.0.1:{sentinel.primary.port} (Redis 6.2.14), "
        "1 replica, 3 sentinels"
    )
    assert probe(cluster.url) == "Redis Cluster, 3 masters, 0 replicas, all 16384 slots covered"


def test_probe_refuses_a_url_that_does_not_match_the_server(
    sentinel: SentinelSetup, cluster: ClusterSetup
) -> None:
    node, primary, replica = cluster.nodes[0], sentinel.primary, sentinel.replica
    mismatches = {
        f"redis://127.0.0.1:{node.port}": "is a Redis Cluster node.*use redis\\+cluster://",
        f"redis://127.0.0.1:{sentinel.sentinels[0].port}": "is a Sentinel, not a data server",
        f"redis://127.0.0.1:{replica.port}": f"read-only replica of 127.0.0.1:{primary.port}",
        f"redis+cluster://127.0.0.1:{primary.port}": "not a usable Redis Cluster",
        f"redis+sentinel://127.0.0.1:{primary.port}/kurier": "do not answer as Sentinels",
    }
    for url, message in mismatches.items():
        with pytest.raises(TopologyError, match=message):
            probe(url)


def test_blocking_reads_get_their_own_client_without_a_read_timeout(redis_url: str) -> None:
    """socket_timeout=None: XREAD BLOCK returns when Redis says so, not at a client timeout."""
    blocking = _client(redis_url, socket_timeout=None, max_connections=2)
    try:
        began = time.monotonic()
        assert blocking.xread({"kurier:test:nothing-here": "$"}, block=1200) in (None, [], {})
        assert 1.1 < time.monotonic() - began < 5
    finally:
        blocking.close()


class _Interrupted(Exception):
    pass


def _interrupt(_signum: int, _frame: Any) -> None:
    raise _Interrupted


@pytest.mark.parametrize("mode", ["single", "sentinel"])
def test_a_read_cut_short_leaves_nothing_for_the_next_command(
    mode: str, request: pytest.FixtureRequest
) -> None:
    """A signal handler raising in the middle of a blocking read (rq's warm shutdown does)
    drops the connection: the next command gets its own reply at once, not the interrupted
    BLPOP's after its timeout (redis-py's Sentinel connection kept it: redis-py PR 4292)."""
    url = request.getfixturevalue("redis_url") if mode == "single" else _url(mode, request)
    client = _client(url, socket_timeout=None, max_connections=1)
    previous = signal.signal(signal.SIGALRM, _interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(_Interrupted):
            client.blpop(["kurier:test:never-filled"], timeout=4)
        began = time.monotonic()
        client.set("kurier:test:after-interrupt", "mine")
        assert client.get("kurier:test:after-interrupt") == "mine"
        assert time.monotonic() - began < 1.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        client.close()


@pytest.mark.parametrize("mode", ["single", "sentinel"])
def test_a_full_pool_makes_threads_wait_instead_of_failing(
    mode: str, request: pytest.FixtureRequest
) -> None:
    """One connection, two threads: the second waits for the first's BLPOP to end."""
    url = request.getfixturevalue("redis_url") if mode == "single" else _url(mode, request)
    client = _client(url, socket_timeout=None, max_connections=1)
    outcomes: list[object] = []

    def hold_the_connection() -> None:
        outcomes.append(client.blpop([f"kurier:test:{mode}:empty"], timeout=1))

    holder = threading.Thread(target=hold_the_connection)
    try:
        holder.start()
        time.sleep(0.2)
        assert client.ping() is True  # waited for the one connection, did not raise
        holder.join(5)
        assert outcomes == [None]
    finally:
        client.close()


@pytest.mark.parametrize("mode", ["sentinel", "cluster"])
def test_the_same_url_serves_the_rate_limiter(mode: str, request: pytest.FixtureRequest) -> None:
    """The ``limits`` library (under Flask-Limiter) takes our Sentinel and Cluster URLs as is,
    with the options service/domain/ratelimit.py gives it (on Sentinel: our connection class, so a
    read cut short drops its connection there too)."""
    url = _url(mode, request)
    storage = storage_from_string(url, **limits_options(url))
    assert storage.check()
    assert storage.incr(f"kurier:test:{mode}:limit", 60) == 1
    assert storage.get(f"kurier:test:{mode}:limit") == 1
    if mode == "sentinel":
        pool = storage.storage.connection_pool
        assert pool.connection_class is SentinelConnection


# -- real servers: transactions on a cluster --------------------------------------------------


def test_keys_with_one_hash_tag_commit_in_one_multi_exec(cluster: ClusterSetup) -> None:
    client = _client(cluster.url)
    try:
        game = "kurier:game:{g-multi}"
        with client.pipeline(transaction=True) as pipe:
            pipe.watch(game)
            assert pipe.hget(game, "version") is None
            pipe.multi()
            pipe.hset(game, mapping={"version": 1, "state": "{}"})
            pipe.xadd(f"{game}:events", {"move": "a1"}, id="1-0")
            assert pipe.execute() == [2, "1-0"]
        assert client.hget(game, "version") == "1"
        assert client.xlen(f"{game}:events") == 1
    finally:
        client.close()


def test_watch_on_a_cluster_refuses_a_stale_commit(cluster: ClusterSetup) -> None:
    client, other = _client(cluster.url), _client(cluster.url)
    try:
        game = "kurier:game:{g-stale}"
        client.hset(game, "version", 1)
        with client.pipeline(transaction=True) as pipe:
            pipe.watch(game)
            other.hset(game, "version", 2)  # someone else commits in between
            pipe.multi()
            pipe.hset(game, "version", 3)
            with pytest.raises(redis.WatchError):
                pipe.execute()
        assert client.hget(game, "version") == "2"
    finally:
        client.close()
        other.close()


def test_keys_in_different_slots_cannot_share_a_transaction(cluster: ClusterSetup) -> None:
    client = _client(cluster.url)
    try:
        assert client.keyslot("kurier:game:{a}") != client.keyslot("kurier:game:{b}")
        with client.pipeline(transaction=True) as pipe:
            pipe.set("kurier:game:{a}", 1)
            pipe.set("kurier:game:{b}", 2)
            with pytest.raises(CrossSlotTransactionError):
                pipe.execute()
        assert client.exists("kurier:game:{a}", "kurier:game:{b}") == 0  # nothing half-done
    finally:
        client.close()


# -- real servers: failover (slow: each starts a topology of its own and kills part of it) ----


def _write_until_it_succeeds(client: redis.Redis | redis.RedisCluster, key: str) -> float:
    """Seconds until SET succeeds again; bounded by RECOVERY_LIMIT."""
    began = time.monotonic()
    errors: list[str] = []
    while time.monotonic() - began < RECOVERY_LIMIT:
        try:
            client.set(key, "after")
            print(f"\n{len(errors)} failed writes before: {sorted(set(errors))}")
            return time.monotonic() - began
        except (
            redis.ConnectionError,
            redis.TimeoutError,
            ClusterError,
            RedisClusterException,
        ) as error:
            errors.append(type(error).__name__)
            time.sleep(0.1)
    raise AssertionError(f"writes still fail {RECOVERY_LIMIT} s after the kill: {errors}")


@pytest.mark.slow
def test_sentinel_failover_the_client_follows_the_promoted_replica() -> None:
    with sentinel_setup() as setup:
        client = _client(setup.url)
        try:
            client.set("kurier:test:before", "kept")
            assert client.wait(1, 2000) == 1  # the replica has it before the primary dies
            setup.primary.kill()
            recovered = _write_until_it_succeeds(client, "kurier:test:after")
            print(f"\nSentinel: writes succeed again {recovered:.1f} s after kill -9")
            assert setup.primary_port() == setup.replica.port
            assert client.get("kurier:test:before") == "kept"
            assert f"primary 127.0.0.1:{setup.replica.port}" in probe(setup.url)
        finally:
            client.close()


@pytest.mark.slow
def test_cluster_failover_a_replica_takes_over_the_dead_masters_slots() -> None:
    with cluster_setup(masters=3, replicas_per_master=1) as setup:
        print(f"\nCluster (3 masters, 3 replicas) up in {setup.started_in:.1f} s")
        client = _client(setup.url)
        game = "kurier:game:{g-failover}"
        try:
            client.set(game, "kept")
            master = setup.master_for(game)
            with master.client() as direct:
                assert direct.wait(1, 2000) == 1
            master.kill()
            recovered = _write_until_it_succeeds(client, f"{game}:after")
            print(f"\nCluster: writes succeed again {recovered:.1f} s after kill -9 of a master")
            assert setup.master_for(game).port != master.port
            assert client.get(game) == "kept"
            with client.pipeline(transaction=True) as pipe:
                pipe.set(game, "moved on")
                pipe.set(f"{game}:after", "too")
                pipe.execute()  # (redis-py 8.1 returns ["OK", "OK"] here, not [True, True])
            assert client.mget(game, f"{game}:after") == ["moved on", "too"]
        finally:
            client.close()


@contextmanager
def _appendonly(nodes: list[Node]) -> Iterator[None]:
    """AOF on for ``nodes`` during the block (the topologies run without: tests only)."""
    for node in nodes:
        with node.client() as client:
            client.config_set("appendonly", "yes")
    try:
        yield
    finally:
        for node in nodes:
            with node.client() as client:
                client.config_set("appendonly", "no")


def test_config_check_names_the_mode_and_refuses_a_cluster_node_as_a_plain_url(
    cluster: ClusterSetup,
) -> None:
    with _appendonly(cluster.nodes):
        found = {f.name: f for f in config.check({"REDIS_URL": cluster.url})}
    assert found["REDIS_URL"].level == "ok", found["REDIS_URL"]
    assert "Redis Cluster, 3 masters" in found["REDIS_URL"].message
    # rq cannot run on a cluster: the queues need a Redis of their own.
    assert found["KURIER_QUEUE_URL"].level == "error"
    assert "KURIER_QUEUE_URL" in found["KURIER_QUEUE_URL"].message

    node = f"redis://{cluster.nodes[0].address}"
    found = {f.name: f for f in config.check({"REDIS_URL": node})}
    assert found["REDIS_URL"].level == "error"
    assert "Redis Cluster node" in found["REDIS_URL"].message
    found = {f.name: f for f in config.check({"REDIS_URL": node, "KURIER_QUEUE_URL": cluster.url})}
    assert found["KURIER_QUEUE_URL"].level == "error"


def test_config_check_refuses_a_cluster_any_of_whose_nodes_runs_without_aof(
    cluster: ClusterSetup,
) -> None:
    """A cluster node restarted without persistence comes back empty and keeps its slots: its
    share of the games is gone (issue 36). Every node is checked, each named."""
    found = {f.name: f for f in config.check({"REDIS_URL": cluster.url})}["REDIS_URL"]
    assert found.level == "error", found
    assert all(node.address in found.message for node in cluster.nodes), found.message
    assert "appendonly" in found.message
    *durable, last = cluster.nodes
    with _appendonly(durable):
        found = {f.name: f for f in config.check({"REDIS_URL": cluster.url})}["REDIS_URL"]
    assert found.level == "error", found
    off = found.message.split("appendonly", 1)[1]
    assert last.address in off and not any(node.address in off for node in durable), found
    with _appendonly(cluster.nodes):
        found = {f.name: f for f in config.check({"REDIS_URL": cluster.url})}["REDIS_URL"]
    assert found.level == "ok", found


def test_config_check_refuses_a_sentinel_primary_or_replica_without_aof(
    sentinel: SentinelSetup, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The primary and every replica (one of them is the next primary): `kurier config check`
    exits non-zero with an error line, not a warning."""
    monkeypatch.setenv("REDIS_URL", sentinel.url)
    assert main(["config", "check", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "error   REDIS_URL: set: Sentinel service 'kurier'" in out, out
    assert sentinel.primary.address in out and sentinel.replica.address in out, out
    with _appendonly([sentinel.primary]):
        found = {f.name: f for f in config.check({"REDIS_URL": sentinel.url})}["REDIS_URL"]
    assert found.level == "error", found
    off = found.message.split("appendonly", 1)[1]
    assert sentinel.replica.address in off and sentinel.primary.address not in off, found
    with _appendonly([sentinel.primary, sentinel.replica]):
        found = {f.name: f for f in config.check({"REDIS_URL": sentinel.url})}["REDIS_URL"]
    # What is left are warnings (the test servers' memory settings), AOF none of them.
    assert found.level != "error" and "appendonly" not in found.message, found
