"""The two live streams (Server-Sent Events), documented here and served by the stream server
(service/http/streams_app.py, `kurier streams`): the API answers them 307 to it, so that no open
stream holds one of the API's request threads."""

from __future__ import annotations

import os
import re
from typing import Any
from urllib.parse import quote, urlencode

from flask import Response, request
from flask.views import MethodView

from service.domain.ratelimit import bearer_token
from service.http.api.base import Blueprint, problems
from service.http.auth import store, token_optional, token_required
from service.http.schemas import streams as s
from service.ops.config import stream_url

blp = Blueprint("streams", __name__, url_prefix="/v1", description="Live event streams (SSE)")


def _to_stream_server(cursor: tuple[str, str]) -> Response:
    """307: the client repeats the GET at the stream server, after the cursor was checked as
    the stream server checks it (400 ``invalid-cursor`` from both). The path is quoted again and
    only the checked ``after`` kept: nothing a caller sent reaches the Location header raw.

    A caller who sent a (valid: checked already) token gets a one-time stream ticket in the
    URL: most HTTP clients drop ``Authorization`` when a redirect changes the port, and the
    stream server would then have answered a seat's request with the spectators' stream."""
    s.resume_cursor(cursor, request.headers.get("Last-Event-ID"), request.args.get("after"))
    after = (request.args.get("after") or "").strip()
    target = stream_url(os.environ) + quote(request.path, safe="/")
    # ``after`` is unchecked when Last-Event-ID won: kept only if it is a cursor.
    params = {"after": after} if after and re.fullmatch(cursor[0], after) else {}
    token = bearer_token()
    if token is not None:
        params["ticket"] = store().tokens.stream_ticket(token)
    if params:
        target += f"?{urlencode(params)}"
    # Not cacheable: the ticket is for this request only.
    return Response(status=307, headers={"Location": target, "Cache-Control": "no-store"})


@blp.route("/games/<game_id>/stream")
class GameStreamView(MethodView):
    @blp.doc(operationId="stream_game_events")
    @token_optional
    @blp.arguments(s.GameStreamQuery, location="query")
    @blp.arguments(s.GameStreamHeaders, location="headers")
    @blp.response(200, {"type": "string"}, content_type="text/event-stream",
                  description=s.GAME_STREAM)  # fmt: skip
    @blp.alt_response(307, description=s.REDIRECT)
    @problems(blp, 400, 401, 404, 422)
    def get(self, _query: dict[str, Any], _headers: dict[str, Any], game_id: str) -> Response:
        """The game's log as it grows, redacted for the caller (spectators without a token).

        Served by the stream server: this answers 307 to it (docs/api.md, "Streams")."""
        return _to_stream_server(s.GAME_CURSOR)


@blp.route("/me/stream")
class InboxStreamView(MethodView):
    @blp.doc(operationId="stream_my_inbox")
    @token_required
    @blp.arguments(s.InboxStreamQuery, location="query")
    @blp.arguments(s.InboxStreamHeaders, location="headers")
    @blp.response(200, {"type": "string"}, content_type="text/event-stream",
                  description=s.INBOX_STREAM)  # fmt: skip
    @blp.alt_response(307, description=s.REDIRECT)
    @problems(blp, 400, 401, 422)
    def get(self, _query: dict[str, Any], _headers: dict[str, Any]) -> Response:
        """The caller's inbox changes (your turn, a sealed choice owed, game over) and the
        messages it may see, as they happen.

        Served by the stream server: this answers 307 to it (docs/api.md, "Streams")."""
        return _to_stream_server(s.INBOX_CURSOR)
