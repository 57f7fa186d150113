"""kill -9 game workers at random points of many resolutions: every owed resolution
is done, exactly once, within 10 s of a worker being available again.

``kurier worker --processes 2`` (rq's WorkerPool, as ``kurier run`` starts it) serves Attila
games played in-process by a few threads. A chaos thread meanwhile, at random moments:

- kills one pool member with SIGKILL, preferably while it runs a job (the pool restarts it);
- kills the whole pool (parent, members, scheduler) and starts a new one a moment later;
- stops the whole pool (SIGSTOP), waits until a stopped worker's blocked BLPOP has taken a
  resolution out of the queue (Redis serves it regardless), then kills the pool: the job is in
  no queue and no registry, its status still "queued".

Then every game must end, each of its resolutions in its log exactly once, and each resolution
must have been applied within 10 s of being owed, not counting the time no worker was alive.

The chaos ends once each kind of kill has happened ``EACH_KIND`` times, a job taken by a
stopped worker among them. Bounded: at most ``MAX_GAMES`` games and ``MAX_KILLS`` kills over
``CHAOS_SECONDS``, then at most ``FINISH_SECONDS`` for the games to end; loopback and a unix
socket only.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rq import Worker

from engine.core import SYSTEM
from service.domain.games import lifecycle, play, views
from service.store import Store
from service.store.queues import DEFAULT_QUEUE, resolve_job_id
from service.store.redis_server import EPHEMERAL_FLAGS, RedisServer
from tests.faults.stack import children, short_tmp

ROOT = Path(__file__).resolve().parents[2]
DRIVERS = 4  # games played side by side
MAX_GAMES = 16
CHAOS_SECONDS = 35.0
MAX_KILLS = 14
EACH_KIND = 1  # kills of each kind before the chaos ends
KINDS = ("member running a job", "pool", "pool-after-dequeue")
FINISH_SECONDS = 30.0
WITHIN = 10.0  # seconds from owed (or from a worker being back) to resolved


@dataclass
class Pool:
    """One ``kurier worker --processes 2`` in a session of its own (its group is the pool)."""

    url: str
    log_dir: Path
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0

    def start(self) -> None:
        self.starts += 1
        log = open(self.log_dir / f"pool{self.starts}.log", "wb")  # noqa: SIM115
        env = {**os.environ, "REDIS_URL": self.url, "KURIER_LOG_LEVEL": "WARNING"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "worker", "--processes", "2"],
            env=env,
            cwd=ROOT,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        log.close()

    def signal_all(self, signum: int) -> None:
        assert self.proc is not None
        os.killpg(self.proc.pid, signum)

    def kill(self) -> None:
        self.signal_all(signal.SIGKILL)
        assert self.proc is not None
        self.proc.wait(10)

    def members(self) -> list[int]:
        assert self.proc is not None
        return children(self.proc.pid)


@dataclass
class Chaos:
    store: Store
    pool: Pool
    rng: random.Random
    games: list[str]
    kills: Counter[str] = field(default_factory=Counter)
    lost_in_dequeue: int = 0
    #: (from, to) when no game worker was alive (or all were stopped).
    downtime: list[tuple[float, float]] = field(default_factory=list)
    recoveries: list[float] = field(default_factory=list)  # worker back -> owed all running

    def run(self, until: float, stop: threading.Event) -> None:
        actions = [self.kill_member, self.kill_member, self.kill_pool, self.kill_after_dequeue]
        while (
            time.monotonic() < until and not stop.is_set() and sum(self.kills.values()) < MAX_KILLS
        ):
            time.sleep(self.rng.uniform(0.5, 2.0))
            self.rng.choice(actions)()
            if self.lost_in_dequeue and all(self.kills[k] >= EACH_KIND for k in KINDS):
                return

    def kill_member(self) -> None:
        busy = self._busy_member(1.0)
        pid = busy or self.rng.choice(self.pool.members() or [0])
        if pid:
            os.kill(pid, signal.SIGKILL)
            self.kills["member running a job" if busy else "member"] += 1

    def _busy_member(self, seconds: float) -> int | None:
        """The pid of a pool member running a job, if one is caught within ``seconds``."""
        members = set(self.pool.members())
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            running = {w for w in _registered(self.store) if _running(self.store, [w])}
            for name in running:
                pid = self.store.r.hget(f"rq:worker:{name}", "pid")
                if pid and int(pid) in members:
                    return int(pid)
            time.sleep(0.003)
        return None

    def kill_pool(self) -> None:
        down = time.time()
        self.pool.kill()
        self.kills["pool"] += 1
        time.sleep(self.rng.uniform(0.0, 1.5))
        self._restart(down)

    def kill_after_dequeue(self) -> None:
        down = time.time()
        self.pool.signal_all(signal.SIGSTOP)
        taken = _wait_until(lambda: self._taken_while_stopped(), 4.0)
        self.pool.signal_all(signal.SIGKILL)
        assert self.pool.proc is not None
        self.pool.proc.wait(10)
        self.kills["pool-after-dequeue"] += 1
        self.lost_in_dequeue += taken or 0
        self._restart(down)

    def _taken_while_stopped(self) -> int:
        """Owed resolutions out of the queue while every worker is stopped: taken by a BLPOP."""
        raw = self.store.raw
        queued = {i.decode() for i in raw.lrange(f"rq:queue:{DEFAULT_QUEUE}", 0, -1)}
        running = _running(self.store, _registered(self.store))
        owed_ids = {resolve_job_id(g, ref) for g, ref in _owed_resolutions(self.store, self.games)}
        return len(owed_ids - queued - running)

    def _restart(self, down: float) -> None:
        before = _registered(self.store)
        self.pool.start()
        back = _wait_until(lambda: _registered(self.store) - before, 30)
        assert back, "the new pool did not come up within 30 s"
        self.downtime.append((down, time.time()))


# What the chaos sees of rq and the games, read the same way before and after the fix.


def _registered(store: Store) -> set[str]:
    return {w.name for w in Worker.all(connection=store.raw)}


def _running(store: Store, names: set[str] | list[str]) -> set[str]:
    """Job ids in rq's execution sets of these workers ("<job id>:<execution id>")."""
    found: set[str] = set()
    for name in names:
        found |= {
            m.decode().rsplit(":", 1)[0] for m in store.raw.smembers(f"rq:worker:{name}:executions")
        }
    return found


def _owed_resolutions(store: Store, game_ids: list[str]) -> list[tuple[str, str]]:
    """(game, ref) of every resolution a game waits for, from the games themselves."""
    out = []
    for game_id in [g for g in game_ids if g]:
        pending = store.get_game(game_id).pending
        out += [(game_id, d["ref"]) for d in pending if d["seat"] == SYSTEM]
    return out


def _wait_until(predicate: Any, seconds: float) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.01)
    return None


def _new_game(store: Store, index: int) -> tuple[str, list[dict[str, Any]]]:
    players = [store.players.create(f"K{index}-{i}", None)[0] for i in range(2)]
    created = lifecycle.create_game(store, players[0], "attila", {}, f"kill-{index}", 2).body
    lifecycle.join_game(store, players[1], created["id"], created["invite_code"])
    lifecycle.start_game(store, players[0], created["id"])
    return created["id"], players


def _play(
    store: Store, game_id: str, players: list[dict[str, Any]], rng: random.Random, until: float
) -> None:
    """Random legal moves until the game ends; resolutions are the workers' (waited for)."""
    while time.monotonic() < until:
        record = store.get_game(game_id)
        if record.status != "active":
            return
        humans = [d for d in record.pending if d["seat"] != SYSTEM]
        if not humans:
            time.sleep(0.02)
            continue
        seat = humans[0]["seat"]
        legal = views.legal_actions(record, seat)["actions"]
        try:
            play.play(
                store, players[seat], game_id, rng.choice(legal)["notation"], None, None, None, None
            )
        except Exception as error:  # a concurrent move of the other seat: read again
            if getattr(error, "code", None) not in (409, 412):
                raise
        time.sleep(rng.uniform(0.01, 0.05))


@contextmanager
def _stack() -> Iterator[tuple[Store, Pool]]:
    server = RedisServer(short_tmp("kur-kill-"), EPHEMERAL_FLAGS)
    url = server.start()
    store = Store(url)
    pool = Pool(url, short_tmp("kur-kill-log-"))
    try:
        pool.start()
        yield store, pool
    finally:
        if pool.proc is not None and pool.proc.poll() is None:
            pool.signal_all(signal.SIGCONT)
            pool.kill()
        store.close()
        server.stop()


def test_killed_workers_lose_no_resolution_and_apply_none_twice() -> None:
    rng = random.Random(17)
    begun = time.monotonic()
    with _stack() as (store, pool):
        _wait_until(lambda: len(_registered(store)) >= 2, 30)
        started: list[str] = []
        chaos = Chaos(store, pool, random.Random(rng.random()), started)
        lock = threading.Lock()
        chaos_until = time.monotonic() + CHAOS_SECONDS
        stop = threading.Event()

        def drive(seed: int) -> None:
            driver_rng = random.Random(seed)
            while not stop.is_set() and time.monotonic() < chaos_until:
                with lock:
                    if len(started) >= MAX_GAMES:
                        return
                    index = len(started)
                    started.append("")
                game_id, players = _new_game(store, index)
                started[index] = game_id
                _play(store, game_id, players, driver_rng, chaos_until + FINISH_SECONDS)

        drivers = [threading.Thread(target=drive, args=(rng.random(),)) for _ in range(DRIVERS)]
        chaos_thread = threading.Thread(target=chaos.run, args=(chaos_until, stop))
        for t in [*drivers, chaos_thread]:
            t.start()
        chaos_thread.join(CHAOS_SECONDS + 60)
        stop.set()  # no new games once the chaos is over; the ones under way finish
        for t in drivers:
            t.join(FINISH_SECONDS + 10)
        assert not any(t.is_alive() for t in [*drivers, chaos_thread])
        report = _check(store, [g for g in started if g], chaos)
    report["drill (s)"] = round(time.monotonic() - begun, 1)
    print("\nworker kill drill:", report)


def _check(store: Store, game_ids: list[str], chaos: Chaos) -> dict[str, Any]:
    resolutions = 0
    worst = 0.0
    for game_id in game_ids:
        record, entries = store.read_log(game_id)
        assert record.status == "finished", f"game {game_id} did not end: {record.pending}"
        refs = [entry["ref"] for _, entry in entries if entry["kind"] == "resolve"]
        assert len(refs) == len(set(refs)), f"a resolution applied twice in {game_id}: {refs}"
        resolutions += len(refs)
        at = {version: float(entry["at"]) for version, entry in entries}
        for version, entry in entries:
            if entry["kind"] != "resolve":
                continue
            owed_at, done_at = at[version - 1], at[version]
            waited = done_at - owed_at - _overlap(chaos.downtime, owed_at, done_at)
            worst = max(worst, waited)
    assert _owed_resolutions(store, game_ids) == [] and store.indexes.pending_resolutions() == []
    assert worst <= WITHIN, f"a resolution waited {worst:.1f} s with a worker alive"
    assert chaos.kills["member running a job"] and chaos.kills["pool"], chaos.kills
    assert chaos.lost_in_dequeue, "no job was ever taken by a stopped worker: nothing shown"
    return {
        "games": len(game_ids),
        "resolutions owed = done (exactly once)": resolutions,
        "kills": dict(chaos.kills),
        "jobs taken by a stopped worker, then killed": chaos.lost_in_dequeue,
        "longest wait with a worker alive (s)": round(worst, 1),
        "downtime (s)": round(sum(b - a for a, b in chaos.downtime), 1),
    }


def _overlap(intervals: list[tuple[float, float]], start: float, end: float) -> float:
    return sum(max(0.0, min(b, end) - max(a, start)) for a, b in intervals)
