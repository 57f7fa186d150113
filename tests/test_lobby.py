"""Open games and the lobby over HTTP (issue 13): a game anyone may join is listed while it
has a free seat, and joining it needs no code."""

from __future__ import annotations

from typing import Any

from tests.client import Kurier, Player


def _create(kurier: Kurier, who: Player, seats: int, **extra: Any) -> str:
    body = {"type": "attila", "seats": seats, **extra}
    r = kurier.call("POST", "/v1/games", who, json=body)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def _lobby(kurier: Kurier, who: Player | None = None, **query: Any) -> list[str]:
    ids: list[str] = []
    cursor = None
    for _ in range(100):  # bounded paging
        params = {**query, "limit": 100, **({"cursor": cursor} if cursor else {})}
        r = kurier.call("GET", "/v1/games/open", who, params=params)
        assert r.status_code == 200, r.text
        ids += [item["id"] for item in r.json()["items"]]
        cursor = r.json()["next_cursor"]
        if cursor is None:
            return ids
    raise AssertionError("the lobby did not end")


def test_an_open_game_is_listed_until_full_and_joined_without_a_code(kurier: Kurier) -> None:
    host, b, c = (kurier.new_player(n) for n in ("Host", "Bea", "Cid"))
    game_id = _create(kurier, host, 3, access="open")
    private = _create(kurier, host, 3)  # invite only: never listed
    assert game_id in _lobby(kurier, b, type="attila", seats=3)
    assert game_id in _lobby(kurier)  # spectators may browse too
    assert private not in _lobby(kurier, b)
    assert game_id not in _lobby(kurier, b, seats=2)
    assert game_id not in _lobby(kurier, b, type="attika")
    assert game_id in _lobby(kurier, b, deadline="none")
    assert game_id not in _lobby(kurier, b, deadline="default_move")

    r = kurier.call("POST", f"/v1/games/{game_id}/seats", b, json={})
    assert r.status_code == 201 and r.json()["seat"] == 1, r.text
    item = next(
        i
        for i in kurier.call("GET", "/v1/games/open", b, params={"limit": 100}).json()["items"]
        if i["id"] == game_id
    )
    assert [s["name"] for s in item["seats"]] == ["Host", "Bea"]
    r = kurier.call("POST", f"/v1/games/{game_id}/seats", c, json={})
    assert r.status_code == 201, r.text
    assert game_id not in _lobby(kurier, b)  # full

    refused = kurier.call("POST", f"/v1/games/{private}/seats", b, json={})
    assert refused.status_code == 403 and refused.json()["code"] == "bad-invite-code"


def test_lobby_filters_by_deadline_policy_and_refuses_bad_queries(kurier: Kurier) -> None:
    host = kurier.new_player("Timer")
    deadline = {"hours": 48, "policy": "remind_only"}
    game_id = _create(kurier, host, 2, access="open", deadline=deadline)
    assert game_id in _lobby(kurier, deadline="remind_only", seats=2)
    assert game_id not in _lobby(kurier, deadline="none")
    for params in ({"cursor": "x"}, {"seats": 99}, {"deadline": "soon"}, {"type": "chess"}):
        r = kurier.call("GET", "/v1/games/open", params=params)
        assert 400 <= r.status_code < 500, (params, r.text)
        assert r.headers["Content-Type"].startswith("application/problem+json")
