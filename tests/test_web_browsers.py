"""Browsers behind a proxy (issue 36, item 7): the rate limit keys a signed-in browser by its
player and an anonymous one by its own address (X-Forwarded-For honoured from configured
proxies only), static assets are outside the limit with long-lived caching under versioned
URLs, and a refusal (429, 503) is a page for a browser that keeps what the player typed."""

from __future__ import annotations

import hashlib
import html
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from flask import Flask

from service.http import proxies
from service.http.app import create_app
from service.ops import config
from service.store.redis_server import EPHEMERAL_FLAGS, RedisServer
from tests.client import Kurier, Player
from tests.conftest import ROOT, UNLIMITED, serve, short_tmp

HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
STATIC = ROOT / "service" / "http" / "web" / "static"
LIMIT = 5


def _limited(redis_url: str, **config: Any) -> Flask:
    """An app with a budget of ``LIMIT`` requests a minute, counters of its own."""
    return create_app(
        {
            "REDIS_URL": redis_url,
            "RATE_LIMIT": f"{LIMIT}/minute",
            "SIGNUP_RATE_LIMIT": "1000/minute",
            "RATELIMIT_KEY_PREFIX": f"kurier:ratelimit-test-{uuid.uuid4().hex[:8]}",
            **config,
        }
    )


@pytest.fixture
def behind_proxy(redis_url: str) -> Iterator[str]:
    """The app as nginx on this host reaches it: 127.0.0.1 is a trusted proxy."""
    with serve(_limited(redis_url, TRUSTED_PROXIES="127.0.0.1, ::1")) as url:
        yield url


@pytest.fixture
def direct(redis_url: str) -> Iterator[str]:
    """The app reached directly (no trusted proxy): every test client shares 127.0.0.1."""
    with serve(_limited(redis_url)) as url:
        yield url


def _browser(base: str, player: Player, forwarded_for: str | None = None) -> requests.Session:
    """A browser signed in as ``player`` (the token form), optionally behind the proxy."""
    session = requests.Session()
    session.headers.update(HTML)
    if forwarded_for:
        session.headers["X-Forwarded-For"] = forwarded_for
    r = session.post(f"{base}/signin/token", data={"token": player.token}, allow_redirects=False)
    assert r.status_code == 302, r.text
    return session


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, page
    return found.group(1)


def test_browsers_behind_a_trusted_proxy_each_get_their_own_budget(
    behind_proxy: str, kurier: Kurier
) -> None:
    """Two anonymous browsers whose requests all come from the proxy: each its own budget.
    Everyone behind the documented nginx shared one budget (the proxy's address)."""
    first = {**HTML, "X-Forwarded-For": "203.0.113.10"}
    second = {**HTML, "X-Forwarded-For": "203.0.113.20"}
    for _ in range(LIMIT):
        assert requests.get(f"{behind_proxy}/", headers=first, timeout=10).status_code == 200
    refused = requests.get(f"{behind_proxy}/", headers=first, timeout=10)
    assert refused.status_code == 429
    assert requests.get(f"{behind_proxy}/", headers=second, timeout=10).status_code == 200
    # A client cannot pick its address by prepending one: the first hop that is not a trusted
    # proxy, from the right, is the client.
    spoofed = {**HTML, "X-Forwarded-For": "198.51.100.1, 203.0.113.10"}
    assert requests.get(f"{behind_proxy}/", headers=spoofed, timeout=10).status_code == 429


def test_forwarded_headers_from_anyone_else_are_ignored(direct: str, kurier: Kurier) -> None:
    """Without KURIER_TRUSTED_PROXIES, X-Forwarded-For is the client's own word: ignored, so
    a client cannot dodge its budget by inventing addresses."""
    for i in range(LIMIT):
        headers = {**HTML, "X-Forwarded-For": f"192.0.2.{i}"}
        assert requests.get(f"{direct}/", headers=headers, timeout=10).status_code == 200
    headers = {**HTML, "X-Forwarded-For": "192.0.2.99"}
    assert requests.get(f"{direct}/", headers=headers, timeout=10).status_code == 429


def test_signed_in_browsers_are_counted_by_player(direct: str, kurier: Kurier) -> None:
    """Two players' browsers at one address (a household, a school, a proxy): one player
    using up a budget leaves the other's pages alone."""
    anna, bert = kurier.new_player("Anna"), kurier.new_player("Bert")
    annas, berts = _browser(direct, anna), _browser(direct, bert)
    for _ in range(LIMIT):
        assert annas.get(f"{direct}/", timeout=10).status_code == 200
    assert annas.get(f"{direct}/", timeout=10).status_code == 429
    assert berts.get(f"{direct}/", timeout=10).status_code == 200
    assert berts.get(f"{direct}/settings", timeout=10).status_code == 200


def test_a_browser_over_its_budget_gets_a_page_that_keeps_its_message(
    direct: str, kurier: Kurier
) -> None:
    """The 429 is a page (it was problem+json) and what the player wrote is on it, in a form
    that sends it again; the API keeps problem+json."""
    host, guest = kurier.new_player("Hana"), kurier.new_player("Gus")
    game_id = kurier.call("POST", "/v1/games", host, json={"type": "attila", "seats": 2}).json()[
        "id"
    ]
    browser = _browser(direct, host)
    page = browser.get(f"{direct}/games/{game_id}", timeout=10)
    csrf = _csrf(page.text)
    for _ in range(LIMIT - 1):
        assert browser.get(f"{direct}/", timeout=10).status_code == 200
    words = "Hold the line <until> dawn & then some"
    r = browser.post(
        f"{direct}/games/{game_id}/say", data={"csrf": csrf, "text": words, "to": ""}, timeout=10
    )
    assert r.status_code == 429, r.text
    assert r.headers["Content-Type"].startswith("text/html")
    assert 1 <= int(r.headers["Retry-After"]) <= 60
    assert "Too many requests" in r.text
    assert html.escape(words, quote=False) in r.text  # escaped, and kept
    form = re.search(r'<form method="post" action="([^"]+)" class="kept"', r.text)
    assert form and form.group(1) == f"/games/{game_id}/say", r.text
    assert f'value="{csrf}"' in r.text
    assert "<script" not in r.text.split("</head>")[1]
    api = browser.get(f"{direct}/v1/games/{game_id}", timeout=10)
    assert api.status_code == 429 and api.headers["Content-Type"] == "application/problem+json"
    assert guest  # seated nowhere: only the host's budget was spent


def test_static_assets_are_outside_the_limit_and_cached_for_good(
    direct: str, kurier: Kurier
) -> None:
    page = requests.get(f"{direct}/", headers=HTML, timeout=10)
    for name in ("kurier.css", "kurier.js"):
        digest = hashlib.sha256((STATIC / name).read_bytes()).hexdigest()[:16]
        url = f"/assets/{name}?v={digest}"
        assert url in page.text, page.text
        for _ in range(LIMIT * 2):
            r = requests.get(direct + url, timeout=10)
            assert r.status_code == 200
            assert r.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        # An old or missing version is the current file, checked again each time.
        stale = requests.get(f"{direct}/assets/{name}?v=0000", timeout=10)
        assert stale.status_code == 200 and stale.headers["Cache-Control"] == "no-cache"
    # The pages' budget is untouched: one page view was counted, not 22 requests.
    for _ in range(LIMIT - 1):
        assert requests.get(f"{direct}/", headers=HTML, timeout=10).status_code == 200


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    server = RedisServer(short_tmp("kur-web503-"), EPHEMERAL_FLAGS)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_an_outage_is_a_page_for_browsers_that_keeps_the_move(own_redis: RedisServer) -> None:
    with serve(create_app({"REDIS_URL": own_redis.url, **UNLIMITED})) as base:
        api = Kurier(base)
        host, _guest = api.new_player("Olga"), api.new_player("Pit")
        game_id = api.call("POST", "/v1/games", host, json={"type": "attila", "seats": 2}).json()[
            "id"
        ]
        browser = _browser(base, host)
        csrf = _csrf(browser.get(f"{base}/games/{game_id}", timeout=10).text)
        own_redis.stop()
        r = browser.post(
            f"{base}/games/{game_id}/move", data={"csrf": csrf, "notation": "pass 3"}, timeout=10
        )
        assert r.status_code == 503, r.text
        assert r.headers["Content-Type"].startswith("text/html")
        assert int(r.headers["Retry-After"]) > 0
        assert "briefly unavailable" in r.text
        assert ">pass 3</textarea>" in r.text
        page = browser.get(f"{base}/", timeout=10)
        assert page.status_code == 503 and page.headers["Content-Type"].startswith("text/html")
        plain = requests.get(f"{base}/v1/games/{game_id}", timeout=10)
        assert plain.status_code == 503
        assert plain.headers["Content-Type"] == "application/problem+json"


@pytest.mark.parametrize(
    ("peer", "forwarded", "client"),
    [
        ("10.0.0.5", "198.51.100.7", "198.51.100.7"),
        ("10.0.0.5", "198.51.100.7, 10.0.0.9", "198.51.100.7"),  # two proxies of ours
        ("10.0.0.5", "1.2.3.4, 198.51.100.7", "198.51.100.7"),  # a client's made-up hop
        ("10.0.0.5", "not-an-address", "10.0.0.5"),
        ("10.0.0.5", "", "10.0.0.5"),
        ("192.0.2.1", "198.51.100.7", "192.0.2.1"),  # not a proxy of ours: its own address
        ("::1", "2001:db8::1", "2001:db8::1"),
    ],
)
def test_the_client_address_is_the_first_untrusted_hop(
    peer: str, forwarded: str, client: str
) -> None:
    trusted = config.trusted_proxies("10.0.0.0/8, ::1")
    seen: dict[str, Any] = {}

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.update(environ)
        start_response("204 No Content", [])
        return []

    environ = {"REMOTE_ADDR": peer, "HTTP_X_FORWARDED_FOR": forwarded}
    proxies.TrustedProxies(app, trusted)(environ, lambda *_: None)
    assert seen["REMOTE_ADDR"] == client


def test_trusted_proxies_are_checked() -> None:
    assert [str(n) for n in config.trusted_proxies(" 10.0.0.0/8 ,127.0.0.1,::1 ")] == [
        "10.0.0.0/8",
        "127.0.0.1/32",
        "::1/128",
    ]
    for bad in ("nonsense", "10.0.0.0/33", "10.0.0.1/8"):
        with pytest.raises(config.Invalid, match="not an address or network"):
            config.trusted_proxies(bad)
        found = config.check({"KURIER_TRUSTED_PROXIES": bad})
        assert [f.level for f in found if f.name == "KURIER_TRUSTED_PROXIES"] == ["error"]
    assert config.trusted_proxies("") == []
