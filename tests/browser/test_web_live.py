"""The game page follows its game's event stream (issue 12 "Live", on the push channel of
issue 14): with the API's polling blocked, a move made elsewhere still reloads the page."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import wait_for_another_version
from tests.browser.test_web_seats import _signed_in
from tests.client import Kurier


def test_the_page_follows_the_stream(
    browser: Any, base_url: str, worker: Any, streams: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KURIER_STREAM_URL", streams)  # the app is served in this process
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2)
    watcher_seat = 1 - next(d["seat"] for d in kurier.view(game_id)["waiting_for"])
    page = _signed_in(browser, base_url, players[watcher_seat])
    polled: list[str] = []

    def no_polling(route: Any) -> None:
        polled.append(route.request.url)
        route.abort()

    page.route(f"**/v1/games/{game_id}", no_polling)
    page.goto(f"{base_url}/games/{game_id}")
    stream = page.locator("[data-stream]").get_attribute("data-stream")
    assert stream.startswith(streams), stream
    shown = page.locator("h1 small").inner_text()
    mover = players[1 - watcher_seat]
    legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", mover).json()["actions"]
    r = kurier.call(
        "POST", f"/v1/games/{game_id}/actions", mover, json={"notation": legal[0]["notation"]}
    )
    assert r.status_code == 200, r.text
    wait_for_another_version(page, shown, timeout=10_000)
    assert f"version {r.json()['version']}" in page.locator("h1 small").inner_text()
    assert polled == [], "the page polled although its stream was open"
    answer = kurier.call("GET", f"/games/{game_id}")
    assert f"connect-src 'self' {streams}" in answer.headers["Content-Security-Policy"]
    page.context.close()
