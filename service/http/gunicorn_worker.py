"""gunicorn's gthread worker, answering the requests gunicorn refuses itself as problem+json
(``ProblemAnswers``, which the stream server's gevent worker shares:
service/http/gunicorn_streams.py), giving no thread to a connection that has sent nothing yet
and closing connections without stopping its main loop; and gunicorn's logger without its
access line (``AppAccessLogger``).

gunicorn answers a request line over ``limit_request_line`` (414), headers over
``limit_request_fields``/``limit_request_field_size`` (431), a malformed request or header
line (400) and a few rarer cases before the app sees anything, with a ``text/html`` page
written by ``gunicorn.util.write_error``. It has no hook for that answer, so this worker
replaces that function in its own process (the base worker looks it up on the module at each
error): the status, reason and message stay gunicorn's, only the body changes.
"""

from __future__ import annotations

import gc
import json
import socket
import threading
import time
from typing import TYPE_CHECKING, Any

from gunicorn import util
from gunicorn.glogging import Logger
from gunicorn.http import wsgi
from gunicorn.workers import gthread
from gunicorn.workers.base import Worker
from gunicorn.workers.gthread import ThreadWorker

from service.common.problems import PROBLEM_CONTENT_TYPE

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


def write_problem(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    util.write_nonblock(sock, problem_bytes(status_int, reason, mesg))


#: How long a pool thread waits for a new connection's first bytes before handing it back to
#: the poller. gunicorn's own 5 s let a connection that sends nothing hold a thread that long:
#: four silent connections (a browser's preconnects; anyone's sockets) stopped a process of
#: four threads for 5 s (tests/test_hostile_input.py). Without a wait, such a connection waits
#: in the poller like a kept-alive one, and is closed after ``keepalive`` seconds.
FIRST_BYTES_WAIT = 0.0
#: How long a pool thread reads the rest of a body the app answered without reading (a 401 or
#: 429 comes first) before the connection can be kept alive; past it, the connection closes.
#: gunicorn takes this from the same setting as the wait above (5 s), but it cannot be 0: its
#: drain gives up at once when the time is up, even with nothing left to read.
BODY_DRAIN_WAIT = 0.5


#: How much longer than it advertises (``Keep-Alive: timeout=N``) the API keeps an idle
#: connection open. A client that reuses a connection within the advertised time then never
#: sends its request just as the server closes it, which turns the request into a reset (the
#: close races the request's bytes; unread bytes make the kernel answer RST). gunicorn's
#: ``keepalive`` is the real timeout: ``KURIER_KEEPALIVE`` plus this margin
#: (service/http/gunicorn_conf.py).
KEEPALIVE_MARGIN = 5


class AdvertisingResponse(wsgi.Response):
    """gunicorn's response, saying on every kept-alive answer how long the connection may
    stay idle: ``Keep-Alive: timeout=<keepalive - KEEPALIVE_MARGIN>`` (RFC 9112 leaves the
    header to HTTP/1.0 usage, and clients such as Node's agent and browsers read it)."""

    def default_headers(self) -> list[str]:
        headers: list[str] = super().default_headers()
        advertised = int(self.cfg.keepalive) - KEEPALIVE_MARGIN
        if advertised > 0 and not self.upgrade and not self.should_close():
            headers.append(f"Keep-Alive: timeout={advertised}\r\n")
        return headers


#: Closes lingering at once, at most; past that a connection is closed without lingering.
LINGERING_CLOSES = 64
_lingering: set[socket.socket] = set()
_lingering_lock = threading.Lock()
_close_graceful = util.close_graceful


def close_graceful_aside(sock: socket.socket, timeout: float = 2.0, max_drain: int = 65536) -> None:
    """gunicorn's graceful close (send FIN, then read what the client still sends until it
    closes, up to ``timeout``, so that unread bytes do not turn the close into a reset that
    loses the answer), in a thread of its own. gunicorn runs it in the main thread, whose
    loop accepts and dispatches every connection of the process: each request answered
    without reading its whole body (a 401 or 429 comes first), from a client that then keeps
    the connection open, stopped the process for 2 s (tests/test_hostile_input.py)."""
    with _lingering_lock:
        if sock in _lingering:
            return  # after an error gunicorn closes twice: the first close's thread has it
        full = len(_lingering) >= LINGERING_CLOSES
        if not full:
            _lingering.add(sock)
    if full:
        util.close(sock)
        return

    def linger() -> None:
        try:
            _close_graceful(sock, timeout, max_drain)
        finally:
            with _lingering_lock:
                _lingering.discard(sock)

    threading.Thread(target=linger, name="linger", daemon=True).start()


# The mixin's base, for the type checker only: at run time the worker class it is mixed into.
if TYPE_CHECKING:
    _WorkerBase = Worker
else:
    _WorkerBase = object


class ProblemAnswers(_WorkerBase):
    """Mixed into a gunicorn worker class: what gunicorn refuses itself is problem+json."""

    def init_process(self) -> None:
        # In this worker process only: gunicorn looks it up on its module at each error.
        util.write_error = write_problem  # see the module doc
        super().init_process()


class ProblemThreadWorker(ProblemAnswers, ThreadWorker):
    def init_process(self) -> None:
        # In this worker process only: gunicorn looks these up on its modules at each use.
        util.close_graceful = close_graceful_aside
        gthread.DEFAULT_WORKER_DATA_TIMEOUT = FIRST_BYTES_WAIT  # type: ignore[misc]  # Final in the stubs; patched here per process
        # wsgi.create looks it up at each request; a class to the checker, patched per process
        wsgi.Response = AdvertisingResponse  # type: ignore[misc]
        super().init_process()

    def _keepalive_after(self, conn: Any, keepalive: bool) -> bool:
        """gunicorn's, with a drain time of its own (gunicorn's reads the module setting that
        FIRST_BYTES_WAIT sets to 0, and every answer would then close its connection)."""
        if not keepalive:
            return False
        return bool(conn.parser.finish_body(deadline=time.monotonic() + BODY_DRAIN_WAIT))


def freeze_loaded_app() -> None:
    """Called once a worker has loaded the app (gunicorn's ``post_worker_init``): its objects,
    over a hundred thousand that live as long as the process, are moved out of the cyclic
    collector's reach (``gc.freeze``), so that a full collection during a request walks only
    what requests made since (under a millisecond) instead of the whole app (about 60 ms of
    CPU on this machine, holding every thread of the process: the API's p99). The collector's
    thresholds stay Python's: higher ones saved no CPU and made each young collection longer
    (docs/performance.md, "Levers on the one move path, second round")."""
    gc.collect()
    gc.freeze()


class AppAccessLogger(Logger):
    """gunicorn's logger without its access line: the app writes its own JSON access line,
    with the request id (service/common/logs.py).

    gunicorn drops its line already (our ``logconfig_dict`` gives ``gunicorn.access`` no
    handler), but a ``logconfig_dict`` makes it believe access logging is on, so it built the
    line's atoms (every request and response header, the environ, a formatted date) for
    nothing: 4 % of a move's CPU in the API (docs/performance.md, "Round four").

    Off even when an operator asks for it (``--access-logfile``): gunicorn's line carries the
    query string, and an invitation's or an offered seat's code travels in one.
    """

    def _compute_access_log_enabled(self) -> bool:
        return False
