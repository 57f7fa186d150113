"""Whole Attila games played only through HTTP, conflicts resolved by the real worker."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from engine.registry import get_game
from engine.verify import verify_record
from tests.client import Kurier, play_to_end


@pytest.mark.parametrize(
    ("players", "seed", "options"),
    [
        (3, 11, {}),
        (2, 12, {}),
        (3, 13, {"CONFLICT_COMMIT_ORDER": "simultaneous"}),
    ],
    ids=["3p", "2p", "3p-simultaneous"],
)
def test_complete_game_over_http(
    kurier: Kurier, players: int, seed: int, options: dict[str, Any]
) -> None:
    check_complete_game(kurier, players, seed, options)


def check_complete_game(kurier: Kurier, players: int, seed: int, options: dict[str, Any]) -> None:
    """A whole Attila game over HTTP, checked against the engine's replay."""
    game_id, seated = kurier.new_game(players, options)
    view, verifier, sealed = play_to_end(kurier, game_id, seated, random.Random(seed))

    assert view["status"] == "finished"
    assert view["result"]["winners"]
    assert sealed > 0, "the game had no conflict: pick another seed"
    # Every sealed choice was revealed, and each reveal matched what had been published.
    assert verifier.verified == sealed

    record = kurier.call("GET", f"/v1/games/{game_id}/record").json()
    assert record["complete"] is True
    assert hashlib.sha256(record["seed"].encode()).hexdigest() == record["seed_commitment"]
    assert all(a["action"] for a in record["actions"])
    game = get_game(record["type"])
    moves = [(a["seat"], a["action"]) for a in record["actions"]]
    state = game.replay(record["players"], record["seed"], record["options"], moves)
    assert game.result(state) == record["result"] == view["result"]
    # The same checks as a client runs them offline (kurier verify RECORD.json).
    assert verify_record(record).ok, verify_record(record).problems

    log = kurier.all_events(game_id)
    assert [e["version"] for e in log] == list(range(1, view["version"] + 1))
    assert kurier.call("GET", "/v1/me/inbox", seated[0]).json()["items"] == []


def test_moves_after_the_end_and_out_of_turn_are_refused(kurier: Kurier) -> None:
    game_id, seated = kurier.new_game(2)
    view = kurier.view(game_id)
    waiting = view["waiting_for"][0]["seat"]
    other = seated[1 - waiting]
    r = kurier.call("POST", f"/v1/games/{game_id}/actions", other, json={"notation": "inf"})
    assert r.status_code == 409
    assert r.json()["code"] == "not-your-turn"
    assert kurier.view(game_id)["version"] == view["version"]


def test_illegal_move_gets_the_engine_reason(kurier: Kurier) -> None:
    game_id, seated = kurier.new_game(2)
    view = kurier.view(game_id)
    player = seated[view["waiting_for"][0]["seat"]]
    r = kurier.call("POST", f"/v1/games/{game_id}/actions", player, json={"notation": "inf"})
    assert r.status_code == 422
    assert r.headers["Content-Type"] == "application/problem+json"
    assert r.json()["code"] not in ("unprocessable", "invalid-json")  # the engine's own code
    r = kurier.call("POST", f"/v1/games/{game_id}/actions", player, json={"notation": "zz top"})
    assert r.status_code == 422
    assert r.json()["code"] == "bad-notation"
    assert kurier.view(game_id)["version"] == view["version"]


def test_inbox_lists_what_each_player_owes(kurier: Kurier) -> None:
    game_id, seated = kurier.new_game(3)
    view = kurier.view(game_id)
    to_move = view["waiting_for"][0]["seat"]
    for seat, player in enumerate(seated):
        items = kurier.call("GET", "/v1/me/inbox", player).json()["items"]
        if seat == to_move:
            assert [(i["game_id"], i["step"]) for i in items] == [(game_id, "play_card")]
        else:
            assert items == []


def test_conditional_get_and_listing(kurier: Kurier) -> None:
    game_id, seated = kurier.new_game(2)
    r = kurier.call("GET", f"/v1/games/{game_id}", seated[0])
    etag = r.headers["ETag"]
    assert etag == f'"{r.json()["version"]}"'
    again = kurier.call("GET", f"/v1/games/{game_id}", seated[0], headers={"If-None-Match": etag})
    assert again.status_code == 304
    # Paging through one player's games, 1 a page, with a status filter.
    more = [
        kurier.call("POST", "/v1/games", seated[0], json={"type": "attila", "seats": 2})
        for _ in range(3)
    ]
    assert all(m.status_code == 201 for m in more)
    seen, cursor = [], None
    for _ in range(10):
        params = {"limit": 1, **({"cursor": cursor} if cursor else {})}
        page = kurier.call("GET", "/v1/games", seated[0], params=params).json()
        seen += [g["id"] for g in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == [game_id] + [m.json()["id"] for m in more]
    page = kurier.call("GET", "/v1/games", seated[0], params={"status": "open"}).json()
    assert [g["id"] for g in page["items"]] == [m.json()["id"] for m in more]


def test_start_answers_what_its_schema_promises(kurier: Kurier) -> None:
    """Issue 14: the start answered {id, version} while its schema (Started) requires events and
    status too, so a client generated from the document failed after the game had started."""
    game_id, _ = kurier.new_game(2)
    document = kurier.call("GET", "/v1/openapi.json").json()
    operation = document["paths"]["/v1/games/{game_id}/start"]["post"]
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    schema = document["components"]["schemas"][ref.rsplit("/", 1)[1]]
    body = kurier.last_start
    assert set(schema["required"]) <= set(body), body
    assert set(body) <= set(schema["properties"]), body
    assert body["id"] == game_id and body["status"] == "active"
    assert [e["kind"] for e in body["events"]] == ["game_started"]


def test_a_moves_answer_says_who_acts_next(kurier: Kurier) -> None:
    """The answer carries the view's waiting_for after the move: a client needs no second
    request to learn whether it moves again (issue 14)."""
    game_id, seated = kurier.new_game(2)
    for _ in range(6):
        played = kurier.play_first_legal(game_id, seated)
        if played is None:
            break  # a resolution is due: the worker's turn
        _, answer = played
        assert answer.status_code in (200, 202), answer.text
        after = kurier.view(game_id)
        if after["version"] == answer.json()["version"]:  # no resolution in between
            assert answer.json()["waiting_for"] == after["waiting_for"]
