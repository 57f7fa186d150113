"""Benchmark the API on loopback: moves/s for one API process, and Redis bytes per game.

Starts its own Redis (the embedded launcher, no persistence), one ``kurier worker`` and
``kurier web`` with ``--workers`` gunicorn processes on 127.0.0.1, then ``--clients`` threads
each play 2-player Attila games over HTTP (GET the game, GET legal actions, POST a random one)
for ``--seconds``. Prints moves/s, requests/s, the machine baseline of scripts/bench_engine.py
and the ratio, then MEMORY USAGE of the keys of games after their moves. Bounded in time and
count; sends traffic only to 127.0.0.1. Not a test: ``python scripts/bench_api.py``.
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.bench_engine import baseline_units_per_second  # noqa: E402
from service.redis_server import EPHEMERAL_FLAGS, RedisServer  # noqa: E402
from service.store import Store, events_key, game_key  # noqa: E402

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Client:
    def __init__(self, base: str, seed: int) -> None:
        self.base = base
        self.http = requests.Session()
        self.rng = random.Random(seed)
        self.moves = self.requests = 0
        self.latencies: list[float] = []

    def call(self, method: str, path: str, token: str | None = None, **kw: object) -> dict:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = self.http.request(method, self.base + path, headers=headers, timeout=10, **kw)  # type: ignore[arg-type]
        self.requests += 1
        return r.json() if r.content else {}

    def new_game(self) -> tuple[str, list[str]]:
        tokens = [self.call("POST", "/v1/players", json={"name": f"B{i}"})["token"] for i in (0, 1)]
        game = self.call("POST", "/v1/games", tokens[0], json={"type": "attila", "seats": 2})
        self.call(
            "POST",
            f"/v1/games/{game['id']}/seats",
            tokens[1],
            json={"invite_code": game["invite_code"]},
        )
        self.call("POST", f"/v1/games/{game['id']}/start", tokens[0])
        return game["id"], tokens

    def play(self, deadline: float, max_moves: int) -> None:
        game_id, tokens = self.new_game()
        while time.monotonic() < deadline and self.moves < max_moves:
            view = self.call("GET", f"/v1/games/{game_id}")
            if view["status"] != "active":
                game_id, tokens = self.new_game()
                continue
            seats = [d["seat"] for d in view["waiting_for"] if d["seat"] >= 0]
            if not seats:
                time.sleep(0.01)  # the worker is resolving a conflict
                continue
            token = tokens[seats[0]]
            legal = self.call("GET", f"/v1/games/{game_id}/legal-actions", token)["actions"]
            if not legal:
                continue
            started = time.perf_counter()
            self.call(
                "POST",
                f"/v1/games/{game_id}/actions",
                token,
                json={"notation": self.rng.choice(legal)["notation"]},
            )
            self.latencies.append(time.perf_counter() - started)
            self.moves += 1


def bytes_per_game(store: Store, sample: int = 50) -> tuple[float, float, float]:
    """Mean MEMORY USAGE of a game's hash and event stream, and its mean version."""
    ids = [k.split("{")[1].rstrip("}") for k in store.r.scan_iter("kurier:game:{*}", _type="hash")]
    ids = ids[:sample]
    sizes = [
        (store.r.memory_usage(game_key(g), samples=0) or 0)
        + (store.r.memory_usage(events_key(g), samples=0) or 0)
        for g in ids
    ]
    versions = [int(store.r.hget(game_key(g), "version") or 0) for g in ids]
    return (
        statistics.mean(sizes),
        statistics.mean(versions),
        float(store.r.info("memory")["used_memory"]),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=1, help="gunicorn processes")
    parser.add_argument("--max-moves", type=int, default=200_000)
    args = parser.parse_args()

    server = RedisServer(Path(tempfile.mkdtemp(prefix="kur-bench-", dir="/tmp")), EPHEMERAL_FLAGS)
    server.start()
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": server.url,
        "KURIER_PORT": str(port),
        "KURIER_HOST": "127.0.0.1",
        "KURIER_WEB_WORKERS": str(args.workers),
        "KURIER_LOG_LEVEL": "WARNING",
    }
    quiet = subprocess.DEVNULL
    procs = [
        subprocess.Popen([str(BIN / "kurier"), "worker"], env=env, stdout=quiet, stderr=quiet),
        subprocess.Popen([str(BIN / "kurier"), "web"], env=env, stdout=quiet, stderr=quiet),
    ]
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(150):  # up to 30 s for gunicorn and the worker
            try:
                if requests.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            time.sleep(0.2)
        baseline = baseline_units_per_second()
        clients = [Client(base, i) for i in range(args.clients)]
        deadline = time.monotonic() + args.seconds
        threads = [
            threading.Thread(target=c.play, args=(deadline, args.max_moves // args.clients))
            for c in clients
        ]
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join(args.seconds + 30)
        elapsed = time.perf_counter() - started
        moves = sum(c.moves for c in clients)
        reqs = sum(c.requests for c in clients)
        latencies = sorted(x for c in clients for x in c.latencies)
        p50 = latencies[len(latencies) // 2] * 1000
        p95 = latencies[int(len(latencies) * 0.95)] * 1000
        print(f"baseline: {baseline:.1f} units/s (scripts/bench_engine.py)")
        print(
            f"gunicorn processes: {args.workers}, client threads: {args.clients}, {elapsed:.1f} s"
        )
        print(
            f"moves/s: {moves / elapsed:.1f}  requests/s: {reqs / elapsed:.1f}  "
            f"move p50 {p50:.1f} ms p95 {p95:.1f} ms"
        )
        print(f"moves/s per baseline unit: {moves / elapsed / baseline:.3f}")
        size, version, used = bytes_per_game(Store(server.url))
        print(
            f"Redis: {size:.0f} bytes per game (hash + events) at mean version {version:.0f} "
            f"= {size / max(version, 1):.0f} bytes per version; used_memory {used / 1e6:.1f} MB"
        )
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(60)
        server.stop()


if __name__ == "__main__":
    main()
