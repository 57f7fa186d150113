"""One answer for one mistake, and the document says what the server does.

A cursor that is not one is 400 ``invalid-cursor`` naming the parameter, on every list and
stream (docs/api.md's table: unreadable input); ``Last-Event-ID`` declares the pattern the
server enforces; ``max_entrants`` below two tables' worth is ``invalid-max-entrants``; every
game's result names its ``reasons``; a move's answer types ``waiting_for`` by its game."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import requests

from engine.attila_wargame.actions import End
from engine.registry import game_ids
from service.http.schemas.contract import camel
from tests.client import Kurier, Player
from tests.test_hostile_input import _problem
from tests.test_wargame_helpers import ROMAN, B, G, setup

DOCUMENT = json.loads(
    (Path(__file__).resolve().parent.parent / "openapi" / "openapi.json").read_text()
)
#: The parameters that carry a list's or a stream's position.
CURSOR_NAMES = ("after", "before", "cursor", "Last-Event-ID")


def _cursor_parameters() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, parameter["name"], parameter)
        for path, item in DOCUMENT["paths"].items()
        for parameter in item.get("get", {}).get("parameters", [])
        if parameter["name"] in CURSOR_NAMES
    ]


def test_every_cursor_parameter_declares_what_the_server_enforces() -> None:
    found = _cursor_parameters()
    assert len(found) >= 12, found
    for path, name, parameter in found:
        schema = parameter["schema"]
        assert schema.get("pattern") or {"minimum", "maximum"} <= set(schema), (path, name)
        operation = DOCUMENT["paths"][path]["get"]
        assert "400" in operation["responses"], (path, name)
        assert "400 invalid-cursor" in parameter.get("description", ""), (path, name)


@pytest.fixture
def places(kurier: Kurier) -> tuple[str, list[Player]]:
    return kurier.seated_game("attila", 2, "Cur")


def test_a_malformed_cursor_is_one_answer_everywhere(
    kurier: Kurier, streams: str, places: tuple[str, list[Player]]
) -> None:
    game_id, (player, _) = places
    cases = [
        ("/v1/games", "cursor"),
        ("/v1/games/open", "cursor"),
        ("/v1/games/finished", "after"),
        ("/v1/games/live", "after"),
        (f"/v1/games/{game_id}/events", "after"),
        (f"/v1/games/{game_id}/messages", "after"),
        (f"/v1/games/{game_id}/stream", "after"),
        (f"/v1/games/{game_id}/stream", "Last-Event-ID"),
        ("/v1/me/stream", "after"),
        ("/v1/me/stream", "Last-Event-ID"),
        ("/v1/leaderboards/attila", "after"),
        (f"/v1/players/{player.id}/games/finished", "after"),
        ("/v1/tournaments", "before"),
    ]
    for bad in ("abc", "1.5x", "\u00b2", "-"):
        for path, name in cases:
            where = (
                {"headers": player.auth | {name: bad}}
                if name == "Last-Event-ID"
                else {"headers": player.auth, "params": {name: bad}}
            )
            bases = [kurier.base, streams] if path.endswith("/stream") else [kurier.base]
            for base in bases:
                if name == "Last-Event-ID" and not bad.isascii():
                    continue  # not a header value a client library sends
                r = requests.get(base + path, allow_redirects=False, timeout=10, **where)
                problem = _problem(r, 400, "invalid-cursor")
                assert problem["parameter"] == name, (path, name, bad, problem)


@pytest.mark.parametrize("value", ["", "0", "12", "999999999999999", "1" * 16, "12 ", "x", "1.5"])
def test_last_event_id_is_refused_exactly_when_its_pattern_says(
    kurier: Kurier, places: tuple[str, list[Player]], value: str
) -> None:
    game_id, (player, _) = places
    (declared,) = [
        p["schema"]["pattern"]
        for path, name, p in _cursor_parameters()
        if path == "/v1/games/{game_id}/stream" and name == "Last-Event-ID"
    ]
    r = requests.get(
        f"{kurier.base}/v1/games/{game_id}/stream",
        headers=player.auth | {"Last-Event-ID": value},
        allow_redirects=False,
        timeout=10,
    )
    # A header's surrounding spaces are not part of its value (RFC 9110, field values).
    expected = 307 if re.search(declared, value.strip()) else 400
    assert r.status_code == expected, (value, r.status_code, r.text)


def test_max_entrants_below_two_is_invalid_max_entrants(kurier: Kurier) -> None:
    organiser = kurier.new_player("Few")
    body = {"name": "Cup", "type": "attila", "seats": 2, "format": "swiss", "max_entrants": 1}
    r = kurier.call("POST", "/v1/tournaments", organiser, json=body)
    assert _problem(r, 422, "invalid-max-entrants")["field"] == "max_entrants"
    for below in (0, -3, 2):
        r = kurier.call(
            "POST", "/v1/tournaments", organiser, json={**body, "seats": 3, "max_entrants": below}
        )
        assert _problem(r, 422, "invalid-max-entrants")["field"] == "max_entrants"
    r = kurier.call("POST", "/v1/tournaments", organiser, json={**body, "max_entrants": 65})
    assert _problem(r, 422, "invalid-json")
    r = kurier.call("POST", "/v1/tournaments", organiser, json={**body, "max_entrants": "2"})
    assert _problem(r, 422, "invalid-json")


def test_the_wargames_result_names_its_reasons_at_the_natural_end() -> None:
    state = setup({}, phase="f", round_=B.rounds)
    events = G.apply(state, ROMAN, End())
    assert G.is_over(state)
    result = G.result(state)
    assert result is not None and result["reasons"] == ["last_round"]
    (ended,) = [e for e in events if e.kind == "game_ended"]
    assert ended.data == result
    assert G.view(state, 0)["result"] == result
    assert "reasons" in DOCUMENT["components"]["schemas"]["AttilaWargameResult"]["properties"]


def test_a_moves_answer_types_waiting_for_by_its_game(
    kurier: Kurier, places: tuple[str, list[Player]]
) -> None:
    schemas = DOCUMENT["components"]["schemas"]
    union = schemas["ActionResult"]
    assert union["discriminator"]["propertyName"] == "type"
    for type_id in game_ids():
        name = camel(type_id)
        own = schemas[union["discriminator"]["mapping"][type_id].rsplit("/", 1)[1]]
        assert own["properties"]["type"]["enum"] == [type_id]
        items = own["properties"]["waiting_for"]["items"]
        assert items == {"$ref": f"#/components/schemas/{name}Decision"}, (type_id, items)
    game_id, players = places
    played = kurier.play_first_legal(game_id, players)
    assert played is not None
    answer = played[1]
    assert answer.status_code in (200, 202) and answer.json()["type"] == "attila", answer.text
