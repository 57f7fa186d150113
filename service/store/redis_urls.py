"""Redis URLs for the three topologies Kurier can run on, and clients for each.

- ``redis://``, ``rediss://``, ``unix://``: one Redis (as before).
- ``redis+sentinel://[user:password@]host:port[,host:port…]/<service>[/<db>]``: the primary a
  set of Sentinels elects. The same form as the ``limits`` library's Sentinel storage (under
  Flask-Limiter), so one URL can serve the store and the rate limiter; ``limits`` does not know
  the ``/<db>`` part (it would read ``/kurier/2`` as the service ``kurier2``), so a URL shared
  with it must leave the database at 0. As in ``limits``, the user and password are sent to the
  Sentinels and to the primary alike.
- ``redis+cluster://[user:password@]host:port[,host:port…]``: a Redis Cluster (database 0 only),
  the same form as ``limits``' cluster storage. The nodes listed are only where the client
  starts looking; it learns the rest of the cluster from them.

The job queues never go on a cluster: rq needs multi-key transactions across its own keys
(rq issue 1942), so they live on ``KURIER_QUEUE_URL`` (:func:`queue_url`).

``service/store/connections.py`` opens the game store and the queue Redis through :func:`connect`.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import redis
from redis.backoff import ExponentialWithJitterBackoff, NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.retry import Retry
from redis.sentinel import Sentinel, SentinelConnectionPool, SentinelManagedConnection

from service.common.numbers import is_ascii_digits

Mode = Literal["single", "sentinel", "cluster"]

SINGLE_SCHEMES = ("redis", "rediss", "unix")
SENTINEL_SCHEME = "redis+sentinel"
CLUSTER_SCHEME = "redis+cluster"
KNOWN_SCHEMES = (*SINGLE_SCHEMES, SENTINEL_SCHEME, CLUSTER_SCHEME)
#: Query options a single-server URL may carry; anything else is refused rather than ignored.
TLS_OPTIONS = ("ssl_ca_certs", "ssl_cert_reqs", "ssl_certfile", "ssl_keyfile")
SINGLE_OPTIONS = ("db", *TLS_OPTIONS)
CLUSTER_SLOTS = 16384

#: Seconds to open a TCP connection; bounded even for the blocking client (socket_timeout=None).
CONNECT_TIMEOUT = 5.0
#: Seconds a thread waits for a free pooled connection before ConnectionError.
POOL_WAIT = 20.0
#: Seconds for one question to one Sentinel: a dead Sentinel must not stall discovery.
SENTINEL_TIMEOUT = 1.0
#: Retries of a command after a *connection* error (refused, reset: a restart or a failover),
#: about 5 s in all with the backoff. Timeouts are not retried: redis-py 8 would wait the full
#: socket_timeout again on every retry (stack guide, pitfall 1) and might send a write twice.
CONNECTION_RETRIES = 8
#: Retries of a cluster command (redis-py retries connection errors, timeouts and CLUSTERDOWN,
#: re-reading the slot map each time, with no pause in between): few, so a dead master's
#: slots fail fast during a failover and the caller decides.
CLUSTER_RETRIES = 3


class TopologyError(RuntimeError):
    """The URL is well-formed but what answers there is not what it says (or does not answer)."""


@dataclass(frozen=True)
class RedisTarget:
    """A parsed Redis URL. ``password`` is kept out of ``repr`` so a logged target leaks none."""

    mode: Mode
    #: TCP addresses: the server (single), the Sentinels, or the cluster's startup nodes.
    nodes: tuple[tuple[str, int], ...] = ()
    socket_path: str | None = None
    service_name: str | None = None
    db: int = 0
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    tls: bool = False
    tls_options: tuple[tuple[str, str], ...] = ()

    def describe(self) -> str:
        """The URL without credentials, for messages and logs."""
        hosts = ",".join(_host_port(node) for node in self.nodes)
        if self.mode == "cluster":
            return f"{CLUSTER_SCHEME}://{hosts}"
        db = f"/{self.db}" if self.db else ""
        if self.mode == "sentinel":
            return f"{SENTINEL_SCHEME}://{hosts}/{self.service_name}{db}"
        if self.socket_path is not None:
            return f"unix://{self.socket_path}" + (f"?db={self.db}" if self.db else "")
        return f"{'rediss' if self.tls else 'redis'}://{hosts}{db}"


# -- parse --------------------------------------------------------------------------------------


def parse(url: str) -> RedisTarget:
    """Read a Redis URL of any supported form; ValueError says what is wrong (never a password)."""
    if not isinstance(url, str) or not url.strip():
        raise ValueError("the Redis URL is empty")
    try:
        parts = urllib.parse.urlsplit(url.strip())
    except ValueError as error:  # e.g. an unbalanced [ in an IPv6 address; names no secret
        raise ValueError(f"malformed Redis URL: {error}") from None
    scheme = parts.scheme.lower()
    if scheme in SINGLE_SCHEMES:
        return _parse_single(scheme, parts)
    if scheme == SENTINEL_SCHEME:
        return _parse_sentinel(parts)
    if scheme == CLUSTER_SCHEME:
        return _parse_cluster(parts)
    if scheme.startswith("rediss+"):
        raise ValueError(f"{scheme}:// is not supported: TLS works only with a single rediss://")
    shown = f"{scheme}://" if scheme else "no scheme"
    raise ValueError(f"unknown Redis URL scheme ({shown}): use one of {_scheme_list()}")


def _parse_single(scheme: str, parts: urllib.parse.SplitResult) -> RedisTarget:
    options = _query(parts, allowed=SINGLE_OPTIONS, scheme=scheme)
    tls_options = tuple((k, v) for k, v in options.items() if k in TLS_OPTIONS)
    if tls_options and scheme != "rediss":
        raise ValueError(f"{scheme}:// URL: the {tls_options[0][0]} option needs rediss://")
    username, password = _credentials(parts)
    if scheme == "unix":
        if not parts.path or parts.path == "/":
            raise ValueError("unix:// URL without a socket path (unix:///path/to/redis.sock)")
        if parts.hostname:
            raise ValueError(
                f"unix:// URL: the socket path must be absolute (unix:///{parts.hostname}…)"
            )
        db = _db(options.get("db", "0"), "the db option")
        return RedisTarget(
            "single",
            socket_path=urllib.parse.unquote(parts.path),
            db=db,
            username=username,
            password=password,
        )
    host = parts.netloc.rpartition("@")[2]
    if not host:
        raise ValueError(f"{scheme}:// URL without a host ({scheme}://host[:port][/db])")
    node = _address(host, scheme, default_port=6379)
    path = parts.path.strip("/")
    if path and "db" in options:
        raise ValueError(f"{scheme}:// URL gives the database twice (path /{path} and ?db=)")
    db = _db(path or options.get("db", "0"), "the database number")
    return RedisTarget(
        "single",
        nodes=(node,),
        db=db,
        username=username,
        password=password,
        tls=scheme == "rediss",
        tls_options=tls_options,
    )


def _parse_sentinel(parts: urllib.parse.SplitResult) -> RedisTarget:
    _query(parts, allowed=(), scheme=SENTINEL_SCHEME)
    nodes = _addresses(parts, SENTINEL_SCHEME)
    segments = parts.path.strip("/").split("/") if parts.path.strip("/") else []
    if not segments:
        raise ValueError(
            f"{SENTINEL_SCHEME}:// URL without a service name "
            f"({SENTINEL_SCHEME}://host:port,host:port/<service>[/<db>])"
        )
    if len(segments) > 2 or not segments[0]:
        raise ValueError(
            f"{SENTINEL_SCHEME}:// URL path must be /<service> or /<service>/<db>, "
            f"not {parts.path!r}"
        )
    service = urllib.parse.unquote(segments[0])
    if any(c.isspace() for c in service):
        raise ValueError(f"{SENTINEL_SCHEME}:// URL: the service name {service!r} has a space")
    db = _db(segments[1], "the database number") if len(segments) == 2 else 0
    username, password = _credentials(parts)
    return RedisTarget(
        "sentinel",
        nodes=nodes,
        service_name=service,
        db=db,
        username=username,
        password=password,
    )


def _parse_cluster(parts: urllib.parse.SplitResult) -> RedisTarget:
    _query(parts, allowed=(), scheme=CLUSTER_SCHEME)
    nodes = _addresses(parts, CLUSTER_SCHEME)
    if parts.path.strip("/"):
        raise ValueError(
            f"{CLUSTER_SCHEME}:// URL with a path ({parts.path!r}): a Redis Cluster has only "
            "database 0, so the URL ends after the last host:port"
        )
    username, password = _credentials(parts)
    return RedisTarget("cluster", nodes=nodes, username=username, password=password)


def _addresses(parts: urllib.parse.SplitResult, scheme: str) -> tuple[tuple[str, int], ...]:
    hosts = parts.netloc.rpartition("@")[2]
    if not hosts:
        raise ValueError(f"{scheme}:// URL without any host:port")
    # Ports are required, as in ``limits``: a URL it refuses could not serve both.
    return tuple(_address(item, scheme, default_port=None) for item in hosts.split(","))


def _address(item: str, scheme: str, default_port: int | None) -> tuple[str, int]:
    item = item.strip()
    if not item:
        raise ValueError(f"{scheme}:// URL has an empty host in its host list")
    location = urllib.parse.urlsplit(f"//{item}")
    try:
        port = location.port
    except ValueError:
        raise ValueError(f"{scheme}:// URL: {item!r} has no valid port (1-65535)") from None
    if not location.hostname:
        raise ValueError(f"{scheme}:// URL: {item!r} has no host name")
    if port is None:
        if default_port is None:
            raise ValueError(f"{scheme}:// URL: {item!r} needs a port (host:port)")
        port = default_port
    if port == 0:
        raise ValueError(f"{scheme}:// URL: {item!r} has port 0")
    return location.hostname, port


def _credentials(parts: urllib.parse.SplitResult) -> tuple[str | None, str | None]:
    # Percent-escapes are decoded as redis-py does for redis:// (``limits`` leaves them as
    # they are in its Sentinel and cluster storages: a password with % differs there).
    username = urllib.parse.unquote(parts.username) if parts.username else None
    password = urllib.parse.unquote(parts.password) if parts.password is not None else None
    return username, password


def _query(
    parts: urllib.parse.SplitResult, allowed: tuple[str, ...], scheme: str
) -> dict[str, str]:
    if parts.fragment:
        raise ValueError(f"{scheme}:// URL with a #fragment")
    try:
        pairs = urllib.parse.parse_qsl(parts.query, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise ValueError(f"{scheme}:// URL has a malformed ?query") from None
    options: dict[str, str] = {}
    for key, value in pairs:
        if key not in allowed:
            known = ", ".join(allowed) if allowed else "none"
            raise ValueError(f"{scheme}:// URL: unknown option {key!r} (allowed: {known})")
        if key in options:
            raise ValueError(f"{scheme}:// URL gives the option {key!r} twice")
        options[key] = value
    return options


def _db(text: str, what: str) -> int:
    if not is_ascii_digits(text):
        raise ValueError(f"{what} must be a number 0 or more, not {text!r}")
    return int(text)


def _host_port(node: tuple[str, int]) -> str:
    host, port = node
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _scheme_list() -> str:
    return ", ".join(f"{scheme}://" for scheme in KNOWN_SCHEMES)


# -- connect ------------------------------------------------------------------------------------


class SentinelConnection(SentinelManagedConnection):
    """Sentinel's connection, dropped when a read is cut short, as every other connection is.

    redis-py 8.1's ``SentinelManagedConnection.read_response`` alone defaults to keeping the
    connection when a read is interrupted (redis-py pull request 4292): it went back to the
    pool with its reply unread, and the next command there got that reply, or waited behind
    the interrupted ``BLPOP``. A worker told to stop (SIGTERM: rq raises in the middle of its
    blocking read) then hung on its last command for the rest of the ``BLPOP``'s timeout.
    """

    def read_response(  # type: ignore[override]  # takes every argument of the base's overloads
        self, *args: Any, disconnect_on_error: bool = True, **kwargs: Any
    ) -> Any:
        return super().read_response(*args, disconnect_on_error=disconnect_on_error, **kwargs)


def limits_options(uri: str) -> dict[str, Any]:
    """What the ``limits`` library's storage for ``uri`` needs beyond the URL: on Sentinel,
    the connection that drops itself when a read is cut short (``SentinelConnection``)."""
    return {"connection_class": SentinelConnection} if uri.startswith(f"{SENTINEL_SCHEME}:") else {}


class _SentinelBlockingPool(SentinelConnectionPool, redis.BlockingConnectionPool):
    """Sentinel's pool (asks the Sentinels for the primary on every new connection and drops
    connections to a former primary) that, like the single-server pool, makes a thread wait
    for a free connection instead of failing with "Too many connections"."""


def connect(
    target: RedisTarget,
    *,
    decode_responses: bool,
    socket_timeout: float | None,
    max_connections: int,
) -> redis.Redis | RedisCluster:
    """A client for ``target``. Make one per purpose: ``socket_timeout=None`` is for blocking
    reads (XREAD BLOCK) only, on a client of its own (stack guide, pitfall 1)."""
    common: dict[str, Any] = {
        "decode_responses": decode_responses,
        "socket_timeout": socket_timeout,
        "socket_connect_timeout": CONNECT_TIMEOUT,
        "username": target.username,
        "password": target.password,
    }
    if target.mode == "cluster":
        return _connect_cluster(target, common, max_connections)
    retry = Retry(
        ExponentialWithJitterBackoff(cap=1.0, base=0.1),
        CONNECTION_RETRIES,
        supported_errors=(redis.ConnectionError,),
    )
    if target.mode == "sentinel":
        return _connect_sentinel(target, common, max_connections, retry)
    pool_args: dict[str, Any] = {**common, "db": target.db, "retry": retry}
    if target.socket_path is not None:
        pool_args |= {
            "connection_class": redis.UnixDomainSocketConnection,
            "path": target.socket_path,
        }
    else:
        (host, port) = target.nodes[0]
        pool_args |= {"host": host, "port": port}
        if target.tls:
            pool_args |= {"connection_class": redis.SSLConnection, **dict(target.tls_options)}
    pool = redis.BlockingConnectionPool(
        max_connections=max_connections, timeout=POOL_WAIT, **pool_args
    )
    return redis.Redis(connection_pool=pool)


def _connect_sentinel(
    target: RedisTarget, common: dict[str, Any], max_connections: int, retry: Retry
) -> redis.Redis:
    sentinel = Sentinel(
        list(target.nodes),
        sentinel_kwargs={
            "socket_timeout": SENTINEL_TIMEOUT,
            "socket_connect_timeout": SENTINEL_TIMEOUT,
            "username": target.username,
            "password": target.password,
            # One try per Sentinel: discovery moves on to the next one instead.
            "retry": Retry(NoBackoff(), 0),
        },
    )
    primary: redis.Redis = sentinel.master_for(
        target.service_name,
        connection_pool_class=_SentinelBlockingPool,
        connection_class=SentinelConnection,
        max_connections=max_connections,
        timeout=POOL_WAIT,
        db=target.db,
        retry=retry,
        **common,
    )
    return primary


def _connect_cluster(
    target: RedisTarget, common: dict[str, Any], max_connections: int
) -> RedisCluster:
    # max_connections is per node here: redis-py keeps one pool for every node it talks to.
    return RedisCluster(
        startup_nodes=[ClusterNode(host, port) for host, port in target.nodes],
        max_connections=max_connections,
        retry=Retry(NoBackoff(), CLUSTER_RETRIES),
        require_full_coverage=True,
        **common,
    )


# -- probe --------------------------------------------------------------------------------------


def probe(url: str) -> str:
    """Connect to ``url`` and say what is there; TopologyError if it is not what the URL says
    (a plain URL to a cluster node, Sentinel or replica; a cluster URL to a plain server…)."""
    target = parse(url)
    try:
        if target.mode == "cluster":
            return _probe_cluster(target)
        if target.mode == "sentinel":
            return _probe_sentinel(target)
        return _probe_single(target)
    except (redis.ConnectionError, redis.TimeoutError) as error:
        raise TopologyError(f"cannot reach {target.describe()}: {error}") from error


def _probe_single(target: RedisTarget) -> str:
    client = connect(target, decode_responses=True, socket_timeout=5, max_connections=2)
    try:
        server = client.info("server")
        if server.get("redis_mode") == "sentinel":
            raise TopologyError(
                f"{target.describe()} is a Sentinel, not a data server: "
                f"use {SENTINEL_SCHEME}://host:port,…/<service>"
            )
        if client.info("cluster").get("cluster_enabled") == 1:
            raise TopologyError(
                f"{target.describe()} is a Redis Cluster node: a plain URL would reach only "
                f"its slots; use {CLUSTER_SCHEME}://host:port,…"
            )
        replication = client.info("replication")
        if replication.get("role") != "master":
            primary = f"{replication.get('master_host')}:{replication.get('master_port')}"
            raise TopologyError(
                f"{target.describe()} is a read-only replica of {primary}: point the URL at "
                f"the primary (or at its Sentinels with {SENTINEL_SCHEME}://)"
            )
        return f"single Redis {server['redis_version']}"
    finally:
        client.close()


def _sentinel_of(client: redis.Redis | RedisCluster) -> Sentinel:
    """The Sentinels behind a client that ``connect`` made for a Sentinel target."""
    pool = cast(SentinelConnectionPool, cast(redis.Redis, client).connection_pool)
    sentinel: Sentinel = pool.sentinel_manager
    return sentinel


def _probe_sentinel(target: RedisTarget) -> str:
    client = connect(target, decode_responses=True, socket_timeout=5, max_connections=2)
    try:
        manager = _sentinel_of(client)
        try:
            host, port = manager.discover_master(target.service_name)
        except redis.ResponseError as error:
            raise TopologyError(
                f"{target.describe()}: the servers listed do not answer as Sentinels ({error})"
            ) from error
        # SENTINEL MASTER answers the primary's fields (redis-py's hint adds bool).
        state = cast(dict[str, Any], manager.sentinels[0].sentinel_master(target.service_name))
        version = client.info("server")["redis_version"]
        replicas = len(manager.discover_slaves(target.service_name))
        sentinels = int(state.get("num-other-sentinels", 0)) + 1
        return (
            f"Sentinel service {target.service_name!r}, primary {_host_port((host, port))} "
            f"(Redis {version}), {_count(replicas, 'replica')}, {_count(sentinels, 'sentinel')}"
        )
    finally:
        client.close()
        for sentinel_client in _sentinel_of(client).sentinels:
            sentinel_client.close()


def _probe_cluster(target: RedisTarget) -> str:
    try:
        client = cast(
            RedisCluster,  # a cluster target
            connect(target, decode_responses=True, socket_timeout=5, max_connections=2),
        )
    except redis.RedisClusterException as error:
        raise TopologyError(
            f"{target.describe()} is not a usable Redis Cluster ({error}); a single Redis "
            "takes redis://"
        ) from error
    try:
        info = client.cluster_info()
        served = int(info.get("cluster_slots_ok", 0))
        if info.get("cluster_state") != "ok" or served < CLUSTER_SLOTS:
            raise TopologyError(
                f"Redis Cluster at {target.describe()} is {info.get('cluster_state')}: "
                f"{served} of {CLUSTER_SLOTS} slots served"
            )
        masters = len(client.get_primaries())
        replicas = len(client.get_replicas())
        return (
            f"Redis Cluster, {_count(masters, 'master')}, {_count(replicas, 'replica')}, "
            f"all {CLUSTER_SLOTS} slots covered"
        )
    finally:
        client.close()


def data_nodes(url: str) -> list[tuple[str, redis.Redis]]:
    """Every server that holds (or will hold, after a failover) the data behind ``url``, each
    named ``host:port (role)`` with a plain client to it alone: the Sentinel service's primary
    and replicas, every node of a cluster, the one server. The caller closes the clients."""
    target = parse(url)
    common: dict[str, Any] = {
        "decode_responses": True,
        "socket_timeout": 5,
        "socket_connect_timeout": CONNECT_TIMEOUT,
        "username": target.username,
        "password": target.password,
    }
    if target.mode == "single":
        client = connect(target, decode_responses=True, socket_timeout=5, max_connections=2)
        return [(target.describe(), cast(redis.Redis, client))]  # a single server's client
    found: list[tuple[str, str]] = []  # (role, host:port)
    if target.mode == "sentinel":
        client = connect(target, decode_responses=True, socket_timeout=5, max_connections=2)
        manager = _sentinel_of(client)
        try:
            found.append(("primary", _host_port(manager.discover_master(target.service_name))))
            found += [
                ("replica", _host_port(node))
                for node in manager.discover_slaves(target.service_name)
            ]
        finally:
            client.close()
            for sentinel_client in manager.sentinels:
                sentinel_client.close()
    else:
        cluster = _connect_cluster(target, common, 2)
        try:
            found += [
                ("master" if node.server_type == "primary" else "replica", node.name)
                for node in cluster.get_nodes()
            ]
        finally:
            cluster.close()
    out = []
    for role, address in found:
        host, _, port = address.rpartition(":")
        client = redis.Redis(host=host.strip("[]"), port=int(port), db=target.db, **common)
        out.append((f"{address} ({role})", client))
    return out


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


# -- the queues' Redis --------------------------------------------------------------------------


#: Both are settings in service/ops/config.py (and the table in docs/operations.md).
QUEUE_URL_VARIABLE = "KURIER_QUEUE_URL"
STATE_URL_VARIABLE = "REDIS_URL"


def queue_url(environ: Mapping[str, str]) -> str:
    """Where the rq queues live: KURIER_QUEUE_URL, else REDIS_URL unless that is a cluster."""
    explicit = environ.get(QUEUE_URL_VARIABLE, "").strip()
    if explicit:
        if parse(explicit).mode == "cluster":
            raise ValueError(
                f"{QUEUE_URL_VARIABLE} cannot be a Redis Cluster: rq needs transactions across "
                "its own keys (rq issue 1942); give a single Redis or a redis+sentinel:// URL"
            )
        return explicit
    state_url = environ.get(STATE_URL_VARIABLE, "").strip()
    if not state_url:
        raise ValueError(f"neither {QUEUE_URL_VARIABLE} nor {STATE_URL_VARIABLE} is set")
    if parse(state_url).mode == "cluster":
        raise ValueError(
            f"{STATE_URL_VARIABLE} is a Redis Cluster, which cannot hold the job queues (rq "
            f"issue 1942): set {QUEUE_URL_VARIABLE} to a single Redis or a redis+sentinel:// URL"
        )
    return state_url
