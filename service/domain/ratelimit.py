"""Rate limits, counted in the app's Redis with the ``limits`` library.

Every request is counted against one budget per caller (``KURIER_RATE_LIMIT``, an application
limit shared by all routes): a caller with a valid bearer token is keyed by the token's SHA-256
(the same hash the token is stored under, never the token), a signed-in browser by its
session's player (``g.kurier_session_player``, set by the web pages before this counts), anyone
else by the client's address (``request.remote_addr``: behind trusted proxies, the address they
forwarded, service/http/proxies.py). Creating players (``POST /v1/players`` and the pages'
``POST /register``) has a stricter budget of its own per client address
(``KURIER_SIGNUP_RATE_LIMIT``), and so has asking for a sign-in mail (``POST /signin``: it
mails whatever address it is given). Sign-in mails to one address have a budget too
(``KURIER_SIGNIN_MAIL_LIMIT``, ``signin_mail_allowed``). ``/healthz``, ``/metrics`` and the
endpoints in ``EXEMPT_ENDPOINTS`` (the pages' static assets) are never limited.

A caller over its budget gets 429 ``rate-limited`` with ``Retry-After`` (problem+json, or a page
for a browser: ``error_response``); the request is refused before the view runs, so nothing
changes. ``KURIER_RATE_LIMIT_HEADERS=1`` adds ``X-RateLimit-Limit``, ``-Remaining`` and
``-Reset`` to every response.
"""

from __future__ import annotations

import hashlib
import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import redis
from flask import Flask, Response, current_app, g, request
from limits import RateLimitItem, parse_many
from limits.storage import RedisStorage, storage_from_string
from limits.strategies import SlidingWindowCounterRateLimiter

from service.common.problems import Problem, error_response
from service.store import TOKEN_PREFIX, redis_urls
from service.store.tokens import Counting

DEFAULT_LIMIT = "120/minute"
DEFAULT_SIGNUP_LIMIT = "10/minute;100/hour"
DEFAULT_SIGNIN_MAIL_LIMIT = "3/hour"
EXEMPT_PATHS = ("/healthz", "/metrics")
#: Endpoints never counted, registered by their adapters (the web pages' static files: a page
#: view is one request of the budget, not one per asset).
EXEMPT_ENDPOINTS: set[str] = set()
#: The posts that create a player or mail a stranger: the API's and the web pages'
#: registration, and the pages' sign-in by mail.
SIGNUP_PATHS = ("/v1/players", "/register", "/signin")
TRUTHY = ("1", "true", "yes", "on")

#: Endpoints whose transaction's first read rides in the limiter's round trip: endpoint name →
#: (player id → the game id and idempotency key the transaction reads). The API registers
#: them (service/http/api/games.py); the store keeps the read for the transaction (Store.transact).
EARLY_READS: dict[str, Callable[[str], tuple[str, str | None]]] = {}
#: ``limits``' own sliding-window script, run by ``Limits._with_token_read`` inside the
#: request's first script (``Tokens.checked_player``).
ACQUIRE_LUA: bytes = RedisStorage.SCRIPT_ACQUIRE_SLIDING_WINDOW


def check_limit(value: str) -> None:
    """Raises ValueError unless ``value`` is a limits string such as ``120/minute;2000/hour``."""
    if not parse_many(value):
        raise ValueError("no limit given")


def storage_uri(redis_url: str) -> str:
    """The app's REDIS_URL as ``limits`` spells it (``unix://`` becomes ``redis+unix://``)."""
    if redis_url.startswith("unix://"):
        return "redis+" + redis_url
    return redis_url


def bearer_token() -> str | None:
    """The request's bearer token if it has the shape of one (not yet looked up)."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() == "bearer" and token.startswith(TOKEN_PREFIX) and len(token) <= 200:
        return token
    return None


def token_rate_key(token: str) -> str:
    return "token:" + hashlib.sha256(token.encode()).hexdigest()


def caller_key() -> str:
    """The token's hash for a valid bearer token, else the signed-in browser's player, else
    the client's address.

    The token is looked up (and the player remembered for ``current_player``) so that made-up
    tokens share their sender's address budget instead of each getting a fresh one.
    """
    token = bearer_token()
    if token is not None:
        try:
            player = current_app.extensions["kurier.store"].players.for_token(token)
        except redis.RedisError:
            player = None  # the view answers the outage; the limit falls back to the address
        if player is not None:
            g.kurier_player = player
            return token_rate_key(token)
    session_player: str | None = g.get("kurier_session_player")
    if session_player:
        return "player:" + session_player
    return address_key()


def address_key() -> str:
    return "addr:" + (request.remote_addr or "unknown")


@dataclass
class Limits:
    """The budgets, parsed once, and the counter storage, opened once per process (after a
    fork). Counting is ``limits``' sliding window counter: two counters per caller and window,
    one Redis script call per limit (Flask-Limiter did the same, with about 0.2 ms more of
    Python per request: docs/performance.md)."""

    uri: str
    prefix: str
    general: list[RateLimitItem]
    signup: list[RateLimitItem]
    headers: bool
    #: Sign-in mails to one address, asked by anyone (``signin_mail_allowed``).
    signin_mail: list[RateLimitItem] = field(default_factory=list)
    #: The counters live in the game store's Redis (one Redis, not a cluster): the limit can
    #: share a script with the token's read (``_with_token_read``).
    pipelined: bool = False
    _strategies: dict[int, SlidingWindowCounterRateLimiter] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def strategy(self) -> SlidingWindowCounterRateLimiter:
        pid = os.getpid()
        if pid not in self._strategies:
            with self._lock:
                if pid not in self._strategies:
                    options = redis_urls.limits_options(self.uri)
                    storage = storage_from_string(self.uri, key_prefix=self.prefix, **options)
                    self._strategies[pid] = SlidingWindowCounterRateLimiter(storage)
        return self._strategies[pid]

    def check(self) -> tuple[RateLimitItem, str, str] | None:
        """Count this request; the limit, scope and key it went over, if any."""
        counted = self._with_token_read()
        if counted is not None:
            return counted[0]
        g.kurier_rate_key = caller_key()
        budgets = [(self.general, "all", g.kurier_rate_key)]
        if request.method == "POST" and request.path in SIGNUP_PATHS:
            budgets.append((self.signup, "signup", address_key()))
        for items, scope, key in budgets:
            for item in items:
                if not self.strategy.hit(item, scope, key):
                    return item, scope, key
        return None

    def _with_token_read(self) -> tuple[tuple[RateLimitItem, str, str] | None] | None:
        """The common case in one Redis round trip instead of two: a bearer token this process
        has seen recently, one general limit, counters on the game store. The limit's script
        runs inside the one script that also reads the token's owner and the player's hash
        (which the view then reuses: ``g.kurier_player_hash``). None: not that case, or the
        token no longer belongs to that player (revoked: counted on the token's key, then the
        usual path counts the address and the view answers 401). Raises what Redis raises
        when it cannot be reached."""
        if not self.pipelined or len(self.general) != 1 or request.path in SIGNUP_PATHS:
            return None
        token = bearer_token()
        store = current_app.extensions["kurier.store"]
        player_id = store.tokens.known_player(token) if token else None
        if token is None or player_id is None:
            return None
        key = token_rate_key(token)
        item = self.general[0]
        counters = self.prefix + ":{" + item.key_for("all", key) + "}"
        counting = Counting(
            ACQUIRE_LUA, (counters + "/-1", counters), (item.amount, item.get_expiry(), 1)
        )
        early_read = EARLY_READS.get(request.endpoint or "")
        try:
            within, raw = store.tokens.checked_player(
                token, player_id, counting, early_read(player_id) if early_read else None
            )
        except (redis.ConnectionError, redis.TimeoutError):
            raise  # unreachable: said once (``_count``), not met again by the usual path
        except redis.RedisError:
            return None  # a refusal (a key of another type): the usual path answers
        if not raw:
            return None
        g.kurier_player = store.players.from_hash(raw)
        g.kurier_player_hash = raw
        g.kurier_rate_key = key
        return (None if within else (item, "all", key),)


def _limits() -> Limits:
    limits: Limits = current_app.extensions["kurier.limits"]
    return limits


def _count() -> Response | None:
    if request.path in EXEMPT_PATHS or request.endpoint in EXEMPT_ENDPOINTS:
        return None
    if g.get("kurier_redis_outage"):
        return None  # Redis is known to be unreachable: not counted (service/http/outage.py)
    limits = _limits()
    try:
        over = limits.check()
        if limits.headers:
            g.kurier_budget = limits.strategy.get_window_stats(
                limits.general[0], "all", g.kurier_rate_key
            )
        if over is None:
            return None
        item, scope, key = over
        stats = limits.strategy.get_window_stats(item, scope, key)
    except (redis.ConnectionError, redis.TimeoutError) as error:
        # Not counted, as below; and said, so that a request that needs Redis is answered 503
        # now (service/http/outage.py) instead of waiting for its own timeout again.
        g.kurier_redis_unreachable = error
        return None
    except Exception:
        return None
    retry = max(1, math.ceil(stats.reset_time - time.time()))
    problem = Problem(
        429,
        "rate-limited",
        f"too many requests (limit {item}); retry after {retry} s",
        headers={"Retry-After": str(retry)},
        retry_after=retry,
    )
    return error_response(problem)


def signin_mail_allowed(address: str) -> bool:
    """Count a sign-in mail to ``address`` against that address's budget
    (``KURIER_SIGNIN_MAIL_LIMIT``), whether or not a player gave it: False once it had its
    mails. Counted per address, not per player, so that the answer says nothing of which
    addresses are known, and by the address's hash, so that no address is kept in a key."""
    limits = _limits()
    key = "mail:" + hashlib.sha256(address.strip().lower().encode()).hexdigest()
    return all(limits.strategy.hit(item, "signin-mail", key) for item in limits.signin_mail)


def _budget_headers(response: Response) -> Response:
    stats = g.get("kurier_budget")
    if stats is not None:
        response.headers["X-RateLimit-Limit"] = str(_limits().general[0].amount)
        response.headers["X-RateLimit-Remaining"] = str(max(0, stats.remaining))
        response.headers["X-RateLimit-Reset"] = str(math.ceil(stats.reset_time))
    return response


def _forget_early_read(_error: BaseException | None) -> None:
    current_app.extensions["kurier.store"].early.forget()


def init_app(app: Flask) -> Limits:
    """Limits from ``app.config``: ``RATE_LIMIT``, ``SIGNUP_RATE_LIMIT`` and
    ``SIGNIN_MAIL_LIMIT`` (limits strings)."""
    own_uri = app.config.get("RATELIMIT_STORAGE_URI")
    uri = own_uri or storage_uri(app.config["REDIS_URL"] or "")
    # X-RateLimit-* on every response costs a second Redis call per request: opt-in. A
    # refusal always says Retry-After.
    headers = app.config.get("RATE_LIMIT_HEADERS")
    if headers is None:
        headers = os.environ.get("KURIER_RATE_LIMIT_HEADERS", "") in TRUTHY
    limits = Limits(
        uri=uri,
        prefix=app.config.get("RATELIMIT_KEY_PREFIX", "kurier:ratelimit"),
        general=list(parse_many(app.config["RATE_LIMIT"])),
        signup=list(parse_many(app.config["SIGNUP_RATE_LIMIT"])),
        headers=bool(headers),
        signin_mail=list(parse_many(app.config["SIGNIN_MAIL_LIMIT"])),
        pipelined=not own_uri and app.extensions["kurier.store"].mode != "cluster",
    )
    app.extensions["kurier.limits"] = limits
    app.before_request(_count)
    app.teardown_request(_forget_early_read)
    if limits.headers:
        app.after_request(_budget_headers)
    return limits
