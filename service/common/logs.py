"""Structured logs: one JSON object per line on stderr, each request with a request id.

The request id comes from the caller's ``X-Request-ID`` header when it is a short, safe token
(a load balancer's id, so one id follows a request across hops), else we make one; either way
it is sent back in ``X-Request-ID`` and put on every log line written during the request.

What is logged about a request: method, route template, status, duration and the request id.
Never headers, query strings or bodies: they carry bearer tokens and sealed choices.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import re
import sys
import time
import uuid
from typing import Any

from flask import Flask, Response, g, has_request_context, request

REQUEST_ID_HEADER = "X-Request-ID"
#: Accepted from callers as is; anything else (too long, odd characters) is replaced.
_SAFE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
ACCESS_LOGGER = "kurier.access"


#: One encoder for every line (``json.dumps(..., default=str)`` builds a new one per call).
_ENCODER = json.JSONEncoder(default=str)


class JsonFormatter(logging.Formatter):
    """``{"ts", "level", "logger", "msg", "request_id"?, ...extra}`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None) or current_request_id()
        if request_id:
            out["request_id"] = request_id
        out |= getattr(record, "fields", {})
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return _ENCODER.encode(out)


def current_request_id() -> str | None:
    return g.get("request_id") if has_request_context() else None


def configure_logging(level: str | None = None) -> None:
    """JSON lines on stderr for everything (the app, gunicorn's error log, rq)."""
    # No line shows the caller's file and line, thread or process: logging's own optimization
    # switches (the "Optimization" section of the logging HOWTO) spare every record a walk up
    # the stack and three lookups, about 10 µs per access line.
    logging._srcfile = None
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    name = (level or os.environ.get("KURIER_LOG_LEVEL") or "INFO").upper()
    # A wrong name must not stop the service: `kurier config check` reports it instead.
    root.setLevel(logging.getLevelNamesMapping().get(name, logging.INFO))


def init_app(app: Flask) -> None:
    app.before_request(_start)
    app.after_request(_finish)


class _Ids:
    """Request ids: 32 hex digits, a random half per process and a counter (``uuid4`` reads
    the kernel's random source on every call; an id only has to be unique, not secret)."""

    def __init__(self) -> None:
        self.reset()
        os.register_at_fork(after_in_child=self.reset)  # gunicorn's workers: a half each

    def reset(self) -> None:
        self.prefix = uuid.uuid4().hex[:16]
        self.counter = itertools.count()

    def new(self) -> str:
        return f"{self.prefix}{next(self.counter) & 0xFFFF_FFFF_FFFF_FFFF:016x}"


_ids = _Ids()
_access = logging.getLogger(ACCESS_LOGGER)


def _start() -> None:
    given = request.headers.get(REQUEST_ID_HEADER, "")
    g.request_id = given if _SAFE_ID.match(given) else _ids.new()
    g.request_started = time.perf_counter()


def _finish(response: Response) -> Response:
    request_id = g.get("request_id") or _ids.new()
    response.headers[REQUEST_ID_HEADER] = request_id
    if not _access.isEnabledFor(logging.INFO):
        return response  # KURIER_LOG_LEVEL=warning: no line, so nothing to build
    fields = {
        "method": request.method,
        "route": route_label(),
        "status": response.status_code,
        "duration_ms": round(seconds_since_start() * 1000, 2),
    }
    _access.info("request", extra={"fields": fields})
    return response


def seconds_since_start() -> float:
    """How long this request has taken so far, from when ``_start`` saw it (0 for a request
    refused before that hook ran, as an outage's 503 is): the access line's duration and
    the move-duration histogram's."""
    now = time.perf_counter()
    started: float = g.get("request_started", now)
    return now - started


def route_label() -> str:
    """The URL rule (``/v1/games/<game_id>``), never the concrete path: ids are unbounded."""
    rule = request.url_rule
    return rule.rule if rule is not None else "unmatched"


def gunicorn_logconfig() -> dict[str, Any]:
    """gunicorn's own lines as JSON on stderr, like the app's (the API's and the stream
    server's gunicorn settings)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "service.common.logs.JsonFormatter"}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stderr",
            }
        },
        "root": {
            "handlers": ["stderr"],
            "level": os.environ.get("KURIER_LOG_LEVEL", "INFO").upper(),
        },
        "loggers": {"gunicorn.error": {"handlers": [], "propagate": True}},
    }
