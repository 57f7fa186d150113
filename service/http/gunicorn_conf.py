"""gunicorn settings for the API (`kurier web` and `kurier run` pass `--config` here).

gthread workers (stack guide §10): a few processes with threads each, since requests wait on
Redis most of the time; `max_requests` with jitter recycles processes slowly. Nothing opens a
Redis connection at import, and the app is not preloaded: each worker connects after the fork.

Metrics: the processes share counter files in `PROMETHEUS_MULTIPROC_DIR`. It must be set
before prometheus_client is first imported (it picks its storage then), which is why it is set
here, in the master, before the app is loaded by any worker.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from service.common.logs import gunicorn_logconfig
from service.http.gunicorn_worker import KEEPALIVE_MARGIN, freeze_loaded_app
from service.store.redis_server import data_dir_from_env

#: A directory made here is ours to remove at exit; one the operator named is not.
_own_metrics_dir = not os.environ.get("PROMETHEUS_MULTIPROC_DIR")
_metrics_dir = os.environ.setdefault(
    "PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="kurier-metrics-")
)
# gunicorn's control socket (for `gunicornc`) defaults to one path per user, so a second stack
# on the machine would take it over; each installation keeps its own in its data directory.
control_socket = str(data_dir_from_env() / "gunicorn.ctl")

# gthread, answering what gunicorn refuses itself (414, 431, 400) as problem+json too.
worker_class = "service.http.gunicorn_worker.ProblemThreadWorker"
DEFAULT_NICE = 5
DEFAULT_KEEPALIVE = 60
# Two per core: one process is held to one core by the GIL, and its threads also wait on Redis
# (docs/performance.md: one process per core left a third of the machine idle).
workers = int(os.environ.get("KURIER_WEB_WORKERS") or 2 * (os.cpu_count() or 1))
# Four: more threads per process only queue behind the GIL (p99 145 ms instead of 63 ms at
# 250 moves/s on 2 cores, docs/performance.md).
threads = int(os.environ.get("KURIER_WEB_THREADS", "4"))
timeout = 30
graceful_timeout = 25  # within Docker's stop grace period
# A recycled worker costs a second or more of CPU to boot and drops its keep-alive connections:
# at 2,000 requests a busy worker restarted every few seconds under load (docs/performance.md).
max_requests = 100_000
max_requests_jitter = 10_000
# An idle kept-alive connection stays open KURIER_KEEPALIVE seconds, as every answer says
# (Keep-Alive: timeout=N), and is closed KEEPALIVE_MARGIN seconds after that: never while a
# client that heeds the advertisement may still send on it. 60: above the idle timeouts of
# common proxies' upstream pools and load balancers (nginx's 60 s, cloud balancers' 60 s), so
# a proxy closes its idle upstream connections before the server does (docs/operations.md).
keepalive = int(os.environ.get("KURIER_KEEPALIVE") or DEFAULT_KEEPALIVE) + KEEPALIVE_MARGIN
accesslog = None  # the app writes its own JSON access lines, with the request id
logger_class = "service.http.gunicorn_worker.AppAccessLogger"
logconfig_dict = gunicorn_logconfig()


def on_starting(_server: Any) -> None:
    # Values left by an earlier run would be added to this one's.
    path = Path(_metrics_dir)
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    # A CPU-bound API must not starve the workers on a shared host: a conflict waiting for its
    # resolution stops a whole game (docs/performance.md: resolution p95 2.9 s instead of 49 ms
    # at 400 moves/s on 2 cores). The workers inherit it.
    os.nice(int(os.environ.get("KURIER_WEB_NICE") or DEFAULT_NICE))


def post_worker_init(_worker: Any) -> None:
    # The app is loaded: its objects leave the cyclic collector's walks (gunicorn_worker.py).
    freeze_loaded_app()


def child_exit(_server: Any, worker: Any) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(_server: Any) -> None:
    if _own_metrics_dir:
        shutil.rmtree(_metrics_dir, ignore_errors=True)
