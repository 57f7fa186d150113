"""Real receivers on loopback for notification tests and the benchmark: an SMTP server
(aiosmtpd) and a webhook endpoint (http.server), each recording what arrived and when."""

from __future__ import annotations

import email
import email.policy
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from aiosmtpd.controller import Controller


def free_port() -> int:
    # aiosmtpd cannot start on port 0 (stack guide, pitfall 9): pick a free port first.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(predicate: Callable[[], Any], seconds: float, what: str) -> Any:
    """Poll until ``predicate()`` is truthy; bounded in time (and so in count)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


@dataclass
class Received:
    at: float
    message: EmailMessage
    rcpt_tos: list[str] = field(default_factory=list)  # the envelope's recipients
    #: The To header as text, parsed once on arrival: a test polls ``SmtpSink.to`` every 50 ms
    #: over every mail so far, and parsing each To again took a whole-game mail test's process
    #: 75 ms a poll by its end (half its wait, on the cores the worker needs).
    to: str = ""


class SmtpSink:
    """aiosmtpd on 127.0.0.1 collecting every message."""

    def __init__(self) -> None:
        self.messages: list[Received] = []
        self.lock = threading.Lock()
        self.port = free_port()
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.lock:
            self.messages.append(
                Received(time.monotonic(), message, list(envelope.rcpt_tos), str(message["To"]))
            )
        return "250 OK"

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [r.message for r in self.messages if address in r.to]

    def start(self) -> SmtpSink:
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()


@dataclass
class Hook:
    at: float
    headers: dict[str, str]
    body: bytes


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client hanging up on a stalled answer is the expected end, not an error


@dataclass
class _Receiver:
    """A webhook receiver on 127.0.0.1: records every call, answers with ``answer``."""

    calls: list[Hook] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: ThreadingHTTPServer | None = None

    def answer(self, handler: BaseHTTPRequestHandler, index: int) -> None:
        raise NotImplementedError

    def start(self) -> Self:
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(min(length, 65536))
                with sink.lock:
                    index = len(sink.calls)
                    sink.calls.append(Hook(time.monotonic(), dict(self.headers.items()), body))
                sink.answer(self, index)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = _QuietServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_port}/hook"

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def _no_content(handler: BaseHTTPRequestHandler, status: int = 204) -> None:
    handler.send_response(status)
    handler.send_header("content-length", "0")
    handler.end_headers()


@dataclass
class HookSink(_Receiver):
    """Answers the queued statuses first, then 204."""

    statuses: list[int] = field(default_factory=list)

    def answer(self, handler: BaseHTTPRequestHandler, index: int) -> None:
        with self.lock:
            status = self.statuses.pop(0) if self.statuses else 204
        _no_content(handler, status)


@dataclass
class SlowSink(_Receiver):
    """A receiver that stalls: its first ``stalls`` requests get an answer that never
    completes (``begin``, then ``drip`` every ``interval`` seconds; by default a status
    line and then a header a byte at a time, which no per-read timeout ends) until the client
    hangs up, or for ``limit`` seconds (so that a test of a client without a cap still ends);
    later requests get 204 at once. Records when the client hung up on each stalled answer."""

    stalls: int = 1
    interval: float = 0.5
    limit: float = 30.0
    begin: bytes = b"HTTP/1.1 200 OK\r\nX-Slow: "
    drip: bytes = b"a"
    hung_up: list[float] = field(default_factory=list)
    stopping: threading.Event = field(default_factory=threading.Event)

    def answer(self, handler: BaseHTTPRequestHandler, index: int) -> None:
        if index < self.stalls:
            self.trickle(handler)
        else:
            _no_content(handler)

    def trickle(self, handler: BaseHTTPRequestHandler) -> None:
        handler.close_connection = True
        try:
            handler.wfile.write(self.begin)
            ends = time.monotonic() + self.limit
            while time.monotonic() < ends and not self.stopping.wait(self.interval):
                handler.wfile.write(self.drip)  # a byte: the client's read timeout never fires
        except OSError:  # the client closed the connection: the next write fails
            with self.lock:
                self.hung_up.append(time.monotonic())

    def stop(self) -> None:
        self.stopping.set()
        super().stop()
