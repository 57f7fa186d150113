"""gunicorn's gthread worker, answering the requests gunicorn refuses itself as problem+json; and
gunicorn's logger without its access line (``AppAccessLogger``, below).

gunicorn answers a request line over ``limit_request_line`` (414), headers over
``limit_request_fields``/``limit_request_field_size`` (431), a malformed request or header
line (400) and a few rarer cases before the app sees anything, with a ``text/html`` page
written by ``gunicorn.util.write_error``. It has no hook for that answer, so this worker
replaces that one function in its own process (the base worker looks it up on the module at
each error): the status, reason and message stay gunicorn's, only the body changes.
"""

from __future__ import annotations

import json
import socket

from gunicorn import util
from gunicorn.glogging import Logger
from gunicorn.workers.gthread import ThreadWorker

from service.problems import PROBLEM_CONTENT_TYPE

#: Codes for the statuses gunicorn writes itself (gunicorn/workers/base.py, handle_error).
SERVER_CODES = {
    400: "bad-request",
    403: "forbidden",
    414: "uri-too-long",
    417: "expectation-failed",
    431: "header-fields-too-large",
    500: "internal-error",
    501: "not-implemented",
}


def problem_bytes(status: int, reason: str, detail: str) -> bytes:
    """A whole HTTP/1.1 answer (the connection closes after it) with a problem+json body."""
    code = SERVER_CODES.get(status, "client-error" if status < 500 else "internal-error")
    body = json.dumps(
        {
            "type": f"/problems/{code}",
            "title": reason,
            "status": status,
            "detail": detail or reason,
            "code": code,
        }
    ).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
        f"Content-Type: {PROBLEM_CONTENT_TYPE}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


def write_problem(sock: socket.socket, status: int, reason: str, mesg: str) -> None:
    util.write_nonblock(sock, problem_bytes(status, reason, mesg))


class ProblemThreadWorker(ThreadWorker):
    def init_process(self) -> None:
        util.write_error = write_problem  # this worker process only; see the module doc
        super().init_process()


class AppAccessLogger(Logger):
    """gunicorn's logger without its access line: the app writes its own JSON access line,
    with the request id (service/logs.py).

    gunicorn drops its line already (our ``logconfig_dict`` gives ``gunicorn.access`` no
    handler), but a ``logconfig_dict`` makes it believe access logging is on, so it built the
    line's atoms (every request and response header, the environ, a formatted date) for
    nothing: 4 % of a move's CPU in the API (docs/performance.md, "Round four").

    Off even when an operator asks for it (``--access-logfile``): gunicorn's line carries the
    query string, and an invitation's or an offered seat's code travels in one.
    """

    def _compute_access_log_enabled(self) -> bool:
        return False
