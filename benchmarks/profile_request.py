"""Where the API's CPU goes per request: ``GET /v1/me`` and a move ``POST``, by part of the path.

Not a test: ``.venv/bin/python benchmarks/profile_request.py`` (bounded: ``--requests`` per
kind and ``--seconds`` per kind, whichever comes first; traffic only to a Redis of its own).

The bare framework of benchmarks/load.py (benchmarks/bare_app.py) is profiled the same way
first, as the floor the other two are compared with.

Method (what works on this machine, and why):

- py-spy (0.4.3, tried 2026-11-23, installed by hand: not a dependency) works on this machine
  when it starts the program (``py-spy record -- <command>``) or attaches to a process started
  by the same shell (a descendant); attaching to an unrelated running process was what failed
  before. It would need a dependency outside Python and a second pass over its output; cProfile
  is in the standard library but gives each function's own time, not the stack it ran under,
  and its per-call cost inflates small Python calls most.
- So this script samples itself. ``setitimer(ITIMER_PROF)`` sends SIGPROF each time the process
  has used ``--interval`` of CPU (the kernel checks at its clock tick, so in practice about every
  4 ms of CPU here); the handler runs in the main thread at the next bytecode and records the
  stack it interrupted. Each sample therefore stands for the same amount of CPU, wherever it is
  spent (a C call such as hiredis's parser or zlib counts for the Python frame that called it),
  and time blocked on a socket produces no samples: that is Redis's share of the wall time,
  shown as "waiting" (wall minus CPU).
- The app is the production one (``service.http.wsgi``: JSON logging to stderr, here /dev/null;
  multi-process Prometheus counters; the rate limiter on Redis, its budget out of reach as in
  benchmarks/load.py) against a real Redis started by the project's launcher with the
  production flags. Each request is a WSGI call of the app (no HTTP server: gunicorn's share is
  in the ``bare`` phase of benchmarks/load.py), on a WSGI environ built beforehand; only samples
  taken inside that call count, and the CPU per request is the main thread's CPU time measured
  around those calls without the profiler. The samples' shares then split that figure.
- Each sample goes to the first part of the ``PARTS`` list that any frame of its stack belongs
  to, so the order decides nesting: the engine inside ``Store.transact`` counts as the engine,
  the rate limiter's Redis call as the rate limiter, the token's player read (made by the
  limiter's key function) as authentication, ``Store.transact``'s own Redis calls as its round
  trips.
- Moves: Attila games of 3 players replay scripts made by the engine from their seeds (as in
  benchmarks/load.py); sealed conflicts are resolved between two requests by calling the
  worker's function in this process, outside the measured calls.

- The sampled pass also counts what redis-py sends (one send per command or pipeline): the
  Redis round trips per request.

The resolution is a few hundred samples per kind: parts under about 0.05 ms are noise. Figures
from a busy machine are CPU time, so less distorted than rates, but caches and frequency
scaling still make them vary: compare the shares more than the milliseconds.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from werkzeug.test import EnvironBuilder  # noqa: E402

from benchmarks.load import GAME_TYPE, make_script  # noqa: E402
from service.store.redis_server import PERSISTENT_FLAGS, RedisServer  # noqa: E402

Frame = tuple[str, str]  # (file, function)
Stack = tuple[CodeType, ...]


def _in(*paths: str) -> Callable[[Frame], bool]:
    return lambda frame: any(path in frame[0] for path in paths)


def _function(path: str, name: str) -> Callable[[Frame], bool]:
    return lambda frame: path in frame[0] and frame[1] == name


def _in_functions(*names: str) -> Callable[[Frame], bool]:
    return lambda frame: f"{ROOT}/service/" in frame[0] and frame[1] in names


def _redis(frame: Frame) -> bool:
    return "/redis/" in frame[0] or "/hiredis/" in frame[0]


#: Parts that own everything under them: (part, frames that make a sample belong to it, frames
#: that must also be on the stack). First match wins; see the module docstring.
PARTS: list[tuple[str, Callable[[Frame], bool], Callable[[Frame], bool] | None]] = [
    ("engine (load, validate, apply, dump)", _in(f"{ROOT}/engine/"), None),
    ("notifications planning", _in("service/domain/notifications.py"), None),
    ("rq job building", _in("/rq/", "service/store/queues.py"), None),
    # Before the limiter: its key function is what looks the token up first
    # (service/domain/ratelimit.py
    # caller_key), and the view's authentication then finds the player already in ``g``.
    (
        "auth: token -> player read (Redis)",
        _redis,
        _function("service/store/players.py", "for_token"),
    ),
    ("auth: token check and cache", _in_functions("for_token", "current_player"), None),
    ("rate limiter", _in("/flask_limiter/", "/limits/", "service/domain/ratelimit.py"), None),
    ("metrics", _in("service/ops/metrics.py", "/prometheus_client/"), None),
    ("logging (JSON access line)", _in("service/common/logs.py", "/logging/"), None),
    (
        "record and log: encode/decode (zlib, JSON of the state)",
        _in("service/store/record.py", "service/store/eventlog.py"),
        None,
    ),
    ("Store.transact: Redis round trips", _redis, _function("service/store/games.py", "transact")),
    (
        "Store.transact: the rest (the mutation's own code)",
        _function("service/store/games.py", "transact"),
        None,
    ),
]
#: What is left goes to the innermost of its frames that one of these owns (flask-smorest's
#: wrappers call the view: the view's Redis reads are not the wrapper's).
LEAVES: list[tuple[str, Callable[[Frame], bool]]] = [
    ("JSON (request and response bodies)", _in("/json/")),
    ("views: Redis reads", _redis),
    ("marshmallow", _in("/marshmallow/", "/webargs/")),
    ("views and service functions", _in(f"{ROOT}/service/", "benchmarks/bare_app.py")),
    ("Flask, werkzeug, flask-smorest dispatch", _in("/flask/", "/werkzeug/", "smorest")),
]
#: marshmallow's share is split by what it does: parse the request or shape the response.
PARSING = "argument parsing (webargs, marshmallow load)"
RESPONSE = "response (marshmallow dump)"
OTHER = "other"


# -- sampling ---------------------------------------------------------------------------------


class Sampler:
    """Stacks of the main thread, one per ``interval`` of the process's CPU time (SIGPROF)."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.stacks: Counter[Stack] = Counter()

    def _record(self, _signum: int, frame: FrameType | None) -> None:
        codes = []
        while frame is not None:
            codes.append(frame.f_code)
            frame = frame.f_back
        self.stacks[tuple(reversed(codes))] += 1

    def __enter__(self) -> Sampler:
        signal.signal(signal.SIGPROF, self._record)
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)
        return self

    def __exit__(self, *_exc: object) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, signal.SIG_DFL)


def part_of(stack: Stack) -> str | None:
    """The part a sample belongs to, or None outside a measured request."""
    frames = [(code.co_filename, code.co_name) for code in stack]
    if not any(name == serve.__name__ and file == __file__ for file, name in frames):
        return None
    inside = frames[[name for _file, name in frames].index(serve.__name__) + 1 :]
    for part, belongs, needs in PARTS:
        if any(belongs(frame) for frame in inside) and (
            needs is None or any(needs(frame) for frame in inside)
        ):
            return part
    for frame in reversed(inside):
        for part, belongs in LEAVES:
            if belongs(frame):
                if part == "marshmallow":
                    dumping = any(name in ("dump", "_serialize") for _file, name in inside)
                    return RESPONSE if dumping else PARSING
                return part
    return OTHER


# -- requests ---------------------------------------------------------------------------------


def _start_response(_status: str, _headers: list[Any], _exc: Any = None) -> Callable[..., Any]:
    return lambda _data: None


def serve(app: Any, environ: dict[str, Any]) -> tuple[int, bytes]:
    """One request through the WSGI app, body read and closed: the measured unit."""
    status: list[str] = []

    def start_response(line: str, headers: list[Any], exc: Any = None) -> Callable[..., Any]:
        status.append(line)
        return _start_response(line, headers, exc)

    result = app(environ, start_response)
    try:
        body = b"".join(result)
    finally:
        if hasattr(result, "close"):
            result.close()
    return int(status[0].split()[0]), body


def environ(method: str, path: str, token: str, body: Any = None) -> dict[str, Any]:
    headers = [("Authorization", f"Bearer {token}")]
    builder = EnvironBuilder(path=path, method=method, headers=headers, json=body)
    try:
        return builder.get_environ()
    finally:
        builder.close()


@dataclass
class Measure:
    requests: int = 0
    cpu: float = 0.0
    wall: float = 0.0
    statuses: Counter[int] | None = None
    round_trips: int = 0

    def add(self, cpu: float, wall: float, status: int) -> None:
        self.requests += 1
        self.cpu += cpu
        self.wall += wall
        if self.statuses is None:
            self.statuses = Counter()
        self.statuses[status] += 1


class RoundTrips:
    """Counts what redis-py sends (one send per command, one per pipeline): Redis round trips.
    The count of the sampled pass, whose CPU figure is not reported."""

    count = 0

    def __enter__(self) -> RoundTrips:
        from redis.connection import AbstractConnection

        self._original = original = AbstractConnection.send_packed_command

        def counted(conn: Any, command: Any, check_health: bool = True) -> None:
            RoundTrips.count += 1
            original(conn, command, check_health)  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated

        AbstractConnection.send_packed_command = counted  # type: ignore[method-assign]  # counts round trips
        return self

    def __exit__(self, *_exc: object) -> None:
        from redis.connection import AbstractConnection

        AbstractConnection.send_packed_command = self._original  # type: ignore[method-assign]  # restored


def timed(app: Any, requests: Iterator[dict[str, Any]], measure: Measure | None) -> None:
    for env in requests:
        cpu, wall = time.thread_time(), time.perf_counter()
        before = RoundTrips.count
        status, _ = serve(app, env)
        if measure is not None:
            measure.add(time.thread_time() - cpu, time.perf_counter() - wall, status)
            measure.round_trips += RoundTrips.count - before


# -- what is requested ------------------------------------------------------------------------


def bare_requests(count: int, deadline: float) -> Iterator[dict[str, Any]]:
    for _ in range(count):
        if time.monotonic() > deadline:
            return
        builder = EnvironBuilder(path="/bare")
        yield builder.get_environ()
        builder.close()


def me_requests(token: str, count: int, deadline: float) -> Iterator[dict[str, Any]]:
    for _ in range(count):
        if time.monotonic() > deadline:
            return
        yield environ("GET", "/v1/me", token)


class Games:
    """Attila games whose scripted moves are handed out one request at a time."""

    def __init__(self, app: Any, number: int, players: int = 3) -> None:
        from service.http.auth import store  # the app's own Store, for the worker's function

        self.client = app.test_client()
        with app.app_context():
            self.store = store()
        self.tables: list[tuple[str, list[str], list[tuple[int, str]], list[int]]] = []
        for n in range(number):
            seed = f"profile-{n}"
            tokens = [self._post("/v1/players", {"name": f"P{n}-{s}"})["token"] for s in range(3)]
            game = self._post(
                "/v1/games", {"type": GAME_TYPE, "seats": players, "seed": seed}, tokens[0]
            )
            for token in tokens[1:]:
                self._post(
                    f"/v1/games/{game['id']}/seats", {"invite_code": game["invite_code"]}, token
                )
            self._post(f"/v1/games/{game['id']}/start", None, tokens[0])
            self.tables.append((game["id"], tokens, make_script(players, seed), [0]))

    def _post(self, path: str, body: Any, token: str | None = None) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = self.client.post(path, json=body, headers=headers)
        assert response.status_code in (200, 201), response.get_json()
        answer: dict[str, Any] = response.get_json()
        return answer

    def resolve_pending(self) -> None:
        """What the worker would do: resolve every sealed conflict owed."""
        from service.domain.games import play

        for game_id, ref in self.store.indexes.pending_resolutions():
            play.resolve(self.store, game_id, ref)

    def moves(self, count: int, deadline: float, rng: random.Random) -> Iterator[dict[str, Any]]:
        for _ in range(count):
            live = [t for t in self.tables if t[3][0] < len(t[2])]
            if not live or time.monotonic() > deadline:
                return
            self.resolve_pending()
            game_id, tokens, script, position = rng.choice(live)
            seat, notation = script[position[0]]
            position[0] += 1
            yield environ(
                "POST", f"/v1/games/{game_id}/actions", tokens[seat], {"notation": notation}
            )


# -- report -----------------------------------------------------------------------------------


def report(
    title: str,
    measure: Measure,
    stacks: Counter[Stack],
    detail: int,
    rounds: Measure | None = None,
) -> None:
    parts: Counter[str] = Counter()
    leaves: dict[str, Counter[str]] = {}
    for stack, count in stacks.items():
        part = part_of(stack)
        if part is not None:
            parts[part] += count
            leaf = " < ".join(f"{Path(c.co_filename).name}:{c.co_name}" for c in stack[-3:][::-1])
            leaves.setdefault(part, Counter())[leaf] += count
    samples = sum(parts.values())
    cpu_ms = measure.cpu / max(measure.requests, 1) * 1000
    wall_ms = measure.wall / max(measure.requests, 1) * 1000
    print(f"\n{title}: {measure.requests} requests, statuses {dict(measure.statuses or {})}")
    print(f"CPU {cpu_ms:.2f} ms per request (wall {wall_ms:.2f} ms); {samples} samples\n")
    print("| part | CPU ms per request | share |")
    print("|---|---:|---:|")
    for part, count in parts.most_common():
        share = count / samples
        print(f"| {part} | {share * cpu_ms:.2f} | {share:.0%} |")
    print(f"| **total CPU** | **{cpu_ms:.2f}** | 100% |")
    print(f"| waiting (wall - CPU: Redis round trips, scheduling) | {wall_ms - cpu_ms:.2f} | |")
    if rounds is not None:
        trips = rounds.round_trips / max(rounds.requests, 1)
        print(f"\nRedis round trips per request: {trips:.2f} (sampled pass)")
    for part, count in parts.most_common() if detail else ():
        print(f"\n{part}: {count} samples; innermost frames of the most frequent:")
        for leaf, times in leaves[part].most_common(detail):
            print(f"  {times:4d}  {leaf}")


def profile(
    title: str, app: Any, make: Callable[[int, float], Iterator[dict[str, Any]]], args: Any
) -> None:
    # First without the profiler: the CPU per request that the samples split.
    plain = Measure()
    timed(app, make(args.requests, time.monotonic() + args.seconds / 2), plain)
    sampled = Measure()
    with Sampler(args.interval) as sampler, RoundTrips():
        timed(app, make(args.requests, time.monotonic() + args.seconds / 2), sampled)
    report(title, plain, sampler.stacks, args.detail, sampled)


@contextmanager
def app_on_redis(prefix: str) -> Iterator[Any]:
    """The service's WSGI app in this process on a Redis server of its own (persistent, as in
    production; limits out of the way), with the app's log sent to /dev/null; the server is
    stopped after."""
    work = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    server = RedisServer(work / "redis", PERSISTENT_FLAGS)
    server.start()
    os.environ.update(
        REDIS_URL=server.url,
        KURIER_RATE_LIMIT="1000000/minute",
        KURIER_SIGNUP_RATE_LIMIT="1000000/minute",
        PROMETHEUS_MULTIPROC_DIR=str(work / "metrics"),
    )
    (work / "metrics").mkdir()
    stderr, sys.stderr = sys.stderr, open(os.devnull, "w")  # noqa: SIM115 - the app's log
    try:
        from service.http.wsgi import app  # after the environment: it reads it at import

        sys.stderr = stderr  # the app's log handler keeps /dev/null
        print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores, load {os.getloadavg()}")
        yield app
    finally:
        sys.stderr = stderr
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000, help="per kind and pass (≤ 20000)")
    parser.add_argument("--seconds", type=float, default=20.0, help="per kind, both passes")
    parser.add_argument("--games", type=int, default=300, help="games the moves are spread over")
    parser.add_argument(
        "--warmup", type=int, default=200, help="unmeasured requests of each app first (smoke: 5)"
    )
    parser.add_argument("--interval", type=float, default=0.001, help="CPU seconds per sample")
    parser.add_argument(
        "--detail", type=int, default=0, help="show the N most frequent leaves of every part"
    )
    args = parser.parse_args()
    args.requests = min(args.requests, 20_000)
    args.seconds = min(args.seconds, 120.0)
    args.warmup = min(max(args.warmup, 1), 20_000)

    with app_on_redis("kur-profile-") as app:
        from benchmarks.bare_app import app as bare_app  # after the environment, like the app

        games = Games(app, args.games)
        token = games.tables[0][1][0]
        timed(app, me_requests(token, args.warmup, time.monotonic() + 5), None)  # warm up
        timed(bare_app, bare_requests(args.warmup, time.monotonic() + 5), None)
        profile(
            "GET /bare (the bare framework: Flask, one Redis GET)", bare_app, bare_requests, args
        )
        profile("GET /v1/me", app, lambda n, d: me_requests(token, n, d), args)
        rng = random.Random(1)
        profile(
            "POST /v1/games/{id}/actions (a move)", app, lambda n, d: games.moves(n, d, rng), args
        )


if __name__ == "__main__":
    main()
