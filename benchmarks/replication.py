"""What waiting for a replica costs a change (``KURIER_WAIT_REPLICAS=1``), for docs/operations.md.

Not a test: ``.venv/bin/python benchmarks/replication.py [--games 6] [--seconds 60]``. Starts a
Sentinel-managed primary with one replica on loopback (tests/topologies.py: the launcher's
redis-server, 3 Sentinels), then plays random 3-player Attila games through the service's own
operations twice: without waiting, and with every commit followed by ``WAIT 1`` on its
connection. Prints the time ``Store.transact`` takes per change (p50, p95, p99) in both, and
the ratio. On loopback a replica acknowledges within a fraction of a millisecond; across
machines add the network's round trip.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.footprint import play_a_game
from service.store import Store
from tests.topologies import sentinel_setup

TIMES: list[float] = []
_transact = Store.transact


def _timed(self: Store, *args: Any, **kwargs: Any) -> Any:
    began = time.perf_counter()
    try:
        return _transact(self, *args, **kwargs)
    finally:
        TIMES.append(time.perf_counter() - began)


def _quantiles(values: list[float]) -> tuple[float, float, float]:
    cuts = statistics.quantiles(values, n=100)
    return cuts[49] * 1000, cuts[94] * 1000, cuts[98] * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    Store.transact = _timed  # type: ignore[method-assign]  # times every transaction
    results = {}
    with sentinel_setup() as setup:
        for wait in (0, 1):
            store = Store(setup.url, wait_replicas=wait)
            TIMES.clear()
            rng = random.Random(5)
            deadline = time.monotonic() + args.seconds / 2
            for _ in range(args.games):
                if time.monotonic() > deadline:
                    break
                play_a_game(store, rng)
            results[wait] = (len(TIMES), *_quantiles(TIMES))
            store.close()
    base = results[0]
    print(f"{'WAIT':<8}{'changes':>8}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}")
    for wait, (count, p50, p95, p99) in results.items():
        ratio = "" if wait == 0 else f"   p50 x{p50 / base[1]:.2f}, p99 x{p99 / base[3]:.2f}"
        name = "none" if wait == 0 else "WAIT 1"
        print(f"{name:<8}{count:>8}{p50:>9.2f}{p95:>9.2f}{p99:>9.2f}{ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
