"""Load benchmark: many concurrent Attila games through the real stack, on loopback.

Starts its own stack exactly as ``kurier run`` does (Redis from the project's launcher with the
production flags, ``kurier worker`` processes, ``kurier web`` = gunicorn), creates ``--games``
Attila games over HTTP and then measures, in one run:

1. ``redis``: raw Redis round trips (PING through redis-py on the service's socket);
2. ``bare``: the bare framework (benchmarks/bare_app.py: a Flask route doing one Redis GET with
   the service's Redis client), served by gunicorn with the service's settings, driven by the
   same client at the same concurrency for the same time as ``trivial``; stopped afterwards.
   The closed-loop phases below are also printed as a ratio to it;
3. ``trivial``: an authenticated trivial endpoint (``GET /v1/me``), closed loop at
   ``--concurrency`` requests in flight: the stack's ceiling in requests/s;
4. ``saturate``: moves, closed loop at the same concurrency: the ceiling in moves/s, and the
   ratio moves/s : trivial requests/s. Each loop plays its own 4 games (128 at 32 in flight,
   well into their middle in 8 s) unless ``--saturate-games`` says how many to share out;
5. ``open``: moves offered at a fixed ``--rate`` spread over all ``--games`` (open loop, so a
   slow server cannot slow the offered load down): moves/s, p50/p95/p99 latency, errors;
6. sealed-conflict resolution latency (the last sealed choice's commit to the worker's
   resolution, both timestamps written by the server in their transactions);
7. Redis memory per active game (``used_memory`` growth over the games, and per key kind).

With ``--streams N`` the stack also runs the stream server (``kurier streams``) and, from the
end of the ``bare`` phase to the end of the run, N game streams stay open (spread over the
games, read by a process of their own, benchmarks/stream_readers.py, as clients elsewhere
would): the API's figures with the streams open (issue 14), the readers' CPU as ``stream
readers``, and the events the streams received.

Every game follows a script made beforehand by the engine from the game's seed (random legal
actions, as in scripts/bench_engine.py): the client needs no extra request to choose a move,
and every move is still judged by the server. A move that arrives while the worker has not yet
resolved a conflict gets 409 ``not-your-turn``; the client tries again 5 ms later (counted as
``waits``, not as errors). Bounded in time (``--seconds`` per phase) and count (``--games``);
sends traffic only to 127.0.0.1. Not a test: ``.venv/bin/python benchmarks/load.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import aiohttp
import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bare_app import BARE_KEY  # noqa: E402
from benchmarks.stack import CpuMeter, Stack  # noqa: E402
from engine.core import SYSTEM  # noqa: E402
from engine.registry import get_game  # noqa: E402
from service.store import Store  # noqa: E402

GAME_TYPE = "attila"
#: A move refused while the worker resolves a conflict is tried again this much later.
RETRY_WAIT = 0.025


# -- scripts: the moves each game will make -----------------------------------------------------


def make_script(
    players: int, seed: str, game_type: str = GAME_TYPE, moves: int | None = None
) -> list[tuple[int, str]]:
    """(seat, notation) of the player actions of a random game (every one, or the first
    ``moves``); the worker's resolutions are left out (the server makes them)."""
    game = get_game(game_type)
    state = game.new_state(players, seed, game.resolve_options(None))
    rng = random.Random(seed)
    script: list[tuple[int, str]] = []
    while (decisions := game.pending(state)) and (moves is None or len(script) < moves):
        seat = decisions[0].seat
        action = rng.choice(game.legal_actions(state, seat))
        if seat != SYSTEM:
            script.append((seat, game.notation(action)))
        game.apply(state, seat, action)
    return script


# -- the client ---------------------------------------------------------------------------------


@dataclass
class Table:
    """One game as the load generator plays it."""

    id: str
    tokens: list[str]
    script: list[tuple[int, str]]
    next: int = 0
    #: Until then the game waits for the worker (a conflict being resolved).
    blocked_until: float = 0.0

    @property
    def done(self) -> bool:
        return self.next >= len(self.script)


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    waits: int = 0
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


class Client:
    def __init__(self, session: aiohttp.ClientSession, base: str) -> None:
        self.http = session
        self.base = base

    async def call(
        self, method: str, path: str, token: str | None = None, body: Any = None
    ) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with self.http.request(
            method, self.base + path, json=body, headers=headers
        ) as response:
            return response.status, await response.json(content_type=None)

    async def setup_call(
        self, method: str, path: str, token: str | None = None, body: Any = None
    ) -> tuple[int, Any]:
        """A setup request, sent again (at most twice) when the connection it went out on had
        just been closed: gunicorn drops a keep-alive connection idle for 2 s, and aiohttp
        does not resend a POST on its own (runs on a busy machine failed there, old code too).
        """
        for attempt in range(3):
            try:
                return await self.call(method, path, token, body)
            except aiohttp.ClientConnectionError:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def new_table(
        self, number: int, players: int, script: list[tuple[int, str]], seed: str
    ) -> Table:
        tokens = []
        call = self.setup_call
        for seat in range(players):
            status, body = await call("POST", "/v1/players", body={"name": f"L{number}-{seat}"})
            assert status == 201, body
            tokens.append(body["token"])
        spec = {"type": GAME_TYPE, "seats": players, "seed": seed}
        status, game = await call("POST", "/v1/games", tokens[0], spec)
        assert status == 201, game
        for token in tokens[1:]:
            joined = {"invite_code": game["invite_code"]}
            status, body = await call("POST", f"/v1/games/{game['id']}/seats", token, joined)
            assert status == 201, body
        status, body = await call("POST", f"/v1/games/{game['id']}/start", tokens[0])
        assert status == 200, body
        return Table(game["id"], tokens, script)

    async def move(self, table: Table, tally: Tally, deadline: float, wait: bool = True) -> bool:
        """Play the table's next scripted move; True once the server took it. While the worker
        resolves a conflict, try again ``RETRY_WAIT`` later (``wait``) or give up for now."""
        seat, notation = table.script[table.next]
        path = f"/v1/games/{table.id}/actions"
        while time.monotonic() < deadline:
            started = time.perf_counter()
            try:
                status, body = await self.call(
                    "POST", path, table.tokens[seat], {"notation": notation}
                )
            except (aiohttp.ClientError, TimeoutError) as error:
                tally.error(type(error).__name__)
                return False
            if status in (200, 202):
                tally.latencies.append(time.perf_counter() - started)
                tally.moves += 1
                table.next += 1
                return True
            if status == 409 and body.get("code") == "not-your-turn":
                tally.waits += 1  # the worker has not resolved the conflict yet
                if not wait:
                    table.blocked_until = time.monotonic() + RETRY_WAIT
                    return False
                await asyncio.sleep(RETRY_WAIT)
                continue
            tally.error(f"{status} {body.get('code')}")
            table.next = len(table.script)  # the script no longer fits: leave this game
            return False
        return False


async def run_closed(
    concurrency: int, seconds: float, one: Callable[[int], Awaitable[bool]]
) -> tuple[int, float]:
    """``concurrency`` loops calling ``one(i)`` for ``seconds``; (completed calls, elapsed)."""
    deadline = time.monotonic() + seconds
    done = 0

    async def loop(i: int) -> None:
        nonlocal done
        while time.monotonic() < deadline:
            if await one(i):
                done += 1

    started = time.perf_counter()
    await asyncio.gather(*(loop(i) for i in range(concurrency)))
    return done, time.perf_counter() - started


@dataclass
class Saturation:
    moves: int
    elapsed: float
    tally: Tally
    #: Loops that played all their games out before the deadline.
    ran_dry: set[int]


async def saturate(
    client: Client, tables: list[Table], concurrency: int, seconds: float
) -> Saturation:
    """Moves, closed loop: ``concurrency`` loops, each playing its own share of ``tables`` one
    move at a time, for ``seconds``."""
    tally = Tally()
    deadline = time.monotonic() + seconds
    ran_dry: set[int] = set()

    async def one_move(i: int) -> bool:
        now = time.monotonic()
        mine = [t for t in tables[i::concurrency] if not t.done]
        if not mine:
            # This loop's games are over (at 900 moves/s a share can be played out in 8 s):
            # it idles until the deadline. It slept a whole phase's length before, and the
            # phase waited for it: the figure came out halved (docs/performance.md).
            ran_dry.add(i)
            await asyncio.sleep(max(0.0, deadline - now))
            return False
        ready = [t for t in mine if t.blocked_until <= now]
        if not ready:
            await asyncio.sleep(RETRY_WAIT)
            return False
        return await client.move(random.choice(ready), tally, deadline, wait=False)

    count, elapsed = await run_closed(concurrency, seconds, one_move)
    return Saturation(count, elapsed, tally, ran_dry)


async def run_open(client: Client, tables: list[Table], rate: float, seconds: float) -> Tally:
    """Each table moves every ``len(tables) / rate`` seconds, whatever the server does."""
    tally = Tally()
    interval = len(tables) / rate
    start = time.monotonic()
    deadline = start + seconds
    rng = random.Random(1)

    async def play(table: Table) -> None:
        due = start + rng.uniform(0, interval)
        while not table.done and due < deadline:
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            await client.move(table, tally, deadline + 5)
            due += interval

    await asyncio.gather(*(play(table) for table in tables))
    return tally


# -- measuring -----------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def latency_line(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (
        f"p50 {percentile(ms, 0.50):.1f} ms  p95 {percentile(ms, 0.95):.1f} ms  "
        f"p99 {percentile(ms, 0.99):.1f} ms  max {max(ms, default=float('nan')):.1f} ms"
    )


def redis_round_trips(url: str, count: int = 5000) -> list[float]:
    client = redis.Redis.from_url(url)
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        client.ping()
        samples.append(time.perf_counter() - started)
    client.close()
    return samples


def resolution_latencies(store: Store, game_ids: list[str]) -> list[tuple[float, float]]:
    """(when, seconds) from each last sealed choice's commit to its resolution, from the event
    log's server timestamps."""
    out = []
    for game_id in game_ids:
        last_sealed: dict[str, float] = {}
        for _version, entry in store.read_log(game_id)[1]:
            if entry["kind"] == "sealed":
                last_sealed[entry["ref"]] = float(entry["at"])
            elif entry["kind"] == "resolve" and entry["ref"] in last_sealed:
                committed = last_sealed.pop(entry["ref"])
                out.append((committed, float(entry["at"]) - committed))
    return out


def memory_by_kind(client: redis.Redis, games: int, limit: int = 50_000) -> dict[str, float]:
    """MEMORY USAGE of every key (at most ``limit``) by kind of key, per game."""
    totals: dict[str, int] = {}
    for number, key in enumerate(client.scan_iter(count=1000)):
        if number >= limit:
            break
        kind = KEY_KIND.sub("*", key.decode())
        totals[kind] = totals.get(kind, 0) + (client.memory_usage(key, samples=0) or 0)
    ranked = sorted(totals.items(), key=lambda item: -item[1])
    return {kind: total / games for kind, total in ranked}


#: Ids and hashes in key names, so that keys of one kind add up.
KEY_KIND = re.compile(r"(?<=[{:])[A-Za-z0-9_-]{8,}(?=[}:]|$)|(?<=resolve-)[^:]+")


async def wait_ready(client: Client, seconds: float = 60, path: str = "/healthz") -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            status, body = await client.call("GET", path)
            if status == 200 and (path != "/healthz" or body.get("game_workers")):
                return
        except aiohttp.ClientError:
            pass
        await asyncio.sleep(0.2)
    raise SystemExit("the stack did not come up (see its log)")


async def bare_phase(
    args: argparse.Namespace, stack: Stack, session: aiohttp.ClientSession, db: redis.Redis
) -> float:
    """The bare framework's requests/s at the trivial phase's concurrency and length; then its
    server is stopped."""
    bare = Client(session, stack.bare_base)
    db.set(BARE_KEY, "x" * 32)
    await wait_ready(bare, path="/bare")
    cpu = CpuMeter(stack.bare_cpu_parts())

    async def one(_i: int) -> bool:
        status, _ = await bare.call("GET", "/bare")
        return status == 200

    count, elapsed = await run_closed(args.concurrency, args.seconds, one)
    print(
        f"bare      GET /bare (Flask, one Redis GET, the service's gunicorn settings): "
        f"{count / elapsed:.0f} requests/s",
        flush=True,
    )
    print(f"          {cpu.since_last(elapsed, count)}", flush=True)
    stack.stop_bare()
    return count / elapsed


# -- main ------------------------------------------------------------------------------------------


async def bench(args: argparse.Namespace, stack: Stack) -> None:
    connector = aiohttp.TCPConnector(limit=args.connections)
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        client = Client(session, stack.base)
        await wait_ready(client)
        rtt = redis_round_trips(stack.redis.url, args.pings)
        print(f"redis     PING round trip: {latency_line(rtt)}", flush=True)

        db = redis.Redis.from_url(stack.redis.url)
        memory_before = db.info("memory")
        started = time.perf_counter()
        scripts = [make_script(args.players, f"load-{n}") for n in range(args.scripts)]
        print(f"scripts   {len(scripts)} in {time.perf_counter() - started:.1f} s", flush=True)
        started = time.perf_counter()
        setup = asyncio.Semaphore(args.concurrency)

        async def new(n: int) -> Table:
            async with setup:
                seed = f"load-{n % args.scripts}"
                return await client.new_table(n, args.players, scripts[n % args.scripts], seed)

        tables = await asyncio.gather(*(new(n) for n in range(args.games)))
        print(
            f"setup     {len(tables)} games of {args.players} players in "
            f"{time.perf_counter() - started:.1f} s",
            flush=True,
        )

        bare_rate = await bare_phase(args, stack, session, db)
        followers = await open_streams(stack, [t.id for t in tables], args.streams)

        me_token = tables[0].tokens[0]
        cpu = CpuMeter(stack.cpu_parts() | (followers.cpu_part() if followers else {}))

        async def trivial(_i: int) -> bool:
            status, _ = await client.call("GET", "/v1/me", me_token)
            return status == 200

        count, elapsed = await run_closed(args.concurrency, args.seconds, trivial)
        trivial_rate = count / elapsed
        print(
            f"trivial   GET /v1/me: {trivial_rate:.0f} requests/s, "
            f"ratio to bare {trivial_rate / bare_rate:.2f}",
            flush=True,
        )
        print(f"          {cpu.since_last(elapsed, count)}", flush=True)

        sat_tables = tables[: args.saturate_games or max(args.concurrency * 4, 1)]
        windows = {"saturate": (time.time(), time.time() + args.seconds)}
        sat = await saturate(client, sat_tables, args.concurrency, args.seconds)
        count, elapsed, sat_tally, ran_dry = sat.moves, sat.elapsed, sat.tally, sat.ran_dry
        moves_rate = count / elapsed
        print(
            f"saturate  moves: {moves_rate:.0f} moves/s at {args.concurrency} in flight for "
            f"{elapsed:.1f} s, "
            f"ratio to trivial {moves_rate / trivial_rate:.2f}, ratio to bare "
            f"{moves_rate / bare_rate:.2f}; {latency_line(sat_tally.latencies)}"
            f"; waits {sat_tally.waits}, errors {sat_tally.errors or 0}"
            + (f"; {len(ran_dry)} loops ran out of games" if ran_dry else ""),
            flush=True,
        )
        print(f"          {cpu.since_last(elapsed, count)}", flush=True)

        started = time.perf_counter()
        windows["open"] = (time.time(), time.time() + args.seconds)
        tally = await run_open(client, list(tables), args.rate, args.seconds)
        elapsed = time.perf_counter() - started
        print(
            f"open      {tally.moves / elapsed:.0f} moves/s offered {args.rate:.0f}/s over "
            f"{len(tables)} games; {latency_line(tally.latencies)}; waits {tally.waits}, "
            f"errors {tally.errors or 0}",
            flush=True,
        )
        print(f"          {cpu.since_last(elapsed)}", flush=True)

        game_ids = [t.id for t in tables]
        resolved = resolution_latencies(Store(stack.redis.url), game_ids)
        for phase, (begin, end) in windows.items():
            during = [seconds for when, seconds in resolved if begin <= when < end]
            print(f"resolve   {phase}: {len(during)} conflicts, {latency_line(during)}", flush=True)
        memory_after = db.info("memory")

        def growth(field: str) -> float:
            grown: float = (memory_after[field] - memory_before[field]) / len(tables) / 1024
            return grown

        versions = statistics.mean(
            int(cast(str, db.hget(f"kurier:game:{{{g}}}", "version"))) for g in game_ids
        )
        kinds = memory_by_kind(db, len(tables))
        print(
            f"memory    per game at {versions:.0f} versions on average: "
            f"{growth('used_memory_dataset'):.1f} KiB of data (used_memory_dataset growth: "
            f"players, tokens, limiter counters and finished jobs included; used_memory "
            f"{growth('used_memory'):.1f} KiB, with connection buffers); by key:\n          "
            + "\n          ".join(
                f"{size / 1024:6.2f} KiB  {kind}" for kind, size in kinds.items() if size >= 10
            ),
            flush=True,
        )
        db.close()
        if followers:
            await followers.close()


class Followers:
    """Open game streams, read by a process of their own (benchmarks/stream_readers.py) so
    that their events do not delay the moves this client times."""

    def __init__(self, readers: subprocess.Popen[str]) -> None:
        self.readers = readers

    def cpu_part(self) -> dict[str, list[int]]:
        return {"stream readers": [self.readers.pid]}

    def said(self) -> dict[str, Any]:
        line = self.readers.stdout.readline() if self.readers.stdout else ""
        if not line:
            raise SystemExit("the stream readers stopped (see above)")
        return dict(json.loads(line))

    async def close(self) -> None:
        assert self.readers.stdin is not None
        self.readers.stdin.close()
        totals = await asyncio.to_thread(self.said)
        self.readers.wait(timeout=30)
        print(
            f"streams   {totals['still_open']} still open at the end (a game's stream ends with "
            f"the game), {totals['failed']} failed; {totals['events']} events received after "
            "the backlog",
            flush=True,
        )


async def open_streams(stack: Stack, game_ids: list[str], count: int) -> Followers | None:
    """``count`` streams over the games, opened and their backlog read before the next phase
    (so it measures open streams, not their opening)."""
    if not count:
        return None
    async with aiohttp.ClientSession() as session:
        deadline = time.monotonic() + 60
        while True:  # the stream server is up when it answers (401: no token) on its port
            try:
                async with session.get(f"{stack.streams_base}/v1/me/stream") as answer:
                    if answer.status == 401:
                        break
            except aiohttp.ClientError:
                if time.monotonic() > deadline:
                    raise SystemExit("the stream server did not come up (see its log)") from None
            await asyncio.sleep(0.2)
    script = Path(__file__).with_name("stream_readers.py")
    readers = subprocess.Popen(
        [sys.executable, str(script), "--port", str(stack.streams_port), "--count", str(count)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert readers.stdin is not None
    readers.stdin.write("".join(f"{game_id}\n" for game_id in game_ids) + "\n")
    readers.stdin.flush()
    followers = Followers(readers)
    opened = await asyncio.to_thread(followers.said)
    print(
        f"streams   {opened['opened']} game streams open; their backlog of {opened['backlog']} "
        f"events received in {opened['seconds']:.1f} s",
        flush=True,
    )
    return followers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="concurrent games (≤ 5000)")
    parser.add_argument("--players", type=int, default=3, choices=range(2, 6))
    parser.add_argument("--rate", type=float, default=1000.0, help="moves/s offered (open loop)")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    parser.add_argument("--concurrency", type=int, default=32, help="requests in flight (closed)")
    parser.add_argument("--connections", type=int, default=128, help="client connection pool")
    parser.add_argument(
        "--saturate-games",
        type=int,
        default=0,
        help="games the saturation phase plays (0: 4 per loop in flight, the figures so far; "
        "--games: all of them, from their start)",
    )
    parser.add_argument("--scripts", type=int, default=50, help="distinct game scripts")
    parser.add_argument(
        "--pings", type=int, default=5000, help="Redis PING round trips timed (smoke run: 50)"
    )
    parser.add_argument("--workers", type=int, default=1, help="rq worker processes")
    parser.add_argument("--keep-log", type=Path, help="copy the stack's log here at the end")
    parser.add_argument(
        "--web-workers", type=int, default=0, help="gunicorn processes (0: the default)"
    )
    parser.add_argument("--web-threads", type=int, default=4, help="threads per process")
    parser.add_argument(
        "--server",
        choices=("gunicorn", "granian"),
        default="gunicorn",
        help="the API's HTTP server (granian: pip install granian first; issue 38)",
    )
    parser.add_argument(
        "--streams", type=int, default=0, help="game streams kept open (≤ 5000; issue 14)"
    )
    args = parser.parse_args()
    args.streams = min(max(args.streams, 0), 5000)
    args.games = min(args.games, 5000)
    args.seconds = min(args.seconds, 300.0)
    args.pings = min(max(args.pings, 1), 100_000)
    stack = Stack(args)
    stack.start()
    try:
        print(
            f"machine   {os.cpu_count()} cores, Python {sys.version.split()[0]}; stack: "
            f"{args.web_workers or 2 * (os.cpu_count() or 1)}x{args.web_threads} "
            f"{'granian WSGI' if args.server == 'granian' else 'gunicorn gthread'}, "
            f"{args.workers} rq "
            f"worker(s), Redis {stack.redis.url}",
            flush=True,
        )
        asyncio.run(bench(args, stack))
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
