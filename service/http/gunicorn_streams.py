"""gunicorn settings for the stream server (`kurier streams` passes `--config` here).

gevent workers: each open stream is a greenlet waiting on its Redis read, not a thread, so a
process holds ``KURIER_STREAM_CONNECTIONS`` of them (docs/performance.md, "Streams"). The app
is made in each worker after gevent has patched the standard library (nothing is preloaded),
so redis-py's sockets yield to the other streams while they wait.

What gunicorn refuses itself (a bare LF, a NUL in a header, a header over 8 KB, a URL over 4 KB)
is answered problem+json, as by the API (service/http/gunicorn_worker.py).
"""

from __future__ import annotations

import os
from typing import Any

from gunicorn.workers.ggevent import GeventWorker

from service.common.logs import gunicorn_logconfig
from service.http.gunicorn_worker import ProblemAnswers
from service.store.redis_server import data_dir_from_env


class ProblemGeventWorker(ProblemAnswers, GeventWorker):
    """gunicorn's gevent worker, answering what gunicorn refuses itself as problem+json."""


worker_class = "service.http.gunicorn_streams.ProblemGeventWorker"
workers = int(os.environ.get("KURIER_STREAM_WORKERS") or 2)
worker_connections = int(os.environ.get("KURIER_STREAM_CONNECTIONS") or 1000)
timeout = 30  # the worker's own heartbeat; an open stream is not a stuck request
# Open streams never finish on their own: cut them soon at shutdown, clients resume with
# Last-Event-ID.
graceful_timeout = 5
keepalive = 5
control_socket = str(data_dir_from_env() / "gunicorn-streams.ctl")
accesslog = None
logger_class = "service.http.gunicorn_worker.AppAccessLogger"
logconfig_dict = gunicorn_logconfig()


def on_starting(_server: Any) -> None:
    # Delivering an event costs CPU per open stream of its game (0.3-0.4 ms each): the
    # stream server runs at the API's niceness (KURIER_WEB_NICE; 5 as in
    # service/http/gunicorn_conf.py), not above it as before, so that on a shared host it shares the
    # CPU with the API and leaves the conflict workers their priority (docs/performance.md,
    # "Streams"). Its workers inherit it.
    os.nice(int(os.environ.get("KURIER_WEB_NICE") or 5))
