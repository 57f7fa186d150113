"""One validation path (issue 36, items 1-3): every web form refuses exactly what its API twin
refuses, because both reach the same checks (service/domain/inputs.py); a date is accepted only
if every page can show it; and a value of the wrong JSON type is refused, not coerced.

Each web refusal is shown on the page the player is on (role=alert), with what they typed
still in the form, and nothing is stored."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest
import requests

from service.store import Store
from service.store.keys import player_key
from tests.client import Kurier, Player
from tests.test_hostile_input import _problem, _snapshot
from tests.test_web_hostile import _signed_in

HTML = {"Accept": "text/html"}

#: Values no name, code or token name may hold (the API refused most of them already; the web
#: forms stored all but the empty one).
HOSTILE = {
    "line-separator": "Ann\u2028a",
    "paragraph-separator": "Ann\u2029a",
    "next-line": "Ann\u0085a",
    "delete": "Ann\x7fa",
    "nul": "Ann\x00a",
    "cr-lf": "Ann\r\na",
    "only-spaces": "   ",
    "rtl-override": "Ann\u202ea",
}
#: The character each refusal names (it may not show in the box).
NAMED = {
    "line-separator": "U+2028",
    "paragraph-separator": "U+2029",
    "next-line": "U+0085",
    "delete": "U+007F",
    "nul": "U+0000",
    "cr-lf": "U+000D",
    "rtl-override": "U+202E",
}
#: A message may hold line breaks (CR, LF), nothing else of the above.
MESSAGE_HOSTILE = {k: v for k, v in HOSTILE.items() if k != "cr-lf"} | {"too-long": "x" * 2001}


class _Forms(HTMLParser):
    """The fields a browser would send for each form of a page, by the form's action: text
    inputs, checked boxes, the selected option of each select, textareas."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: dict[str, list[tuple[str, str]]] = {}
        self._action: str | None = None
        self._select: str | None = None
        self._first_option: str | None = None
        self._selected = False
        self._textarea: str | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self._action = a.get("action", "")
            self.forms.setdefault(self._action, [])
        if self._action is None:
            return
        fields = self.forms[self._action]
        if tag == "input" and "name" in a:
            kind = a.get("type", "text")
            if kind not in ("checkbox", "radio") or "checked" in a:
                fields.append((a["name"], a.get("value", "on" if kind == "checkbox" else "")))
        elif tag == "select":
            self._select, self._first_option, self._selected = a.get("name"), None, False
        elif tag == "option" and self._select is not None:
            if self._first_option is None:
                self._first_option = a.get("value", "")
            if "selected" in a and not self._selected:
                fields.append((self._select, a.get("value", "")))
                self._selected = True
        elif tag == "textarea":
            self._textarea, self._text = a.get("name"), ""

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if self._action is None:
            return
        if tag == "select" and self._select is not None:
            if not self._selected and self._first_option is not None:
                self.forms[self._action].append((self._select, self._first_option))
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            # The HTML parser drops the one newline right after <textarea>; so do we.
            self.forms[self._action].append((self._textarea, self._text.removeprefix("\n")))
            self._textarea = None
        elif tag == "form":
            self._action = None


def form(page: str, action: str) -> dict[str, str]:
    """The fields of the page's form posting to ``action`` (one value per name)."""
    parser = _Forms()
    parser.feed(page)
    assert action in parser.forms, sorted(parser.forms)
    return dict(parser.forms[action])


def alert(page: str) -> str:
    start = page.find('role="alert">')
    assert start >= 0, page[:2000]
    return page[start + len('role="alert">') : page.find("</p>", start)]


def _web(base_url: str, player: Player) -> tuple[requests.Session, str]:
    return _signed_in(base_url, player)


def _settings_post(
    base_url: str, web: requests.Session, **changes: str
) -> tuple[requests.Response, dict[str, str]]:
    """The settings form as the page shows it, with ``changes`` typed in, posted."""
    fields = form(web.get(base_url + "/settings", headers=HTML, timeout=10).text, "/settings")
    fields |= changes
    r = web.post(
        base_url + "/settings", data=fields, headers=HTML, timeout=10, allow_redirects=False
    )
    return r, fields


# -- item 1: the forms and their API twins -------------------------------------------------------


@pytest.mark.parametrize("label", [*HOSTILE, "41-characters"])
def test_the_settings_form_refuses_the_names_patch_me_refuses(
    kurier: Kurier, base_url: str, store: Store, label: str
) -> None:
    name = HOSTILE.get(label, "A" * 41)
    player = kurier.new_player("Anna")
    before = _snapshot(store, player.id)
    api = kurier.call("PATCH", "/v1/me", player, json={"name": name})
    assert list(_problem(api, 422, "invalid-json")["errors"]["json"]) == ["name"]

    web, _ = _web(base_url, player)
    r, sent = _settings_post(base_url, web, name=name)
    assert r.status_code == 422, (r.status_code, r.headers.get("Location"))
    assert "name" in alert(r.text).lower()
    assert label not in NAMED or f"({NAMED[label]})" in alert(r.text)
    assert label not in NAMED or f"({NAMED[label]})" in api.json()["errors"]["json"]["name"][0]
    kept = form(r.text, "/settings")
    assert kept["name"] == name  # what they typed, to correct
    assert {k: kept[k] for k in sent if k != "csrf"} == {k: sent[k] for k in sent if k != "csrf"}
    assert _snapshot(store, player.id) == before
    assert kurier.call("GET", "/v1/me", player).json()["name"] == "Anna"


@pytest.mark.parametrize("label", [*HOSTILE, "61-characters"])
def test_the_token_form_refuses_the_names_the_api_refuses(
    kurier: Kurier, base_url: str, store: Store, label: str
) -> None:
    name = HOSTILE.get(label, "b" * 61)
    player = kurier.new_player("Tokenist")
    before = _snapshot(store, player.id)
    api = kurier.call("POST", "/v1/me/tokens", player, json={"name": name})
    assert list(_problem(api, 422, "invalid-json")["errors"]["json"]) == ["name"]

    web, csrf = _web(base_url, player)
    r = web.post(
        base_url + "/settings/tokens",
        data={"csrf": csrf, "name": name},
        headers=HTML,
        timeout=10,
        allow_redirects=False,
    )
    assert r.status_code == 422, r.status_code
    assert "kur_pat_" not in r.text
    assert form(r.text, "/settings/tokens")["name"] == name
    assert _snapshot(store, player.id) == before
    names = [t["name"] for t in kurier.call("GET", "/v1/me/tokens", player).json()["items"]]
    assert names == ["first token"]


@pytest.mark.parametrize("label", list(MESSAGE_HOSTILE))
def test_the_table_talk_form_refuses_what_the_messages_api_refuses(
    kurier: Kurier, base_url: str, label: str
) -> None:
    text = MESSAGE_HOSTILE[label]
    game_id, (a, _b) = kurier.seated_game("attila", 2, "Talk")
    for to_seat in (None, 1):
        body: dict[str, Any] = {"text": text, "to_seat": to_seat}
        api = kurier.call("POST", f"/v1/games/{game_id}/messages", a, json=body)
        assert api.status_code == 422, api.text

    web, csrf = _web(base_url, a)
    for to in ("", "1"):
        r = web.post(
            f"{base_url}/games/{game_id}/say",
            data={"csrf": csrf, "text": text, "to": to},
            headers=HTML,
            timeout=10,
        )
        assert r.status_code == 200 and r.url.endswith(f"/games/{game_id}")
        assert alert(r.text)
        kept = form(r.text, f"/games/{game_id}/say")
        assert kept["text"] == text.replace("\r\n", "\n")
        assert kept["to"] == to
    listed = kurier.call("GET", f"/v1/games/{game_id}/messages", a).json()
    assert listed["items"] == []


def test_a_message_with_line_breaks_is_taken_by_both(kurier: Kurier, base_url: str) -> None:
    game_id, (a, b) = kurier.seated_game("attila", 2, "Lines")
    api = kurier.call("POST", f"/v1/games/{game_id}/messages", a, json={"text": "one\ntwo"})
    assert api.status_code == 201, api.text
    web, csrf = _web(base_url, b)
    r = web.post(
        f"{base_url}/games/{game_id}/say",
        data={"csrf": csrf, "text": "three\r\nfour", "to": "0"},
        headers=HTML,
        timeout=10,
    )
    assert r.status_code == 200
    listed = kurier.call("GET", f"/v1/games/{game_id}/messages", a).json()["items"]
    texts = [m["text"] for m in listed]
    assert texts == ["one\ntwo", "three\nfour"]


@pytest.mark.parametrize("label", [*HOSTILE, "41-characters"])
def test_registering_refuses_the_names_the_api_refuses(
    kurier: Kurier, base_url: str, store: Store, label: str
) -> None:
    name = HOSTILE.get(label, "R" * 41)
    before = _snapshot(store)
    api = kurier.call("POST", "/v1/players", json={"name": name, "email": "r@example.org"})
    assert list(_problem(api, 422, "invalid-json")["errors"]["json"]) == ["name"]
    r = requests.post(
        base_url + "/register",
        data={"name": name, "email": "r@example.org"},
        headers={**HTML, "Origin": base_url},
        timeout=10,
    )
    assert r.status_code == 422
    assert form(r.text, "/register")["name"] == name
    assert _snapshot(store) == before


@pytest.mark.parametrize("label", list(HOSTILE))
def test_invite_and_seat_codes_are_refused_alike(
    kurier: Kurier, base_url: str, store: Store, label: str
) -> None:
    code = HOSTILE[label]
    host, guest = kurier.new_player("Host"), kurier.new_player("Guest")
    created = kurier.call("POST", "/v1/games", host, json={"type": "attila", "seats": 2}).json()
    game_id = created["id"]
    before = _snapshot(store, game_id, guest.id)
    api = kurier.call("POST", f"/v1/games/{game_id}/seats", guest, json={"invite_code": code})
    assert api.status_code == 422, api.text
    web, csrf = _web(base_url, guest)
    r = web.post(
        f"{base_url}/games/{game_id}/join",
        data={"csrf": csrf, "invite": code},
        headers=HTML,
        timeout=10,
    )
    assert r.status_code == 200 and alert(r.text)
    assert form(r.text, f"/games/{game_id}/join")["invite"] == code
    assert _snapshot(store, game_id, guest.id) == before


@pytest.mark.parametrize(
    ("hours", "accepted"),
    [("0", False), ("0.0001", False), ("1441", False), ("-1", False), ("72", True)],
)
def test_the_lobby_and_the_api_take_the_same_deadlines(
    kurier: Kurier, base_url: str, hours: str, accepted: bool
) -> None:
    player = kurier.new_player("Clock")
    body = {"type": "attila", "seats": 2, "deadline": {"hours": float(hours)}}
    api = kurier.call("POST", "/v1/games", player, json=body)
    assert (api.status_code == 201) is accepted, api.text
    web, csrf = _web(base_url, player)
    r = web.post(
        base_url + "/games",
        data={"csrf": csrf, "type": "attila", "seats": "2", "deadline_hours": hours},
        headers=HTML,
        timeout=10,
    )
    assert r.status_code == 200
    games = kurier.call("GET", "/v1/games", player).json()["items"]
    assert len(games) == (2 if accepted else 0)
    if not accepted:
        assert "deadline" in alert(r.text)
        assert form(r.text, "/games")["deadline_hours"] == hours


# -- item 2: dates every page can show -----------------------------------------------------------


@pytest.mark.parametrize(
    "when",
    [
        "9999-12-31T23:59:59-23:59",
        "0001-01-01T00:00:00+14:00",
        "1999-12-31T23:59:59+00:00",
        "3000-01-01T00:00:00+00:00",
        "2999-12-31T23:30:00-01:00",  # 3000 in UTC
        "2000-01-01T00:30:00+01:00",  # 1999 in UTC
    ],
)
def test_vacation_dates_outside_2000_to_2999_are_422_naming_the_field(
    kurier: Kurier, base_url: str, store: Store, when: str
) -> None:
    player = kurier.new_player("Urlaub")
    before = _snapshot(store, player.id)
    r = kurier.call("PATCH", "/v1/me", player, json={"vacation_until": when})
    problem = _problem(r, 422, "invalid-json")
    assert list(problem["errors"]["json"]) == ["vacation_until"]
    assert "2000" in problem["errors"]["json"]["vacation_until"][0]
    assert _snapshot(store, player.id) == before
    web, _ = _web(base_url, player)
    assert web.get(base_url + "/settings", headers=HTML, timeout=10).status_code == 200


def test_the_last_and_first_days_that_can_be_shown_are_taken(kurier: Kurier, base_url: str) -> None:
    player = kurier.new_player("Ferien")
    web, _ = _web(base_url, player)
    for when, day in (
        ("2999-12-31T23:59:59+00:00", "2999-12-31"),
        ("2000-01-01T00:00:00+00:00", "2000-01-01"),
    ):
        r = kurier.call("PATCH", "/v1/me", player, json={"vacation_until": when})
        assert r.status_code == 200, r.text
        page = web.get(base_url + "/settings", headers=HTML, timeout=10)
        assert page.status_code == 200
        assert form(page.text, "/settings")["vacation_until"] == day


@pytest.mark.parametrize("day", ["9999-12-31", "0001-01-01", "1999-12-31", "3000-01-01"])
def test_the_settings_form_refuses_the_same_dates(
    kurier: Kurier, base_url: str, store: Store, day: str
) -> None:
    player = kurier.new_player("Reise")
    before = _snapshot(store, player.id)
    web, _ = _web(base_url, player)
    r, _sent = _settings_post(base_url, web, vacation_until=day)
    assert r.status_code == 422
    assert "2000" in alert(r.text)
    assert form(r.text, "/settings")["vacation_until"] == day
    assert _snapshot(store, player.id) == before


def test_a_date_stored_before_the_bound_does_not_break_the_settings_page(
    kurier: Kurier, base_url: str, store: Store
) -> None:
    """What the old code stored for ``9999-12-31T23:59:59-23:59``: the page answered 500."""
    player = kurier.new_player("Alt")
    store.r.hset(player_key(player.id), "vacation_until", repr(253402387139.0))
    web, _ = _web(base_url, player)
    page = web.get(base_url + "/settings", headers=HTML, timeout=10)
    assert page.status_code == 200
    assert kurier.call("GET", "/v1/me", player).status_code == 200


# -- item 3: strict types ------------------------------------------------------------------------


def _coerced(game_id: str) -> list[tuple[str, str, dict[str, Any], str]]:
    """(method, path, body, the field named) for values of the wrong JSON type."""
    game = {"type": "attila", "seats": 2}
    return [
        ("POST", f"/v1/games/{game_id}/messages", {"text": "hi", "to_seat": "1"}, "to_seat"),
        ("POST", f"/v1/games/{game_id}/messages", {"text": "hi", "to_seat": 1.5}, "to_seat"),
        ("POST", f"/v1/games/{game_id}/messages", {"text": "hi", "to_seat": True}, "to_seat"),
        ("POST", "/v1/games", {**game, "rated": "yes"}, "rated"),
        ("POST", "/v1/games", {**game, "rated": 1}, "rated"),
        ("POST", "/v1/games", {**game, "public": "false"}, "public"),
        ("POST", "/v1/games", {**game, "spectators_see_messages": 1}, "spectators_see_messages"),
        ("POST", "/v1/games", {**game, "seats": "2"}, "seats"),
        ("POST", "/v1/games", {**game, "seats": 2.0}, "seats"),
        ("POST", "/v1/games", {**game, "abandon_after": "3"}, "abandon_after"),
        ("POST", "/v1/games", {**game, "deadline": {"hours": "72"}}, "deadline"),
        ("POST", "/v1/games", {**game, "deadline": {"hours": True}}, "deadline"),
        ("POST", "/v1/games", {**game, "seed": "   "}, "seed"),
        ("POST", "/v1/players", {"name": "   "}, "name"),
        ("PATCH", "/v1/me", {"name": "   "}, "name"),
        ("PATCH", "/v1/me", {"digest_hour": "8"}, "digest_hour"),
        ("POST", "/v1/me/tokens", {"name": "   "}, "name"),
        ("POST", f"/v1/games/{game_id}/actions", {"notation": "x", "expected_version": "3"},
         "expected_version"),
    ]  # fmt: skip


def test_values_of_the_wrong_type_are_refused_not_coerced(kurier: Kurier, store: Store) -> None:
    game_id, (a, b) = kurier.seated_game("attila", 2, "Typ")
    before = _snapshot(store, game_id, a.id, b.id)
    for method, path, body, field in _coerced(game_id):
        r = kurier.call(method, path, a, json=body)
        problem = _problem(r, 422, "invalid-json")
        assert list(problem["errors"]["json"]) == [field], (body, problem)
    assert _snapshot(store, game_id, a.id, b.id) == before
    # The right types pass.
    r = kurier.call("POST", f"/v1/games/{game_id}/messages", a, json={"text": "hi", "to_seat": 1})
    assert r.status_code == 201 and r.json()["to_seat"] == 1
    body = {"type": "attila", "seats": 2, "rated": False, "spectators_see_messages": True}
    assert kurier.call("POST", "/v1/games", a, json=body).status_code == 201


@pytest.mark.parametrize("limit", ["\u0661\u0660", "1_0", " 10", "+10", "10.0", "\uff11"])
def test_numbers_in_queries_are_ascii_digits(kurier: Kurier, limit: str) -> None:
    player = kurier.new_player("Query")
    for path, name in (
        ("/v1/games", "limit"),
        ("/v1/games/open", "limit"),
        ("/v1/games/open", "seats"),
        ("/v1/me/webhook-deliveries", "limit"),
        ("/v1/games/finished", "limit"),
        ("/v1/leaderboards/attila", "min_games"),
        ("/v1/leaderboards/attila", "seats"),
    ):
        r = kurier.call("GET", path, player, params={name: limit})
        assert _problem(r, 422, "invalid-query")["errors"]["query"] == {
            name: ["Not a valid integer."]
        }, (path, name)
    assert kurier.call("GET", "/v1/games", player, params={"limit": "10"}).status_code == 200


# -- item 6 (part): the time zone is picked from the tz database's zones -------------------------


class _Zones(HTMLParser):
    """The settings page's time-zone select: its groups' labels and their option values."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = False
        self.group = ""
        self.groups: dict[str, list[str]] = {}
        self.selected: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "select":
            self.inside = a.get("name") == "timezone"
        elif self.inside and tag == "optgroup":
            self.group = a["label"]
        elif self.inside and tag == "option":
            self.groups.setdefault(self.group, []).append(a["value"])
            if "selected" in a:
                self.selected.append(a["value"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "optgroup":
            self.group = ""
        elif tag == "select":
            self.inside = False


def _zones(page: str) -> _Zones:
    parser = _Zones()
    parser.feed(page)
    return parser


def test_the_time_zone_is_picked_by_region_and_checked_as_the_api_checks_it(
    kurier: Kurier, base_url: str, store: Store
) -> None:
    player = kurier.new_player("Zeit")
    web, _ = _web(base_url, player)
    zones = _zones(web.get(base_url + "/settings", headers=HTML, timeout=10).text)
    assert zones.selected == ["UTC"] and zones.groups[""] == ["UTC"]
    assert {"Africa", "America", "Asia", "Europe", "Pacific"} <= set(zones.groups)
    assert "Europe/Berlin" in zones.groups["Europe"]
    assert "America/Argentina/Buenos_Aires" in zones.groups["America"]
    assert zones.groups["Europe"] == sorted(zones.groups["Europe"])

    before = _snapshot(store, player.id)
    for zone in ("Mars/Olympus_Mons", "localtime", "Europe/berlin", "Europe/Berlin\n", ""):
        api = kurier.call("PATCH", "/v1/me", player, json={"timezone": zone})
        assert api.status_code == 422, (zone, api.text)
        r, _ = _settings_post(base_url, web, timezone=zone)
        assert r.status_code == 422 and "time zone" in alert(r.text), zone
        assert 'aria-invalid="true"' in r.text
    assert _snapshot(store, player.id) == before

    r, _ = _settings_post(base_url, web, timezone="Europe/Berlin")
    assert r.status_code == 302
    assert kurier.call("GET", "/v1/me", player).json()["timezone"] == "Europe/Berlin"


def test_a_zone_set_through_the_api_is_kept_by_the_page(kurier: Kurier, base_url: str) -> None:
    """An alias or a fixed offset is a zone of the tz database but none the picker lists: it
    is offered alone (Other), selected, so saving the page does not change it."""
    player = kurier.new_player("Pazifik")
    for zone in ("US/Pacific", "Etc/GMT+5"):
        assert kurier.call("PATCH", "/v1/me", player, json={"timezone": zone}).status_code == 200
        web, _ = _web(base_url, player)
        zones = _zones(web.get(base_url + "/settings", headers=HTML, timeout=10).text)
        assert zones.selected == [zone] and zones.groups["Other"] == [zone]
        r, _ = _settings_post(base_url, web, name="Pazifik2")
        assert r.status_code == 302
        me = kurier.call("GET", "/v1/me", player).json()
        assert (me["timezone"], me["name"]) == (zone, "Pazifik2")


def test_revoking_a_token_that_is_not_there_is_refused_on_both_paths(
    kurier: Kurier, base_url: str
) -> None:
    """The API answers 404 token-not-found; the page said "Revoked." all the same."""
    player = kurier.new_player("Widerruf")
    api = kurier.call("DELETE", "/v1/me/tokens/t_000000000000", player)
    _problem(api, 404, "token-not-found")
    web, csrf = _web(base_url, player)
    r = web.post(
        base_url + "/settings/tokens/t_000000000000/revoke",
        data={"csrf": csrf},
        headers=HTML,
        timeout=10,
        allow_redirects=False,
    )
    assert r.status_code == 404 and "no such token" in alert(r.text).lower()
    names = [t["name"] for t in kurier.call("GET", "/v1/me/tokens", player).json()["items"]]
    assert names == ["first token"]
