"""A whole notification stack for tests and the benchmark, loopback only: its own Redis, the
API (werkzeug, threaded), an SMTP sink, and the ``kurier worker`` subprocesses ``kurier run``
starts (``WORKER_ROLES``: game work, and the webhook workers), whose environment points mail at
the sink and allows loopback webhooks. ``workers[0]`` is the game worker."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from rq import Queue, Worker
from rq.registry import StartedJobRegistry
from werkzeug.serving import make_server

from service.cli import WORKER_ROLES, worker_options
from service.http.app import create_app
from service.store import Store
from service.store.redis_server import EPHEMERAL_FLAGS, RedisServer
from tests.client import Kurier, Player
from tests.conftest import UNLIMITED, short_tmp
from tests.receivers import SmtpSink

ROOT = Path(__file__).resolve().parent.parent
Stack = TypeVar("Stack", bound="NotifyStack")


class NotifyStack:
    def __init__(self, retry_schedule: str = "0.3,0.3", env: dict[str, str] | None = None) -> None:
        self.extra_env = env or {}
        self.tmp = short_tmp("kur-notify-")
        self.redis = RedisServer(self.tmp / "r", EPHEMERAL_FLAGS)
        self.smtp = SmtpSink()
        self.retry_schedule = retry_schedule
        self.workers: list[subprocess.Popen[bytes]] = []
        self.store: Store | None = None
        self.base = ""

    def start(self) -> NotifyStack:
        url = self.redis.start()
        self.store = Store(url)
        self.smtp.start()
        app = create_app({"REDIS_URL": url, **UNLIMITED})
        self.http = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.http.server_port}"
        self.start_workers(*WORKER_ROLES)
        return self

    @property
    def env(self) -> dict[str, str]:
        assert self.store is not None
        return {
            **os.environ,
            "REDIS_URL": self.store.url,
            "KURIER_SMTP_URL": self.smtp.url,
            "KURIER_WEBHOOK_ALLOW": "loopback",
            "KURIER_WEBHOOK_RETRY_SCHEDULE": self.retry_schedule,
            "KURIER_PUBLIC_URL": self.base,
            **self.extra_env,
        }

    def start_worker(self, role: tuple[str, ...] = ("worker",)) -> subprocess.Popen[bytes]:
        """``kurier <role>``; waits until each of its rq workers has registered."""
        return self.start_workers(role)[0]

    def start_workers(self, *roles: tuple[str, ...]) -> list[subprocess.Popen[bytes]]:
        """``kurier <role>`` for each role, all started at once; waits until each of their rq
        workers has registered."""
        assert self.store is not None
        expected = Worker.count(connection=self.store.raw) + sum(map(_workers_of, roles))
        started = [self._popen(role) for role in roles]
        deadline = time.monotonic() + 30
        while Worker.count(connection=self.store.raw) < expected:
            assert all(proc.poll() is None for proc in started), "a worker exited at start"
            assert time.monotonic() < deadline, "the workers did not register within 30 s"
            time.sleep(0.05)
        return started

    def _popen(self, role: tuple[str, ...]) -> subprocess.Popen[bytes]:
        log = open(self.tmp / f"worker{len(self.workers)}.log", "wb")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.cli", *role],
            env=self.env,
            cwd=ROOT,
            stdout=log,
            stderr=log,
        )
        self.workers.append(proc)
        return proc

    def stop_worker(self, proc: subprocess.Popen[bytes]) -> None:
        proc.terminate()
        _reap(proc)

    def stop(self) -> None:
        # All at once: each pool takes a second or two to stop its forked workers warmly.
        running = [proc for proc in self.workers if proc.poll() is None]
        for proc in running:
            proc.terminate()
        for proc in running:
            _reap(proc)
        self.http.shutdown()
        self.smtp.stop()
        if self.store is not None:
            self.store.close()
        self.redis.stop()
        # Now, not only at exit: the benchmark and test modules start many stacks in one run.
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- helpers ---------------------------------------------------------------------------

    @property
    def client(self) -> Kurier:
        return Kurier(self.base)

    def player(self, name: str, **preferences: Any) -> tuple[Player, dict[str, Any]]:
        k = self.client
        player = k.new_player(name)
        me = {}
        if preferences:
            r = k.call("PATCH", "/v1/me", player, json=preferences)
            assert r.status_code == 200, r.text
            me = r.json()
        return player, me

    def game(
        self,
        players: list[Player],
        deadline: dict[str, Any] | None = None,
        seed: str = "n1",
        game_type: str = "attila",
    ) -> str:
        k = self.client
        body: dict[str, Any] = {"type": game_type, "seats": len(players), "seed": seed}
        if deadline:
            body["deadline"] = deadline
        r = k.call("POST", "/v1/games", players[0], json=body)
        assert r.status_code == 201, r.text
        game_id, invite = r.json()["id"], r.json()["invite_code"]
        for p in players[1:]:
            r = k.call("POST", f"/v1/games/{game_id}/seats", p, json={"invite_code": invite})
            assert r.status_code == 201, r.text
        r = k.call("POST", f"/v1/games/{game_id}/start", players[0])
        assert r.status_code == 200, r.text
        return game_id

    def end_game(self, game_id: str, player: Player) -> None:
        """``player`` resigns ``game_id``, so that none of its deadlines goes on firing on a
        stack that later tests share."""
        r = self.client.call(
            "POST", f"/v1/games/{game_id}/actions", player, json={"notation": "resign"}
        )
        assert r.status_code in (200, 409), r.text  # 409: the game had ended
        assert self.client.view(game_id)["status"] == "finished"

    def settle(self, seconds: float = 60) -> None:
        """Wait until no job is queued or running: the mails and webhooks of what earlier
        tests did (a game ended, a turn passed on) are out. Jobs scheduled for later (a
        digest's hour, a deadline hours away) stay scheduled."""
        assert self.store is not None
        connection = self.store.queue_raw
        deadline = time.monotonic() + seconds
        while not _idle(connection):
            assert time.monotonic() < deadline, f"the workers still busy after {seconds} s"
            time.sleep(0.05)

    def forget_mails(self) -> None:
        """Empty the SMTP sink once the stack is idle (``settle``): a module of tests that
        shares this stack (tests/conftest.py `notify_stack`) reads and counts only the mails
        its own tests caused."""
        self.settle()
        with self.smtp.lock:
            self.smtp.messages.clear()


def _reap(proc: subprocess.Popen[bytes]) -> None:
    """Wait for a worker told to stop; SIGKILL if it has not ended within 30 s."""
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def _idle(connection: Any) -> bool:
    """No job waits in a queue or runs, and no worker is busy."""
    queues = Queue.all(connection=connection)
    if any(q.count or StartedJobRegistry(queue=q).count for q in queues):
        return False
    return all(w.get_state() != "busy" for w in Worker.all(connection=connection))


def _workers_of(role: tuple[str, ...]) -> int:
    return int(worker_options().parse_args(role[1:]).processes)


@contextmanager
def loopback_webhooks() -> Iterator[None]:
    """The API's URL check in this process allows webhooks to loopback receivers (a stack's
    workers allow them: their environment)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KURIER_WEBHOOK_ALLOW", "loopback")
        yield


@contextmanager
def webhook_stack(**kwargs: Any) -> Iterator[NotifyStack]:
    """A started ``NotifyStack(**kwargs)`` whose webhooks may go to loopback receivers."""
    with loopback_webhooks():
        stack = NotifyStack(**kwargs).start()
        try:
            yield stack
        finally:
            stack.stop()


@contextmanager
def shared_stack(stack: Stack) -> Iterator[Stack]:
    """A stack of the session (tests/conftest.py `notify_stack`, `play_by_mail_stack`) for one
    module: its SMTP sink emptied first, webhooks to loopback receivers allowed while the
    module runs."""
    stack.forget_mails()
    with loopback_webhooks():
        yield stack
