"""Rate limits (Flask-Limiter), counted in the app's Redis.

Every request is counted against one budget per caller (``KURIER_RATE_LIMIT``, an application
limit shared by all routes): a caller with a valid bearer token is keyed by the token's SHA-256
(the same hash the token is stored under, never the token), anyone else by the remote address.
Creating players (``POST /v1/players``) has a stricter budget of its own per remote address
(``KURIER_SIGNUP_RATE_LIMIT``). ``/healthz`` and ``/metrics`` are never limited.

A caller over its budget gets 429 ``rate-limited`` (problem+json) with ``Retry-After``; the
request is refused before the view runs, so nothing changes. ``KURIER_RATE_LIMIT_HEADERS=1``
adds ``X-RateLimit-Limit``, ``-Remaining`` and ``-Reset`` to every response.
"""

from __future__ import annotations

import hashlib
import math
import os
import time

import redis
from flask import Flask, Response, current_app, g, request
from flask_limiter import ApplicationLimit, Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address
from limits import parse_many

from service.problems import Problem, problem_response
from service.store import TOKEN_PREFIX

DEFAULT_LIMIT = "120/minute"
DEFAULT_SIGNUP_LIMIT = "10/minute;100/hour"
EXEMPT_PATHS = ("/healthz", "/metrics")
SIGNUP_PATH = "/v1/players"
TRUTHY = ("1", "true", "yes", "on")


def check_limit(value: str) -> None:
    """Raises ValueError unless ``value`` is a limits string such as ``120/minute;2000/hour``."""
    if not parse_many(value):
        raise ValueError("no limit given")


def storage_uri(redis_url: str) -> str:
    """The app's REDIS_URL as ``limits`` spells it (``unix://`` becomes ``redis+unix://``)."""
    if redis_url.startswith("unix://"):
        return "redis+" + redis_url
    return redis_url


def caller_key() -> str:
    """The token's hash for a valid bearer token, else the remote address.

    The token is looked up (and the player remembered for ``current_player``) so that made-up
    tokens share their sender's address budget instead of each getting a fresh one.
    """
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() == "bearer" and token.startswith(TOKEN_PREFIX) and len(token) <= 200:
        try:
            player = current_app.extensions["kurier.store"].player_for_token(token)
        except redis.RedisError:
            player = None  # the view answers the outage; the limit falls back to the address
        if player is not None:
            g.kurier_player = player
            return "token:" + hashlib.sha256(token.encode()).hexdigest()
    return "addr:" + (get_remote_address() or "unknown")


def address_key() -> str:
    return "addr:" + (get_remote_address() or "unknown")


def _not_signup() -> bool:
    return not (request.method == "POST" and request.path == SIGNUP_PATH)


def _exempt() -> bool:
    return request.path in EXEMPT_PATHS


def _rate_limited(error: RateLimitExceeded) -> Response:
    current = current_app.extensions["kurier.limiter"].current_limit
    retry = max(1, math.ceil(current.reset_at - time.time())) if current else 1
    problem = Problem(
        429,
        "rate-limited",
        f"too many requests (limit {error.description}); retry after {retry} s",
        headers={"Retry-After": str(retry)},
        retry_after=retry,
    )
    return problem_response(problem)


def _only_429_retries(response: Response) -> Response:
    # Flask-Limiter puts Retry-After on every limited response; it means something only on 429
    # (and on a 503 that set its own).
    if response.status_code < 400 and "Retry-After" in response.headers:
        del response.headers["Retry-After"]
    return response


def init_app(app: Flask) -> Limiter:
    """Limits from ``app.config``: ``RATE_LIMIT`` and ``SIGNUP_RATE_LIMIT`` (limits strings)."""
    app.config.setdefault("RATELIMIT_STORAGE_URI", storage_uri(app.config["REDIS_URL"] or ""))
    app.config.setdefault("RATELIMIT_KEY_PREFIX", "kurier:ratelimit")
    # X-RateLimit-* on every response costs a second Redis call per request (about 0.4 ms of
    # a 2-3 ms move, docs/performance.md): opt-in. A refusal always says Retry-After.
    app.config.setdefault(
        "RATE_LIMIT_HEADERS", os.environ.get("KURIER_RATE_LIMIT_HEADERS", "") in TRUTHY
    )
    # Redis down: the request goes on and fails (or not) as it would without limits.
    app.config.setdefault("RATELIMIT_SWALLOW_ERRORS", True)
    app.register_error_handler(RateLimitExceeded, _rate_limited)
    # Registered before the limiter's own hook, so it runs after it.
    app.after_request(_only_429_retries)
    limiter = Limiter(
        key_func=caller_key,
        application_limits=[
            ApplicationLimit(lambda: app.config["RATE_LIMIT"]),
            ApplicationLimit(
                lambda: app.config["SIGNUP_RATE_LIMIT"],
                key_function=address_key,
                scope="signup",
                exempt_when=_not_signup,
            ),
        ],
        headers_enabled=app.config["RATE_LIMIT_HEADERS"],
        # Two counters per caller and window, O(1) in time and memory; a moving window keeps
        # one list entry per request of the window (a busy bot: thousands) and reads it by index.
        strategy="sliding-window-counter",
    )
    limiter.init_app(app)
    limiter.request_filter(_exempt)
    app.extensions["kurier.limiter"] = limiter
    return limiter
