"""Real processes for the fault tests: ``kurier web`` (gunicorn) on a free loopback port, and a
move-playing client that retries with the same Idempotency-Key until it gets an answer."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from tests.client import Player, wait_until_answering
from tests.conftest import short_tmp, stop

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def web(
    redis_url: str, workers: int = 2, threads: int = 4, extra: dict[str, str] | None = None
) -> Iterator[tuple[str, int]]:
    """``kurier web`` on 127.0.0.1: yields the base URL and the gunicorn master's pid.
    ``extra``: more environment (e.g. KURIER_QUEUE_URL)."""
    port = free_port()
    tmp = short_tmp("kur-web-")
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "KURIER_HOST": "127.0.0.1",
        "KURIER_PORT": str(port),
        "KURIER_WEB_WORKERS": str(workers),
        "KURIER_WEB_THREADS": str(threads),
        "KURIER_LOG_LEVEL": "WARNING",
        # Rate limits are not under test here: the load below is far over the defaults.
        "KURIER_RATE_LIMIT": "1000000/minute",
        "KURIER_SIGNUP_RATE_LIMIT": "1000000/minute",
        "PROMETHEUS_MULTIPROC_DIR": str(short_tmp("kur-metrics-")),
        "KURIER_DATA_DIR": str(tmp),  # gunicorn's control socket: its own, not the work tree's
        **(extra or {}),
    }
    log = open(tmp / "web.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "web"], env=env, cwd=ROOT, stdout=log, stderr=log
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(proc, base, log.name)
        yield base, proc.pid
    finally:
        stop(proc)
        log.close()


def children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (gunicorn's workers), from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # Fields after the parenthesised command name: state, ppid, ...
        rest = stat.rsplit(")", 1)[1].split()
        if int(rest[1]) == pid and rest[0] != "Z":
            found.append(int(entry.name))
    return found


@dataclass
class Mover:
    """Plays one game's moves over HTTP. Each logical move has its own Idempotency-Key and is
    re-sent, same key and body, after any connection error, timeout or 5xx, until it gets an
    answer (bounded by ``deadline``). Records every 2xx answer per key."""

    base: str
    game_id: str
    players: list[Player]
    pick: Any  # callable: list of legal actions -> one of them
    http: requests.Session = field(default_factory=requests.Session)
    acked: dict[str, dict[str, Any]] = field(default_factory=dict)  # key -> first 2xx body
    sent: dict[str, tuple[Player, str, str]] = field(default_factory=dict)  # key -> request
    failures: int = 0  # attempts that got no answer or a 5xx
    replayed: int = 0  # answers with Idempotent-Replayed: true

    def _req(self, method: str, path: str, player: Player | None, **kw: Any) -> Any:
        headers = {**kw.pop("headers", {})}
        if player:
            headers["Authorization"] = f"Bearer {player.token}"
        try:
            r = self.http.request(method, self.base + path, headers=headers, timeout=5, **kw)
        except requests.RequestException:
            self.failures += 1
            return None
        if r.status_code >= 500:
            self.failures += 1
            return None
        return r

    def step(self, deadline: float, stop: threading.Event | None = None) -> bool:
        """One logical move; False once the game is over or the deadline has passed. A set
        ``stop`` ends the retries of a move not yet answered (it stays unacknowledged)."""
        path = f"/v1/games/{self.game_id}"
        view = self._req("GET", path, None)
        if view is None:
            time.sleep(0.05)
            return time.monotonic() < deadline
        state = view.json()
        if state["status"] != "active":
            return False
        humans = [d for d in state["waiting_for"] if d["seat"] >= 0]
        if not humans:
            time.sleep(0.02)
            return time.monotonic() < deadline
        player = self.players[humans[0]["seat"]]
        legal = self._req("GET", path + "/legal-actions", player)
        if legal is None or legal.status_code != 200:
            return time.monotonic() < deadline
        choice = self.pick(legal.json()["actions"])
        key = str(uuid.uuid4())
        if_match = f'"{state["version"]}"'
        self.sent[key] = (player, choice["notation"], if_match)
        headers = {"Idempotency-Key": key, "If-Match": if_match}
        while time.monotonic() < deadline and not (stop and stop.is_set()):
            r = self._req(
                "POST",
                path + "/actions",
                player,
                json={"notation": choice["notation"]},
                headers=headers,
            )
            if r is None:
                time.sleep(0.05)
                continue  # no answer: the same key and body again
            if r.headers.get("Idempotent-Replayed") == "true":
                self.replayed += 1
            if 200 <= r.status_code < 300:
                body = r.json()
                first = self.acked.setdefault(key, body)
                assert first["version"] == body["version"], "one key, two different versions"
            else:
                # Someone else's move got in first (412/409): a definite "not applied".
                assert r.status_code in (409, 412), (r.status_code, r.text)
            break
        return time.monotonic() < deadline


def read_log(base: str, game_id: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    cursor = "0"
    for _ in range(100):
        r = requests.get(
            f"{base}/v1/games/{game_id}/events", params={"after": cursor, "limit": 500}, timeout=10
        )
        assert r.status_code == 200, r.text
        page = r.json()
        if not page["items"]:
            return entries
        entries += page["items"]
        cursor = page["next_cursor"]
    raise AssertionError("event log did not end")


def acked_total(movers: list[Mover]) -> int:
    return sum(len(m.acked) for m in movers)


def wait_for(movers: list[Mover], count: int, deadline: float, what: str = "moves") -> None:
    """Until the movers together have ``count`` acknowledged moves; fails at ``deadline``."""
    while acked_total(movers) < count:
        assert time.monotonic() < deadline, f"{what}: only {acked_total(movers)} of {count}"
        time.sleep(0.01)


@contextmanager
def moving(movers: list[Mover], deadline: float) -> Iterator[None]:
    """Each mover plays in its own thread until the block ends (or ``deadline``)."""
    stop = threading.Event()

    def play(mover: Mover) -> None:
        while not stop.is_set() and mover.step(deadline, stop):
            pass

    threads = [threading.Thread(target=play, args=(m,), daemon=True) for m in movers]
    for t in threads:
        t.start()
    try:
        yield
    finally:
        stop.set()
        for t in threads:
            t.join(15)
    assert not any(t.is_alive() for t in threads)
