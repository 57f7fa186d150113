"""The club in the browser (issue 34): a profile with its rating plot, following, a
leaderboard, the games to watch; when screenshots are asked (tests/browser/conftest.py), the
profile, the leaderboard and the games to watch at 390 and 1280 px, light and dark, in
/tmp/club-shots (looked at: docs/web.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from service.store import Store
from tests.browser.conftest import screenshots_asked
from tests.client import Kurier, Player
from tests.test_club import _running
from tests.test_profiles import _game, _wait_counted

SHOTS = Path("/tmp/club-shots")


def _page(browser: Any, base_url: str, player: Player, width: int, scheme: str) -> Any:
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    page.goto(base_url + "/")
    page.locator("form[action='/signin/token'] input[name=token]").fill(player.token)
    page.locator("form[action='/signin/token'] button").click()
    page.wait_for_selector("text=Your games")
    return page


def _shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_profile_plot_follow_leaderboard_and_watch(
    browser: Any, base_url: str, store: Store, worker: Any
) -> None:
    kurier = Kurier(base_url)
    r = kurier.call("POST", "/v1/players", json={"name": "Ann", "email": "ann.club@example.org"})
    ann = Player(r.json()["id"], "Ann", r.json()["token"])
    bob, cid = kurier.new_player("Bob"), kurier.new_player("Cid")
    done = [_game(kurier, store, [ann, [bob, cid][i % 2]], f"club-web-{i}") for i in range(4)]
    for game_id in done:
        _wait_counted(store, game_id)
    running, _ = _running(kurier, [ann, cid])

    page = _page(browser, base_url, bob, 1280, "light")
    page.goto(f"{base_url}/players/{ann.id}")
    plot = page.locator("svg.plot")
    assert plot.count() == 1 and plot.locator("circle").count() == 4
    assert "ann.club@example.org" not in page.content()
    assert page.locator(f"a[href='/games/{running}']").count() == 1  # playing now
    page.locator("button", has_text="Follow").click()
    page.wait_for_selector("button:has-text('Unfollow')")
    page.goto(f"{base_url}/following")
    assert page.locator(f".people a[href='/players/{ann.id}']").count() == 1
    assert page.locator(f"a[href='/games/{running}']").count() == 1

    # Play with: the lobby's create flow, invitation only; the new game's page is next.
    page.goto(f"{base_url}/players/{ann.id}")
    page.select_option(".play-with select[name=type]", "attila")
    page.locator(".play-with button").click()
    page.wait_for_url("**/games/*")
    created = page.url.rsplit("/", 1)[1]
    assert store.get_game(created).settings["access"] == "invite"

    page.goto(f"{base_url}/leaderboards/attila")
    rows = page.locator("table.board tbody tr")
    assert rows.count() >= 3
    assert page.locator(f"table.board a[href='/players/{ann.id}']").count() == 1
    page.select_option("select[name=seats]", "2")
    page.locator(".filters button").click()
    page.wait_for_url("**seats=2**")
    assert page.locator(f"table.board a[href='/players/{ann.id}']").count() == 1

    page.goto(f"{base_url}/watch")
    assert page.locator(f"a[href='/games/{running}']").count() == 1
    page.locator("a", has_text="Finished games").click()
    page.wait_for_url("**/finished**")
    page.locator(f"a[href='/games/{done[-1]}']").first.wait_for()
    assert page.locator(f"a[href='/games/{done[-1]}']").count() == 1

    if not screenshots_asked():
        return  # the pages below are loaded for their screenshots only
    for width in (390, 1280):
        for scheme in ("light", "dark"):
            viewer = _page(browser, base_url, bob, width, scheme)
            for name, path in (
                ("profile", f"/players/{ann.id}"),
                ("leaderboard", "/leaderboards/attila"),
                ("watch", "/watch"),
            ):
                viewer.goto(base_url + path)
                _shot(viewer, f"{name}-{width}-{scheme}")
            viewer.context.close()
