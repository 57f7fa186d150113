"""Hostile form posts and links to the web pages, signed in with a valid CSRF token: never a
500 or a traceback, and a private word with a seat that is no seat is refused, not sent to
the whole table (it was).

Every value, and every field sent twice, goes to each form of the real game. The forms of a
game that is none (an unknown id, and ids no game has the shape of) get a few values each: a
form's handler checks its values (play's moves, a message's text and seat, a note, a report's
reason, a code) before it looks the game up, with the same checks whatever the id, so the
other values would repeat the real game's checks exactly; the few include values that pass
those checks, so that the lookup of each hostile id is still reached."""

from __future__ import annotations

import re

import pytest
import requests

from tests.client import Kurier, Player

HTML = {"Accept": "text/html"}

#: Values no form of ours sends: long, control characters, bytes that are not UTF-8, numbers
#: out of every range, markup, path tricks, header injection.
NASTY: list[str | bytes] = [
    "",
    " ",
    "x" * 100_000,
    "\x00",
    b"\xff\xfe",
    "ümlaut ☃ 🎲",
    "-1",
    "99999999999999999999999",
    "1e309",
    "NaN",
    "<script>alert(1)</script>",
    "../../etc/passwd",
    "%00",
    "\r\nSet-Cookie: a=b",
]
#: The values a game that is none gets on each of its forms: the empty form, text every text
#: field takes, a number out of range and markup.
NO_GAME_VALUES: list[str | bytes] = ["", "ümlaut ☃ 🎲", "-1", "<script>alert(1)</script>"]


def _signed_in(base_url: str, player: Player) -> tuple[requests.Session, str]:
    web = requests.Session()
    lobby = web.post(base_url + "/signin/token", data={"token": player.token}, timeout=10)
    found = re.search(r'name="csrf" value="([^"]+)"', lobby.text)
    assert found is not None
    return web, found.group(1)


def _forms(game_id: str, no_game_ids: list[str]) -> dict[str, tuple[list[str], list[str | bytes]]]:
    """Each form's path, its fields (and some it does not have) and the values sent in them.
    Signing in comes last: a refused sign-in may end the session the others are sent in."""
    forms = {
        "/games": [
            "type",
            "seats",
            "access",
            "deadline_hours",
            "on_deadline",
            "rated",
            "public",
            "talk",
            "option_x",
            "invite",
            "min_on_time_percent",
            "max_abandoned",
        ],
        "/settings": [
            "name",
            "email",
            "timezone",
            "language",
            "vacation_until",
            "digest",
            "digest_hour",
            "quiet_from",
            "quiet_to",
            "webhook_url",
        ],
        "/settings/tokens": ["name"],
        "/settings/leave": ["days"],
        "/settings/leave/end": [],
        "/settings/tokens/zz/revoke": [],
        "/moderation/actions": ["action", "reason", "report_id", "player_id"],
    }
    valued = {path: (names, NASTY) for path, names in forms.items()}
    for each_id, values in [(game_id, NASTY), *((other, NO_GAME_VALUES) for other in no_game_ids)]:
        valued |= {path: (names, values) for path, names in _game_forms(each_id).items()}
    signing_in = {"/signin": ["email"], "/register": ["name", "email"], "/signin/token": ["token"]}
    return valued | {path: (names, NASTY) for path, names in signing_in.items()}


def _game_forms(game_id: str) -> dict[str, list[str]]:
    """The forms about one game (or the player of that id), and their fields."""
    return {
        f"/games/{game_id}/move": ["notation", "action", "expected_version"],
        f"/games/{game_id}/join": ["code", "seat"],
        f"/games/{game_id}/start": [],
        f"/games/{game_id}/claim": ["confirm"],
        f"/games/{game_id}/say": ["text", "to"],
        f"/games/{game_id}/seats/0/offer": [],
        f"/games/{game_id}/seats/1/take": ["code"],
        f"/games/{game_id}/seats/99999999999/take": ["code"],
        f"/games/{game_id}/note": ["note"],
        f"/games/{game_id}/messages/1-1/report": ["reason"],
        f"/players/{game_id}/block": ["back"],
        f"/players/{game_id}/unblock": ["back"],
        f"/players/{game_id}/report": ["reason"],
    }


def test_no_hostile_form_or_link_reaches_a_500(base_url: str, kurier: Kurier) -> None:
    game_id, (anna, *_) = kurier.new_game(3)
    web, csrf = _signed_in(base_url, anna)
    no_game_ids = ["0000000000000000", "zz", "x" * 500, "%2e%2e"]
    failed = []
    for path, (names, values) in _forms(game_id, no_game_ids).items():
        for index, value in enumerate(values):
            single = {name: value for name in names} | {"csrf": csrf}
            # Each field twice (a list where one value is read), with a few of the values
            # (how a form is read does not depend on its game: the real game's forms only).
            repeated = [(k, v) for k, v in single.items() for _ in range(2)]
            for body in (single, repeated) if values is NASTY and index < 4 else (single,):
                r = web.post(base_url + path, data=body, headers=HTML, timeout=20)
                if r.status_code >= 500 or "Traceback" in r.text:
                    failed.append((path, repr(value)[:24], r.status_code))
    web, _ = _signed_in(base_url, anna)
    pages = [f"/games/{g}" for g in [game_id, *no_game_ids]]
    pages += ["/", "/settings", "/signin/" + "x" * 300]
    queries = ["", "?take=1&code=" + "x" * 5000, "?take=99999999999999&code=%00", "?invite=%00"]
    for path in pages:
        for query in queries:
            r = web.get(base_url + path + query, headers=HTML, timeout=20)
            if r.status_code >= 500 or "Traceback" in r.text:
                failed.append((path[:40] + query[:30], r.status_code))
    assert not failed, failed


@pytest.mark.parametrize("to", ["7", "-1", "999", "x", " 1"])
def test_a_word_to_no_seat_is_refused_not_sent_to_the_table(
    base_url: str, kurier: Kurier, to: str
) -> None:
    game_id, (anna, bruno, _) = kurier.new_game(3)
    web, csrf = _signed_in(base_url, anna)
    page = web.post(
        f"{base_url}/games/{game_id}/say",
        data={"csrf": csrf, "text": "for Bruno's eyes only", "to": to},
        headers=HTML,
        timeout=10,
    )
    assert page.status_code == 200 and "must be another seat of this game" in page.text
    talk = kurier.call("GET", f"/v1/games/{game_id}/messages", bruno).json()["items"]
    assert talk == []
    # A seat that is one: only Bruno and Anna read it.
    web.post(
        f"{base_url}/games/{game_id}/say",
        data={"csrf": csrf, "text": "for Bruno's eyes only", "to": "1"},
        headers=HTML,
        timeout=10,
    )
    talk = kurier.call("GET", f"/v1/games/{game_id}/messages", bruno).json()["items"]
    assert [m["text"] for m in talk] == ["for Bruno's eyes only"] and talk[0]["to_seat"] == 1
