"""The Flask application factory."""

from __future__ import annotations

import os
from collections.abc import Callable
from inspect import iscoroutinefunction
from types import MethodType
from typing import Any

from flask import Flask
from flask_swagger_ui import get_swaggerui_blueprint

from engine import registry
from service.common.problems import Api
from service.domain import ratelimit
from service.http import outage
from service.http.proxies import TrustedProxies
from service.http.schemas import contract
from service.ops.config import trusted_proxies
from service.store import Store

API_TITLE = "Kurier"
API_VERSION = "1"
#: Bigger bodies are refused with 413 before any parsing: a move is a few bytes.
MAX_BODY = 64 * 1024


#: Functions whose answer ``KurierFlask.ensure_sync`` keeps: the app's hooks and views are a
#: few hundred.
SYNC_REMEMBERED = 4096


class KurierFlask(Flask):
    """Flask, with ``ensure_sync``'s question answered once per function. Flask and
    flask-smorest ask it for every hook, view and decorator on every request (about twenty
    times a move), and each answer inspects the function's code flags again."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Function (a method's own function) -> whether it is a coroutine function.
        self._coroutines: dict[Callable[..., Any], bool] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        own = func.__func__ if isinstance(func, MethodType) else func
        try:
            coroutine = self._coroutines[own]
        except KeyError:
            coroutine = iscoroutinefunction(own)
            if len(self._coroutines) < SYNC_REMEMBERED:
                self._coroutines[own] = coroutine
        except TypeError:  # an unhashable callable: asked every time
            return super().ensure_sync(func)
        return self.async_to_sync(func) if coroutine else func


def create_app(config: dict[str, Any] | None = None) -> Flask:
    app = KurierFlask(__name__)
    app.config.update(
        API_TITLE=API_TITLE,
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/v1",
        OPENAPI_JSON_PATH="openapi.json",
        MAX_CONTENT_LENGTH=MAX_BODY,
        REDIS_URL=os.environ.get("REDIS_URL"),
        QUEUE_URL=os.environ.get("KURIER_QUEUE_URL"),
        RATE_LIMIT=os.environ.get("KURIER_RATE_LIMIT") or ratelimit.DEFAULT_LIMIT,
        SIGNUP_RATE_LIMIT=(
            os.environ.get("KURIER_SIGNUP_RATE_LIMIT") or ratelimit.DEFAULT_SIGNUP_LIMIT
        ),
        SIGNIN_MAIL_LIMIT=(
            os.environ.get("KURIER_SIGNIN_MAIL_LIMIT") or ratelimit.DEFAULT_SIGNIN_MAIL_LIMIT
        ),
        TRUSTED_PROXIES=os.environ.get("KURIER_TRUSTED_PROXIES", ""),
        JSON_SORT_KEYS=False,
    )
    app.config.update(config or {})
    trusted = trusted_proxies(app.config["TRUSTED_PROXIES"])
    if trusted:
        # The client's address from X-Forwarded-For, from those proxies only (proxies.py).
        app.wsgi_app = TrustedProxies(app.wsgi_app, trusted)  # type: ignore[method-assign,assignment]  # WSGI middleware, as Flask's docs wrap it
    app.json.sort_keys = False  # type: ignore[attr-defined]  # Flask's default provider has it
    # No connection is opened here: the store connects lazily, after gunicorn forks.
    app.extensions["kurier.store"] = Store(
        app.config["REDIS_URL"] or "unix:///nonexistent", app.config["QUEUE_URL"] or None
    )

    api = Api(app, spec_kwargs={"info": {"description": _DESCRIPTION}})
    # Per-game-type schemas, shared headers and answers: service/http/schemas/contract.py.
    contract.install(api.spec)
    api.spec.components.security_scheme(
        "bearerAuth", {"type": "http", "scheme": "bearer", "description": "kur_pat_… token"}
    )
    from service.http.api import (
        games,
        index,
        messages,
        meta,
        players,
        profiles,
        social,
        streams,
        tokens,
        tournaments,
    )

    for blueprint in (
        index.blp,
        meta.blp,
        players.blp,
        tokens.blp,
        games.blp,
        messages.blp,
        profiles.blp,
        streams.blp,
        tournaments.blp,
        social.blp,
    ):
        api.register_blueprint(blueprint)
    # Interactive docs served from the flask-swagger-ui wheel: works offline, no CDN.
    app.register_blueprint(get_swaggerui_blueprint("/docs", "/v1/openapi.json"))
    app.extensions["kurier.api"] = api
    from service.http import web

    web.init_app(app)
    # Request ids and JSON access lines first, so the metrics hook runs inside them.
    from service.common import logs
    from service.ops import metrics
    from service.store.queues import WEBHOOK_QUEUE, WORKER_QUEUES

    logs.init_app(app)
    metrics.init_app(app, (*WORKER_QUEUES, WEBHOOK_QUEUE))
    # Redis down: 503 with Retry-After, logged once per outage (service/http/outage.py).
    outage.init_app(app)
    # Last, so a refused request still gets its request id, access line and metrics.
    ratelimit.init_app(app)
    outage.after_rate_limit(app)
    registry.load_all()  # now, not in a player's first move of each type
    return app


_DESCRIPTION = (
    "Correspondence board games over HTTP. Errors are RFC 9457 application/problem+json with "
    "a stable `code`. See docs/api.md for the play loop, idempotency and sealed choices."
)
