"""Redis unreachable: every request that needs it is answered 503 ``service-unavailable``
(problem+json, or a page for a browser; ``Retry-After``), and the outage is logged once, not
once per request.

An outage starts at the first request of this process that cannot reach Redis (one ERROR line)
and ends at the first request after it that reaches Redis again (one WARNING line, with how long
it lasted and how many requests were refused). Nothing needs a restart: redis-py reconnects on
its own. Each API process keeps its own record, so an outage is logged once per process.
"""

from __future__ import annotations

import logging
import threading
import time

import redis
from flask import Flask, Response, current_app

from service.common.problems import Problem, error_response

#: What "Redis is unreachable" looks like (BusyLoadingError, Redis replaying its AOF after a
#: restart, is a ConnectionError).
#: A failover looks like one of these for a moment: a demoted primary refusing writes
#: (ReadOnlyError), a cluster whose dead master's slots are not taken over yet (ClusterDownError,
#: TryAgainError, SlotNotCoveredError: not a RedisError in redis-py).
OUTAGE_ERRORS: tuple[type[Exception], ...] = (
    redis.ConnectionError,
    redis.TimeoutError,
    redis.exceptions.ReadOnlyError,
    redis.exceptions.ClusterError,
    redis.exceptions.TryAgainError,
    redis.exceptions.RedisClusterException,
)
RETRY_AFTER_SECONDS = 5
log = logging.getLogger("kurier.outage")


class Outage:
    """This process's view of Redis: reachable, or down since when (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.since: float | None = None
        self.refused = 0

    def failed(self, error: Exception) -> None:
        with self._lock:
            self.refused += 1
            if self.since is not None:
                return
            self.since = time.monotonic()
        log.error("Redis unreachable, answering 503 until it is back: %s", error)

    def reached(self) -> None:
        with self._lock:
            if self.since is None:
                return
            lasted, refused = time.monotonic() - self.since, self.refused
            self.since, self.refused = None, 0
        log.warning("Redis reachable again after %.1f s; %d request(s) refused", lasted, refused)


def unavailable() -> Problem:
    return Problem(
        503,
        "service-unavailable",
        "the game store is unreachable; nothing was changed, retry shortly",
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        retry_after=RETRY_AFTER_SECONDS,
    )


def _outage() -> Outage:
    return current_app.extensions["kurier.outage"]


def _answer(error: Exception) -> Response:
    _outage().failed(error)
    return error_response(unavailable())


def _ends_outage(response: Response) -> Response:
    """While an outage is on, a request that was not refused checks whether Redis is back."""
    outage = _outage()
    if outage.since is not None and response.status_code != 503:
        try:
            current_app.extensions["kurier.store"].r.ping()
        except redis.RedisError:
            return response
        outage.reached()
    return response


def init_app(app: Flask) -> None:
    app.extensions["kurier.outage"] = Outage()
    for error in OUTAGE_ERRORS:
        app.register_error_handler(error, _answer)
    app.after_request(_ends_outage)
