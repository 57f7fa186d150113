"""Outgoing webhooks: Standard Webhooks signatures, SSRF-safe delivery.

Which URLs are accepted is service.common.webhook_urls (the API checks them there too). Delivery
goes
through requests-hardened, which resolves the host, refuses private, loopback and link-local
addresses (per ``KURIER_WEBHOOK_ALLOW``) and then connects to the address it checked, so a DNS
answer that changes between the check and the connection cannot smuggle a request inside.

Each attempt ends within ``KURIER_WEBHOOK_TIMEOUT`` seconds of wall-clock time (``post``), so a
receiver that stalls or trickles its answer costs a worker that long at most; the caller
records it as a failed attempt and retries later.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import requests
from requests_hardened import Config, Manager
from standardwebhooks.webhooks import Webhook
from urllib3.exceptions import HTTPError as TransportError

from service.common.numbers import is_ascii_digits
from service.common.webhook_urls import allow_mode
from service.domain.deliveries import attempt_timeout

#: Connect and per-read timeouts. They bound each socket operation, not the answer: a receiver
#: sending a byte every few seconds never trips them, hence the cap on the whole attempt below.
TIMEOUT = (3.0, 7.0)
MAX_RESPONSE_BYTES = 4096


@dataclass(frozen=True)
class Attempt:
    ok: bool
    status: int | None
    error: str
    #: Seconds the receiver asked us to wait (Retry-After), if any.
    retry_after: float | None = None
    #: A 410 Gone: the receiver wants no more deliveries.
    gone: bool = False


def sign(secret: str, message_id: str, body: str, when: datetime | None = None) -> dict[str, str]:
    """The three Standard Webhooks headers for ``body``."""
    timestamp = when or datetime.now(UTC)  # must be UTC: the library drops the tz offset
    signature = Webhook(secret).sign(message_id, timestamp, body)
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(timestamp.timestamp())),
        "webhook-signature": signature,
    }


def post(url: str, secret: str, message_id: str, body: str) -> Attempt:
    """One delivery attempt, over within ``attempt_timeout()`` seconds whatever the receiver
    does. Never raises for network trouble: the caller decides on retries.

    The request runs in a helper thread that we stop waiting for at the deadline: socket
    timeouts bound each read, not the whole answer, and name resolution has none. The status
    and headers decide the attempt; the body is read (a few KB) only until the same deadline. A
    helper still waiting for the answer at the deadline is left behind: it ends when the
    receiver gives up or, in an rq work-horse (one process per job), when the horse exits.
    """
    limit = attempt_timeout()
    deadline = time.monotonic() + limit
    headers = {"content-type": "application/json", **sign(secret, message_id, body)}
    exchange = _Exchange(url, headers, body.encode(), deadline)
    helper = threading.Thread(target=exchange.run, name="webhook-attempt", daemon=True)
    helper.start()
    if not exchange.answered.wait(limit):
        return Attempt(False, None, f"Timeout: no answer within {limit} s")
    helper.join(max(0.0, deadline - time.monotonic()))  # the body: politeness, same deadline
    return exchange.outcome()


@dataclass
class _Exchange:
    """One request and its answer, run by the helper thread of ``post``."""

    url: str
    headers: dict[str, str]
    body: bytes
    deadline: float
    answered: threading.Event = field(default_factory=threading.Event)
    attempt: Attempt | None = None
    error: BaseException | None = None

    def run(self) -> None:
        try:
            response = self._send()
        except requests.RequestException as error:
            self._decide(Attempt(False, None, f"{type(error).__name__}: {error}"[:300]))
            return
        except BaseException as error:  # a bug, not the network: the caller's thread raises it
            self._fail(error)
            return
        with response:
            try:
                attempt = _attempt(response)  # the status and headers decide
            except BaseException as error:  # the same: never a silent "Timeout"
                self._fail(error)
                return
            self._decide(attempt)
            _read_some(response, self.deadline)

    def _fail(self, error: BaseException) -> None:
        self.error = error
        self.answered.set()

    def _send(self) -> requests.Response:
        mode = allow_mode()
        left = self.deadline - time.monotonic()
        manager = Manager(
            Config(
                ip_filter_enable=mode != "any",
                ip_filter_allow_loopback_ips=mode == "loopback",
                never_redirect=True,
                default_timeout=(min(TIMEOUT[0], left), min(TIMEOUT[1], left)),
                user_agent_override="Kurier-Webhooks/1",
            )
        )
        response: requests.Response = manager.send_request(
            "POST", self.url, data=self.body, headers=self.headers, stream=True
        )
        return response

    def _decide(self, attempt: Attempt) -> None:
        self.attempt = attempt
        self.answered.set()

    def outcome(self) -> Attempt:
        if self.error is not None:
            raise self.error
        assert self.attempt is not None
        return self.attempt


def _read_some(response: requests.Response, deadline: float) -> None:
    """Read at most MAX_RESPONSE_BYTES of the body, until the deadline: the status decides,
    the body only lets the receiver finish its answer."""
    read = 0
    try:
        while read < MAX_RESPONSE_BYTES and time.monotonic() < deadline:
            chunk = response.raw.read1(MAX_RESPONSE_BYTES - read, decode_content=False)
            if not chunk:
                return
            read += len(chunk)
    except (TransportError, requests.RequestException, OSError, ValueError):
        return  # the status is already in: a stalled or broken body does not change it


def _attempt(response: Any) -> Attempt:
    status = response.status_code
    if 200 <= status < 300:
        return Attempt(True, status, "")
    retry_after = None
    header = response.headers.get("retry-after", "")
    if is_ascii_digits(header):
        retry_after = float(header)
    return Attempt(False, status, f"HTTP {status}", retry_after, gone=status == 410)
