"""Redis unreachable: every request that needs it is answered 503 ``service-unavailable``
(problem+json, or a page for a browser; ``Retry-After``), and the outage is logged once, not
once per request.

An outage starts at the first request of this process that cannot reach Redis (one ERROR line)
and ends at the first request after it that reaches Redis again (one WARNING line, with how long
it lasted and how many requests were refused). Nothing needs a restart: redis-py reconnects on
its own. Each API process keeps its own record, so an outage is logged once per process.

While an outage lasts, one request at a time goes on to Redis (the probe: it finds out whether
Redis is back) and every other request that needs Redis is answered 503 at once. A Redis that
hangs (stopped, or a machine that stopped answering) costs a request the client's socket
timeout (5 s); without this every request paid it, each holding a thread, and requests queued
behind them for as long as the outage lasted.
"""

from __future__ import annotations

import logging
import threading
import time

import redis
from flask import Flask, Response, current_app, g, request

from service.common.problems import Problem, error_response
from service.http.schemas.contract import NO_REDIS

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
        self._probing = False

    def admit(self) -> bool:
        """Whether a request may go on to Redis: always outside an outage; during one, only
        as the probe, one at a time (``probe_done`` when it is over)."""
        with self._lock:
            if self.since is None:
                return True
            if self._probing:
                self.refused += 1
                return False
            self._probing = True
            return True

    def probe_done(self) -> None:
        with self._lock:
            self._probing = False

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


def _admit() -> None:
    """During an outage, refuse at once (503) a request that needs Redis, unless it is the one
    request that goes on to see whether Redis is back."""
    outage = _outage()
    if outage.since is None:
        return
    if not _needs_redis():
        g.kurier_redis_outage = True  # nor does the rate limiter try to count it
        return
    if not outage.admit():
        raise unavailable()
    g.kurier_outage_probe = True


def _needs_redis() -> bool:
    if request.routing_exception is not None:
        return False  # a 404 or 405: answered without Redis
    endpoint = request.endpoint or ""
    static = endpoint == "static" or endpoint.endswith(".static")
    return not (request.path in NO_REDIS or request.path == "/metrics" or static)


def _unreachable_for_the_rate_limiter() -> None:
    """The rate limiter, which reads Redis first, could not reach it (and let the request
    through): the outage starts now, and a request that needs Redis is answered 503 instead
    of waiting out the same timeout again."""
    error = g.pop("kurier_redis_unreachable", None)
    if error is None:
        return
    _outage().failed(error)
    if _needs_redis():
        raise unavailable()


def _probe_over(_error: BaseException | None) -> None:
    if g.pop("kurier_outage_probe", False):
        _outage().probe_done()


def init_app(app: Flask) -> None:
    app.extensions["kurier.outage"] = Outage()
    for error in OUTAGE_ERRORS:
        app.register_error_handler(error, _answer)
    # First of all the before-request hooks: the web session's and the rate limiter's read
    # Redis, and would wait out its timeout first.
    app.before_request_funcs.setdefault(None, []).insert(0, _admit)
    app.after_request(_ends_outage)
    app.teardown_request(_probe_over)


def after_rate_limit(app: Flask) -> None:
    """Once the rate limiter's hook is installed: act on what it met."""
    app.before_request(_unreachable_for_the_rate_limiter)
