"""kill -9 Redis during a stream of moves over HTTP, restart it on the same data directory:
every move that got a 2xx is in the event log, and the games play on.

Redis runs here with ``appendfsync always``: each write is fsynced to the AOF before Redis
answers, so an acknowledged move survives anything short of losing the disk. The launcher's
default is ``everysec`` (docs/operations.md, "Persistence"): a killed Redis *process* then
normally loses nothing (the AOF write has reached the OS page cache before the reply), but a
power loss or kernel crash can lose up to about the last second of acknowledged moves, and
while a slow disk delays a background fsync Redis may postpone the AOF write itself by up to 2 s.
The issue's promise "every move that got a 2xx is there" is the ``always`` guarantee, so that
is what this test asserts.

Bounded: 3 games, one client thread each, at most 45 s in all; loopback and a unix socket only.
"""

from __future__ import annotations

import random
import time
from typing import Any

from service.domain import pinning
from service.store import Store
from service.store.redis_server import PERSISTENT_FLAGS, RedisServer
from tests.client import Kurier
from tests.faults.stack import Mover, acked_total, moving, read_log, short_tmp, wait_for, web

DURABLE_FLAGS = tuple("always" if f == "everysec" else f for f in PERSISTENT_FLAGS)
GAMES = 3
BEFORE = 30  # acknowledged moves before the kill
AFTER = 30  # acknowledged moves after the restart


def test_acknowledged_moves_survive_kill_9_of_redis() -> None:
    assert "always" in DURABLE_FLAGS
    data_dir = short_tmp("kur-aof-")
    redis_server = RedisServer(data_dir, DURABLE_FLAGS)
    redis_server.start()
    try:
        with web(redis_server.url, workers=2, threads=4) as (base, _master):
            run(base, redis_server)
    finally:
        redis_server.stop()


def public(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events a spectator sees (the log is read without a token)."""
    return [e for e in events if "audience" not in e]


def run(base: str, redis_server: RedisServer) -> None:
    k = Kurier(base)
    movers = []
    for i in range(GAMES):
        game_id, players = k.new_game(2, seed=f"redis-kill-{i}", game_type="attika")
        rng = random.Random(i)
        movers.append(Mover(base, game_id, players, rng.choice))
    deadline = time.monotonic() + 45
    with moving(movers, deadline):
        wait_for(movers, BEFORE, deadline)
        redis_server.process.kill()  # SIGKILL, mid-stream
        redis_server.process.wait()
        killed_at = acked_total(movers)
        time.sleep(0.5)  # the API answers errors meanwhile; the clients keep retrying
        redis_server.start()  # same data directory, same flags: the AOF is replayed
        wait_for(movers, killed_at + AFTER, deadline)
    assert sum(m.failures for m in movers) > 0, "the kill was never noticed by a client"

    store = Store(redis_server.url)
    try:
        for m in movers:
            log = read_log(base, m.game_id)
            by_version = {e["version"]: e for e in log}
            assert [e["version"] for e in log] == list(range(1, len(log) + 1))
            assert k.view(m.game_id)["version"] == len(log)
            for key, body in m.acked.items():
                entry = by_version.get(body["version"])
                assert entry is not None, f"acknowledged move {key} lost: {body}"
                assert entry["kind"] == "move"
                assert public(entry["events"]) == public(body["events"])
            verdict = pinning.verify(store, m.game_id)
            assert verdict.ok, verdict
    finally:
        store.close()
