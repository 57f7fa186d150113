"""The embedded Redis launcher: durable defaults, unix socket only, data survives a restart."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from service.store.redis_server import EPHEMERAL_FLAGS, RedisLaunchError, RedisServer
from tests.conftest import short_tmp

ROOT = Path(__file__).resolve().parent.parent


def test_default_flags_persist_across_restart() -> None:
    data = short_tmp("kur-aof-")
    with RedisServer(data) as server:
        client = redis.Redis.from_url(server.url, decode_responses=True)
        config = client.config_get("*")
        assert config["appendonly"] == "yes"
        assert config["appendfsync"] == "everysec"
        assert config["maxmemory-policy"] == "noeviction"
        assert config["port"] == "0"  # no TCP listener at all
        assert stat.S_IMODE(server.socket.stat().st_mode) == 0o700
        client.set("kurier:test:durable", "yes")
        client.close()
    assert server.process is not None and server.process.returncode == 0  # clean shutdown
    with RedisServer(data) as again:
        client = redis.Redis.from_url(again.url, decode_responses=True)
        assert client.get("kurier:test:durable") == "yes"
        client.close()


def test_a_short_log_does_not_pay_for_a_whole_stream_node() -> None:
    """Redis allocates a new stream node at ``stream-node-max-bytes`` (at most 4 KB) and only
    shrinks it once full: at the default 4 KB, a game's log of a few entries cost 4.3 KB, a
    third of an active game's bytes. The launcher's 1 KB nodes keep it near its content."""
    streams, entries = 200, 10
    with RedisServer(short_tmp("kur-stream-"), EPHEMERAL_FLAGS) as server:
        client = redis.Redis.from_url(server.url)
        before = client.info("memory")["used_memory"]
        pipe = client.pipeline(transaction=False)
        for stream in range(streams):
            for _ in range(entries):  # a log entry: ~90 bytes of deflated JSON
                pipe.xadd(f"kurier:test:log:{stream}", {"z": os.urandom(90)})
        pipe.execute()
        per_stream = (client.info("memory")["used_memory"] - before) / streams
        client.close()
    assert entries * 90 < per_stream < 2048, per_stream


def test_socket_path_too_long_is_refused() -> None:
    deep = Path("/tmp") / ("k" * 120)
    with pytest.raises(RedisLaunchError):
        RedisServer(deep).start()


def test_a_second_redis_on_a_running_data_dir_is_refused() -> None:
    """It would take over the socket and write the same AOF (two `kurier run` in one place)."""
    with RedisServer(short_tmp("kur-two-"), EPHEMERAL_FLAGS) as first:
        with pytest.raises(RedisLaunchError, match=r"already runs in .*KURIER_DATA_DIR"):
            RedisServer(first.data_dir, EPHEMERAL_FLAGS).start()
        assert first.answering()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_kurier_redis_stops_on_a_signal(signum: int) -> None:
    """Issue 17: its SIGTERM handler waited on Redis inside the interrupted wait: it hung."""
    data = short_tmp("kur-sig-")
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "redis"],
        env={**os.environ, "KURIER_DATA_DIR": str(data)},
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("REDIS_URL=unix://")  # Redis answers PING
        client = redis.Redis(unix_socket_path=str(data / "redis.sock"), socket_timeout=5)
        redis_pid = int(client.info("server")["process_id"])
        client.close()
        time.sleep(0.5)  # in its wait loop
        proc.send_signal(signum)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    with pytest.raises(ProcessLookupError):  # redis-server stopped (and reaped) with it
        os.kill(redis_pid, 0)
