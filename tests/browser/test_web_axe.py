"""Accessibility (issue 32): axe-core, pinned in tests/browser/axe/package.json and installed by
``npm ci``, run in Chromium on the lobby, a game page in play, the end of a game and a replayed
version, in light (every rule) and dark (the rules on colours): no violation of impact "serious"
or "critical". Every page is checked at 1280 px; at 390 px, every page but those whose narrow
layout another page checked at that width shows too (``NARROW_TOO``: the watched games show
their players' pages' bar, one-column table and map; the signed-out lobby the lobby's bar).
The pages seen with one token (or none) are loaded one after another in one browser context,
signed in by the sign-in form's post, its viewport set to each width before the page loads.

axe is served to the test page only: Playwright answers a same-origin URL the app does not have
with the package's file, so the page's strict CSP (script-src 'self', no inline script) stays
as it is and the app never serves it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.store import Store
from tests import node_packages
from tests.game_helpers import Table, new_table, play_random

AXE = Path(__file__).resolve().parent / "axe"
#: A path the app does not serve: Playwright fulfils it with axe-core.
AXE_PATH = "/__test__/axe.min.js"
SERIOUS = ("serious", "critical")


@pytest.fixture(scope="module")
def axe_source() -> str:
    modules = node_packages.installed(AXE, "the accessibility check (axe-core)")
    return (modules / "axe-core" / "axe.min.js").read_text()


#: Only the violations are collected whole (axe's ``resultTypes``: the passes and the rest keep
#: one node each, which this test never reads). ``rules``: the rules to run, or null for all.
_RUN_AXE = """async (rules) => (await axe.run(document, {resultTypes: ['violations'],
  ...(rules ? {runOnly: {type: 'rule', values: rules}} : {})})).violations"""
#: The rules whose outcome depends on colours: all the dark scheme changes (kurier.css's
#: ``prefers-color-scheme: dark`` blocks set colours and backgrounds only), so the dark check
#: runs these, the light one every rule.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]


#: The pages checked at 390 px too: at that width the others' layout (the bar, the table in one
#: column, the map's height: kurier.css's narrow blocks) is one of these pages' own.
NARROW_TOO = (
    "lobby",
    "Attila in play",
    "Attika in play",
    "the wargame in play",
    "the end",
    "a replayed version",
)


def _violations(
    page: Any, base_url: str, axe_source: str, rules: list[str] | None = None
) -> list[str]:
    """The serious and critical violations on ``page`` as it is shown now (of ``rules`` only,
    if given); axe is added to the page once a load (the dark scheme's check runs it again on
    the same page)."""
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        url = base_url + AXE_PATH
        page.unroute(url)  # a page loaded before in this tab has it served already
        page.route(
            url,
            lambda route: route.fulfill(body=axe_source, content_type="application/javascript"),
        )
        page.add_script_tag(url=url)
    found = page.evaluate(_RUN_AXE, rules)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — "
        + "; ".join(f"{node['target'][0]} {node['html'][:80]}" for node in v["nodes"][:4])
        for v in found
        if v["impact"] in SERIOUS
    ]


def _tab(browser: Any, base_url: str, token: str | None) -> Any:
    """A page in a context of its own, signed in with ``token`` if given (the sign-in form's
    post, made by the context: its session cookie is the context's). The pages checked with
    the same token share it, at every width."""
    context = browser.new_context(base_url=base_url)
    if token is not None:
        answer = context.request.post("/signin/token", form={"token": token}, max_redirects=0)
        assert answer.status in (302, 303), answer.text()
    return context.new_page()


def _finished(store: Store) -> Table:
    for attempt in range(4):  # bounded: a random 2-player game nearly always ends in 600
        table = new_table(store, 2, f"axe-end-{attempt}")
        play_random(store, table, 600, seed=attempt)
        if store.get_game(table.game_id).status == "finished":
            return table
    raise AssertionError("no game finished")


def test_no_serious_accessibility_violations(
    browser: Any, base_url: str, store: Store, axe_source: str
) -> None:
    playing = new_table(store, 3, "axe-play")
    play_random(store, playing, 10, seed=1)
    mover = next(d["seat"] for d in store.get_game(playing.game_id).pending if d["seat"] >= 0)
    attika = new_table(store, 2, "axe-attika", "attika")
    play_random(store, attika, 6, seed=1)
    attika_mover = next(d["seat"] for d in store.get_game(attika.game_id).pending if d["seat"] >= 0)
    wargame = new_table(store, 2, "axe-wargame", "attila-wargame")
    play_random(store, wargame, 6, seed=1)
    wargame_mover = next(
        d["seat"] for d in store.get_game(wargame.game_id).pending if d["seat"] >= 0
    )
    ended = _finished(store)
    last = store.get_game(ended.game_id).version
    pages = [
        ("lobby, signed out", None, "/"),
        ("lobby", playing.tokens[0], "/"),
        ("Attila in play", playing.tokens[mover], f"/games/{playing.game_id}"),
        ("Attila watched", None, f"/games/{playing.game_id}"),
        ("Attika in play", attika.tokens[attika_mover], f"/games/{attika.game_id}"),
        ("the wargame in play", wargame.tokens[wargame_mover], f"/games/{wargame.game_id}"),
        ("the wargame watched", None, f"/games/{wargame.game_id}"),
        ("the end", ended.tokens[0], f"/games/{ended.game_id}"),
        ("a replayed version", ended.tokens[0], f"/games/{ended.game_id}/replay/{last - 3}"),
    ]
    tabs = {token: _tab(browser, base_url, token) for _, token, _ in pages}
    found = []
    for width in (1280, 390):
        for name, token, path in pages:
            if width < 1280 and name not in NARROW_TOO:
                continue
            page = tabs[token]
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(path)
            signed_in = page.locator("form[action='/signout']").count() == 1
            assert signed_in == (token is not None), f"{name}: signed in {signed_in}"
            for scheme, rules in (("light", None), ("dark", COLOUR_RULES)):
                page.emulate_media(color_scheme=scheme)
                found += [
                    f"{name} at {width} px, {scheme}: {v}"
                    for v in _violations(page, base_url, axe_source, rules)
                ]
    for page in tabs.values():
        page.context.close()
    assert found == [], "\n".join(found)
