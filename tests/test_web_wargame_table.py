"""The wargame's game page on the board (issue 33): the status strip, the secret orders for
their owner only, a counter's march asked of /staged and played by one request of several
actions (/moves), and bad input answered without a 500."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import requests

from engine.attila_wargame import map_questions
from engine.attila_wargame.actions import Advance, Attack, Card, Resolve, Retreat
from engine.attila_wargame.game import GAME
from engine.core import SYSTEM
from service.common import i18n
from service.pictures import attila_wargame_table as wargame_table
from tests.client import Kurier, Player
from tests.test_wargame_combat import BARB, EAST, HUN, ROMAN, C, _column_with, cards_for, duel

HTML = {"Accept": "text/html"}
#: Why a counter may not enter a hex (the engine's words).
MARCH_REASONS = {
    map_questions.IMPASSABLE,
    map_questions.CLOSED_TERRITORY,
    map_questions.STACKING,
    map_questions.NEUTRALISED,
    map_questions.ENEMY_OR_NEUTRAL,
    map_questions.CITY_NOT_YET,
}
STATIC = Path(__file__).parents[1] / "service" / "http" / "web" / "static"


def _browser(base: str, player: Player) -> requests.Session:
    session = requests.Session()
    session.headers.update(HTML)
    r = session.post(f"{base}/signin/token", data={"token": player.token}, allow_redirects=False)
    assert r.status_code == 302, r.text
    return session


def _noted(kurier: Kurier, seed: str) -> tuple[str, list[Player], dict[int, str]]:
    """A wargame whose two secret notes are written (each seat's first legal note)."""
    game_id, players = kurier.new_game(2, seed=seed, game_type="attila-wargame")
    notes = {}
    for seat, player in enumerate(players):
        legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()
        notes[seat] = legal["actions"][-1]["notation"]
        r = kurier.call(
            "POST", f"/v1/games/{game_id}/actions", player, json={"notation": notes[seat]}
        )
        assert r.status_code in (200, 202), r.text
    return game_id, players, notes


def test_the_status_is_shown_and_the_secret_orders_to_their_owner_only(
    kurier: Kurier, base_url: str
) -> None:
    game_id, players, notes = _noted(kurier, "wargame-page-1")
    url = f"{base_url}/games/{game_id}"
    spectator = requests.get(url, headers=HTML, timeout=10).text
    assert 'class="wargame-status"' in spectator and "Round 1 of 16" in spectator
    assert "Victory points" in spectator
    assert 'class="secret-orders' not in spectator and "Your secret orders" not in spectator
    for seat, player in enumerate(players):
        page = _browser(base_url, player).get(url, timeout=10).text
        orders = page[page.index('class="secret-orders') :]
        orders = orders[: orders.index("</section>")]
        assert notes[seat].split()[1] in orders  # the note's unit, with its state
        assert "(waiting)" in orders
        assert "your secret orders are yours alone" in page
        assert "your hand is yours alone" not in page
        assert 'id="wargame-data"' in page or seat != _mover(kurier, game_id)


def _words(page: str) -> dict[str, str]:
    """The words the page hands the wargame's controller (the board's data-words)."""
    found = re.search(r"data-words='([^']*)'", page)
    assert found, "no words on the map"
    words: dict[str, str] = json.loads(html.unescape(found.group(1)))
    return words


def _placeholders(text: str) -> list[str]:
    return sorted(re.findall(r"%\((\w+)\)s", text))


def test_a_german_player_s_table_speaks_german(kurier: Kurier, base_url: str) -> None:
    """The wargame's controller has no words of its own: each one it shows (status lines, buttons,
    tooltips) comes from the page in the reader's language, placeholders left for it to
    fill; a German player gets none in English, a spectator's English page the English."""
    game_id, players, _notes = _noted(kurier, "wargame-page-words")
    seat = _mover(kurier, game_id)
    r = kurier.call("PATCH", "/v1/me", players[seat], json={"language": "de"})
    assert r.status_code == 200, r.text
    url = f"{base_url}/games/{game_id}"
    page = _browser(base_url, players[seat]).get(url, timeout=10).text
    assert 'lang="de"' in page and 'id="wargame-data"' in page
    words = _words(page)
    assert set(words) == set(wargame_table.WORDS)
    for key, english in wargame_table.WORDS.items():
        assert words[key] != english, f"{key}: still English"
        assert _placeholders(words[key]) == _placeholders(english), key
    assert words["stops_at"] == "%(unit)s bleibt in %(hex)s stehen"
    assert words["carry_group"] == "Mitziehende Befehlseinheiten"
    assert 'class="wg-phase">Bewegung der Barbaren' in page  # the status strip's phase
    spectator = requests.get(url, headers=HTML, timeout=10).text
    assert _words(spectator) == wargame_table.WORDS
    # A counter picked up: the engine's reasons (a closed hex's, why a move ends) in German.
    browser = _browser(base_url, players[seat])
    legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", players[seat]).json()
    reasons: set[str] = set()
    for unit in sorted({a["action"]["unit"] for a in legal["actions"] if "unit" in a["action"]}):
        r = browser.get(f"{url}/staged", params={"unit": unit}, timeout=10)
        assert r.status_code == 200, r.text
        march = r.json()["march"]
        reasons |= set(march["closed"].values())
        reasons |= {w["stop"] for w in march["reach"].values() if w["stop"]}
    english = {*MARCH_REASONS, "enemy zone of control", "river"}
    assert reasons and reasons <= {i18n.gettext("de", e) for e in english} - english, reasons
    # The counters' accessible names (the line under the map when one is tapped) too.
    data = re.search(r'<script type="application/json" id="wargame-data">(.*?)</script>', page)
    assert data
    places = json.loads(html.unescape(data.group(1)))["places"]
    assert places["unit-HUN-11"].startswith("HUN-11 (Hunnen) in "), places["unit-HUN-11"]


def test_every_word_wargame_js_says_is_handed_to_it() -> None:
    """Each key the wargame's controller's say() asks for is one of the page's words, and
    each word is asked for (the layers' by their keys in ``shown``): none missing, none left
    over."""
    files = [STATIC / "games" / "attila_wargame.js"]
    files += sorted((STATIC / "games" / "attila_wargame").glob("*.js"))
    script = "\n".join(path.read_text(encoding="utf-8") for path in files)
    asked = set()
    for first in re.findall(r"\bsay\(([^{)]*)", script):  # the key, or a choice of keys
        asked |= set(re.findall(r'"(\w+)"', first))
    layers = re.search(r"const shown = \{([^}]*)\}", script)
    assert layers
    asked |= set(re.findall(r"(\w+):", layers.group(1)))
    assert {"stops_at", "route_undo", "goes_along", "zoc", "full_screen"} <= asked
    assert asked == set(wargame_table.WORDS)


def _mover(kurier: Kurier, game_id: str) -> int:
    return next(d["seat"] for d in kurier.view(game_id)["waiting_for"] if d["seat"] >= 0)


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found
    return found.group(1)


def test_a_march_is_asked_with_its_counter_and_played_in_one_request(
    kurier: Kurier, base_url: str
) -> None:
    game_id, players, _notes = _noted(kurier, "wargame-page-2")
    seat = _mover(kurier, game_id)
    browser = _browser(base_url, players[seat])
    url = f"{base_url}/games/{game_id}"
    csrf = _csrf(browser.get(url, timeout=10).text)
    legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", players[seat]).json()
    units = sorted({a["action"]["unit"] for a in legal["actions"] if "unit" in a["action"]})
    march: dict[str, Any] = {}
    for unit in units:
        r = browser.get(f"{url}/staged", params={"unit": unit}, timeout=10)
        assert r.status_code == 200, r.text
        march = r.json()["march"]
        far = [w for w in march["reach"].values() if w["cost"] >= 3]
        if far:
            break
    else:
        raise AssertionError("no counter marches three hexes")
    version = kurier.view(game_id)["version"]
    r = browser.post(
        f"{url}/moves",
        data={"csrf": csrf, "m": far[0]["steps"]},
        headers={"Accept": "application/json"},
        timeout=10,
    )
    assert r.status_code == 200, r.text
    after = kurier.view(game_id)
    # One request, one atomic change: a version per step, as the API's list of actions.
    assert after["version"] == version + len(far[0]["steps"])
    assert after["view"]["units"][unit]["hex"] == far[0]["path"][-1]
    # A counter that is not one: no march, no error; a spectator asks nothing.
    r = browser.get(f"{url}/staged", params={"unit": "NO-SUCH<unit>" * 5}, timeout=10)
    assert r.status_code == 200 and r.json()["march"]["reach"] == {}
    r = requests.get(f"{url}/staged", params={"unit": unit}, headers=HTML, timeout=10)
    assert r.status_code == 403
    # The map's layers, for a spectator too: this phase's moves (the counter just marched, at
    # its hex) and each side's zones of control, as data on the map's box.
    spectator = requests.get(url, headers=HTML, timeout=10).text
    found = re.search(r"data-layers='([^']*)'", spectator)
    assert found, "no layers on the map"
    layers = json.loads(html.unescape(found.group(1)))
    assert layers["moved"] == {unit: far[0]["path"][-1]}
    assert set(layers["zoc"]) == {"roman", "barbarian"} and all(layers["zoc"].values())
    assert "Zones of control" in spectator


def test_a_march_through_a_waypoint_with_its_command_unit_is_one_request(
    kurier: Kurier, base_url: str
) -> None:
    """Attila steps onto HUN-11 (by the API); picked up, HUN-11 offers to take him along (on),
    and its march through a waypoint (``via``) stages both counters' single steps, Attila's as
    far as his movement goes; Confirm plays them as one request. ``carry=`` takes him off; a
    waypoint off the map or out of reach, or one without a counter, is a 422 problem+json."""
    game_id, players, _notes = _noted(kurier, "wargame-page-3")
    seat = _mover(kurier, game_id)
    player = players[seat]
    r = kurier.call(
        "POST", f"/v1/games/{game_id}/actions", player, json={"notation": "move H-ATTILA 3209"}
    )
    assert r.status_code in (200, 202), r.text
    browser = _browser(base_url, player)
    url = f"{base_url}/games/{game_id}"
    csrf = _csrf(browser.get(url, timeout=10).text)
    march = browser.get(f"{url}/staged", params={"unit": "HUN-11"}, timeout=10).json()["march"]
    assert march["carry"] == [{"unit": "H-ATTILA", "on": True}]
    via = browser.get(f"{url}/staged", params={"unit": "HUN-11", "via": "3208"}, timeout=10)
    assert via.status_code == 200, via.text
    through = via.json()["march"]
    assert through["via"] == ["3208"] and through["from"] == "3209"
    # The farthest hex through 3208: Attila (3 hexes left) stays behind on the way.
    dest, where = max(through["reach"].items(), key=lambda kv: kv[1]["cost"])
    assert where["path"][0] == "3208" and where["cost"] > 3
    ends = where["carried"]["H-ATTILA"]
    assert ends == where["path"][2]
    attila_steps = [s for s in where["steps"] if s.startswith("move H-ATTILA")]
    assert len(attila_steps) == 3 and where["steps"][:2] == [
        "move HUN-11 3208",
        "move H-ATTILA 3208",
    ]
    alone = browser.get(
        f"{url}/staged", params={"unit": "HUN-11", "via": "3208", "carry": ""}, timeout=10
    ).json()["march"]
    assert alone["carry"] == [{"unit": "H-ATTILA", "on": False}]
    assert alone["reach"][dest]["steps"] == [s for s in where["steps"] if "HUN-11" in s]
    version = kurier.view(game_id)["version"]
    r = browser.post(
        f"{url}/moves",
        data={"csrf": csrf, "m": where["steps"]},
        headers={"Accept": "application/json"},
        timeout=10,
    )
    assert r.status_code == 200, r.text
    after = kurier.view(game_id)
    assert after["version"] == version + len(where["steps"])
    assert after["view"]["units"]["HUN-11"]["hex"] == dest
    assert after["view"]["units"]["H-ATTILA"]["hex"] == ends
    # Bad questions: a clear 422 problem+json each, never a 500.
    for params in (
        {"unit": "HUN-12", "via": "zz<99>"},
        {"unit": "HUN-12", "via": "0101"},
        {"unit": "HUN-12", "via": ",".join(["3209"] * 30)},
        {"unit": "HUN-12", "carry": "H-ATTILA"},
        {"via": "3208"},
    ):
        r = browser.get(
            f"{url}/staged", params=params, headers={"Accept": "application/json"}, timeout=10
        )
        assert r.status_code == 422, (params, r.status_code, r.text[:200])
        assert r.headers["Content-Type"].startswith("application/problem+json"), params
        assert r.json()["code"] == "bad-march" and r.json()["detail"], params


# -- the last battle, step by step (wargame_table.battle) -------------------------------------


class _Log:
    """A game's log as the page reads it: (version, entry) with each entry's events as stored."""

    def __init__(self) -> None:
        self.entries: list[tuple[int, dict[str, Any]]] = []

    def play(self, state: Any, seat: int, action: Any) -> None:

        events = GAME.apply(state, seat, action)
        kind = (
            "resolve" if seat == SYSTEM else "sealed" if type(action).__name__ == "Card" else "move"
        )
        entry = {"kind": kind, "events": [e.to_json() for e in events]}
        self.entries.append((len(self.entries) + 1, entry))

    def battle(self, state: Any) -> dict[str, Any] | None:
        return wargame_table.battle(GAME.board, self.entries, GAME.view(state, None))


def test_the_last_battle_is_told_step_by_step_from_public_events_only() -> None:
    """Declared: its hex and odds, not a card while they are sealed; resolved (DR): the cards
    and the result, the defender's retreat (an arrow from the battle's hex) and the winner's
    advance; gone at the next player action after the battle is over."""

    column = _column_with("DR")
    a, d = (int(x) for x in column.split(":"))
    state = duel(*((8 * a, 8) if a >= d else (8, 8 * d)))
    log = _Log()
    log.play(state, BARB, Attack(C, (HUN,)))
    target = GAME.board.label(C)
    told = log.battle(state)
    assert told is not None and [s["kind"] for s in told["steps"]] == ["battle"]
    assert told["hex"] == target and told["column"] == column and told["over"] is False
    assert told["text"].startswith(f"Battle at {target}: ") and f"odds {column}" in told["text"]
    att, dfn = cards_for(column, "DR")
    log.play(state, BARB, Card(att))
    log.play(state, ROMAN, Card(dfn))
    sealed = json.dumps(log.battle(state))
    names = [c["en"] for c in GAME.board.raw["combat"]["attack_cards"]]
    names += [c["en"] for c in GAME.board.raw["combat"]["defence_cards"]]
    assert not any(n in sealed for n in names), sealed  # 0 cards before the reveal
    log.play(state, SYSTEM, Resolve())
    log.play(state, ROMAN, Retreat(EAST, to := GAME.legal_actions(state, ROMAN)[0].to))
    log.play(state, BARB, Advance(HUN, C))
    told = log.battle(state)
    assert told is not None and told["over"] is True
    kinds = [(s["n"], s["kind"]) for s in told["steps"]]
    assert kinds == [(1, "battle"), (2, "result"), (3, "retreat"), (4, "advance")], kinds
    retreat, advance = told["steps"][2:]
    assert (retreat["unit"], retreat["from"], retreat["hex"]) == (
        EAST,
        target,
        GAME.board.label(to),
    )
    assert (advance["unit"], advance["hex"]) == (HUN, target)
    assert told["result"] == "DR" and "the defenders retreat" in told["steps"][1]["text"]
    assert f"{EAST} retreats to {GAME.board.label(to)}" in told["text"]
    # Still marked after the last step; gone with the next action of the phase.
    state.step = "combat"
    log.entries.append((99, {"kind": "move", "events": []}))
    assert log.battle(state) is None


def test_an_eliminated_unit_is_crossed_out_where_it_stood() -> None:

    column = _column_with("DE3")
    a, _d = (int(x) for x in column.split(":"))
    state = duel(6 * a, 3)
    log = _Log()
    log.play(state, BARB, Attack(C, (HUN,)))
    att, dfn = cards_for(column, "DE3")
    log.play(state, BARB, Card(att))
    log.play(state, ROMAN, Card(dfn))
    log.play(state, SYSTEM, Resolve())
    told = log.battle(state)
    assert told is not None
    gone = [s for s in told["steps"] if s["kind"] == "eliminated"]
    assert [(s["unit"], s["hex"]) for s in gone] == [(EAST, GAME.board.label(C))], told["steps"]
    assert f"{EAST} eliminated" in told["text"]
