"""A moderator's queue in the browser: a player reports a table message from the game page, the
moderator sees it in context (never the unreported private talk), hides it with a reason and
finds the action in the audit log."""

from __future__ import annotations

from typing import Any

from service.domain import moderation
from service.store import Store
from tests.browser.test_web_club import _page
from tests.client import Kurier, Player


def test_a_report_from_the_game_page_is_hidden_from_the_queue(
    browser: Any, base_url: str, store: Store, worker: Any
) -> None:
    kurier = Kurier(base_url)
    game_id, (ann, bob, _cid) = kurier.seated_game("attila", 3, "Queue")
    mod = kurier.new_player("Moderator")
    store.moderation.set_moderator(mod.id, True)  # what `kurier moderator grant` does
    _dismiss_open_reports(kurier, mod)
    path = f"/v1/games/{game_id}/messages"
    kurier.call("POST", path, bob, json={"text": "private plan", "to_seat": 2})
    words = f"rude words {game_id}"
    rude = kurier.call("POST", path, bob, json={"text": words}).json()["id"]

    page = _page(browser, base_url, ann, 1280, "light")
    page.goto(f"{base_url}/games/{game_id}")
    page.locator(f"a.report-link[href$='/messages/{rude}/report']").click()
    page.locator("textarea[name=reason]").fill("an insult")
    page.locator(".report button[type=submit]").click()
    page.wait_for_selector("text=the moderators will look")

    queue = _page(browser, base_url, mod, 1280, "light")
    queue.locator("a.moderation-link").click()
    queue.wait_for_url("**/moderation")
    item = queue.locator("article.report-item", has_text=words)
    item.wait_for()
    assert item.count() == 1
    assert "an insult" in item.inner_text()
    assert "private plan" not in queue.content()
    item.locator("select[name=action]").select_option("hide")
    item.locator("input[name=reason]").fill("insult at the table")
    item.locator("button").click()
    queue.wait_for_selector("text=Done, and written to the audit log.")
    assert queue.locator("article.report-item", has_text=words).count() == 0
    assert "insult at the table" in queue.locator("table.audit").inner_text()
    hidden = kurier.call("GET", path, ann).json()["items"]
    assert [m["hidden"] for m in hidden if m["id"] == rude] == [True]


def _dismiss_open_reports(kurier: Kurier, mod: Player) -> None:
    """Settle the reports other tests on this server left open: the queue's first page shows
    the oldest ``QUEUE``, and this test's reports must be where it looks for them."""
    for _ in range(20):
        items = kurier.call("GET", "/v1/moderation/reports", mod).json()["items"]
        if not items:
            return
        for report in items:
            action = {"action": "dismiss", "reason": "tidying", "report_id": report["id"]}
            kurier.call("POST", "/v1/moderation/actions", mod, json=action)
    raise AssertionError("the open reports did not empty")


def test_the_queue_shows_more_than_its_first_page(
    browser: Any, base_url: str, store: Store, worker: Any
) -> None:
    """Over ``QUEUE`` open reports: the first page shows the oldest, "More" the rest, and an
    action taken on a later page comes back to it."""
    kurier = Kurier(base_url)
    ann = kurier.new_player("Reporter")
    mod = kurier.new_player("Pager")
    store.moderation.set_moderator(mod.id, True)
    _dismiss_open_reports(kurier, mod)
    for n in range(moderation.QUEUE + 1):
        body = {"kind": "player", "player_id": kurier.new_player(f"P{n}").id, "reason": f"r{n}"}
        assert kurier.call("POST", "/v1/reports", ann, json=body).status_code == 201

    queue = _page(browser, base_url, mod, 1280, "light")
    queue.goto(f"{base_url}/moderation")
    items = queue.locator("article.report-item")
    assert items.count() == moderation.QUEUE
    assert f"r{moderation.QUEUE}" not in items.last.inner_text()
    queue.locator("a[rel=next]").click()
    queue.wait_for_url("**/moderation?after=*")
    [last] = items.all()
    assert f"Reported by {ann.name}: r{moderation.QUEUE}" in last.inner_text()
    assert queue.locator("a[rel=next]").count() == 0
    last.locator("select[name=action]").select_option("dismiss")
    last.locator("input[name=reason]").fill("seen")
    last.locator("button").click()
    queue.wait_for_selector("text=Done, and written to the audit log.")
    assert "after=" in queue.url and items.count() == 0
    queue.locator("text=The oldest reports").click()
    queue.wait_for_url("**/moderation")
    assert items.count() == moderation.QUEUE
    _dismiss_open_reports(kurier, mod)
