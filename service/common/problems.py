"""RFC 9457 problem details: every error the API returns, with a stable machine-readable code.

Views raise ``Problem``; anything else werkzeug or webargs raises (404, 405, 413, malformed
JSON, validation errors) is mapped to a code here, so no error leaves without one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import flask_smorest
import marshmallow as ma
from flask import Response, current_app, json, request
from flask_smorest.utils import prepare_response
from werkzeug.exceptions import HTTPException, InternalServerError

PROBLEM_CONTENT_TYPE = "application/problem+json"
log = logging.getLogger(__name__)

#: Codes for errors that werkzeug raises on its own (no view involved).
_GENERIC_CODES = {
    400: "bad-request",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    406: "not-acceptable",
    409: "conflict",
    412: "precondition-failed",
    413: "body-too-large",
    415: "unsupported-media-type",
    422: "unprocessable",
    428: "precondition-required",
    429: "rate-limited",
}


class Problem(HTTPException):
    """An error response: ``code`` says what went wrong and where, ``extra`` adds members."""

    code: int  # always set, unlike werkzeug's HTTPException's

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(description=detail)
        self.code = status  # werkzeug's name for the HTTP status
        self.problem_code = code
        self.extra = extra
        self.extra_headers = headers or {}
        #: ``detail`` as a reader in another language needs it: its English template and the
        #: values that fill it (engine.core.IllegalAction); a fixed detail is its own template.
        self.reason: tuple[str, dict[str, str]] = (detail, {})


class ProblemSchema(ma.Schema):
    """RFC 9457 members plus ``code``; extension members vary by code."""

    class Meta:
        unknown = ma.INCLUDE

    type = ma.fields.String(metadata={"description": "URI reference naming the problem type"})
    title = ma.fields.String(metadata={"description": "Short summary of the problem type"})
    status = ma.fields.Integer(metadata={"description": "HTTP status code"})
    detail = ma.fields.String(metadata={"description": "What went wrong in this occurrence"})
    code = ma.fields.String(
        required=True, metadata={"description": "Stable machine-readable code, e.g. not-your-turn"}
    )
    errors = ma.fields.Dict(metadata={"description": "Field errors by location (json, query…)"})


def _payload(error: HTTPException) -> tuple[dict[str, Any], dict[str, str]]:
    status = error.code or 500
    title = error.name
    if isinstance(error, Problem):
        return {
            "type": f"/problems/{error.problem_code}",
            "title": title,
            "status": status,
            "detail": error.description,
            "code": error.problem_code,
            **error.extra,
        }, error.extra_headers
    code = _GENERIC_CODES.get(status, "internal-error" if status >= 500 else "client-error")
    body: dict[str, Any] = {"title": title, "status": status, "detail": error.description}
    data = getattr(error, "data", None) or {}
    messages = data.get("errors") or data.get("messages")
    if messages:
        # webargs keys its messages by location: name the location in the code.
        locations = sorted(messages)
        code = "malformed-json" if status == 400 and locations == ["json"] else code
        if status == 422:
            code = f"invalid-{locations[0]}" if len(locations) == 1 else "invalid-request"
        body["errors"] = messages
        body["detail"] = data.get("message") or _summary(messages)
    headers = dict(data.get("headers") or {})
    # Keep the headers werkzeug attached (e.g. Allow on 405, pitfall 3 of the stack guide).
    for name, value in error.get_headers():
        if name.lower() != "content-type":
            headers.setdefault(name, value)
    return {"type": f"/problems/{code}", "code": code, **body}, headers


def _summary(messages: dict[str, Any]) -> str:
    parts = []
    for location, fields in sorted(messages.items()):
        if isinstance(fields, dict):
            names = ", ".join(sorted(map(str, fields)))
            parts.append(f"{location}: {names}")
        else:
            parts.append(f"{location}: {fields}")
    return "invalid request (" + "; ".join(parts) + ")"


def problem_response(error: HTTPException) -> Response:
    body, headers = _payload(error)
    response = Response(json.dumps(body), status=error.code or 500, mimetype=PROBLEM_CONTENT_TYPE)
    for name, value in headers.items():
        response.headers[name] = value
    return response


def error_response(error: HTTPException) -> Response:
    """An error answered before or around the views (the rate limit's 429, an outage's 503) as
    the app answers every other: a page for a browser outside /v1 where the app has pages
    (``Api.html_error``), else problem+json."""
    api = current_app.extensions.get("kurier.api")
    if isinstance(api, Api):
        return api.handle_http_exception(error)
    return problem_response(error)


class Api(flask_smorest.Api):
    """flask-smorest's Api answering every error as problem+json, and documenting that."""

    ERROR_SCHEMA = ProblemSchema
    #: Set by the web pages (service/http/web): how a browser outside /v1 is shown an error.
    html_error: Callable[[HTTPException], Response] | None = None

    def _register_error_handlers(self) -> None:
        self._app.register_error_handler(HTTPException, self.handle_http_exception)
        self._app.register_error_handler(Exception, self._handle_unexpected)

    def handle_http_exception(self, error: HTTPException) -> Response:
        if self.html_error is not None and _wants_a_page():
            return self.html_error(error)
        return problem_response(error)

    def _handle_unexpected(self, error: Exception) -> Response:
        if isinstance(error, HTTPException):
            return self.handle_http_exception(error)
        log.exception("unhandled error")
        return self.handle_http_exception(
            InternalServerError("internal error; nothing was changed")
        )

    def _register_responses(self) -> None:
        # Same as flask-smorest's, but error bodies are documented as application/problem+json.
        import http

        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            content_type = self.DEFAULT_RESPONSE_CONTENT_TYPE
            if not (100 <= status < 200) and status not in (204, 304):
                response["schema"] = self.ERROR_SCHEMA
                content_type = PROBLEM_CONTENT_TYPE
            prepare_response(response, self.spec, content_type)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "Default error response", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, PROBLEM_CONTENT_TYPE)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)


def _wants_a_page() -> bool:
    """A browser asking for a page (not the API, not a client that wants JSON)."""
    if request.path.startswith("/v1"):
        return False
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return best == "text/html"


def game_not_found(game_id: str) -> Problem:
    return Problem(404, "game-not-found", f"no game {game_id!r}", game_id=game_id)
