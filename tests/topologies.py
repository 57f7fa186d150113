"""Real Redis topologies on loopback for tests: a Sentinel-managed primary with a replica, and
a Redis Cluster. Every process is the launcher's redis-server (service/store/redis_server.py), on
TCP
ports picked free beforehand, in a short temporary directory removed at exit; every wait is
bounded and says what it waited for; every process is killed at exit."""

from __future__ import annotations

import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import redis

from service.store.redis_server import EPHEMERAL_FLAGS, find_redis_server
from tests.receivers import wait_for

HOST = "127.0.0.1"
SERVICE = "kurier"
#: Bound on every wait for a topology to form (a busy 2-core machine included).
FORM_TIMEOUT = 30.0
#: Sentinel: the primary counts as down after 1 s without an answer.
DOWN_AFTER_MS = 1000
FAILOVER_TIMEOUT_MS = 3000
#: Cluster: a node counts as failing after 1.5 s; long enough not to fail over spuriously
#: while the machine is busy, short enough for a failover test of a few seconds.
NODE_TIMEOUT_MS = 1500
#: Redis 6.2 puts a node's cluster bus on its port + 10000 (no cluster-port before 7.0).
CLUSTER_BUS_OFFSET = 10000


@dataclass
class Node:
    """One redis-server process (data node or Sentinel)."""

    name: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path
    command: Sequence[str] = ()

    @property
    def address(self) -> str:
        return f"{HOST}:{self.port}"

    def client(self) -> redis.Redis:
        """A plain client to this process only, failing fast: no retries."""
        return redis.Redis(HOST, self.port, socket_timeout=2, socket_connect_timeout=2, retry=None)

    def kill(self) -> None:
        """kill -9: no shutdown, no goodbye to replicas or Sentinels."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def restart(self, *extra: str) -> None:
        """Start the killed process again, same port, directory and configuration, plus
        ``extra`` arguments (a cluster node comes back as a replica of whoever took over; a
        Sentinel-managed server is given ``--replicaof`` the new primary, as an operator must:
        started as it was, it would serve as an empty primary until a Sentinel demotes it)."""
        assert self.process.poll() is not None, f"{self.name} is still running"
        self.process = _spawn([*self.command, *extra])
        wait_for(lambda: _answers(self), FORM_TIMEOUT, f"{self.name} to answer PING again")

    @contextmanager
    def stopped(self) -> Iterator[None]:
        """SIGSTOP the process for the block, SIGCONT after: alive but silent (a replica that
        acknowledges nothing, without the disconnect a kill would show)."""
        self.process.send_signal(signal.SIGSTOP)
        try:
            yield
        finally:
            self.process.send_signal(signal.SIGCONT)

    def log_tail(self, lines: int = 15) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


@dataclass
class _Processes:
    """The processes of one topology and their directory, all gone at close()."""

    tmp: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="kt-", dir="/tmp")))
    nodes: list[Node] = field(default_factory=list)
    ports: set[int] = field(default_factory=set)

    def free_port(self, with_bus: bool = False) -> int:
        for _ in range(200):
            port = random.randint(20000, 30000) if with_bus else _bind_free(0)
            wanted = (port, port + CLUSTER_BUS_OFFSET) if with_bus else (port,)
            if not self.ports.intersection(wanted) and all(_bind_free(p) for p in wanted):
                self.ports.update(wanted)
                return port
        raise AssertionError("no free loopback port found in 200 tries")

    def start(self, name: str, args: Sequence[str], port: int) -> Node:
        log = self.tmp / f"{name}.log"
        command = [find_redis_server(), *args, "--logfile", str(log)]
        node = Node(name, port, _spawn(command), log, command)
        self.nodes.append(node)
        wait_for(lambda: _answers(node), FORM_TIMEOUT, f"{name} on port {port} to answer PING")
        return node

    def start_server(self, name: str, *extra: str, with_bus: bool = False) -> Node:
        port = self.free_port(with_bus)
        directory = self.tmp / name
        directory.mkdir()
        args = ["--port", str(port), "--bind", HOST, "--dir", str(directory), "--daemonize", "no"]
        return self.start(name, [*args, *EPHEMERAL_FLAGS, *extra], port)

    def close(self) -> None:
        for node in self.nodes:
            node.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)


def _spawn(command: Sequence[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
    )


def _bind_free(port: int) -> int:
    """``port`` (or, for 0, a kernel-picked one) if it can be bound on loopback now, else 0."""
    with socket.socket() as probe:
        try:
            probe.bind((HOST, port))
        except OSError:
            return 0
        return probe.getsockname()[1]


def _answers(node: Node) -> bool:
    assert node.process.poll() is None, (
        f"{node.name} exited with {node.process.returncode}:\n{node.log_tail()}"
    )
    try:
        with node.client() as client:
            return bool(client.ping())
    except redis.RedisError:
        return False


def _waited(predicate: object, what: str, nodes: Sequence[Node]) -> None:
    try:
        wait_for(predicate, FORM_TIMEOUT, what)
    except AssertionError as error:
        logs = "\n".join(f"--- {node.name}\n{node.log_tail()}" for node in nodes)
        raise AssertionError(f"{error}\n{logs}") from None


# -- a primary and its replica -----------------------------------------------------------------


@dataclass
class ReplicaSetup:
    url: str
    primary: Node
    replica: Node


@contextmanager
def replica_setup() -> Iterator[ReplicaSetup]:
    """1 primary and 1 replica of it, no Sentinels: what a replica acknowledges (WAIT)."""
    processes = _Processes()
    try:
        primary = processes.start_server("primary")
        replica = processes.start_server("replica", "--replicaof", HOST, str(primary.port))
        _waited(lambda: _linked(replica), "the replica to sync with the primary", [replica])
        yield ReplicaSetup(f"redis://{primary.address}", primary, replica)
    finally:
        processes.close()


# -- Sentinel ---------------------------------------------------------------------------------


@dataclass
class SentinelSetup:
    url: str
    primary: Node
    replica: Node
    sentinels: list[Node]
    started_in: float

    def primary_ports(self) -> set[int | None]:
        """The primary's port as each Sentinel sees it (None: that one did not answer)."""
        ports: set[int | None] = set()
        for sentinel in self.sentinels:
            try:
                with sentinel.client() as client:
                    ports.add(int(client.sentinel_get_master_addr_by_name(SERVICE)[1]))
            except redis.RedisError:
                ports.add(None)
        return ports

    def primary_port(self) -> int | None:
        """The primary's port as the first Sentinel that answers sees it."""
        for sentinel in self.sentinels:
            try:
                with sentinel.client() as client:
                    return int(client.sentinel_get_master_addr_by_name(SERVICE)[1])
            except redis.RedisError:
                continue
        return None


@contextmanager
def sentinel_setup() -> Iterator[SentinelSetup]:
    """1 primary, 1 replica, 3 Sentinels (quorum 2) watching them as service ``kurier``."""
    began = time.monotonic()
    processes = _Processes()
    try:
        primary = processes.start_server("primary")
        replica = processes.start_server("replica", "--replicaof", HOST, str(primary.port))
        _waited(lambda: _linked(replica), "the replica to sync with the primary", [replica])
        # Sentinels started after the replica is linked see it in their first INFO of the
        # primary, instead of at the next one 10 s later.
        sentinels = [_start_sentinel(processes, index, primary.port) for index in range(3)]
        _waited(
            lambda: all(_sentinel_ready(s, len(sentinels)) for s in sentinels),
            "every Sentinel to know the replica and the other Sentinels",
            sentinels,
        )
        hosts = ",".join(s.address for s in sentinels)
        setup = SentinelSetup(
            f"redis+sentinel://{hosts}/{SERVICE}",
            primary,
            replica,
            sentinels,
            started_in=time.monotonic() - began,
        )
        yield setup
    finally:
        processes.close()


def _start_sentinel(processes: _Processes, index: int, primary_port: int) -> Node:
    port = processes.free_port()
    name = f"sentinel{index}"
    config = processes.tmp / f"{name}.conf"  # a Sentinel rewrites its config: a file of its own
    config.write_text(
        f"port {port}\nbind {HOST}\ndir {processes.tmp}\ndaemonize no\n"
        f"sentinel monitor {SERVICE} {HOST} {primary_port} 2\n"
        f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
        f"sentinel failover-timeout {SERVICE} {FAILOVER_TIMEOUT_MS}\n"
        f"sentinel parallel-syncs {SERVICE} 1\n"
    )
    return processes.start(name, [str(config), "--sentinel"], port)


def _linked(replica: Node) -> bool:
    try:
        with replica.client() as client:
            return client.info("replication").get("master_link_status") == "up"
    except redis.RedisError:
        return False


def _sentinel_ready(sentinel: Node, count: int) -> bool:
    try:
        with sentinel.client() as client:
            state = client.sentinel_master(SERVICE)
    except redis.RedisError:
        return False
    return int(state["num-slaves"]) == 1 and int(state["num-other-sentinels"]) == count - 1


# -- Cluster ----------------------------------------------------------------------------------


@dataclass
class ClusterSetup:
    url: str
    nodes: list[Node]
    started_in: float

    def master_for(self, key: str, seconds: float = 10.0) -> Node:
        """The live node now serving ``key``'s slot as master. Right after a failover a node
        may still name the dead master (gossip takes a moment): ask every live node, and wait
        until one names a live master."""
        deadline = time.monotonic() + seconds
        while True:
            for node in self.nodes:
                if node.process.poll() is not None:
                    continue
                with node.client() as client:
                    slot = client.cluster("KEYSLOT", key)
                    for start, end, master, *_replicas in client.cluster("SLOTS"):
                        if start <= slot <= end:
                            serving = next(n for n in self.nodes if n.port == int(master[1]))
                            if serving.process.poll() is None:
                                return serving
            assert time.monotonic() < deadline, f"no live node names a live master of {key!r}"
            time.sleep(0.2)


@contextmanager
def cluster_setup(masters: int = 3, replicas_per_master: int = 0) -> Iterator[ClusterSetup]:
    """``masters`` masters (3 at least) with ``replicas_per_master`` replicas each."""
    began = time.monotonic()
    processes = _Processes()
    try:
        nodes = [
            processes.start_server(
                f"node{index}",
                *("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"),
                *("--cluster-node-timeout", str(NODE_TIMEOUT_MS)),
                # A replica may always take over, however long it was cut off (tests only).
                *("--cluster-replica-validity-factor", "0"),
                with_bus=True,
            )
            for index in range(masters * (1 + replicas_per_master))
        ]
        _create_cluster(nodes, replicas_per_master, processes.tmp)
        _waited(
            lambda: all(_cluster_ready(n, len(nodes)) for n in nodes), "cluster_state:ok", nodes
        )
        if replicas_per_master:
            replicas = [n for n in nodes if _is_replica(n)]
            assert len(replicas) == masters * replicas_per_master, "redis-cli made too few replicas"
            _waited(lambda: all(_linked(r) for r in replicas), "every replica to sync", replicas)
        hosts = ",".join(node.address for node in nodes)
        yield ClusterSetup(f"redis+cluster://{hosts}", nodes, time.monotonic() - began)
    finally:
        processes.close()


def _create_cluster(nodes: list[Node], replicas_per_master: int, tmp: Path) -> None:
    redis_cli = Path(find_redis_server()).with_name("redis-cli")
    command = [
        str(redis_cli if redis_cli.exists() else shutil.which("redis-cli") or "redis-cli"),
        "--cluster", "create", *(node.address for node in nodes),
        "--cluster-replicas", str(replicas_per_master), "--cluster-yes",
    ]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, timeout=FORM_TIMEOUT, cwd=tmp)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"redis-cli --cluster create took over {FORM_TIMEOUT} s") from None
    assert done.returncode == 0, (
        f"redis-cli --cluster create failed ({done.returncode}):\n"
        f"{done.stdout.decode(errors='replace')[-2000:]}{done.stderr.decode(errors='replace')}"
    )


def _cluster_ready(node: Node, count: int) -> bool:
    try:
        with node.client() as client:
            info = client.cluster("INFO")
    except redis.RedisError:
        return False
    return info.get("cluster_state") == "ok" and int(info.get("cluster_known_nodes", 0)) == count


def _is_replica(node: Node) -> bool:
    with node.client() as client:
        return client.info("replication").get("role") == "slave"
