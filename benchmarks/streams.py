"""Streams: N open game streams, moves at a target rate, and the delivery latency from a move's
commit to its event on the streams that follow that game: the commit lies between the move's
request being sent and its answer, so both bounds are printed.

Not a test. Starts its own Redis (embedded), one `kurier worker`, the API (`kurier web`) and
the stream server (`kurier streams`), makes G three-player Attila games, opens N streams spread
over them (a gevent client: one greenlet per stream, raw HTTP/1.1 over a socket), then plays
random legal moves at RATE moves/s for SECONDS and prints p50/p95/p99 of the latency per
delivered event, and how many events were expected and delivered.

    .venv/bin/python benchmarks/streams.py --streams 1000 --games 100 --rate 20 --seconds 30
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import gevent  # noqa: E402
import requests  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.stack import CpuMeter  # noqa: E402
from service.store.redis_server import RedisServer  # noqa: E402

MAX_STREAMS = 5000  # bounded: each is a socket here and a Redis connection there


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_http(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            requests.get(url, timeout=5)
            return
        except requests.RequestException:
            time.sleep(0.2)
    raise SystemExit(f"{url} did not answer within {seconds} s")


def _wait_for(done: Callable[[], bool], seconds: float) -> bool:
    """Whether ``done()`` came true within ``seconds`` (the greenlets read on meanwhile)."""
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            return False
        gevent.sleep(0.05)
    return True


class Listener:
    """One open stream, read line by line; records when each version arrived."""

    def __init__(self, port: int, game_id: str, arrivals: dict[tuple[str, int], list[float]]):
        self.sock = socket.create_connection(("127.0.0.1", port))
        path = f"/v1/games/{game_id}/stream"
        request = f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n"
        self.sock.sendall(request.encode())
        self.game_id, self.arrivals = game_id, arrivals
        self.newest = 0  # the newest version it received

    def run(self) -> None:
        buffer = b""
        while True:
            data = self.sock.recv(65536)
            if not data:
                return
            buffer += data
            *lines, buffer = buffer.split(b"\n")
            now = time.monotonic()
            for line in lines:
                if line.startswith(b"id: "):
                    version = int(line[4:])
                    self.arrivals.setdefault((self.game_id, version), []).append(now)
                    self.newest = max(self.newest, version)


class Lean:
    """A small HTTP/1.1 keep-alive client for the movers: one socket per mover, no
    ``requests`` machinery (about 1 ms of the benchmark's CPU per call, which made the client
    the ceiling at three calls a move)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock: socket.socket | None = None
        self.buffer = b""

    def call(self, method: str, path: str, token: str | None = None, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else b""
        head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {len(data)}"]
        if token:
            head.append(f"Authorization: Bearer {token}")
        if data:
            head.append("Content-Type: application/json")
        request = ("\r\n".join(head) + "\r\n\r\n").encode() + data
        for attempt in range(2):  # a keep-alive connection the server closed: once more
            try:
                if self.sock is None:
                    self.sock = socket.create_connection(("127.0.0.1", self.port))
                    self.buffer = b""
                self.sock.sendall(request)
                return self._answer()
            except (ConnectionError, OSError):
                self.sock = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def _answer(self) -> tuple[int, Any]:
        while b"\r\n\r\n" not in self.buffer:
            self._more()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        length = next(
            (int(x.split(":", 1)[1]) for x in lines[1:] if x.lower().startswith("content-length:")),
            0,
        )
        while len(self.buffer) < length:
            self._more()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return status, json.loads(body) if body else None

    def _more(self) -> None:
        assert self.sock is not None
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        self.buffer += chunk


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--rate", type=float, default=20.0, help="moves per second, in all")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--stream-workers", type=int, default=1)
    parser.add_argument("--movers", type=int, default=40, help="concurrent players (greenlets)")
    parser.add_argument(
        "--web-workers", type=int, default=0, help="the API's gunicorn processes (0: the default)"
    )
    args = parser.parse_args()
    streams = min(max(args.streams, 1), MAX_STREAMS)
    tmp = Path(tempfile.mkdtemp(prefix="kur-bench-streams-"))
    redis = RedisServer(tmp / "redis", ["--maxclients", "20000"])
    url = redis.start()
    api_port, stream_port = free_port(), free_port()
    env = {
        **os.environ,
        "REDIS_URL": url,
        "KURIER_DATA_DIR": str(tmp / "data"),
        "KURIER_OUTBOX": str(tmp / "outbox"),
        "KURIER_RATE_LIMIT": "1000000/minute",
        "KURIER_SIGNUP_RATE_LIMIT": "1000000/minute",
        "KURIER_STREAM_WORKERS": str(args.stream_workers),
        "KURIER_WEB_WORKERS": str(args.web_workers or ""),
        "KURIER_STREAM_CONNECTIONS": str(streams + 100),
    }
    cli = [sys.executable, "-m", "service.cli"]
    logs = open(tmp / "services.log", "wb")  # noqa: SIM115
    roles = (["worker"], ["web", "--port", str(api_port)], ["streams", "--port", str(stream_port)])
    procs = [
        subprocess.Popen([*cli, *role], env=env, cwd=ROOT, stdout=logs, stderr=logs)
        for role in roles
    ]
    api = f"http://127.0.0.1:{api_port}"
    try:
        wait_http(f"{api}/healthz")
        wait_http(f"http://127.0.0.1:{stream_port}/v1/me/stream")
        return run(api, stream_port, streams, args, CpuMeter({"streams": [procs[2].pid]}))
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(30)
        redis.stop()
        logs.close()


def _mover(
    port: int,
    games: list[tuple[str, list[str]]],
    committed: dict[tuple[str, int], tuple[float, float]],
    tally: dict[str, int],
    slots: Iterator[int],
    started: float,
    args: argparse.Namespace,
) -> None:
    """One of several concurrent players (a greenlet): moves in its own games, each at the
    next free slot of the global rate (open loop: a slow answer does not slow the others)."""
    rng = random.Random(id(games))
    http = Lean(port)
    # Who acts next in each of this mover's games, from its last move's answer (no other mover
    # plays them): a move is then two calls, legal actions and the move, as a client makes it.
    # Unknown (first move, or waiting for a resolution): asked from the game's view.
    known: dict[str, list[dict[str, Any]]] = {}
    while time.monotonic() - started < args.seconds:
        gevent.sleep(max(0.0, started + next(slots) / args.rate - time.monotonic()))
        gid, tokens = rng.choice(games)
        waiting = known.pop(gid, None)
        if waiting is None:
            _, view = http.call("GET", f"/v1/games/{gid}")
            waiting = view["waiting_for"] if view["status"] == "active" else []
        humans = [d for d in waiting if d["seat"] >= 0]
        if not humans:
            tally["nobody to move"] = tally.get("nobody to move", 0) + 1
            continue
        token = tokens[humans[0]["seat"]]
        _, legal = http.call("GET", f"/v1/games/{gid}/legal-actions", token)
        sent = time.monotonic()  # the commit comes after: each latency is an upper bound
        status, answer = http.call(
            "POST",
            f"/v1/games/{gid}/actions",
            token,
            {"notation": rng.choice(legal["actions"])["notation"]},
        )
        if status in (200, 202):
            committed[(gid, answer["version"])] = (sent, time.monotonic())
            if answer["status"] == "active":
                known[gid] = answer["waiting_for"]
        else:
            key = f"{status} {answer.get('code') if isinstance(answer, dict) else ''}"
            tally[key] = tally.get(key, 0) + 1


def run(api: str, stream_port: int, streams: int, args: argparse.Namespace, cpu: CpuMeter) -> int:
    api_port = int(api.rsplit(":", 1)[1])
    # Many concurrent callers: a pool as large as the movers (requests' default is 10).
    session = requests.Session()
    adapter = requests.adapters.HTTPAdapter(pool_connections=4, pool_maxsize=args.movers + 10)
    session.mount("http://", adapter)

    def call(method: str, path: str, token: str | None = None, **kw: object) -> requests.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return session.request(method, api + path, headers=headers, timeout=30, **kw)  # type: ignore[arg-type]  # kw: request's keywords

    games: list[tuple[str, list[str]]] = []
    versions: dict[str, int] = {}  # each game's version once started
    for g in range(max(args.games, 1)):
        tokens = [
            call("POST", "/v1/players", json={"name": f"B{g}-{i}"}).json()["token"]
            for i in range(3)
        ]
        created = call("POST", "/v1/games", tokens[0], json={"type": "attila", "seats": 3}).json()
        for token in tokens[1:]:
            call(
                "POST",
                f"/v1/games/{created['id']}/seats",
                token,
                json={"invite_code": created["invite_code"]},
            )
        started_at = call("POST", f"/v1/games/{created['id']}/start", tokens[0]).json()
        games.append((created["id"], tokens))
        versions[created["id"]] = started_at["version"]
    arrivals: dict[tuple[str, int], list[float]] = {}
    listeners = [Listener(stream_port, games[i % len(games)][0], arrivals) for i in range(streams)]
    per_game = {gid: sum(1 for li in listeners if li.game_id == gid) for gid, _ in games}
    readers = [gevent.spawn(li.run) for li in listeners]
    backlog = _wait_for(lambda: all(li.newest >= versions[li.game_id] for li in listeners), 10)
    if not backlog:
        raise SystemExit("the streams did not send their backlogs within 10 s")
    committed: dict[tuple[str, int], tuple[float, float]] = {}
    tally: dict[str, int] = {}  # slots that made no move, by why
    cpu_before = cpu.sample()["streams"]
    started = time.monotonic()
    slots = iter(range(10**9))  # the n-th move may start at started + n / rate
    movers = [
        gevent.spawn(
            _mover, api_port, games[i :: args.movers], committed, tally, slots, started, args
        )
        for i in range(min(args.movers, len(games)))
    ]
    gevent.joinall(movers)
    # The rate is over the movers' time only: not the wait for the last events below (moves/s
    # printed before 2026-11-25 divided by about 33 s instead of 30, a tenth too low).
    elapsed = time.monotonic() - started
    expected = sum(per_game[gid] for gid, _ in committed)

    def delivered() -> int:
        return sum(len(arrivals.get(key, ())) for key in committed)

    _wait_for(lambda: delivered() >= expected, 3)  # the last events arrive
    window = time.monotonic() - started
    stream_cpu = cpu.sample()["streams"] - cpu_before  # the stream server's processes
    # The commit lies between the request's sending and its answer: two bounds per event.
    upper = [
        (arrived - sent) * 1000
        for key, (sent, _) in committed.items()
        for arrived in arrivals.get(key, [])
    ]
    lower = [
        (arrived - answered) * 1000
        for key, (_, answered) in committed.items()
        for arrived in arrivals.get(key, [])
    ]
    latencies = upper
    gevent.killall(readers, timeout=5)
    for li in listeners:
        li.sock.close()

    def pct(values: list[float]) -> dict[str, float]:
        q = statistics.quantiles(values, n=100) if len(values) >= 2 else [0.0] * 99
        return {"p50": round(q[49], 1), "p95": round(q[94], 1), "p99": round(q[98], 1)}

    print(json.dumps({
        "streams": streams, "games": len(games), "moves": len(committed),
        "moves_per_s": round(len(committed) / elapsed, 1),
        "events_expected": expected, "events_delivered": len(latencies),
        "ms_from_request_sent": pct(upper), "ms_from_answer_received": pct(lower),
        "slots_without_a_move": tally,
        # Its CPU over the moves and the wait for their last events, per event it delivered.
        "stream_server_cpu_cores": round(stream_cpu / window, 3),
        "stream_server_cpu_ms_per_event": round(stream_cpu * 1000 / max(len(latencies), 1), 3),
    }))  # fmt: skip
    return 0 if len(latencies) == expected else 1


if __name__ == "__main__":
    sys.exit(main())
