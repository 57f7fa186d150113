"""A lever's CPU per move and its tail, switched on and off in one process between batches.

Not a test: ``.venv/bin/python benchmarks/switched.py --lever gc`` (bounded: ``--moves`` in
all, ``--seconds`` at most; traffic only to a Redis of its own).

On a shared machine two processes' runs of the same code differ by more than most levers are
worth; one process that alternates between the lever on and off, batch by batch
(``--batch`` moves each, in the order on, off, off, on, ... so neither side always comes
first; ``--first off`` begins with off), sees the same load, caches and Redis on both sides.
The ``null`` lever switches nothing: its two sides differ only by the noise.

Each move is a WSGI call of the production app (``service.http.wsgi``, as in
benchmarks/profile_request.py, whose games and requests this reuses): its CPU is the main
thread's ``thread_time`` around the call, its time the wall clock around it. The garbage
collector's own passes inside the calls are timed too (``gc.callbacks``), by generation.

Levers:

- ``null``: nothing;
- ``gc``: the app's objects frozen out of the collector's walks, as a gunicorn worker does
  after loading the app (``service.http.gunicorn_worker.freeze_loaded_app``), or not.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.profile_request import Games, app_on_redis, serve  # noqa: E402


@dataclass
class Lever:
    """What switches a lever on and off in this process."""

    on: Callable[[], None]
    off: Callable[[], None]


def _nothing() -> None:
    return None


def _frozen() -> None:
    """``freeze_loaded_app`` without its full collection first: a collection at each switch
    would also reset the counts the other side's collections follow."""
    gc.freeze()


LEVERS: dict[str, Lever] = {
    "null": Lever(_nothing, _nothing),
    "gc": Lever(_frozen, gc.unfreeze),
}


@dataclass
class Side:
    """One side's moves: CPU and wall time of each, and the collector's passes inside them."""

    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    collections: list[int] = field(default_factory=lambda: [0, 0, 0])
    collecting: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    longest: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    #: Redis's CPU seconds during the side's batches (its moves and what the batches do
    #: between them: the worker's resolutions, the same on both sides).
    redis_cpu: float = 0.0


class CollectorClock:
    """The collector's passes and their time, credited to whichever side is measuring."""

    def __init__(self) -> None:
        self.side: Side | None = None
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if self.side is None:
            return
        if phase == "start":
            self._began = time.perf_counter()
        else:
            generation = info["generation"]
            took = time.perf_counter() - self._began
            self.side.collections[generation] += 1
            self.side.collecting[generation] += took
            self.side.longest[generation] = max(self.side.longest[generation], took)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def redis_cpu(games: Games) -> float:
    """Redis's CPU seconds so far (user and system, all its threads)."""
    info = games.store.r.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def run(app: Any, games: Games, lever: Lever, args: argparse.Namespace) -> dict[str, Side]:
    sides = {"on": Side(), "off": Side()}
    clock = CollectorClock()
    gc.callbacks.append(clock)
    rng = random.Random(1)
    deadline = time.monotonic() + args.seconds
    order = ["on", "off", "off", "on"] if args.first == "on" else ["off", "on", "on", "off"]
    batch = 0
    done = 0
    try:
        while done < args.moves and time.monotonic() < deadline:
            name = order[batch % len(order)]
            batch += 1
            (lever.on if name == "on" else lever.off)()
            side = sides[name]
            moved = 0
            redis_before = redis_cpu(games)
            for env in games.moves(args.batch, deadline, rng):
                clock.side = side
                cpu, wall = time.thread_time(), time.perf_counter()
                status, _ = serve(app, env)
                side.wall.append(time.perf_counter() - wall)
                side.cpu.append(time.thread_time() - cpu)
                clock.side = None
                side.statuses[status] = side.statuses.get(status, 0) + 1
                moved += 1
            side.redis_cpu += redis_cpu(games) - redis_before
            if not moved:
                break
            done += moved
            if args.memory and batch % max(1, args.memory // args.batch) == 0:
                print(f"  after {done} moves: RSS {rss_mb():.1f} MB", flush=True)
    finally:
        gc.callbacks.remove(clock)
    return sides


def _ms(values: list[float], *quantiles: float) -> str:
    return " / ".join(f"{1000 * percentile(values, q):.2f}" for q in quantiles)


def report(lever: str, sides: dict[str, Side]) -> None:
    print(f"\nlever {lever}:\n")
    print(
        "| side | moves | CPU ms a move | Redis CPU ms a move | CPU p50 / p99 / p99.9 / max | "
        "wall p50 / p99 / p99.9 / max | collections 0/1/2 a 1,000 moves | collector ms a move "
        "| longest 0/1/2 ms |"
    )
    print("|---|---:|---:|---:|---|---|---|---:|---|")
    for name, side in sides.items():
        if not side.cpu:
            continue
        n = len(side.cpu)
        per_thousand = "/".join(f"{1000 * c / n:.1f}" for c in side.collections)
        longest = "/".join(f"{1000 * t:.1f}" for t in side.longest)
        print(
            f"| {name} | {len(side.cpu)} | {1000 * sum(side.cpu) / n:.3f} | "
            f"{1000 * side.redis_cpu / n:.3f} | "
            f"{_ms(side.cpu, 0.5, 0.99, 0.999, 1.0)} | {_ms(side.wall, 0.5, 0.99, 0.999, 1.0)} | "
            f"{per_thousand} | {1000 * sum(side.collecting) / n:.3f} | {longest} |"
        )
    print(f"statuses: { {name: side.statuses for name, side in sides.items()} }")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"RSS {rss_mb():.1f} MB (peak {peak:.1f} MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lever", choices=sorted(LEVERS), default="null")
    parser.add_argument("--moves", type=int, default=20_000, help="in all, both sides")
    parser.add_argument("--batch", type=int, default=25, help="moves between switches")
    parser.add_argument("--first", choices=("on", "off"), default="on", help="the first side")
    parser.add_argument("--seconds", type=float, default=300.0, help="at most (≤ 900)")
    parser.add_argument("--games", type=int, default=300, help="games the moves are spread over")
    parser.add_argument("--memory", type=int, default=0, help="print RSS every N moves")
    args = parser.parse_args()
    args.seconds = min(args.seconds, 900.0)

    with app_on_redis("kur-switched-") as app:
        games = Games(app, args.games)
        print(f"{args.games} games set up; RSS {rss_mb():.1f} MB; load {os.getloadavg()}")
        sides = run(app, games, LEVERS[args.lever], args)
        report(args.lever, sides)
        print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
