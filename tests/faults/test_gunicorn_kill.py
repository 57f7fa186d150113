"""kill -9 gunicorn workers while many moves are in flight; the clients re-send every request
that got no answer with the same Idempotency-Key: each logical move applies at most once.

gunicorn's master respawns a killed worker. A request the worker had committed but not yet
answered is re-sent and replayed from its idempotency record (Idempotent-Replayed), never applied
a second time: each game's version rises by exactly the number of distinct keys that got a 2xx,
and its event log holds each of those moves once.

Bounded: 8 games, one client thread each, 3 kills, at most 45 s; loopback only.
"""

from __future__ import annotations

import os
import random
import signal
import time

from service.store.redis_server import EPHEMERAL_FLAGS, RedisServer
from tests.client import Kurier
from tests.faults.stack import (
    Mover,
    acked_total,
    children,
    moving,
    read_log,
    short_tmp,
    wait_for,
    web,
)

GAMES = 8
KILLS = 3
MOVES_BETWEEN_KILLS = 40


def test_retried_moves_apply_at_most_once_across_worker_kills() -> None:
    redis_server = RedisServer(short_tmp("kur-gk-"), EPHEMERAL_FLAGS)
    redis_server.start()
    try:
        with web(redis_server.url, workers=2, threads=4) as (base, master):
            run(base, master)
    finally:
        redis_server.stop()


def wait_for_workers(master: int, count: int, deadline: float) -> list[int]:
    while len(pids := children(master)) < count:
        assert time.monotonic() < deadline, "gunicorn did not respawn its worker"
        time.sleep(0.05)
    return pids


def run(base: str, master: int) -> None:
    k = Kurier(base)
    movers = []
    starts = {}
    for i in range(GAMES):
        game_id, players = k.new_game(2, seed=f"gunicorn-kill-{i}", game_type="attika")
        starts[game_id] = k.view(game_id)["version"]
        movers.append(Mover(base, game_id, players, random.Random(i).choice))
    deadline = time.monotonic() + 45
    killed = []
    with moving(movers, deadline):
        for n in range(KILLS):
            wait_for(movers, acked_total(movers) + MOVES_BETWEEN_KILLS, deadline, "moves stalled")
            pid = wait_for_workers(master, 2, deadline)[n % 2]
            os.kill(pid, signal.SIGKILL)  # mid-request: 8 clients keep both workers busy
            killed.append(pid)
        # The respawned workers serve.
        wait_for(
            movers, acked_total(movers) + MOVES_BETWEEN_KILLS, deadline, "moves stalled after kills"
        )
    assert len(wait_for_workers(master, 2, time.monotonic() + 10)) == 2
    failures = sum(m.failures for m in movers)
    assert failures > 0, "no request was cut off by the kills"

    for m in movers:
        log = read_log(base, m.game_id)
        assert [e["version"] for e in log] == list(range(1, len(log) + 1))
        final = k.view(m.game_id)["version"]
        assert final == len(log)
        versions = [body["version"] for body in m.acked.values()]
        # Each key applied once: distinct versions, and the version rose by exactly that many.
        assert len(set(versions)) == len(versions)
        assert final - starts[m.game_id] == len(m.acked), (final, starts[m.game_id], len(m.acked))
        moves = [e for e in log if e["version"] > starts[m.game_id]]
        assert all(e["kind"] == "move" for e in moves)
        assert sorted(e["version"] for e in moves) == sorted(versions)
        # A late retry of an applied move (as after a lost answer) replays it, changes nothing.
        key, body = next(iter(m.acked.items()))
        player, notation, if_match = m.sent[key]
        r = k.call(
            "POST",
            f"/v1/games/{m.game_id}/actions",
            player,
            json={"notation": notation},
            headers={"Idempotency-Key": key, "If-Match": if_match},
        )
        assert r.status_code == 200, r.text
        assert r.headers.get("Idempotent-Replayed") == "true"
        assert r.json()["version"] == body["version"]
        assert k.view(m.game_id)["version"] == final
    print(
        f"kills={killed} failures={failures} replayed={sum(m.replayed for m in movers)} "
        f"moves={sum(len(m.acked) for m in movers)}"
    )
