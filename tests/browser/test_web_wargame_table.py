"""The Attila wargame on the board (issue 33), in a real Chromium: the two players play by
clicking on the map only (counters, lit hexes, the cards and the phase's buttons) until each
side has marched in two rounds (the rest of the second round adds no kind of decision), each
side's march of several hexes each round confirmed as one request of several actions, a
compulsory attack with two attackers tapped onto one target, the battle cards played as cards,
a retreat chosen on the map (a counter, then a lit hex), each battle's result marked on the map
step by step; the Roman at 1280 px and the Barbarian at 390×844 with touch; a spectator's every
response is scanned for the secret notes and the battle cards before they are revealed. A side's
battle cards after its first go through the API, and once every kind of decision but the second
round's marches has been clicked, so do the decisions before the last march (the page of the
side that marched twice parked). A march's counter is chosen from the march question the page
asks when a counter is picked up, asked by the test on the game's state, then picked up."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from engine import get_game
from engine.attila_wargame.targets import march
from service.store import Store
from tests.browser.conftest import SHOTS, navigate
from tests.browser.test_web_seats import _signed_in
from tests.browser.test_web_table import _idle, _phone, _spectator, committed, shows_version
from tests.client import Kurier, Player

#: Screenshots for docs/web.md: written here and looked at.
PICTURES = Path(__file__).resolve().parents[2] / "docs" / "pictures" / "table"
MAX_SECONDS = 420
CARD_STEPS = ("battle_card", "council_card")


#: The few of them docs/web.md shows (committed); the others go with the other tests' shots.
KEPT = {
    "wargame-1280-zoomed-out",
    "wargame-1280-march-lit",
    "wargame-1280-attack",
    "wargame-390-zoomed-in",
    "wargame-390-march-staged",
    "wargame-390-attack",
    "wargame-390-phone-height",
    "wargame-390-layers-dark",
    "wargame-1280-layers",
    "wargame-1280-layers-dark",
    "wargame-1280-battle-result",
    "wargame-1280-battle-result-dark",
    "wargame-390-battle-result",
    "wargame-390-battle-result-dark",
}


def _shot(page: Any, name: str) -> None:
    folder = PICTURES if name in KEPT else SHOTS
    folder.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(folder / f"{name}.png"), full_page=False)


def _tap(page: Any, map_id: str, locator: Any, scale: float = 6) -> None:
    """Bring ``map_id`` (a counter or a hex) to the middle of the map, zoomed in, and tap or
    click ``locator`` there (a phone taps)."""
    page.evaluate(
        "([id, s]) => { document.querySelector('.wargame-board').scrollIntoView({block: 'center'});"
        " window.kurier.board.show(id, s); }",
        [map_id, scale],
    )
    # force: a lit hex may lie under a counter (the page finds the hex under the tap)
    if page.viewport_size["width"] < 600:
        locator.tap(force=True)
    else:
        locator.click(force=True)


def _press(page: Any, locator: Any) -> None:
    locator.tap() if page.viewport_size["width"] < 600 else locator.click()


def _pickable(page: Any) -> list[str]:
    return page.evaluate(
        "() => [...document.querySelectorAll('.board-svg g.wg-pickable')].map(g => g.id)"
    )


def _lit(page: Any) -> dict[str, str]:
    """The lit hexes and what each says ("3908: 3 — enemy zone of control" on a march)."""
    return page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('#wg-under .wg-lit')]"
        ".map(g => [g.dataset.hex, g.querySelector('title').textContent]))"
    )


def _button(page: Any, text: str) -> Any:
    return page.locator(".choices button", has_text=text)


def _one_decision(
    page: Any,
    step: str,
    marched: set[tuple[int, int]],
    key: tuple[int, int],
    shots: str | None,
    reach: Callable[[str], dict[str, str]],
) -> str:
    """Stage one decision's parts by clicks on the map and the phase's buttons (``key``: the
    seat and the round; one march each, its counter chosen by ``reach``: _march)."""
    _idle(page)
    if step == "secret_notes":
        units = _pickable(page)
        _tap(page, units[-1], page.locator(f"[id='{units[-1]}']"), 3)
        rounds = page.locator(".wg-round")
        if rounds.count():  # the Barbarian: Aetius's first round, the last one offered
            _press(page, rounds.last)
        return "note"
    if step == "movement":
        if key not in marched:
            _march(page, shots, reach)
            marched.add(key)
            return "march"
        _press(page, _button(page, "End the phase"))
        return "end"
    if step == "permanent_devastation":
        _press(page, page.locator(".choices button.option"))
        return "raze"
    if step == "combat":
        return _attack(page, shots)
    if step in CARD_STEPS:
        _press(page, page.locator(".wg-card").first)
        return "card"
    if step in ("retreat", "advance"):
        units = _pickable(page)
        if units:
            _tap(page, units[0], page.locator(f"[id='{units[0]}']"), 4)
            hexes = list(_lit(page))
            _tap(page, f"hex-{hexes[0]}", page.locator(f"#wg-under .wg-lit[data-hex='{hexes[0]}']"))
            return step
    _press(page, page.locator(".choices button").first)
    return step


def _attack(page: Any, shots: str | None) -> str:
    """Tap a target on the map, then attackers until the Attack button is on. A target two
    units may attack together is chosen first, and both are tapped in ("attack2"); when the
    phase cannot be ended (an attack is owed, 4.1) the attack is a compulsory one."""
    targets = list(_lit(page))
    if not targets:
        _press(page, _button(page, "End the phase"))
        return "end"
    actions = page.evaluate(
        "() => JSON.parse(document.getElementById('wargame-data').textContent).table.actions"
        ".filter(a => a.attackers)"
    )
    pairs = [a for a in actions if len(a["attackers"]) >= 2]
    chosen = pairs[0] if pairs else actions[0]
    target = chosen["target"][4:]
    _tap(page, f"hex-{target}", page.locator(f"#wg-under .wg-lit[data-hex='{target}']"), 4)
    attack = page.locator(".wg-attack")
    # The units bound to this battle (in every grouping of it) are tapped in already.
    here = [set(a["attackers"]) for a in actions if a["target"] == chosen["target"]]
    for unit in [u for u in chosen["attackers"] if u not in set.intersection(*here)]:
        _tap(page, f"unit-{unit}", page.locator(f"[id='unit-{unit}']"), 4)
    assert attack.is_enabled(), page.locator(".target-info").inner_text()
    assert " : " in attack.inner_text()  # the strengths and the odds column shown first
    owed = _button(page, "End the phase").count() == 0
    if shots:
        _shot(page, f"wargame-{shots}-attack")
    _press(page, attack)
    return "attack2" if len(chosen["attackers"]) >= 2 and owed else "attack"


def _far(lit: dict[str, str], zoc: bool) -> str | None:
    """The farthest lit hex 2 to 6 hexes away (``zoc``: one where the march stops in an enemy
    zone of control, so that a battle is owed), from what each lit hex says (``_lit``)."""
    costs = {h: int(t.split(": ")[1].split(" ")[0]) for h, t in lit.items()}
    far = [h for h, c in costs.items() if 2 <= c <= 6 and (not zoc or "zone" in lit[h])]
    return max(far, key=costs.__getitem__) if far else None


def _reaches(store: Store, game_id: str, seat: int) -> Callable[[str], dict[str, str]]:
    """What the lit hexes of a counter of ``seat`` picked up now say (``_lit``: "3908: 3 —
    enemy zone of control"), from the march question the page asks the server when a counter is
    picked up (the game's ``march``, engine/attila_wargame/targets.py), asked here on the
    game's state as the server asks it (the state read at the first question: a march only)."""
    game = get_game("attila-wargame")
    states: list[Any] = []

    def reach(unit: str) -> dict[str, str]:
        if not states:
            states.append(game.load(store.get_game(game_id).state))
        found = march(game.rules, states[0], seat, unit.removeprefix("unit-"))["reach"]
        return {
            h: f"{h}: {r['cost']}" + (f" \u2014 {r['stop']}" if r["stop"] else "")
            for h, r in found.items()
        }

    return reach


def _march(page: Any, shots: str | None, reach: Callable[[str], dict[str, str]]) -> None:
    """Pick up the first counter that can march 2 to 6 hexes into an enemy zone of control
    (else the first that can march as far), chosen from what each counter's lit hexes would say
    (``reach``); tap that hex: its path is drawn and its steps staged, one action each. When
    it is not the first counter, the first is picked up and put down again before it, both
    showing the lit hexes ``reach`` said."""
    units = _pickable(page)[:30]
    lits = {unit: reach(unit) for unit in units}
    into_zones = [unit for unit in units if _far(lits[unit], zoc=True)]
    far = [unit for unit in units if _far(lits[unit], zoc=False)]
    assert far, "no counter can march two hexes"
    unit = (into_zones or far)[0]
    tried = [units[0], unit] if unit != units[0] else [unit]
    for picked in tried:
        _tap(page, picked, page.locator(f"[id='{picked}']"), 3)
        page.wait_for_selector(f"#wg-under[data-march='{picked[5:]}']", state="attached")
        assert _lit(page) == lits[picked]
        if picked != unit:
            _tap(page, picked, page.locator(f"[id='{picked}']"), 3)  # put it down again
    best = _far(lits[unit], zoc=bool(into_zones))
    assert best is not None
    cost = int(lits[unit][best].split(": ")[1].split(" ")[0])
    if shots:
        page.evaluate("([id, s]) => window.kurier.board.show(id, s)", [f"hex-{best}", 3])
        _shot(page, f"wargame-{shots}-march-lit")
    _tap(page, f"hex-{best}", page.locator(f"#wg-under .wg-lit[data-hex='{best}']"), 3)
    _idle(page)
    assert len(page.evaluate("window.kurier.board.staged()")) == cost
    assert page.locator("#wg-overlay .wg-path").count() >= 1  # the path drawn
    if shots:
        _shot(page, f"wargame-{shots}-march-staged")


def _watch(pages: list[Any]) -> tuple[list[list[str]], list[str]]:
    """What the pages post (each Confirm: the actions of its one request) and their script
    errors, as they happen."""
    posted: list[list[str]] = []
    errors: list[str] = []
    for page in pages:
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on(
            "request",
            lambda r: (
                posted.append(parse_qs(r.post_data or "").get("m", []))
                if r.method == "POST" and r.url.endswith("/moves")
                else None
            ),
        )
    return posted, errors


def _all_clicked(done: list[str], acted: list[tuple[int, str]], shot: set[str]) -> bool:
    """Whether every kind of decision the test checks was clicked: two marches a side, a
    compulsory attack of two units, attacks and battle cards by both sides, a retreat (its
    result marked on the map)."""
    both = {0, 1}
    return (
        done.count("march") == 4
        and "attack2" in done
        and "retreat" in done
        and "result" in shot
        and {seat for seat, d in acted if d == "card"} == both
        and {seat for seat, d in acted if d.startswith("attack")} == both
    )


def _only_marches_left(done: list[str], acted: list[tuple[int, str]], shot: set[str]) -> bool:
    """Whether every kind of decision but the second round's marches was clicked."""
    return _all_clicked(done + ["march"] * (4 - done.count("march")), acted, shot)


def _send_by_api(kurier: Kurier, game_id: str, player: Player) -> str:
    """The first of ``player``'s legal actions, sent through the API (the service path the
    page's Confirm takes); its notation."""
    legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()["actions"]
    notation = str(legal[0]["notation"])
    r = kurier.call("POST", f"/v1/games/{game_id}/actions", player, json={"notation": notation})
    assert r.status_code in (200, 202), r.text
    return notation


def test_two_players_play_the_wargame_on_the_map_until_each_side_marched_twice(
    browser: Any,
    base_url: str,
    worker: Any,
    streams: str,
    store: Store,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each page is loaded once and follows the game's stream, as in production: a decision
    # shows in place as soon as it is committed (a load of the map per decision cost more).
    monkeypatch.setenv("KURIER_STREAM_URL", streams)  # the app is served in this process
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2, seed="wargame-table-1", game_type="attila-wargame")
    url = f"{base_url}/games/{game_id}"
    pages = [_signed_in(browser, base_url, players[0]), _phone(browser, base_url, players[1])]
    posted, errors = _watch(pages)  # each Confirm: the actions of its one request
    for page in pages:
        navigate(page, url)
    spectator, bodies = _spectator(browser, url)
    # Zoomed out, then in with the + button and the wheel, before anything is played.
    _shot(pages[0], "wargame-1280-zoomed-out")
    _shot(pages[1], "wargame-390-zoomed-out")
    pages[0].locator(".zoom-in").click()
    box = pages[0].locator(".wargame-board").bounding_box()
    pages[0].mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] * 0.35)
    pages[0].mouse.wheel(0, -600)
    assert float(pages[0].locator(".wargame-board").get_attribute("data-scale")) > 2
    pages[1].locator(".zoom-full").tap()
    pages[1].locator(".zoom-in").tap()
    assert float(pages[1].locator(".wargame-board").get_attribute("data-scale")) > 1
    pages[1].locator(".zoom-full").tap()
    for page, size, scale in ((pages[0], "1280", 4), (pages[1], "390", 8)):
        page.evaluate("s => window.kurier.board.show('unit-HUN-1', s)", scale)
        _shot(page, f"wargame-{size}-zoomed-in")  # the counters' figures legible
    deadline = time.monotonic() + MAX_SECONDS
    done: list[str] = []
    marched: set[tuple[int, int]] = set()
    shot: set[str] = set()  # the sizes whose first attack, or battle result, was photographed
    acted: list[tuple[int, str]] = []  # (seat, decision)
    sent: list[str] = []  # the notations sent through the API
    view = kurier.view(game_id)
    for _decision in range(200):
        if _all_clicked(done, acted, shot) or view["view"]["round"] >= 3:
            break
        if time.monotonic() > deadline:
            break
        humans = [d for d in view["waiting_for"] if d["seat"] >= 0]
        if not humans:
            time.sleep(0.05)
            view = kurier.view(game_id)
            continue
        seat, step = humans[0]["seat"], humans[0]["step"]
        if step in CARD_STEPS and (seat, "card") in acted:
            # A card of a side that played one by clicks: the first legal card (the page's
            # first card button), through the API.
            sent.append(_send_by_api(kurier, game_id, players[seat]))
            view = committed(kurier, game_id, view, lambda: sent[-1])
            continue
        if _only_marches_left(done, acted, shot):
            # A side that marched in both rounds has nothing left to click: its page is
            # parked (a blank page follows no stream); decisions of kinds clicked before go
            # through the API until the other side's march (the spectator follows them all).
            for marcher, page in enumerate(pages):
                if (marcher, 2) in marched and page.url != "about:blank":
                    page.goto("about:blank")
            if step != "movement" or (seat, view["view"]["round"]) in marched:
                sent.append(_send_by_api(kurier, game_id, players[seat]))
                view = committed(kurier, game_id, view, lambda: sent[-1])
                continue
        page = pages[seat]
        shows_version(page, view["version"])
        size = "1280" if seat == 0 else "390"
        key = (seat, view["view"]["round"])
        first = key == (seat, 1) and key not in marched
        shots = size if first or (step == "combat" and size not in shot) else None
        if step == "combat" and shots:
            shot.add(size)
        reach = _reaches(store, game_id, seat)
        done.append(_one_decision(page, step, marched, key, shots, reach))
        acted.append((seat, done[-1]))
        _idle(page)
        page.locator(".confirm-bar .confirm").click()
        errors_shown = page.locator(".table-error").all_inner_texts
        view = committed(kurier, game_id, view, errors_shown)
        if done[-1] == "retreat" and "result" not in shot:
            shot.add("result")
            _battle_marked(pages[seat], pages[1 - seat], view)
    print("decisions:", acted, "then through the API:", sent)
    assert _all_clicked(done, acted, shot), (done, view["view"]["phase"], view["view"]["step"])
    assert done.count("march") == 4 and done.count("note") == 2, done
    # A compulsory attack with two attackers tapped onto one target, as one request.
    assert "attack2" in done, done
    assert any(
        len(m) == 1 and len(m[0].split(" by ")[-1].split()) >= 2
        for m in posted
        if m and m[0].startswith("attack")
    ), posted
    # The battle cards played as cards by both players, a retreat chosen on the map.
    assert {seat for seat, d in acted if d == "card"} == {0, 1}, acted
    assert "retreat" in done and any(m and m[0].startswith("retreat") for m in posted), posted
    assert {seat for seat, d in acted if d.startswith("attack")} == {0, 1}, acted
    marches = [m for m in posted if m and m[0].startswith("move")]
    assert len(marches) == 4 and all(len(m) >= 2 for m in marches), marches  # one request each
    assert "result" in shot, "no retreat's result was marked on the map"
    assert errors == [], errors
    # 0 leaks: no note or card in any spectator response before its reveal.
    sent_by_pages = [m[0] for m in posted if m]
    secrets = [n for n in sent_by_pages + sent if n.split()[0] in ("note", "card")]
    reveal_at = _reveals(kurier, game_id)
    found = []
    for when, body in bodies:
        found += [s for s in secrets if s in body and when < reveal_at.get(s, float("inf"))]
        found += [
            m for m in ('class="secret-orders', '"own_card"', "Your sealed card") if m in body
        ]
    assert len(bodies) > 5 and found == [], found
    for page in pages:
        page.context.close()
    spectator.context.close()


def _battle_marked(page: Any, other: Any, view: dict[str, Any]) -> None:
    """The battle just decided by a retreat, marked on the map step by step in the page that
    played it and, arriving in place (not reloaded), in the other player's: the battle's hex,
    its result, the retreat's arrow, each numbered as in the line under the status strip.
    Photographed at both sizes, light and dark."""
    for shown in (page, other):
        shown.wait_for_selector("#wg-battle .wg-mark-retreat", state="attached", timeout=20000)
    _map_sent_once(other)
    for shown in (page, other):
        kinds = shown.evaluate(
            "() => [...document.querySelectorAll('#wg-battle .wg-mark')].map(m => m.dataset.kind)"
        )
        assert kinds[:2] == ["battle", "result"] and "retreat" in kinds, kinds
        line = shown.locator(".wg-battle-line").inner_text()
        assert "Battle at " in line and " retreats to " in line, line
        steps = shown.locator(".wg-battle-line .wg-battle-step").count()
        assert steps == len(kinds), (line, kinds)
        size = "1280" if shown.viewport_size["width"] > 600 else "390"
        target = shown.locator("#wg-battle .wg-mark-battle").get_attribute("data-hex")
        # The steps have all come in (each mark's animation, one after the other, is over).
        shown.wait_for_function(
            "() => document.querySelector('#wg-battle').getAnimations({subtree: true})"
            ".every(a => a.playState === 'finished')",
            timeout=20_000,
        )
        scale = 5 if size == "1280" else 7
        shown.evaluate("([id, s]) => window.kurier.board.show(id, s)", [f"hex-{target}", scale])
        for dark in (False, True):
            shown.emulate_media(color_scheme="dark" if dark else "light")
            # The status strip, the battle's line under it and the map: the page's top on a
            # desktop, scrolled to the strip on a phone (its title and menu above).
            shown.evaluate(
                "() => { const line = document.querySelector('.wg-battle-line');"
                " const strip = document.querySelector('.wargame-status');"
                " window.scrollTo(0, line.getBoundingClientRect().top + window.scrollY"
                " - strip.offsetHeight - 8); }"
            )
            name = f"wargame-{size}-battle-result{'-dark' if dark else ''}"
            shown.screenshot(path=str(PICTURES / f"{name}.png"), full_page=False)
        shown.emulate_media(color_scheme="light")


def _map_sent_once(page: Any) -> None:
    """A page updated in place asked for the new board without the map it showed (have=, the
    kept parts of service/pictures/keep.py: issue 33's ≤ 60 KB an update) and moved the map
    over: every hex is there, no kept part is left empty."""
    seen = page.evaluate(
        """() => {
          const svg = document.querySelector('.zoom[data-board] svg');
          const boards = performance.getEntriesByType('resource')
            .filter(e => e.name.includes('/table.svg?'));
          return {hexes: svg.querySelectorAll('#hexes [id^="hex-"]').length,
                  empty: svg.querySelectorAll('[data-keep]:empty').length,
                  thin: boards.filter(e => e.name.includes('&have=hexes-'))
                    .map(e => e.transferSize)};
        }"""
    )
    assert seen["hexes"] == len(get_game("attila-wargame").board.labels), seen
    assert seen["empty"] == 0 and seen["thin"], seen
    assert all(size < 30 * 1024 for size in seen["thin"]), seen  # gzipped, without the map


def _reveals(kurier: Kurier, game_id: str) -> dict[str, float]:
    """When each sealed choice (``card al``, ``note …``) was revealed, by its notation."""
    out: dict[str, float] = {}
    for entry in kurier.all_events(game_id):
        for event in entry["events"]:
            if event["kind"] == "sealed_revealed":
                for choice in event["data"]["choices"]:
                    with contextlib.suppress(KeyError, TypeError):
                        out.setdefault(str(choice["choice"]), entry["at"])
    return out


def test_the_map_takes_most_of_a_phone_screen_and_still_fills_it(
    browser: Any, base_url: str
) -> None:
    """At 390×844 the map's box is 60-70 % of the screen's height and the map fills it (opened
    zoomed to the box's height), its zoom buttons at its foot; ⤢ fills the whole screen and back."""
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2, seed="wargame-phone-1", game_type="attila-wargame")
    page = _phone(browser, base_url, players[1])
    navigate(page, f"{base_url}/games/{game_id}")
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    board = page.locator(".wargame-board")
    box = board.bounding_box()
    assert 0.6 * 844 <= box["height"] <= 0.7 * 844, box
    bar = page.locator(".wargame-board .zoom-buttons").bounding_box()
    assert abs(bar["y"] + bar["height"] - (box["y"] + box["height"])) <= 2, (bar, box)
    svg = page.locator(".wargame-board .zoom svg").bounding_box()
    # The map's picture covers the box above the buttons (no band of empty sea over and under).
    assert svg["height"] >= bar["y"] - box["y"] - 2, (svg, box, bar)
    assert float(board.get_attribute("data-scale")) > 1
    page.locator(".zoom-full").tap()
    full = board.bounding_box()
    assert full["height"] >= 844 - 2 and full["width"] >= 390 - 2, full
    page.locator(".zoom-full").tap()
    assert abs(board.bounding_box()["height"] - box["height"]) <= 2
    _shot(page, "wargame-390-phone-height")
    # The layers: zones of control shown on demand, regions, rivers and cities hidden and back.
    assert page.locator("#wg-zoc-roman polygon").count() > 0
    assert not page.locator("#wg-zoc-roman polygon").first.is_visible()
    page.locator(".wg-layer-zoc").tap()
    assert page.locator(".wg-layer-zoc").get_attribute("aria-pressed") == "true"
    assert page.locator("#wg-zoc-roman polygon").first.is_visible()
    for key, shown in (("regions", "#regions"), ("rivers", "#rivers"), ("cities", "[id^=city-]")):
        assert page.locator(f".board-svg {shown}").first.is_visible(), key
        page.locator(f".wg-layer-{key}").tap()
        assert not page.locator(f".board-svg {shown}").first.is_visible(), key
    _shot(page, "wargame-390-layers")
    for key in ("regions", "rivers", "cities", "zoc"):
        page.locator(f".wg-layer-{key}").tap()
    # The mini-map: the part in view framed; a tap on its bottom left corner takes the map there.
    mini = page.locator(".wg-minimap").bounding_box()
    frame = page.locator(".wg-minimap-frame").bounding_box()
    assert mini and frame and frame["width"] < mini["width"], (mini, frame)
    page.touchscreen.tap(mini["x"] + 6, mini["y"] + mini["height"] - 6)
    moved = page.locator(".wg-minimap-frame").bounding_box()
    assert moved["x"] < frame["x"] - 5 and moved["y"] > frame["y"], (frame, moved)
    page.locator(".wg-layer-minimap").tap()
    assert not page.locator(".wg-minimap").is_visible()
    page.locator(".wg-layer-minimap").tap()
    page.locator(".wg-layer-zoc").tap()
    page.emulate_media(color_scheme="dark")
    _shot(page, "wargame-390-layers-dark")
    # At 1280 px, light and dark: the zones of control on, the mini-map in the corner.
    wide = _signed_in(browser, base_url, players[0])
    wide.on("pageerror", lambda e: errors.append(str(e)))
    navigate(wide, f"{base_url}/games/{game_id}")
    wide.locator(".wg-layer-zoc").click()
    wide.evaluate("() => window.kurier && window.kurier.board.show('unit-HUN-1', 2.5)")
    _shot(wide, "wargame-1280-layers")
    wide.emulate_media(color_scheme="dark")
    _shot(wide, "wargame-1280-layers-dark")
    assert errors == [], errors
    page.context.close()
    wide.context.close()


def _wheel_step(page: Any) -> float:
    """How many times one wheel step over the map's middle zooms it (exp(0.15), 1.16, when
    the zoom listens once)."""
    board = page.locator(".wargame-board")
    before = float(board.get_attribute("data-scale"))
    box = board.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, -100)
    page.wait_for_function(
        "s => Number(document.querySelector('.wargame-board').dataset.scale) !== s", arg=before
    )
    return float(board.get_attribute("data-scale")) / before


def test_an_update_in_place_keeps_the_map_and_its_listeners_once(
    browser: Any, base_url: str, worker: Any, streams: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Moves arriving by the stream: the map's kept parts stay the same elements in the page
    (not styled and laid out again: most of an update's time when the whole page was
    swapped, kurier.js ``morph``), the player's zoom outlives the updates, the zoom's
    listeners are there once (one wheel step zooms one step, not one per update), and the
    mini-map is one canvas."""
    monkeypatch.setenv("KURIER_STREAM_URL", streams)
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2, seed="wargame-morph-1", game_type="attila-wargame")
    page = _signed_in(browser, base_url, players[0])
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    navigate(page, f"{base_url}/games/{game_id}")
    assert 1.1 < _wheel_step(page) < 1.25
    zoomed = page.evaluate(
        "() => { window.__hexes = document.querySelector('#hexes');"
        " window.__svg = document.querySelector('.zoom[data-board] svg');"
        " return document.querySelector('.wargame-board .zoom').style.transform; }"
    )
    for _move in range(3):
        played = kurier.play_first_legal(game_id, players)
        assert played is not None and played[1].status_code in (200, 202), played
        shows_version(page, kurier.view(game_id)["version"])
    kept = page.evaluate(
        """() => ({same: document.querySelector('#hexes') === window.__hexes,
                  svg: document.querySelector('.zoom[data-board] svg') === window.__svg,
                  inPage: window.__hexes.isConnected,
                  empty: document.querySelectorAll('[data-keep]:empty').length,
                  under: document.querySelectorAll('#wg-under').length,
                  minimaps: document.querySelectorAll('.wg-minimap canvas').length,
                  zoom: document.querySelector('.wargame-board .zoom').style.transform})"""
    )
    assert kept == {
        **{"same": True, "svg": True, "inPage": True, "zoom": zoomed},
        **{"empty": 0, "under": 1, "minimaps": 1},
    }, kept
    assert 1.1 < _wheel_step(page) < 1.25  # after three updates: still one listener
    # A jump (a link, a tap on the mini-map) is drawn sharp at once, even just after a gesture
    # (whose picture is scaled as drawn until it rests: wg-moving).
    blurred = page.evaluate(
        "() => { window.kurier.board.show('unit-HUN-1', 4);"
        " return document.querySelector('.wargame-board .zoom').classList.contains('wg-moving'); }"
    )
    assert blurred is False
    assert errors == [], errors
    page.context.close()


#: The march through a waypoint with its command unit, photographed at both sizes, light and
#: dark; the few kept for docs/web.md.
PATH_KEPT = {
    "wargame-390-carried",
    "wargame-390-waypoint-dark",
    "wargame-1280-carried-dark",
    "wargame-1280-waypoint",
}
#: HUN-11 with Attila to 3408: the shortest path leaves Attila at 3309 (a river); through 3208
#: he goes all the way.
ALONG = ["move HUN-11 3309", "move H-ATTILA 3309", "move HUN-11 3408"]
THROUGH = [
    *("move HUN-11 3208", "move H-ATTILA 3208", "move HUN-11 3308"),
    *("move H-ATTILA 3308", "move HUN-11 3408", "move H-ATTILA 3408"),
]


def _shots(page: Any, name: str, hex_label: str) -> None:
    """``name`` light and dark, the map centred on ``hex_label``, scrolled down to the
    counter's toggles under the map."""
    phone = page.viewport_size["width"] < 600
    page.evaluate(
        "([id, s]) => window.kurier.board.show(id, s)", [f"hex-{hex_label}", 6 if phone else 4]
    )
    for dark in (False, True):
        page.emulate_media(color_scheme="dark" if dark else "light")
        shot = f"{name}-dark" if dark else name
        folder = PICTURES if shot in PATH_KEPT else SHOTS
        folder.mkdir(parents=True, exist_ok=True)
        page.evaluate(  # the toggles just over the staged march's bar at the foot
            "() => { window.scrollTo(0, 0); const r = document.querySelector('.wg-carry')"
            ".getBoundingClientRect(); window.scrollBy(0, r.bottom - innerHeight + 84); }"
        )
        page.screenshot(path=str(folder / f"{shot}.png"), full_page=False)
    page.emulate_media(color_scheme="light")


def _staged(page: Any, count: int) -> list[str]:
    page.wait_for_function(f"() => window.kurier.board.staged().length === {count}")
    _idle(page)
    return page.evaluate("window.kurier.board.staged()")


def test_a_march_through_a_waypoint_takes_its_command_unit_along_in_one_request(
    browser: Any, base_url: str
) -> None:
    """Attila stepped onto HUN-11 (by the API, the notes far off): picked up, HUN-11 offers
    him as a toggle, on; the lit 3408 says he stops short at 3309; tapped, the march is staged
    with his steps; 3208 tapped then is a waypoint, and the group goes together; Undo takes
    the waypoint back; Confirm sends the six steps as one request (390 px with touch and
    1280 px, the phone's march left staged). A third page, the phone in German (the player
    chose no language: the browser's counts), says the same in German."""
    kurier = Kurier(base_url)
    game_id, players = kurier.new_game(2, seed="wargame-path-1", game_type="attila-wargame")
    for seat, notation in (
        (1, "note E-OMEGA-CAV 14"),
        (0, "note OST-6"),
        (1, "move H-ATTILA 3209"),
    ):
        r = kurier.call(
            "POST", f"/v1/games/{game_id}/actions", players[seat], json={"notation": notation}
        )
        assert r.status_code in (200, 202), r.text
    url = f"{base_url}/games/{game_id}"
    german = _phone(browser, base_url, players[1])
    german.context.set_extra_http_headers({"Accept-Language": "de"})
    pages = [_phone(browser, base_url, players[1]), _signed_in(browser, base_url, players[1])]
    posted, errors = _watch([*pages, german])
    for page in [*pages, german]:
        navigate(page, url)
        de = page is german
        size = ("390" if page.viewport_size["width"] < 600 else "1280") + ("-de" if de else "")
        _tap(page, "unit-HUN-11", page.locator("[id='unit-HUN-11']"), 5)
        page.wait_for_selector("#wg-under[data-march='HUN-11']", state="attached")
        toggle = page.locator(".wg-carry-toggle", has_text="H-ATTILA")
        assert toggle.get_attribute("aria-pressed") == "true"
        short = "H-ATTILA bleibt in 3309 stehen" if de else "H-ATTILA stops at 3309"
        assert short in _lit(page)["3408"]
        if de:
            assert toggle.get_attribute("title") == (
                "H-ATTILA: zieht mit (antippen, um sie zurückzulassen)"
            )
        _shots(page, f"wargame-{size}-carried", "3309")
        _tap(page, "hex-3408", page.locator("#wg-under .wg-lit[data-hex='3408']"), 5)
        assert _staged(page, len(ALONG)) == ALONG
        _tap(page, "hex-3208", page.locator("#wg-under .wg-via[data-hex='3208']"), 5)
        assert _staged(page, len(THROUGH)) == THROUGH
        assert page.locator("#wg-overlay .wg-waypoint").count() == 1
        assert "3208" in page.locator(".confirm-bar .staged-text").inner_text()
        if de:  # the line under the map after a waypoint, all German
            said = page.locator(".pieces .target-info").inner_text()
            assert "tippe auf ein helles Feld, um hindurchzuziehen" in said, said
            assert "„Zurücknehmen“ nimmt einen Wegpunkt zurück" in said, said
        _shots(page, f"wargame-{size}-waypoint", "3308")
    wide = pages[1]
    wide.locator(".confirm-bar .undo").click()
    assert _staged(wide, len(ALONG)) == ALONG
    assert wide.locator("#wg-overlay .wg-waypoint").count() == 0
    _tap(wide, "hex-3208", wide.locator("#wg-under .wg-via[data-hex='3208']"), 5)
    assert _staged(wide, len(THROUGH)) == THROUGH
    version = kurier.view(game_id)["version"]
    wide.locator(".confirm-bar .confirm").click()
    for _ in range(200):  # bounded wait for the commit
        view = kurier.view(game_id)
        if view["version"] != version:
            break
        time.sleep(0.05)
    assert view["version"] == version + len(THROUGH), wide.locator(".table-error").all_inner_texts()
    units = view["view"]["units"]
    assert units["HUN-11"]["hex"] == units["H-ATTILA"]["hex"] == "3408"
    assert posted == [THROUGH] and errors == [], (posted, errors)
    for page in [*pages, german]:
        page.context.close()
