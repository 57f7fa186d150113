"""The game page follows its game's event stream (issue 12 "Live", on the push channel of
issue 14): with the API's polling blocked, a move made elsewhere still reloads the page."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import wait_for_another_version
from tests.browser.test_web_seats import _signed_in
from tests.client import Kurier


def _played_elsewhere(kurier: Kurier, game_id: str, players: list[Any], watcher: int) -> Any:
    """The other player's first legal move, over the API (``Kurier.play_first_legal``): the
    answer."""
    played = kurier.play_first_legal(game_id, players)
    assert played is not None and played[0] == players[1 - watcher], played
    assert played[1].status_code == 200, played[1].text
    return played[1]


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
    # The page's own URL, which sends the browser on to the stream server with a ticket.
    stream = page.locator("[data-stream]").get_attribute("data-stream")
    assert stream == f"/games/{game_id}/stream", stream
    sent_on = kurier.call("GET", f"{stream}?after=3", allow_redirects=False)
    assert sent_on.status_code == 307
    assert sent_on.headers["Location"] == f"{streams}/v1/games/{game_id}/stream?after=3"
    shown = page.locator("h1 small").inner_text()
    r = _played_elsewhere(kurier, game_id, players, watcher_seat)
    wait_for_another_version(page, shown, timeout=10_000)
    assert f"version {r.json()['version']}" in page.locator("h1 small").inner_text()
    assert polled == [], "the page polled although its stream was open"
    answer = kurier.call("GET", f"/games/{game_id}")
    assert f"connect-src 'self' {streams}" in answer.headers["Content-Security-Policy"]
    page.context.close()


#: Counts the page's event streams (kurier.js opens them; a closed one is readyState 2).
COUNT_STREAMS = """(() => {
  const Real = window.EventSource;
  window.__streams = [];
  function Counted(url, options) {
    const source = new Real(url, options);
    window.__streams.push(source);
    return source;
  }
  Counted.prototype = Real.prototype;
  Object.assign(Counted, {CONNECTING: 0, OPEN: 1, CLOSED: 2});
  window.EventSource = Counted;
})();"""
OPEN_STREAMS = "() => window.__streams.filter(s => s.readyState !== 2).length"


def test_the_page_keeps_one_stream_open_through_its_own_moves_and_others(
    browser: Any, base_url: str, worker: Any, streams: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An update that did not come from the stream (the player's own move: the table's
    kurier:played) follows the stream again from the version shown. It used to open one more
    stream each time, the old ones left open: a browser allows six connections to a server."""
    monkeypatch.setenv("KURIER_STREAM_URL", streams)
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2)
    watcher_seat = 1 - next(d["seat"] for d in kurier.view(game_id)["waiting_for"])
    page = _signed_in(browser, base_url, players[watcher_seat])
    page.add_init_script(COUNT_STREAMS)
    page.goto(f"{base_url}/games/{game_id}")
    page.wait_for_function("() => window.__streams.length === 1")
    for n in range(4):  # as the table does after each of its own moves
        page.evaluate("() => document.dispatchEvent(new CustomEvent('kurier:played'))")
        page.wait_for_function(f"() => window.__streams.length >= {n + 2}", timeout=10_000)
    page.wait_for_timeout(300)  # any update still under way ends
    assert page.evaluate(OPEN_STREAMS) == 1
    shown = page.locator("h1 small").inner_text()
    _played_elsewhere(kurier, game_id, players, watcher_seat)
    wait_for_another_version(page, shown, timeout=10_000)  # from the one stream left
    page.wait_for_timeout(300)
    assert page.evaluate(OPEN_STREAMS) == 1
    page.context.close()


def test_a_finished_game_closes_its_stream_without_a_banner_or_retry(
    browser: Any, base_url: str, worker: Any, streams: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stream of a finished game ends with ``event: end``: the page closes it, shows no
    "Connection lost" banner and opens no other stream (the browser's retry is 3 s)."""
    monkeypatch.setenv("KURIER_STREAM_URL", streams)
    kurier = Kurier(base_url)
    game_id, (ann, bob) = kurier.new_game(2)
    r = kurier.call("POST", f"/v1/games/{game_id}/actions", bob, json={"notation": "resign"})
    assert r.status_code == 200 and r.json()["status"] == "finished", r.text
    page = _signed_in(browser, base_url, ann)
    page.add_init_script(COUNT_STREAMS)
    page.goto(f"{base_url}/games/{game_id}")
    page.wait_for_function("() => document.body.dataset.streamEnded === 'finished'")
    assert page.evaluate(OPEN_STREAMS) == 0
    # Past two of the browser's retry delays: still one stream opened, the banner hidden.
    banner = page.locator(".connection")
    for _ in range(35):
        assert page.evaluate("() => window.__streams.length") == 1
        assert banner.is_hidden(), "a finished game says its connection was lost"
        page.wait_for_timeout(200)
    assert "won" in page.locator(".result").inner_text()
    page.context.close()
