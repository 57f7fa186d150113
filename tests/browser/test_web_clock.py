"""The time bank on the game's page (static/board/clock.js): each seat's bank is shown, the
running one counts down without a reload and without asking the server, and the lobby's form
creates a bank game."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import screenshot
from tests.browser.test_web_seats import _signed_in
from tests.client import Kurier

DAY = 86_400.0
_RUNNING = "ol.players time.bank-clock[data-running=true]"


def _seconds(text: str) -> int:
    """'4 min 58 s' or '5 min 0 s' as seconds."""
    units = {"d": 86_400, "h": 3_600, "min": 60, "s": 1}
    words = text.split()
    return sum(int(words[i]) * units[words[i + 1]] for i in range(0, len(words), 2))


def test_the_running_bank_counts_down_on_the_page_without_a_reload(
    browser: Any, base_url: str, worker: Any, streams: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KURIER_STREAM_URL", streams)  # live updates by stream, not by polling
    kurier = Kurier(base_url)
    # Five minutes: shown to the second ("4 min 58 s").
    bank = {"kind": "bank", "initial_days": 5 / 1440, "per_move_days": 0, "max_days": 5 / 1440}
    game_id, players = kurier.seated_game(
        "attila", 2, "Clk", seed="clock-page", deadline={"clock": bank}
    )
    view = kurier.view(game_id)
    mover = view["waiting_for"][0]["seat"]
    page = _signed_in(browser, base_url, players[mover])
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{base_url}/games/{game_id}")
    clock = page.locator(_RUNNING)
    assert clock.count() == 1
    page.wait_for_function(
        f"() => / s$/.test(document.querySelector('{_RUNNING}').textContent)", timeout=10_000
    )
    first = clock.text_content() or ""
    assert 300 - 60 < _seconds(first) <= 300, first
    asked = len(requests)
    shown = [page.evaluate(f"() => document.querySelector('{_RUNNING}').textContent")]
    for _ in range(3):  # three ticks, each a change on the page by itself
        page.wait_for_function(
            f"(before) => document.querySelector('{_RUNNING}').textContent !== before",
            arg=shown[-1],
            timeout=5_000,
        )
        shown.append(clock.text_content() or "")
    counted = [_seconds(text) for text in shown]
    assert counted == sorted(counted, reverse=True) and counted[-1] < counted[0], shown
    # Counted down by the page itself: no request for it.
    assert requests[asked:] == [], requests[asked:]
    # The other seat's bank, not running, holds its five minutes still.
    idle = page.locator("ol.players time.bank-clock[data-running=false]")
    assert idle.count() == 1 and _seconds(idle.text_content() or "") == 300
    screenshot(page, "web-clock-1280")
    page.context.close()


def test_the_lobby_creates_a_time_bank_game(browser: Any, base_url: str, worker: Any) -> None:
    kurier = Kurier(base_url)
    me = kurier.new_player("Banker")
    page = _signed_in(browser, base_url, me)
    page.select_option("form.create select[name=type]", "attila")
    page.fill("input[name=seats]", "2")
    page.select_option("select[name=clock]", "bank")
    page.fill("input[name=bank_initial_days]", "10")
    page.fill("input[name=bank_per_move_days]", "2")
    page.fill("input[name=bank_max_days]", "20")
    page.check("input[name=weekend_pause]")
    page.select_option("select[name=deadline_policy]", "bot")
    page.select_option("select[name=deadline_bot_level]", "easy")
    page.locator("form.create button[type=submit]").click()
    page.wait_for_url("**/games/*")
    game_id = page.url.rsplit("/", 1)[1].split("?")[0]
    deadline = kurier.view(game_id, me)["deadline"]
    assert deadline["clock"] == {
        "kind": "bank",
        "initial_days": 10,
        "per_move_days": 2,
        "max_days": 20,
        "weekend_pause": True,
    }
    assert deadline["policy"] == "bot" and deadline["bot_level"] == "easy"
    # A cap below the start is refused on the page, naming the deadline; nothing created.
    page.goto(base_url + "/")
    page.select_option("select[name=clock]", "bank")
    page.fill("input[name=bank_initial_days]", "10")
    page.fill("input[name=bank_max_days]", "5")
    before = kurier.call("GET", "/v1/games", me).json()["items"]
    page.locator("form.create button[type=submit]").click()
    page.wait_for_selector("[role=alert]")
    assert "time bank" in (page.locator("[role=alert]").first.text_content() or "")
    assert kurier.call("GET", "/v1/games", me).json()["items"] == before
    page.context.close()
