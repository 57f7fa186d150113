"""The store's connections: one client per role and process, made lazily after any fork.

``Connections`` is what every part of the store talks to Redis through: the game store (one
Redis, a Sentinel-managed primary or a Redis Cluster: service/store/redis_urls.py) as text,
as bytes and for blocking reads; the queue Redis (owed jobs, rq, heartbeats); the scripts loaded
once per process; the outbox's relay. ``Store`` (service/store/games.py) is a ``Connections``:
the one writer of games and the repositories beside it share these clients.

Keys: none of its own. ``health`` reads the workers' heartbeats (``kurier:alive:*``,
service/store/liveness.py).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from functools import partial
from typing import Any, Self

import redis
from redis.exceptions import RedisClusterException

from service.common.problems import Problem
from service.store import liveness, redis_urls
from service.store.epoch import Epoch
from service.store.outbox import Relay
from service.store.queues import DEFAULT_QUEUE, WEBHOOK_QUEUE
from service.store.record import as_text
from service.store.writes import recorder

#: Redis failing, on one server or a cluster (redis-py's cluster errors are not RedisErrors).
REDIS_FAILED = (redis.RedisError, RedisClusterException)
#: Socket timeout of the blocking client: longer than the longest block (a stream's heartbeat).
BLOCKING_TIMEOUT = 90.0
#: Open streams per stream-server process (KURIER_STREAM_CONNECTIONS): Redis connections.
STREAM_CONNECTIONS = 1000
#: How long a write waits for its replicas by default (KURIER_WAIT_MS).
DEFAULT_WAIT_MS = 1000
#: Commands whose first key is not their first argument (EVAL script numkeys key…).
_SCRIPT_COMMANDS = (b"EVAL", b"EVALSHA", "EVAL", "EVALSHA")


class Connections:
    """Redis clients for the API and the workers. Clients are made lazily, after any fork.

    ``url`` is the game store (one Redis, a Sentinel-managed primary or a Redis Cluster:
    service/store/redis_urls.py); ``queue_url`` the Redis of the job queues and owed jobs (default:
    the game store, which must then not be a cluster). ``colocated``: both are one Redis, so a
    commit and the jobs it makes due are one script; otherwise they meet through the game's
    outbox (service/store/outbox.py).

    ``wait_replicas``: every acknowledged write waits for this many replicas before it is
    answered (0: none), at most ``wait_ms`` (KURIER_WAIT_REPLICAS, KURIER_WAIT_MS): a game's
    commit (Store.transact) and every other write, made through ``write``.
    """

    def __init__(
        self, url: str, queue_url: str | None = None, wait_replicas: int | None = None
    ) -> None:
        self.url = url
        self.queue_url = queue_url or redis_urls.queue_url({"REDIS_URL": url})
        self.mode = mode_of(url)
        self.colocated = self.queue_url == url and self.mode != "cluster"
        if wait_replicas is None:
            wait_replicas = int(os.environ.get("KURIER_WAIT_REPLICAS") or 0)
        self.wait_replicas = wait_replicas
        self.wait_ms = int(os.environ.get("KURIER_WAIT_MS") or DEFAULT_WAIT_MS)
        #: Whether the store went back in time: every write asks first (service/store/epoch.py).
        self.epoch = Epoch(self)
        self._clients: dict[str, Any] = {}
        self._clients_lock = threading.RLock()  # loaded_script makes a client inside it

    @classmethod
    def from_env(cls) -> Self:
        """From ``REDIS_URL`` and ``KURIER_QUEUE_URL``."""
        url = os.environ.get("REDIS_URL")
        if not url:
            raise RuntimeError("REDIS_URL is not set")
        return cls(url, redis_urls.queue_url(os.environ))

    def _client(
        self, name: str, url: str, decode: bool, timeout: float, connections: int = 64
    ) -> Any:
        key = f"{name}:{os.getpid()}"
        if key not in self._clients:
            # Once per process: without the lock, the first requests of a stream server (its
            # streams arrive together, each a greenlet) each built a pool of a thousand slots,
            # most thrown away (seen as half a core for seconds after 1,000 streams opened).
            with self._clients_lock:
                if key not in self._clients:
                    self._clients[key] = connect(url, decode, timeout, connections)
        return self._clients[key]

    @property
    def r(self) -> Any:
        """Text client of the game store (a cluster client in cluster mode)."""
        return self._client("app", self.url, decode=True, timeout=5)

    @property
    def raw(self) -> Any:
        """Bytes client of the game store: game records and logs are bytes."""
        return self._client("raw", self.url, decode=False, timeout=10)

    @property
    def blocking(self) -> Any:
        """Bytes client for blocking reads (``XREAD BLOCK``, the stream server): its socket
        timeout outlasts any block, and its pool holds one connection per waiting stream."""
        connections = int(os.environ.get("KURIER_STREAM_CONNECTIONS") or STREAM_CONNECTIONS)
        return self._client(
            "blocking", self.url, decode=False, timeout=BLOCKING_TIMEOUT, connections=connections
        )

    @property
    def queue_r(self) -> redis.Redis:
        """Text client of the queue Redis (owed jobs, liveness)."""
        client: redis.Redis = (
            self.r
            if self.colocated
            else self._client("queue", self.queue_url, decode=True, timeout=5)
        )
        return client

    @property
    def queue_raw(self) -> redis.Redis:
        """Bytes client of the queue Redis: rq's connection."""
        client: redis.Redis = (
            self.raw
            if self.colocated
            else self._client("queue_raw", self.queue_url, decode=False, timeout=10)
        )
        return client

    def _script(self, name: str, client: Any, lua: str) -> Any:
        key = f"script:{name}:{os.getpid()}"
        if key not in self._clients:
            self._clients[key] = client.register_script(lua)
        return self._clients[key]

    def loaded_script(self, name: str, lua: str | bytes) -> str:
        """The SHA of ``lua``, loaded into the game store once per process, for callers that
        send EVALSHA in their own pipelines (the rate limiter's, a stream's wait). Redis
        forgets scripts when it restarts: such a caller loads it again on NOSCRIPT."""
        key = f"sha:{name}:{os.getpid()}"
        if key not in self._clients:
            with self._clients_lock:
                if key not in self._clients:
                    self._clients[key] = as_text(self.raw.script_load(lua))
        sha: str = self._clients[key]
        return sha

    @property
    def relay(self) -> Relay:
        key = f"relay:{os.getpid()}"
        if key not in self._clients:
            self._clients[key] = Relay(self.raw, self.queue_raw)
        relay: Relay = self._clients[key]
        return relay

    # -- every write outside a game's commit -----------------------------------------------------

    def write(self, commands: Callable[[Any], object], raw: bool = False) -> list[Any]:
        """The one way to change the game store outside a game's commit (``Store.transact``):
        ``commands(pipe)`` queues the writes (and any reads between them) in a pipeline,
        sent in one round trip; their replies come back in order. The text client's, or with
        ``raw`` the bytes client's.

        With ``KURIER_WAIT_REPLICAS``, ``WAIT`` follows on the same connection (WAIT counts a
        connection's own writes), and a write no replica confirmed within ``KURIER_WAIT_MS``
        is refused 503 ``not-replicated``: a failover right after an answer must not lose what
        the client was told is done (a token it holds, a message it sent). In a cluster the
        commands go to each key's node, each batch followed by its own WAIT.

        Not a transaction: the commands run in order, but another client's may run between
        them. A change that must be atomic is one command, or a script (``writes.run_script``).

        A store that went back in time is written nothing: 503 ``store-rolled-back``
        (service/store/epoch.py)."""
        self.epoch.guard()
        client = self.raw if raw else self.r
        if not self.wait_replicas:
            with client.pipeline(transaction=False) as pipe:
                commands(pipe)
                answered: list[Any] = pipe.execute()  # (nothing queued: [])
                return answered
        if self.mode != "cluster":
            return self._written_and_waited(client, commands)
        # A cluster: the commands, recorded, go to their keys' nodes, a WAIT after each batch.
        recorded = recorder()
        commands(recorded)
        batches: dict[str, list[tuple[int, tuple[Any, ...], dict[str, Any]]]] = {}
        for index, (args, options) in enumerate(recorded.command_stack):
            node = client.get_node_from_key(_key_of(args)).name
            batches.setdefault(node, []).append((index, args, options))
        replies: list[Any] = [None] * len(recorded.command_stack)
        for batch in batches.values():
            node = client.get_node_from_key(_key_of(batch[0][1]))
            answers = self._written_and_waited(
                client.get_redis_connection(node), partial(_send, commands=batch)
            )
            for (index, _args, _options), answer in zip(batch, answers, strict=True):
                replies[index] = answer
        return replies

    def _written_and_waited(self, client: Any, commands: Callable[[Any], object]) -> list[Any]:
        with client.pipeline(transaction=False) as pipe:
            commands(pipe)
            if not pipe.command_stack:
                return []  # nothing written: nothing to wait for
            pipe.execute_command("WAIT", self.wait_replicas, self.wait_ms)
            replies: list[Any]
            *replies, acknowledged = pipe.execute()
        self.replicated_or_refuse(int(acknowledged), "retry it")
        return replies

    def replicated_or_refuse(self, acknowledged: int, retry: str) -> None:
        """A write the replicas confirmed goes on; otherwise 503 ``not-replicated``, which
        says how to ``retry``."""
        if acknowledged < self.wait_replicas:
            raise Problem(
                503,
                "not-replicated",
                f"the change was made but not confirmed by {self.wait_replicas} replica(s) "
                f"within {self.wait_ms} ms, so it could be lost in a failover; {retry}",
                headers={"Retry-After": "1"},
            )

    def close(self) -> None:
        for client in self._clients.values():
            if hasattr(client, "close"):
                client.close()
        self._clients.clear()

    def health(self) -> dict[str, Any]:
        """Redis reachable, the workers alive now by queue role (live heartbeats only), and
        whether the store went back in time (``store``: ok or rolled-back, and why)."""
        redis_ok = False
        live: list[liveness.LiveWorker] = []
        try:
            redis_ok = bool(self.r.ping()) and bool(self.queue_r.ping())
            live = liveness.live_workers(self.queue_r)
        except redis.RedisError:
            pass
        problem = self.epoch.problem() if redis_ok else None
        game = sum(DEFAULT_QUEUE in w.queues for w in live)
        webhook = sum(WEBHOOK_QUEUE in w.queues for w in live)
        return {
            "redis": redis_ok,
            "game_workers": game,
            "webhook_workers": webhook,
            "store": "rolled-back" if problem else "ok",
            "store_problem": problem,
        }


def mode_of(url: str) -> str:
    """What ``url`` names: single, sentinel or cluster (service/store/redis_urls.py)."""
    try:
        return redis_urls.parse(url).mode
    except ValueError:
        return "single"  # refused at the first command, with redis-py's own message


def connect(url: str, decode: bool, timeout: float, connections: int = 64) -> Any:
    """A client for ``url``: one Redis as before (a blocking pool of ``connections``), else
    through service/store/redis_urls.py (a Sentinel-managed primary, a cluster)."""
    if mode_of(url) == "single":
        pool = redis.BlockingConnectionPool.from_url(
            url, max_connections=connections, decode_responses=decode, socket_timeout=timeout
        )
        return redis.Redis(connection_pool=pool)
    target = redis_urls.parse(url)
    return redis_urls.connect(
        target, decode_responses=decode, socket_timeout=timeout, max_connections=connections
    )


def as_dict(reply: Any) -> Any:
    """A hash or stream entry as a dict: a cluster client's MULTI leaves replies unparsed
    (a flat list of names and values)."""
    return reply if isinstance(reply, dict) else dict(zip(reply[::2], reply[1::2], strict=True))


def _send(pipe: Any, commands: list[tuple[int, tuple[Any, ...], dict[str, Any]]]) -> None:
    """Queue recorded ``commands`` (index, arguments, options) in ``pipe``."""
    for _index, args, options in commands:
        pipe.execute_command(*args, **options)


def _key_of(args: tuple[Any, ...]) -> Any:
    """The first key of a recorded command."""
    return args[3] if args[0] in _SCRIPT_COMMANDS else args[1]
