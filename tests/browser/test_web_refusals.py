"""Refusals as a real Chromium meets them (issue 36): another site's page posting the token
form is refused (403, no session: no login CSRF); over its budget a browser gets a page that
keeps the message it typed (429) and sends it again; an outage is a page that keeps the move
(503). Screenshots of each page at 390 and 1280 px go to .kurier/screenshots/."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import requests

from service.http.app import create_app
from service.store import Store
from service.store.redis_server import EPHEMERAL_FLAGS, RedisServer
from tests.browser.conftest import screenshot
from tests.browser.test_web_seats import _signed_in
from tests.client import Kurier
from tests.conftest import UNLIMITED, serve, short_tmp


def _both_widths(page: Any, name: str) -> None:
    """The page as it is, at a phone's width and a desktop's (no reload: it may be a post's
    answer)."""
    for width, height in ((390, 844), (1280, 900)):
        page.set_viewport_size({"width": width, "height": height})
        screenshot(page, f"{name}-{width}")


@pytest.fixture
def attacker_site(base_url: str) -> Iterator[str]:
    """Another site (``localhost`` is not ``127.0.0.1``: cross-site) whose page posts the
    token sign-in form to Kurier as soon as it loads, with the attacker's own token."""
    token = Kurier(base_url).new_player("Mallory").token
    target = base_url + "/signin/token"
    body = (
        f'<!doctype html><form method="post" action="{target}">'
        f'<input name="token" value="{token}"></form>'
        "<script>document.forms[0].submit()</script>"
    ).encode()

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://localhost:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


def test_another_sites_page_cannot_sign_a_visitor_in(
    browser: Any, base_url: str, attacker_site: str
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(attacker_site)
    page.wait_for_selector("text=another site")
    assert page.url == base_url + "/signin/token"
    assert "kurier_session" not in [c["name"] for c in context.cookies()]
    page.wait_for_load_state("load")
    _both_widths(page, "web-refused-403")
    context.close()


def test_over_the_budget_the_message_is_kept_and_sent_again(
    browser: Any, redis_url: str, store: Store
) -> None:
    prefix = f"kurier:ratelimit-test-{uuid.uuid4().hex[:8]}"
    app = create_app(
        {
            **UNLIMITED,
            "REDIS_URL": redis_url,
            "RATE_LIMIT": "8/minute",
            "RATELIMIT_KEY_PREFIX": prefix,
        }
    )
    with serve(app) as base:
        kurier = Kurier(base)
        host, guest = kurier.new_player("Rosa"), kurier.new_player("Till")
        game = kurier.call("POST", "/v1/games", host, json={"type": "attila", "seats": 2})
        game_id, invite = game.json()["id"], game.json()["invite_code"]
        kurier.call("POST", f"/v1/games/{game_id}/seats", guest, json={"invite_code": invite})
        page = _signed_in(browser, base, host)
        page.goto(f"{base}/games/{game_id}")
        words = "Meet me at the ford <3"
        page.fill("textarea[name=text]", words)
        # The rest of this player's budget, spent elsewhere (another tab of the same player).
        cookies = {c["name"]: c["value"] for c in page.context.cookies()}
        for _ in range(10):
            if requests.get(f"{base}/", cookies=cookies, timeout=10).status_code == 429:
                break
        page.locator("form[action$='/say'] button").click()
        page.wait_for_selector("text=Too many requests")
        kept = page.locator("form.kept textarea[name=text]")
        assert kept.input_value() == words
        _both_widths(page, "web-refused-429")
        # The budget of another player at the same address is untouched.
        assert Kurier(base).call("GET", "/v1/me", guest).status_code == 200
        for key in store.raw.scan_iter(match=f"{prefix}*"):  # the minute passed, as it were
            store.raw.delete(key)
        page.locator("form.kept button").click()
        page.wait_for_selector(f"text={words}")
        assert page.url == f"{base}/games/{game_id}"
        said = kurier.call("GET", f"/v1/games/{game_id}/messages", guest).json()["items"]
        assert [m["text"] for m in said] == [words]
        page.context.close()


def test_an_outage_is_a_page_that_keeps_the_move(browser: Any) -> None:
    server = RedisServer(short_tmp("kur-b503-"), EPHEMERAL_FLAGS)
    server.start()
    try:
        with serve(create_app({"REDIS_URL": server.url, **UNLIMITED})) as base:
            kurier = Kurier(base)
            host, guest = kurier.new_player("Olga"), kurier.new_player("Pit")
            game = kurier.call("POST", "/v1/games", host, json={"type": "attila", "seats": 2})
            game_id, invite = game.json()["id"], game.json()["invite_code"]
            kurier.call("POST", f"/v1/games/{game_id}/seats", guest, json={"invite_code": invite})
            assert kurier.call("POST", f"/v1/games/{game_id}/start", host).status_code == 200
            mover = (host, guest)[kurier.view(game_id)["waiting_for"][0]["seat"]]
            page = _signed_in(browser, base, mover, width=390)
            page.goto(f"{base}/games/{game_id}")
            typed = page.locator("input[name=notation]:not([type=hidden])")
            typed.fill("place H ITA")
            server.stop()
            typed.press("Enter")
            page.wait_for_selector("text=briefly unavailable")
            assert page.locator("form.kept textarea[name=notation]").input_value() == "place H ITA"
            _both_widths(page, "web-refused-503")
            page.context.close()
    finally:
        server.stop()
