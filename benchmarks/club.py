"""The club's pages: a profile and a leaderboard with 10,000 rated players.

The target: ``GET /players/<id>`` and ``GET /leaderboards/<type>`` answer with p95 ≤ 50 ms
when 10,000 players are rated. Starts its own stack as benchmarks/load.py does (Redis with the
production flags, one ``kurier worker``, ``kurier web`` = gunicorn with the service's settings),
then seeds it through the service's own functions: ``--players`` players
(``Store.create_player``), each rated in about three 2-player Attila games
(``ratings.apply_ratings``, the rating job's function, so the leaderboard, the per-player hash
and the rating histories are what rating real games writes); one player also in ``--history``
more (a long rating plot) and in ``--real`` games played to their end with random legal moves
and rated by the worker (recent games, stats, reliability). Then each URL is requested one at
a time, ``--requests`` times, and its latency printed (loopback: the server's time and one
hop), after ``--warmup`` requests of each URL to warm every gunicorn process up; then the pages once
more in this process (Flask's test client on the same Redis), timed as CPU time of the thread:
the server's own work per page, whatever else runs on the machine.

Requests only to 127.0.0.1. Not a test: ``.venv/bin/python benchmarks/club.py``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.load import latency_line, percentile  # noqa: E402
from benchmarks.stack import Stack  # noqa: E402
from service.domain import ratings  # noqa: E402
from service.store import Store  # noqa: E402
from tests.game_helpers import Table, play_random  # noqa: E402

TARGET_P95_MS = 50.0


def _wait(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if requests.get(url, timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise SystemExit(f"{url} did not answer")


def seed(store: Store, args: argparse.Namespace) -> str:
    """The players, their ratings, and the profiled player (its id)."""
    rng = random.Random(7)
    started = time.monotonic()
    players = [store.players.create(f"Player {i}", None)[0] for i in range(args.players)]
    ids = [p["id"] for p in players]
    games = 0
    for round_ in range(3):
        order = ids[:]
        rng.shuffle(order)
        for a, b in zip(order[::2], order[1::2], strict=False):
            ranks = [0, 1] if rng.random() < 0.5 else [1, 0]
            game_id = f"bench-{round_}-{games}"
            ratings.apply_ratings(store, "attila", game_id, [(a, ranks[0]), (b, ranks[1])])
            games += 1
    star = players[0]
    for i in range(args.history):
        other = rng.choice(ids[1:])
        won = rng.random() < 0.6
        ranked = [(star["id"], 0 if won else 1), (other, 1 if won else 0)]
        ratings.apply_ratings(store, "attila", f"bench-star-{i}", ranked)
        games += 1
    print(f"seeded {len(ids)} players, {games} rated games in {time.monotonic() - started:.0f} s")
    from service.domain.games import lifecycle

    for i in range(args.real):
        opponent = players[1 + i]
        created = lifecycle.create_game(store, star, "attila", {}, f"club-{i}", 2).body
        lifecycle.join_game(store, opponent, created["id"], created["invite_code"])
        lifecycle.start_game(store, star, created["id"])
        play_random(store, Table(created["id"], [star, opponent]), 5000, seed=i)
        ratings.rate_game(store, created["id"])  # the worker too: applied once
    return str(star["id"])


def timed(session: requests.Session, url: str, count: int) -> list[float]:
    out = []
    for _ in range(count):
        began = time.perf_counter()
        r = session.get(url, timeout=10)
        out.append(time.perf_counter() - began)
        assert r.status_code == 200, (url, r.status_code)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10_000, help="rated players")
    parser.add_argument("--history", type=int, default=300, help="rated games of the profiled one")
    parser.add_argument("--real", type=int, default=3, help="real games of the profiled one")
    parser.add_argument("--requests", type=int, default=300, help="per measured URL (≤ 5000)")
    parser.add_argument(
        "--warmup", type=int, default=20, help="unmeasured requests per URL first (smoke run: 1)"
    )
    parser.add_argument(
        "--web-workers", type=int, default=0, help="gunicorn processes (0: the default)"
    )
    args = parser.parse_args()
    args.requests = max(1, min(args.requests, 5000))
    args.warmup = max(1, min(args.warmup, 1000))
    stack_args = argparse.Namespace(
        workers=1, web_workers=args.web_workers or None, web_threads=4, streams=0
    )
    stack = Stack(stack_args, with_bare=False)
    stack.start()
    try:
        _wait(stack.base + "/healthz")
        store = Store(stack.redis.url)
        star = seed(store, args)
        session = requests.Session()
        first = session.get(f"{stack.base}/v1/leaderboards/attila?limit=100").json()
        deep = cursor = first["next_cursor"]
        for _ in range(20):  # 2,000 places down, or the last page
            if cursor is None:
                break
            deep = cursor
            url = f"{stack.base}/v1/leaderboards/attila?limit=100&after={cursor}"
            cursor = session.get(url).json()["next_cursor"]
        urls = {
            "page /players/{id}": f"/players/{star}",
            "page /leaderboards/attila": "/leaderboards/attila",
            "page /leaderboards/attila?after=(deep)": (
                f"/leaderboards/attila?after={deep}" if deep else "/leaderboards/attila"
            ),
            "page /leaderboards/attila?min_games=5": "/leaderboards/attila?min_games=5",
            "page /watch": "/watch",
            "api /v1/players/{id}": f"/v1/players/{star}",
            "api /v1/leaderboards/attila": "/v1/leaderboards/attila",
        }
        print(f"{args.players} rated players; {args.requests} requests per URL, one at a time")
        worst = 0.0
        for path in urls.values():  # every gunicorn process renders each page once first
            timed(session, stack.base + path, args.warmup)
        for label, path in urls.items():
            times = timed(session, stack.base + path, args.requests)
            p95 = percentile([t * 1000 for t in times], 0.95)
            if label.startswith("page /players") or label == "page /leaderboards/attila":
                worst = max(worst, p95)
            print(f"{label:48} {latency_line(times)}")
        # The same pages in this process (Flask's test client, the same Redis): the CPU time
        # the server's own code takes per page (thread time: waiting for a core is not in it),
        # the figure that does not depend on what else the machine runs.
        from service.http.app import create_app

        app = create_app({"REDIS_URL": stack.redis.url, "RATE_LIMIT": "1000000/minute"})
        client = app.test_client()
        for label, path in urls.items():
            if not label.startswith("page"):
                continue
            cpu = []
            for _ in range(args.requests):
                began = time.thread_time()
                assert client.get(path).status_code == 200
                cpu.append(time.thread_time() - began)
            print(f"cpu {label[5:]:44} {latency_line(cpu)}")
        verdict = "meets" if worst <= TARGET_P95_MS else "MISSES"
        print(
            f"profile and leaderboard p95 {worst:.1f} ms: {verdict} the"
            f" {TARGET_P95_MS:.0f} ms target"
        )
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
