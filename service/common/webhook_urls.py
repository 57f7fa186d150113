"""Which webhook URLs the server accepts, in one form: the API checks a URL with it before
storing it, the delivery worker before each attempt and to group attempts by receiver.

The operator widens the address policy with ``KURIER_WEBHOOK_ALLOW``: ``public`` (default),
``loopback`` (tests, a receiver on the same host) or ``any``. The worker's HTTP client
(requests-hardened) enforces the same policy again on the address it connects to.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
import unicodedata
from urllib.parse import SplitResult, urlsplit, urlunsplit

MODES = ("public", "loopback", "any")
#: A host after IDNA encoding: letters, digits, dots, hyphens (and underscores, seen in DNS).
_HOST_NAME = re.compile(r"[a-z0-9_.-]+")


class UnsafeWebhookURL(ValueError):
    """The URL is malformed or points where the server must not send requests."""


def allow_mode() -> str:
    mode = os.environ.get("KURIER_WEBHOOK_ALLOW", "public")
    return mode if mode in MODES else "public"


def normalise(url: str) -> str:
    """The URL as it will be requested, or UnsafeWebhookURL. Refuses what the HTTP client
    would read differently from this check: spaces and control characters (``urlsplit`` drops
    a tab that the client keeps), a port that is not 1-65535 in ASCII digits. A non-ASCII host
    (fullwidth letters or digits included) becomes its IDNA form, the one DNS is asked."""
    if any(_unsafe(char) for char in url):
        raise UnsafeWebhookURL("a webhook URL holds no spaces or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port  # raises for a port out of range or not in ASCII digits
    except ValueError as error:
        raise UnsafeWebhookURL(f"not a valid URL: {error}") from None
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise UnsafeWebhookURL("a webhook URL is an http(s) URL with a host")
    if port == 0:
        raise UnsafeWebhookURL("the port of a webhook URL is 1-65535")
    host = _ascii_host(parts.hostname)
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc = f"{netloc}:{port}"
    if "@" in parts.netloc:
        netloc = parts.netloc.rpartition("@")[0] + "@" + netloc
    return urlunsplit(SplitResult(parts.scheme, netloc, parts.path or "/", parts.query, ""))


def _unsafe(char: str) -> bool:
    return char.isspace() or unicodedata.category(char) in {"Cc", "Cf", "Zl", "Zp"}


def _ascii_host(host: str) -> str:
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    try:
        ascii_host = host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise UnsafeWebhookURL(f"the host {host!r} is not a valid host name") from None
    if not _HOST_NAME.fullmatch(ascii_host):
        raise UnsafeWebhookURL(f"the host {host!r} is not a valid host name")
    return ascii_host


def check(url: str, mode: str | None = None) -> str:
    """``normalise(url)``, then refuse it unless every address its host resolves to is allowed
    (before any traffic). Returns the normalised URL: the one to store and request."""
    mode = mode or allow_mode()
    url = normalise(url)
    parts = urlsplit(url)
    if parts.scheme == "http" and mode == "public":
        raise UnsafeWebhookURL("webhook URLs must use https")
    hostname = parts.hostname or ""
    try:
        infos = socket.getaddrinfo(hostname, parts.port or 443, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise UnsafeWebhookURL(f"the host {hostname!r} does not resolve") from None
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        if not _address_allowed(address, mode):
            raise UnsafeWebhookURL(
                f"{hostname} resolves to {address}, a private, loopback or link-local "
                "address; the server does not send webhooks there"
            )
    return url


def _address_allowed(address: ipaddress.IPv4Address | ipaddress.IPv6Address, mode: str) -> bool:
    if mode == "any":
        return True
    if address.is_loopback:
        return mode == "loopback"
    return address.is_global


def receiver_key(url: str) -> str:
    """Who answers ``url``: its scheme, host and port (paths on one server share its speed)."""
    try:
        parts = urlsplit(normalise(url))
    except UnsafeWebhookURL:
        return f"webhook:invalid:{url[:200]}"
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"webhook:{parts.scheme}://{parts.hostname}:{port}"
