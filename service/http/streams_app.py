"""The stream server: a small Flask app holding only the two Server-Sent Events routes
(service/domain/streams.py), served by ``kurier streams`` under gunicorn's gevent workers.

An open stream is a connection that waits for minutes; under the API's gthread workers each one
would hold a request thread. Here each is a greenlet blocked on its Redis read, so one process
holds about ``KURIER_STREAM_CONNECTIONS`` of them. The API answers the same two paths with 307 to
this server (``KURIER_STREAM_URL``); a reverse proxy can route them here instead
(docs/operations.md, "Streams").

Tokens are checked as by the API (service/http/auth.py), or a one-time stream ticket stands for
one: the API's 307 puts it in the URL for a caller who sent a token, because HTTP clients drop
``Authorization`` when a redirect changes the port (``Tokens.stream_ticket``,
service/store/tokens.py). Either is checked against Redis at the stream's opening, and the
token again once a heartbeat while it is open: a revoked token's stream ends
(service/domain/streams.py). Errors are problem+json (service/common/problems.py); every answer
carries ``X-Request-ID`` and makes an access line, as the API's (service/common/logs.py).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, current_app, g, request
from werkzeug.exceptions import HTTPException

from engine import registry
from service.common import logs
from service.common.problems import Problem, problem_response
from service.domain import moderation, streams
from service.domain.ratelimit import bearer_token
from service.http import outage
from service.http.auth import current_player, store
from service.http.schemas.streams import GAME_CURSOR, INBOX_CURSOR, resume_cursor
from service.store import Store
from service.store.tokens import STREAM_TICKET_PATTERN, STREAM_TICKET_SECONDS

HEADERS = {
    "Cache-Control": "no-cache, no-store",
    # nginx: do not buffer this response (also settable in its configuration).
    "X-Accel-Buffering": "no",
    "Vary": "Authorization",
}


def create_streams_app(config: dict[str, Any] | None = None) -> Flask:
    app = Flask(__name__)
    app.config.update(
        REDIS_URL=os.environ.get("REDIS_URL"),
        QUEUE_URL=os.environ.get("KURIER_QUEUE_URL"),
        STREAM_TIMING=timing_from(os.environ),
    )
    app.config.update(config or {})
    app.extensions["kurier.store"] = Store(
        app.config["REDIS_URL"] or "unix:///nonexistent", app.config["QUEUE_URL"] or None
    )
    app.register_error_handler(HTTPException, problem_response)
    logs.init_app(app)  # first: a refused request still gets its request id
    outage.init_app(app)  # Redis down: 503 with Retry-After, before any byte of a stream
    app.add_url_rule("/v1/games/<game_id>/stream", "stream_game_events", _game)
    app.add_url_rule("/v1/me/stream", "stream_my_inbox", _inbox)
    registry.load_all()  # the events' redaction needs them: now, not at a stream's first event
    return app


def _game(game_id: str) -> Response:
    caller = _caller(required=False)  # spectators welcome; a bad token is a 401
    after = _cursor(GAME_CURSOR)
    body = streams.game_stream(store(), game_id, caller, int(after or 0), _timing())
    response = _event_stream(body)
    # Pages on the API's origin (the web client) may follow a game as a spectator: with "*"
    # a browser sends no cookie or credentials, so such a stream is always redacted for
    # spectators. A token has to be set by a client's own code, as on the same origin.
    response.headers["Access-Control-Allow-Origin"] = "*"
    return response


def _inbox() -> Response:
    caller = _caller(required=True)
    assert caller is not None
    after = _cursor(INBOX_CURSOR)
    return _event_stream(streams.inbox_stream(store(), caller, after, _timing()))


TICKET = re.compile(STREAM_TICKET_PATTERN)


def _caller(required: bool) -> streams.Caller | None:
    """The caller by its token, or by the stream ticket the API's 307 gave it, checked now
    against Redis (a token revoked a moment ago is a 401 here); None: a spectator. The stream
    keeps the token's key (never the token) to ask later whether it still stands. A ticket
    that does not open (unknown, used, expired, its token revoked, another player's than the
    token sent along) is a 401, never a spectator's stream: the caller had sent a token."""
    ticket = request.args.get("ticket")
    if ticket is None:
        player = current_player(required)
        token = bearer_token()
        if player is None or token is None:
            return None
        return streams.Caller(store().tokens.key_of(token), player["id"])
    by_token = current_player(required=False)
    owner = store().tokens.ticket_owner(ticket) if TICKET.fullmatch(ticket) else None
    player = store().players.get(owner[1]) if owner else None
    if owner is None or player is None or (by_token is not None and by_token["id"] != player["id"]):
        raise Problem(
            401,
            "invalid-stream-ticket",
            "this stream ticket is unknown, used, expired or not yours (one use, within "
            f"{STREAM_TICKET_SECONDS} s): ask the API for the stream again",
            parameter="ticket",
            headers={"WWW-Authenticate": 'Bearer realm="kurier"'},
        )
    moderation.check_not_suspended(player)
    g.kurier_player = player
    return streams.Caller(owner[0], player["id"])


def _cursor(cursor: tuple[str, str]) -> str | None:
    """Where to resume, checked as the API's 307 route checks it (a 400 ``invalid-cursor``)."""
    return resume_cursor(cursor, request.headers.get("Last-Event-ID"), request.args.get("after"))


def timing_from(environ: Mapping[str, str]) -> streams.Timing:
    """KURIER_STREAM_HEARTBEAT and KURIER_STREAM_LIFETIME (checked by `kurier config check`)."""
    default = streams.Timing()
    heartbeat = environ.get("KURIER_STREAM_HEARTBEAT") or default.heartbeat
    lifetime = environ.get("KURIER_STREAM_LIFETIME") or default.lifetime
    return streams.Timing(heartbeat=float(heartbeat), lifetime=float(lifetime))


def _timing() -> streams.Timing:
    return current_app.config["STREAM_TIMING"]


def _event_stream(body: Any) -> Response:
    return Response(body, mimetype="text/event-stream", headers=HEADERS)
