"""The embedded Redis launcher: durable defaults, unix socket only, data survives a restart."""

from __future__ import annotations

import stat
import tempfile
from pathlib import Path

import pytest
import redis

from service.redis_server import RedisLaunchError, RedisServer


def test_default_flags_persist_across_restart() -> None:
    data = Path(tempfile.mkdtemp(prefix="kur-aof-", dir="/tmp"))
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


def test_socket_path_too_long_is_refused() -> None:
    deep = Path("/tmp") / ("k" * 120)
    with pytest.raises(RedisLaunchError):
        RedisServer(deep).start()
