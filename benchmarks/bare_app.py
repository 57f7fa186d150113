"""The bare framework: what Flask, gunicorn and one Redis read cost without the service around them.

One route, ``GET /bare``, that reads one string from Redis and answers it as JSON. The Redis
client is the service's own (``Store.r``: the same pool class, pool size, socket timeout and
reply decoding), made lazily after gunicorn forks, and benchmarks/load.py serves this module with
the service's gunicorn settings (``--config python:service.http.gunicorn_conf``: processes, threads,
niceness, timeouts), so the gap between this endpoint and ``GET /v1/me`` is what the service's
request path adds: rate limiter, logging, metrics, authentication, flask-smorest, marshmallow.

Serve: ``REDIS_URL=... gunicorn --config python:service.http.gunicorn_conf benchmarks.bare_app:app``
from the repository root.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from flask import Flask

from service.store import Store

#: The key benchmarks/load.py fills before it measures; a missing key is answered too (null).
BARE_KEY = "kurier:bench:bare"

app = Flask(__name__)


@cache
def store() -> Store:
    # REDIS_URL is read at the first request, not at import (benchmarks/load.py imports BARE_KEY
    # from here before any Redis exists).
    return Store.from_env()


@app.get("/bare")
def bare() -> dict[str, Any]:
    return {"value": store().r.get(BARE_KEY)}
