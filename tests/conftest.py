"""Real servers for the service tests: redis-server (the project's launcher, or REDIS_URL), an
rq worker subprocess (``kurier worker``), and the app served on 127.0.0.1 by werkzeug."""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import requests
from flask import Flask
from rq import Worker
from werkzeug.serving import make_server

from service.http.app import create_app
from service.store import Store
from service.store.redis_server import EPHEMERAL_FLAGS, RedisServer
from tests.client import Kurier

if TYPE_CHECKING:
    from tests.mail_stack import MailStack
    from tests.notify_stack import NotifyStack

ROOT = Path(__file__).resolve().parent.parent
# Mail notices go out one by one in the tests (a test of batching sets its own window:
# tests/test_mailbag.py); every worker the tests start inherits this.
os.environ.setdefault("KURIER_MAIL_BATCH_SECONDS", "0")
# A computer opponent's search stops after two iterations in the tests: a hard bot's move then
# depends on its inputs only, and a table of bots finishes in seconds (docs/bots.md). Two run
# the search's loop more than once; the tests check the service's path, not the moves' strength
# (tests/test_bots.py gives the engine's bots budgets of their own).
os.environ.setdefault("KURIER_BOT_ITERATIONS", "2")
UNLIMITED = {"RATE_LIMIT": "1000000/minute", "SIGNUP_RATE_LIMIT": "1000000/minute"}

#: The files that take longest, longest first (`pytest --durations`, 2026-11-27: issue 38 in
#: docs/performance.md; the whole games by clicks, by the notation box and by German mail
#: re-measured, file by file in CPU-seconds, after they began to send the moves of kinds
#: already played through the API, 2026-11-29 evening; the hostile forms and the bots' service
#: tests from a per-file profile of the parallel part, 2026-11-29 night, test_service_attika.py
#: down with its 2-player game gone, 2026-11-30, the hostile forms down with half their posts
#: gone, 2026-11-30, docs/performance.md's fourth round; the bots' table, the tournament and the
#: wargame over HTTP down after the fifth round, axe's page checks after the sixth). Under
#: `--dist loadfile` a free xdist process takes the next file in this order. xdist's own order
#: (most tests first) queued the few-test whole-game files (1-3 tests of 2-7 minutes each)
#: among the last, where one alone can outlast everything else.
LONGEST_FIRST = (
    "tests/test_topologies.py",
    "tests/test_benchmarks.py",
    "tests/browser/test_web_wargame_table.py",
    "tests/browser/test_web_table.py",
    "tests/browser/test_web_full_games.py",
    "tests/test_mail_german.py",
    "tests/browser/test_web_axe.py",
    "tests/browser/test_web_attika_table.py",
    "tests/test_bots_service.py",
    "tests/test_tournaments.py",
    "tests/test_service_attika.py",
    "tests/test_service_wargame.py",
    "tests/test_web_hostile.py",
    "tests/browser/test_web_club.py",
    "tests/test_profiles.py",
    "tests/test_mail_design.py",
    "tests/test_several_actions.py",
    "tests/browser/test_web_tournaments.py",
    "tests/test_mail_attika.py",
    "tests/test_mail_play.py",
    "tests/test_hung_redis.py",
    "tests/test_generated_client.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest files first, then the rest by number of tests (xdist's order, which the
    Makefile turns off with --no-loadscope-reorder so that this one holds). A file's tests
    keep their order and stay together (the sort is stable)."""
    rank = {name: number for number, name in enumerate(LONGEST_FIRST)}
    files = Counter(item.nodeid.split("::")[0] for item in items)

    def key(item: pytest.Item) -> tuple[int, int]:
        name = item.nodeid.split("::")[0]
        return rank.get(name, len(rank)), -files[name]

    items.sort(key=key)


def short_tmp(prefix: str) -> Path:
    """A new directory under /tmp (unix socket paths must stay short; pytest's tmp_path can be
    long), removed when this process exits: no test leaves its sockets, logs or data behind."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    server = RedisServer(short_tmp("kur-redis-"), EPHEMERAL_FLAGS)
    server.start()
    yield server.url
    server.stop()


@pytest.fixture(scope="session")
def store(redis_url: str) -> Iterator[Store]:
    store = Store(redis_url)
    yield store
    store.close()


@pytest.fixture(scope="session")
def app(redis_url: str) -> Flask:
    # Limits high enough for the suite (the contract test alone sends >1000 requests with one
    # token); tests/test_security.py checks the limits on an app of its own.
    return create_app({"REDIS_URL": redis_url, "WEB_POLL_SECONDS": 1, **UNLIMITED})


@contextmanager
def serve(app: Flask) -> Iterator[str]:
    """``app`` served by werkzeug on a free loopback port (threaded); yields its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(10)


def stop(proc: subprocess.Popen[bytes], seconds: float = 30) -> None:
    """SIGTERM, and SIGKILL if it has not ended within ``seconds``."""
    proc.terminate()
    try:
        proc.wait(seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def base_url(app: Flask) -> Iterator[str]:
    with serve(app) as url:
        yield url


@contextmanager
def worker_process(store: Store) -> Iterator[subprocess.Popen[bytes]]:
    """One real ``kurier worker`` process on ``store``'s Redis (and queue Redis), registered
    before this yields; stopped after."""
    tmp = short_tmp("kur-worker-")
    # Mail to players with an address (the demo's) lands here, not in the work tree's outbox.
    env = {
        **os.environ,
        "REDIS_URL": store.url,
        "KURIER_QUEUE_URL": store.queue_url,
        "KURIER_OUTBOX": str(tmp / "outbox"),
    }
    log = open(tmp / "worker.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "worker"], env=env, cwd=ROOT, stdout=log, stderr=log
    )
    proc.outbox = tmp / "outbox"  # where its mail lands
    deadline = time.monotonic() + 30
    try:
        while Worker.count(connection=store.queue_raw) < 1:
            assert proc.poll() is None, (tmp / "worker.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "the worker did not register within 30 s"
            time.sleep(0.1)
        yield proc
    finally:
        stop(proc)
        log.close()


@pytest.fixture(scope="session")
def worker(store: Store) -> Iterator[subprocess.Popen[bytes]]:
    """One real ``kurier worker`` process (forks a work-horse per job, like production)."""
    with worker_process(store) as proc:
        yield proc


@pytest.fixture
def kurier(base_url: str, worker: subprocess.Popen[bytes]) -> Kurier:
    return Kurier(base_url)


@pytest.fixture
def isolated_redis() -> Iterator[Store]:
    """A Redis of its own, with no worker: for tests that run jobs by hand."""
    server = RedisServer(short_tmp("kur-iso-"), EPHEMERAL_FLAGS)
    server.start()
    store = Store(server.url)
    yield store
    store.close()
    server.stop()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def streams(store: Store) -> Iterator[str]:
    """`kurier streams` (the production path), heartbeat 1 s, on the session's store; yields
    its base URL. One for the whole pytest process (each xdist process has its own), started
    when a test first asks: a start takes about 2 CPU-seconds and 3-6 s, a stop 3 s, and
    16 test modules follow streams. A stream ends when its reader (a test's, a page's) closes
    it, or at the end of its life; the server holds up to 1,000 (KURIER_STREAM_CONNECTIONS)."""
    port = _free_port()
    tmp = short_tmp("kur-streams-")
    env = {
        **os.environ,
        "REDIS_URL": store.url,
        "KURIER_QUEUE_URL": store.queue_url,
        "KURIER_STREAM_HEARTBEAT": "1",
        "KURIER_STREAM_WORKERS": "1",
        "KURIER_DATA_DIR": str(tmp),
    }
    log = open(tmp / "streams.log", "wb")  # noqa: SIM115
    argv = [sys.executable, "-m", "service.cli", "streams", "--host", "127.0.0.1"]
    proc = subprocess.Popen([*argv, "--port", str(port)], env=env, cwd=ROOT, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    try:
        while True:
            assert proc.poll() is None, (tmp / "streams.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "the stream server did not answer within 30 s"
            try:
                requests.get(f"{url}/v1/me/stream", timeout=2)
                break
            # Refused before it listens; a read timeout while its worker still boots (the
            # port is open but nothing answers yet: seen on a loaded machine).
            except (requests.ConnectionError, requests.Timeout):
                time.sleep(0.1)
        yield url
    finally:
        stop(proc)
        log.close()
        sys.stderr.write((tmp / "streams.log").read_text()[-3000:])  # shown if a test failed


@pytest.fixture(scope="session")
def notify_stack() -> Iterator[NotifyStack]:
    """The default notification stack (tests/notify_stack.py ``NotifyStack()``: a Redis of its
    own, the API, an SMTP sink, the workers ``kurier run`` starts), one for the whole pytest
    process, started when a test first asks: a start takes 2.5-3.6 CPU-seconds and 8-15 s, and
    11 test modules use it as it comes. Each takes it through ``shared_stack``, which empties
    the sink, so a module reads and counts only its own mails; the players and games in Redis
    are each module's own (new ids), and a test whose game has deadlines ends it after. A
    module that configures its stack (other settings, workers of its own, stopping the SMTP
    sink or a worker for good) starts one of its own. A test that replaces a worker
    (``stop_worker``, ``start_worker``) leaves the same roles running."""
    from tests.notify_stack import NotifyStack  # it imports this module

    stack = NotifyStack().start()
    yield stack
    stack.stop()


@pytest.fixture(scope="session")
def play_by_mail_stack() -> Iterator[MailStack]:
    """The default play-by-mail stack (tests/mail_stack.py ``MailStack()``: ``notify_stack``'s
    parts, its mails with reply addresses, and ``kurier mail-in``), one for the whole pytest
    process, shared as ``notify_stack`` is by the modules that use it as it comes."""
    from tests.mail_stack import MailStack  # it imports this module

    stack = MailStack().start()
    yield stack
    stack.stop()
