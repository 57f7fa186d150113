"""Outgoing webhooks: Standard Webhooks signatures, SSRF-safe delivery.

Delivery goes through requests-hardened, which resolves the host, refuses private, loopback
and link-local addresses and then connects to the address it checked, so a DNS answer that
changes between the check and the connection cannot smuggle a request inside. The operator
widens this with ``KURIER_WEBHOOK_ALLOW``: ``public`` (default), ``loopback`` (tests, a
receiver on the same host) or ``any``.
"""

from __future__ import annotations

import base64
import ipaddress
import os
import secrets
import socket
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import requests
from requests_hardened import Config, Manager
from standardwebhooks.webhooks import Webhook

#: Connect and read timeouts: the whole delivery stays within about 10 s.
TIMEOUT = (3.0, 7.0)
MAX_RESPONSE_BYTES = 4096
SECRET_PREFIX = "whsec_"


class UnsafeWebhookURL(ValueError):
    """The URL is malformed or points where the server must not send requests."""


@dataclass(frozen=True)
class Attempt:
    ok: bool
    status: int | None
    error: str
    #: Seconds the receiver asked us to wait (Retry-After), if any.
    retry_after: float | None = None
    #: A 410 Gone: the receiver wants no more deliveries.
    gone: bool = False


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def allow_mode() -> str:
    mode = os.environ.get("KURIER_WEBHOOK_ALLOW", "public")
    return mode if mode in {"public", "loopback", "any"} else "public"


def check_url(url: str, mode: str | None = None) -> None:
    """Refuse a URL before any traffic: scheme, host, and every address it resolves to."""
    mode = mode or allow_mode()
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise UnsafeWebhookURL("a webhook URL is an http(s) URL with a host")
    if parts.scheme == "http" and mode == "public":
        raise UnsafeWebhookURL("webhook URLs must use https")
    try:
        infos = socket.getaddrinfo(parts.hostname, parts.port or 443, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise UnsafeWebhookURL(f"the host {parts.hostname!r} does not resolve") from None
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        if not _address_allowed(address, mode):
            raise UnsafeWebhookURL(
                f"{parts.hostname} resolves to {address}, a private, loopback or link-local "
                "address; the server does not send webhooks there"
            )


def _address_allowed(address: ipaddress.IPv4Address | ipaddress.IPv6Address, mode: str) -> bool:
    if mode == "any":
        return True
    if address.is_loopback:
        return mode == "loopback"
    return address.is_global


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
    """One delivery attempt. Never raises for network trouble: the caller decides on retries."""
    headers = {"content-type": "application/json", **sign(secret, message_id, body)}
    mode = allow_mode()
    manager = Manager(
        Config(
            ip_filter_enable=mode != "any",
            ip_filter_allow_loopback_ips=mode == "loopback",
            never_redirect=True,
            default_timeout=TIMEOUT,
            user_agent_override="Kurier-Webhooks/1",
        )
    )
    try:
        response = manager.send_request(
            "POST", url, data=body.encode(), headers=headers, stream=True
        )
    except requests.RequestException as error:
        return Attempt(False, None, f"{type(error).__name__}: {error}"[:300])
    with response:
        response.raw.read(MAX_RESPONSE_BYTES, decode_content=False)
        return _attempt(response)


def _attempt(response: Any) -> Attempt:
    status = response.status_code
    if 200 <= status < 300:
        return Attempt(True, status, "")
    retry_after = None
    header = response.headers.get("retry-after", "")
    if header.isdigit():
        retry_after = float(header)
    return Attempt(False, status, f"HTTP {status}", retry_after, gone=status == 410)
