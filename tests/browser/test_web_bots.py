"""Computer opponents on the web (issue 35): the lobby's "play now" seats the player against
bots in one click, and a bot's move arrives on the page by itself; the create form fills
seats with bots."""

from __future__ import annotations

import itertools
import time
from typing import Any

import pytest

from tests.browser.conftest import screenshot
from tests.browser.test_web_seats import _signed_in
from tests.client import Kurier

#: The page's own "moves so far" list holds a move by a bot (names "Bot 2 (medium)", ...).
_A_BOTS_MOVE = (
    "() => [...document.querySelectorAll('details.history li')]"
    ".some(li => li.textContent.startsWith('Bot'))"
)


def test_play_now_seats_the_player_against_bots_and_a_bots_move_arrives(
    browser: Any, base_url: str, worker: Any, streams: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KURIER_STREAM_URL", streams)  # the page follows the game live
    kurier = Kurier(base_url)
    me = kurier.new_player("Quick")
    page = _signed_in(browser, base_url, me)
    page.select_option("form.play-now select[name=type]", "attila")
    page.select_option("form.play-now select[name=level]", "easy")
    page.select_option("form.play-now select[name=pace]", "instant")
    page.locator("form.play-now button[type=submit]").click()
    page.wait_for_url("**/games/*")
    game_id = page.url.rsplit("/", 1)[1].split("?")[0]
    view = kurier.view(game_id, me)
    assert view["bot_pace"] == "instant" and view["rated"] is False
    mine = view["your_seat"]
    # "You move first": the player sits where the game starts, so no bot moves before them.
    assert view["status"] == "active" and [d["seat"] for d in view["waiting_for"]] == [mine]
    assert [s["is_bot"] for s in view["seats"]] == [seat != mine for seat in range(3)]
    assert {s["bot_level"] for i, s in enumerate(view["seats"]) if i != mine} == {"easy"}
    assert page.locator("ol.players .bot").count() == 2  # the badge
    # The creator may hand each bot's seat to a person (the seat-offer link).
    assert page.locator("ol.players form[action$='/offer']").count() == 2
    # While the game waits for the player, they move (through the API); then the bots move,
    # and a bot's move arrives on the open page, which follows the game live.
    for _ in range(10):  # bounded: an Attila turn is a few decisions
        if not any(d["seat"] == mine for d in kurier.view(game_id, me)["waiting_for"]):
            break
        played = kurier.play_first_legal(game_id, [me, me, me])
        assert played is not None and played[1].status_code in (200, 202), played
    try:
        page.wait_for_function(_A_BOTS_MOVE, timeout=60_000)
    except Exception:
        moves = [e for e in kurier.all_events(game_id, me) if e["kind"] == "move"]
        raise AssertionError(f"no bot's move on the page; the log's moves: {moves}") from None
    screenshot(page, "web-play-now-1280")
    page.context.close()


def test_play_now_at_its_default_pace_no_bot_answers_within_a_second(
    browser: Any, base_url: str, worker: Any
) -> None:
    """The default pace is a person's at the table: every bot's move or sealed choice comes
    at least a second after the entry before it in the log (measured from the log's own
    times). The spread of the waits is checked on their seeds (tests/test_bots_service.py)."""
    kurier = Kurier(base_url)
    me = kurier.new_player("Patient")
    page = _signed_in(browser, base_url, me)
    pace = page.locator("form.play-now select[name=pace]")
    assert pace.input_value() == "seconds"  # the default, untouched
    page.select_option("form.play-now select[name=type]", "attila")
    page.select_option("form.play-now select[name=level]", "easy")
    page.locator("form.play-now button[type=submit]").click()
    page.wait_for_url("**/games/*")
    game_id = page.url.rsplit("/", 1)[1].split("?")[0]
    view = kurier.view(game_id, me)
    assert view["bot_pace"] == "seconds"
    mine = view["your_seat"]
    deadline = time.monotonic() + 120
    while len(_bot_gaps(kurier, game_id, me, mine)) < 4:  # bounded: four bot answers
        assert time.monotonic() < deadline, f"bots' answers: {_bot_gaps(kurier, game_id, me, mine)}"
        if any(d["seat"] == mine for d in kurier.view(game_id, me)["waiting_for"]):
            played = kurier.play_first_legal(game_id, [me, me, me])
            assert played is not None and played[1].status_code in (200, 202), played
        else:
            time.sleep(0.2)  # polling the bots' progress, not waiting for a time to pass
    gaps = _bot_gaps(kurier, game_id, me, mine)
    assert min(gaps) >= 1.0, gaps
    page.context.close()


def _bot_gaps(kurier: Kurier, game_id: str, me: Any, mine: int) -> list[float]:
    """Seconds from each log entry to a bot's move or sealed choice right after it."""
    entries = kurier.all_events(game_id, me)
    return [
        entry["at"] - before["at"]
        for before, entry in itertools.pairwise(entries)
        if entry["kind"] in ("move", "sealed") and entry["seat"] not in (None, mine)
    ]


def test_the_create_form_fills_seats_with_bots_at_a_pace(
    browser: Any, base_url: str, worker: Any
) -> None:
    kurier = Kurier(base_url)
    me = kurier.new_player("Planner")
    page = _signed_in(browser, base_url, me)
    page.select_option("form.create select[name=type]", "attika")
    page.fill("input[name=seats]", "3")
    page.select_option("select[name='bot.1']", "hard")
    # The same paces as Play now's, with the same default (docs/bots.md, "Pace").
    pace = page.locator("form.create select[name=bot_pace]")
    assert pace.input_value() == "seconds"
    options = "option", "el => el.map(o => [o.value, o.textContent])"
    play_now = page.locator("form.play-now select[name=pace]")
    assert pace.locator(options[0]).evaluate_all(options[1]) == play_now.locator(
        options[0]
    ).evaluate_all(options[1])
    page.select_option("form.create select[name=bot_pace]", "correspondence")
    page.locator("form.create button[type=submit]").click()
    page.wait_for_selector("text=Start the game")
    game_id = page.url.rsplit("/", 1)[1].split("?")[0]
    view = kurier.view(game_id, me)
    assert [(s["name"], s["bot_level"]) for s in view["seats"]] == [
        ("Planner", None),
        ("Bot (hard)", "hard"),
    ]
    assert view["max_seats"] == 3
    assert view["bot_pace"] == "correspondence"
    page.context.close()
