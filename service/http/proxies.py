"""The client's address behind reverse proxies we trust (``KURIER_TRUSTED_PROXIES``).

Behind nginx every request comes from nginx's address, and the rate limit keys anonymous
callers by address: every browser then shared one budget (issue 36). ``X-Forwarded-For`` names
the client, but anybody can send that header, so it is honoured only on a request whose peer is
one of the configured proxies (addresses or networks; none by default).

The header is read from the right: each proxy appends the address it got the request from, so
the rightmost hop that is not a trusted proxy is the client as our own proxies saw it. Hops
further left were written by the client (or proxies we know nothing of) and are ignored, so
prepending made-up addresses changes nothing. This is werkzeug's ``ProxyFix`` applied to those
peers only, with the number of hops following the trusted list instead of a fixed count.
``X-Forwarded-Proto`` (its last value) gives the scheme, as ``ProxyFix(x_proto=1)`` would; the
host is the ``Host`` header, which the documented nginx passes on (docs/operations.md).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from typing import Any

from service.ops.config import Network

WsgiApp = Callable[[dict[str, Any], Any], Iterable[bytes]]


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        found = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is not None:
        return found.ipv4_mapped  # ::ffff:10.0.0.5 is 10.0.0.5 (a dual-stack socket's view)
    return found


class TrustedProxies:
    """WSGI middleware: ``REMOTE_ADDR`` (and the scheme) as the trusted proxies report them.
    The peer's own address is kept in ``kurier.peer``."""

    def __init__(self, app: WsgiApp, trusted: list[Network]) -> None:
        self.app = app
        self.trusted = trusted

    def _is_trusted(self, text: str) -> bool:
        address = _address(text)
        return address is not None and any(address in network for network in self.trusted)

    def __call__(self, request_env: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        peer = request_env.get("REMOTE_ADDR") or ""
        request_env["kurier.peer"] = peer
        if self._is_trusted(peer):
            request_env["REMOTE_ADDR"] = self._client(
                peer, request_env.get("HTTP_X_FORWARDED_FOR", "")
            )
            proto = request_env.get("HTTP_X_FORWARDED_PROTO", "").split(",")[-1].strip().lower()
            if proto in ("http", "https"):
                request_env["wsgi.url_scheme"] = proto
        return self.app(request_env, start_response)

    def _client(self, peer: str, forwarded: str) -> str:
        client = peer
        for hop in reversed(forwarded.split(",")):
            address = _address(hop)
            if address is None:
                break  # garbled from here on: the last hop we could read stands
            client = str(address)
            if not any(address in network for network in self.trusted):
                break
        return client
