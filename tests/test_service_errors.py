"""Bad input of every kind: a clear 4xx problem+json with a stable code, never a 500, and
nothing changes."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from tests.client import Kurier, Player

PROBLEM = "application/problem+json"


def _problem(r: requests.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["Content-Type"] == PROBLEM
    body = r.json()
    assert body["code"] == code, body
    assert body["status"] == status
    assert body["type"] == f"/problems/{code}"
    return body


@pytest.fixture
def game(kurier: Kurier) -> tuple[str, list[Player], int]:
    game_id, seated = kurier.new_game(2)
    return game_id, seated, kurier.view(game_id)["version"]


def test_malformed_json(kurier: Kurier, game: tuple[str, list[Player], int]) -> None:
    game_id, seated, version = game
    for path in ("/v1/players", f"/v1/games/{game_id}/actions", "/v1/games"):
        r = kurier.call(
            "POST",
            path,
            seated[0],
            data=b'{"notation": "end"',
            headers={"Content-Type": "application/json"},
        )
        _problem(r, 400, "malformed-json")
    r = kurier.call(
        "POST", "/v1/players", data=b"\xff\xfe", headers={"Content-Type": "application/json"}
    )
    _problem(r, 400, "malformed-json")
    assert kurier.view(game_id)["version"] == version


@pytest.mark.parametrize(
    "body",
    [
        {"notation": 12},
        {"action": "V ITA"},
        {"notation": "end", "expected_version": "three"},
        {"notation": "end", "cheat": True},  # unknown field
        {"notation": "end", "action": {"type": "end"}},  # both
        {},
        [],
        "end",
        {"notation": ""},
        {"notation": "x" * 201},
    ],
)
def test_wrong_shapes_of_action_bodies(
    kurier: Kurier, game: tuple[str, list[Player], int], body: Any
) -> None:
    game_id, seated, version = game
    r = kurier.call("POST", f"/v1/games/{game_id}/actions", seated[0], json=body)
    problem = _problem(r, 422, "invalid-json")
    assert problem["errors"]["json"]
    assert kurier.view(game_id)["version"] == version


def test_bad_action_objects_get_engine_codes(
    kurier: Kurier, game: tuple[str, list[Player], int]
) -> None:
    game_id, seated, version = game
    player = seated[kurier.view(game_id)["waiting_for"][0]["seat"]]
    for action in ({}, {"type": "teleport"}, {"type": "play", "people": 3}):
        r = kurier.call("POST", f"/v1/games/{game_id}/actions", player, json={"action": action})
        assert r.status_code == 422, r.text
        assert r.headers["Content-Type"] == PROBLEM
        assert r.json()["code"]
    assert kurier.view(game_id)["version"] == version


def test_wrong_types_and_unknown_fields_elsewhere(kurier: Kurier) -> None:
    _problem(kurier.call("POST", "/v1/players", json={"name": 7}), 422, "invalid-json")
    _problem(
        kurier.call("POST", "/v1/players", json={"name": "a", "admin": 1}), 422, "invalid-json"
    )
    _problem(
        kurier.call("POST", "/v1/players", json={"name": "a", "email": "no"}), 422, "invalid-json"
    )
    p = kurier.new_player("lister")
    _problem(kurier.call("GET", "/v1/games", p, params={"limit": "many"}), 422, "invalid-query")
    _problem(kurier.call("GET", "/v1/games", p, params={"cursor": "x1"}), 400, "invalid-cursor")
    _problem(kurier.call("GET", "/v1/games", p, params={"status": "won"}), 422, "invalid-query")
    body = {"type": "attila", "seats": "two"}
    _problem(kurier.call("POST", "/v1/games", p, json=body), 422, "invalid-json")
    body = {"type": "attila", "seats": 9}
    _problem(kurier.call("POST", "/v1/games", p, json=body), 422, "bad-player-count")
    body = {"type": "chess", "seats": 2}
    _problem(kurier.call("POST", "/v1/games", p, json=body), 422, "unknown-game-type")
    body = {"type": "attila", "seats": 2, "options": {"NO_SUCH": 1}}
    _problem(kurier.call("POST", "/v1/games", p, json=body), 422, "unknown-option")
    assert kurier.call("GET", "/v1/games", p).json()["items"] == []


def test_unknown_ids_and_routes(kurier: Kurier) -> None:
    p = kurier.new_player("lost")
    for method, path in [
        ("GET", "/v1/games/0000000000000000"),
        ("GET", "/v1/games/nope/events"),
        ("GET", "/v1/games/nope/record"),
        ("GET", "/v1/games/nope/legal-actions"),
        ("POST", "/v1/games/nope/start"),
    ]:
        _problem(kurier.call(method, path, p), 404, "game-not-found")
    r = kurier.call("POST", "/v1/games/nope/actions", p, json={"notation": "end"})
    _problem(r, 404, "game-not-found")
    r = kurier.call("POST", "/v1/games/nope/seats", p, json={"invite_code": "x"})
    _problem(r, 404, "game-not-found")
    _problem(kurier.call("GET", "/v1/nothing-here"), 404, "not-found")
    r = kurier.call("DELETE", "/v1/players")
    _problem(r, 405, "method-not-allowed")
    assert "POST" in r.headers["Allow"]


def test_oversized_body(kurier: Kurier, game: tuple[str, list[Player], int]) -> None:
    game_id, seated, version = game
    big = b'{"notation": "' + b"x" * (100 * 1024) + b'"}'
    r = kurier.call(
        "POST",
        f"/v1/games/{game_id}/actions",
        seated[0],
        data=big,
        headers={"Content-Type": "application/json"},
    )
    _problem(r, 413, "body-too-large")
    assert kurier.view(game_id)["version"] == version


def test_bad_tokens(kurier: Kurier, game: tuple[str, list[Player], int]) -> None:
    game_id, seated, version = game
    path = f"/v1/games/{game_id}/actions"
    _problem(kurier.call("POST", path, json={"notation": "end"}), 401, "missing-token")
    for header in (
        "Bearer kur_pat_forged",
        "Basic dXNlcjpwYXNz",
        "Bearer",
        "kur_pat_x",
        "Bearer " + seated[0].token[:-2],
    ):
        r = kurier.call("POST", path, json={"notation": "end"}, headers={"Authorization": header})
        problem = _problem(r, 401, "invalid-token")
        assert r.headers["WWW-Authenticate"].startswith("Bearer")
        assert seated[0].token not in str(problem)
    # A wrong token is refused even where anonymous spectators are welcome.
    r = kurier.call("GET", f"/v1/games/{game_id}", headers={"Authorization": "Bearer kur_pat_no"})
    _problem(r, 401, "invalid-token")
    assert kurier.view(game_id)["version"] == version


def test_seats_and_start_rules(kurier: Kurier) -> None:
    owner, guest, late = (kurier.new_player(n) for n in ("owner", "guest", "late"))
    r = kurier.call("POST", "/v1/games", owner, json={"type": "attila", "seats": 2})
    game_id, invite = r.json()["id"], r.json()["invite_code"]
    seats = f"/v1/games/{game_id}/seats"
    _problem(kurier.call("POST", f"/v1/games/{game_id}/start", owner), 409, "not-enough-players")
    _problem(
        kurier.call("POST", seats, guest, json={"invite_code": "wrong"}), 403, "bad-invite-code"
    )
    _problem(kurier.call("POST", seats, owner, json={"invite_code": invite}), 409, "already-seated")
    assert kurier.call("POST", seats, guest, json={"invite_code": invite}).status_code == 201
    _problem(kurier.call("POST", seats, late, json={"invite_code": invite}), 409, "game-full")
    _problem(kurier.call("POST", f"/v1/games/{game_id}/start", guest), 403, "not-creator")
    assert kurier.call("POST", f"/v1/games/{game_id}/start", owner).status_code == 200
    _problem(kurier.call("POST", f"/v1/games/{game_id}/start", owner), 409, "game-already-started")
    r = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", late)
    _problem(r, 403, "not-a-player")
    r = kurier.call("POST", f"/v1/games/{game_id}/actions", late, json={"notation": "end"})
    _problem(r, 403, "not-a-player")
