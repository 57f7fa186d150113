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

from service.http.api.base import Blueprint, problems
from service.http.auth import token_optional, token_required
from service.http.schemas import streams as s
from service.ops.config import stream_url

blp = Blueprint("streams", __name__, url_prefix="/v1", description="Live event streams (SSE)")


def _to_stream_server(cursor: tuple[str, str]) -> Response:
    """307: the client repeats the GET (with its headers) at the stream server, after the
    cursor was checked as the stream server checks it. The path is quoted again and only the
    checked ``after`` kept: nothing a caller sent reaches the Location header raw."""
    s.resume_cursor(cursor, request.headers.get("Last-Event-ID"), request.args.get("after"))
    after = (request.args.get("after") or "").strip()
    target = stream_url(os.environ) + quote(request.path, safe="/")
    if after and re.fullmatch(cursor[0], after):  # unchecked when Last-Event-ID won
        target += f"?{urlencode({'after': after})}"
    return Response(status=307, headers={"Location": target})  # no body, as documented


@blp.route("/games/<game_id>/stream")
class GameStreamView(MethodView):
    @blp.doc(operationId="stream_game_events")
    @token_optional
    @blp.arguments(s.GameStreamQuery, location="query")
    @blp.arguments(s.StreamHeaders, location="headers")
    @blp.response(200, {"type": "string"}, content_type="text/event-stream",
                  description=s.GAME_STREAM)  # fmt: skip
    @blp.alt_response(307, description=s.REDIRECT)
    @problems(blp, 401, 404, 422)
    def get(self, _query: dict[str, Any], _headers: dict[str, Any], game_id: str) -> Response:
        """The game's log as it grows, redacted for the caller (spectators without a token).

        Served by the stream server: this answers 307 to it (docs/api.md, "Streams")."""
        return _to_stream_server(s.GAME_CURSOR)


@blp.route("/me/stream")
class InboxStreamView(MethodView):
    @blp.doc(operationId="stream_my_inbox")
    @token_required
    @blp.arguments(s.InboxStreamQuery, location="query")
    @blp.arguments(s.StreamHeaders, location="headers")
    @blp.response(200, {"type": "string"}, content_type="text/event-stream",
                  description=s.INBOX_STREAM)  # fmt: skip
    @blp.alt_response(307, description=s.REDIRECT)
    @problems(blp, 401, 422)
    def get(self, _query: dict[str, Any], _headers: dict[str, Any]) -> Response:
        """The caller's inbox changes (your turn, a sealed choice owed, game over) and the
        messages it may see, as they happen.

        Served by the stream server: this answers 307 to it (docs/api.md, "Streams")."""
        return _to_stream_server(s.INBOX_CURSOR)
