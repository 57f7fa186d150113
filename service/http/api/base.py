"""Blueprint defaults shared by every resource, and the parser that reads JSON bodies."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from http import HTTPStatus
from typing import Any, TypeVar

import flask
import flask_smorest
from webargs.flaskparser import FlaskParser, is_json_request

from engine import jsontext
from service.common.problems import Problem
from service.http.apidoc import doc_only

F = TypeVar("F", bound=Callable[..., Any])
#: Deepest nesting a JSON body may have: real bodies nest a few levels, and every later step
#: (validation, hashing, storing) recurses over it.
MAX_JSON_DEPTH = 32


def dumped(body: Any, status: int, headers: dict[str, str]) -> flask.Response:
    """A hot path's answer without marshmallow's dump: ``body`` must already be exactly what
    its declared schema dumps (tests/test_dumped_answers.py plays every game type to check
    the move's answer), so the document stays the contract. Keys sorted, as Flask's own JSON."""
    data = jsontext.dumpb(body, sort_keys=True) + b"\n"
    return flask.Response(data, status, headers, mimetype="application/json")


class JsonBodyParser(FlaskParser):
    """webargs' parser, refusing what it would pass on or crash on: a body that is not
    declared as JSON, no body at all, nesting too deep for Python's recursion, a string that
    is not Unicode text (a lone surrogate), numbers JSON has not (NaN, Infinity, 1e400, an
    integer over Python's 4300 digits) and a streamed body over the size limit."""

    def _raw_load_json(self, req: flask.Request) -> Any:
        if not is_json_request(req):
            raise Problem(
                415,
                "unsupported-media-type",
                "this request takes a JSON body: send the header Content-Type: application/json",
                header="Content-Type",
            )
        data = _read_body(req)
        if not data:
            raise Problem(400, "missing-body", "this request takes a JSON body; none was sent")
        text = data.decode("utf-8")  # webargs answers UnicodeDecodeError: malformed-json
        try:
            value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
        except RecursionError:
            raise _too_deep() from None
        except json.JSONDecodeError:
            raise  # webargs answers it: malformed-json
        except ValueError as error:  # an integer of more than 4300 digits (int's own limit)
            raise Problem(400, "malformed-json", f"unreadable number: {error}"[:200]) from None
        check_json_value(value)
        return value


def _refuse_constant(name: str) -> Any:
    raise Problem(400, "malformed-json", f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400: valid JSON, but no double holds it
        raise Problem(400, "malformed-json", f"the number {text[:40]} is too large")
    return value


def _read_body(req: flask.Request) -> bytes:
    data = req.get_data(cache=True)
    limit = req.max_content_length
    if limit is not None and len(data) >= limit:
        # A chunked body has no Content-Length: werkzeug stops reading at the limit and hands
        # over the first part. Reading on raises 413 if anything is left.
        req.stream.read(1)
    return data


def _too_deep() -> Problem:
    return Problem(
        400,
        "json-too-deep",
        f"the JSON body nests deeper than {MAX_JSON_DEPTH} levels",
        max_depth=MAX_JSON_DEPTH,
    )


def check_json_value(value: Any) -> None:
    """Refuse nesting deeper than MAX_JSON_DEPTH and strings that cannot be stored as UTF-8
    (JSON's ``\\ud800`` escapes decode to lone surrogates). Iterative: no recursion limit."""
    pending: list[tuple[str, Any, int]] = [("", value, 1)]
    while pending:
        path, item, depth = pending.pop()
        if depth > MAX_JSON_DEPTH:
            raise _too_deep()
        if isinstance(item, dict):
            for key, child in item.items():
                _check_text(key, path or "(top level)")
                pending.append((f"{path}.{key}" if path else key, child, depth + 1))
        elif isinstance(item, list):
            pending.extend((f"{path}[{i}]", child, depth + 1) for i, child in enumerate(item))
        elif isinstance(item, str):
            _check_text(item, path or "(top level)")


def _check_text(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise Problem(
            400,
            "invalid-unicode",
            f"{where} holds a lone surrogate (a \\ud800-\\udfff escape without its pair); "
            "strings must be Unicode text",
            field=where,
        ) from None


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = JsonBodyParser()
    # Pages go in the body (``next_cursor``), never in a JSON header (stack guide pitfall 4).
    PAGINATION_HEADER_NAME = None

    @staticmethod
    def doc(**kwargs: Any) -> Callable[[F], F]:
        """flask-smorest's, without a wrapper around the view (service/http/apidoc.py)."""
        return doc_only(flask_smorest.Blueprint.doc(**kwargs))

    def alt_response(self, status_code: int | str, **kwargs: Any) -> Callable[[F], F]:
        """flask-smorest's, without a wrapper around the view (service/http/apidoc.py)."""
        return doc_only(super().alt_response(status_code, **kwargs))

    def arguments(self, schema: Any, *, location: str = "json", **kwargs: Any) -> Any:
        """flask-smorest's, documenting what JsonBodyParser answers for a JSON body: 400
        (malformed, missing, too deep, not Unicode), 413 (too large) and 415 (not JSON)."""
        if isinstance(schema, type):
            # One instance per operation: given a class, webargs builds a new schema on every
            # request, deep-copying its fields (0.1 ms per move: docs/performance.md).
            schema = schema()
        decorator = super().arguments(schema, location=location, **kwargs)
        if location != "json":
            return decorator
        return lambda view: problems(self, 400, 413, 415)(decorator(view))


def problems(blp: flask_smorest.Blueprint, *statuses: int) -> Callable[[F], F]:
    """Document the problem+json answers an operation may give (registered by our Api)."""

    def decorate(view: F) -> F:
        for status in statuses:
            view = blp.alt_response(status, response=HTTPStatus(status).name)(view)
        return view

    return decorate
