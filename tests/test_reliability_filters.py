"""Reliability as a condition (service/domain/reliability.py): a game's creator or a
tournament's organiser asks for a share of moves on time and at most so many abandoned games;
a player short of it cannot take a seat or sign up (403 reliability-required, naming the
numbers) and nothing changes; the lobby (API and page) says why a game is closed to you. And a
tournament's leave cap reaches its games' clocks."""

from __future__ import annotations

import time
from typing import Any

import pytest

from service.common.problems import Problem
from service.domain import deadlines, ratings, reliability, tournaments
from service.store import Store
from service.store.keys import player_stats_key
from service.store.record import GameRecord
from tests.client import Kurier, Player, problem
from tests.test_web_hostile import HTML, _signed_in

FILTER = {"min_on_time_percent": 90, "max_abandoned": 1}


def _finished(seats: list[str]) -> GameRecord:
    return GameRecord(
        id="late-turn",
        type="attila",
        rules_version="1",
        status="finished",
        version=9,
        max_seats=len(seats),
        options={},
        seed="s",
        seed_commitment="",
        seats=seats,
        names=seats,
        creator=seats[0],
        invite="",
        seq=0,
        created_at=0.0,
        updated_at=0.0,
    )


def _entry(kind: str, seat: int, *timeouts: dict[str, Any]) -> dict[str, Any]:
    events = [{"kind": "timeout_applied", "data": {"seat": seat, **t}} for t in timeouts]
    return {"kind": kind, "seat": str(seat), "events": events}


def _record(store: Store, player: Player, decisions: int, timeouts: int, abandoned: int) -> None:
    """The player's counted numbers, as rating their finished games writes them."""
    fields = {"decisions": decisions, "timeouts": timeouts, "abandoned": abandoned, "played:x": 3}
    store.write(lambda pipe: pipe.hset(player_stats_key(player.id), mapping=fields))


@pytest.mark.parametrize(
    ("mine", "unmet"),
    [
        ({"on_time_percent": 95.0, "abandoned": 0}, []),
        ({"on_time_percent": 90.0, "abandoned": 1}, []),
        ({"on_time_percent": 89.9, "abandoned": 1}, ["min_on_time_percent"]),
        ({"on_time_percent": None, "abandoned": 0}, ["min_on_time_percent"]),
        ({"on_time_percent": 99.0, "abandoned": 2}, ["max_abandoned"]),
        ({"on_time_percent": 10.0, "abandoned": 5}, ["min_on_time_percent", "max_abandoned"]),
    ],
)
def test_shortfall_names_each_unmet_condition(mine: dict[str, Any], unmet: list[str]) -> None:
    assert reliability.shortfall(FILTER, mine) == unmet
    assert reliability.shortfall(None, mine) == []
    assert reliability.shortfall({"min_on_time_percent": 0}, mine) == []  # 0: no condition
    assert reliability.shortfall({"max_abandoned": 1}, mine) == [
        u for u in unmet if u == "max_abandoned"
    ]
    if unmet:
        with pytest.raises(Problem) as refused:
            reliability.require(FILTER, mine)
        assert refused.value.code == 403 and refused.value.problem_code == "reliability-required"
        assert refused.value.extra["unmet"] == unmet
        assert refused.value.extra["abandoned"] == mine["abandoned"]


def test_an_open_game_refuses_the_unreliable_and_the_lobby_says_why(
    kurier: Kurier, store: Store, base_url: str
) -> None:
    host, good, late, quitter, fresh = (
        kurier.new_player(n) for n in ("RelHost", "RelGood", "RelLate", "RelQuit", "RelNew")
    )
    _record(store, good, 95, 5, 0)
    _record(store, late, 80, 20, 0)
    _record(store, quitter, 100, 0, 2)
    body = {"type": "attila", "seats": 5, "access": "open", "reliability": FILTER}
    created = kurier.call("POST", "/v1/games", host, json=body)
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]

    listed = kurier.call("GET", "/v1/games/open", late, params={"limit": 100}).json()
    [item] = [i for i in listed["items"] if i["id"] == game_id]
    assert item["reliability"] == FILTER
    assert item["closed_to_you"] == {
        "code": "reliability-required",
        "unmet": ["min_on_time_percent"],
        "on_time_percent": 80.0,
        "abandoned": 0,
    }
    anyone = kurier.call("GET", "/v1/games/open", params={"limit": 100}).json()
    [item] = [i for i in anyone["items"] if i["id"] == game_id]
    assert "closed_to_you" not in item
    welcome = kurier.call("GET", "/v1/games/open", good, params={"limit": 100}).json()
    assert [i["closed_to_you"] for i in welcome["items"] if i["id"] == game_id] == [None]

    for who, unmet, share in (
        (late, ["min_on_time_percent"], 80.0),
        (quitter, ["max_abandoned"], 100.0),
        (fresh, ["min_on_time_percent"], None),
    ):
        r = kurier.call("POST", f"/v1/games/{game_id}/seats", who, json={})
        refused = problem(r, 403, "reliability-required")
        assert refused["unmet"] == unmet and refused["on_time_percent"] == share
        assert refused["min_on_time_percent"] == 90 and refused["max_abandoned"] == 1
    assert len(kurier.view(game_id)["seats"]) == 1  # nothing changed
    r = kurier.call("POST", f"/v1/games/{game_id}/seats", good, json={})
    assert r.status_code == 201, r.text

    web, _csrf = _signed_in(base_url, late)
    lobby = web.get(base_url + "/", headers=HTML, timeout=10).text
    assert "needs 90% of moves on time, at most 1 games abandoned" in lobby
    assert "Closed to you: 80.0% of your moves on time, 0 games abandoned." in lobby


@pytest.mark.parametrize(
    "wanted",
    [
        {"min_on_time_percent": 101},
        {"min_on_time_percent": -1},
        {"min_on_time_percent": 50.5},
        {"max_abandoned": "1"},
        {"max_abandoned": 1001},
        {"min_abandoned": 1},
    ],
)
def test_a_bad_filter_is_refused_naming_the_field(kurier: Kurier, wanted: dict[str, Any]) -> None:
    host = kurier.new_player("RelBad")
    body = {"type": "attila", "seats": 3, "access": "open", "reliability": wanted}
    refused = problem(kurier.call("POST", "/v1/games", host, json=body), 422, "invalid-json")
    assert "reliability" in refused["errors"]["json"]
    assert kurier.call("GET", "/v1/games", host).json()["items"] == []
    tournament = {"name": "Cup", "type": "attila", "seats": 2, "format": "swiss"}
    r = kurier.call("POST", "/v1/tournaments", host, json={**tournament, "reliability": wanted})
    assert "reliability" in problem(r, 422, "invalid-json")["errors"]["json"]


def test_a_tournament_refuses_the_unreliable_and_caps_leave_in_its_games(
    kurier: Kurier, store: Store
) -> None:
    org, good, late = (kurier.new_player(n) for n in ("TrOrg", "TrGood", "TrLate"))
    _record(store, good, 19, 1, 0)
    _record(store, late, 1, 1, 0)
    body = {
        "name": "Reliable cup",
        "type": "attila",
        "seats": 2,
        "format": "swiss",
        "deadline": {"hours": 24},
        "reliability": {"min_on_time_percent": 90},
        "leave_max_days": 0,
    }
    made = kurier.call("POST", "/v1/tournaments", org, json=body)
    assert made.status_code == 201, made.text
    assert made.json()["reliability"] == {"min_on_time_percent": 90}
    assert made.json()["leave_max_days"] == 0
    tid = made.json()["id"]
    r = kurier.call("POST", f"/v1/tournaments/{tid}/entrants", late)
    assert problem(r, 403, "reliability-required")["on_time_percent"] == 50.0
    assert kurier.call("GET", f"/v1/tournaments/{tid}").json()["entrant_count"] == 0
    _record(store, org, 10, 0, 0)
    for who in (good, org):
        r = kurier.call("POST", f"/v1/tournaments/{tid}/entrants", who)
        assert r.status_code == 200, r.text
    started = kurier.call("POST", f"/v1/tournaments/{tid}/start", org)
    assert started.status_code == 200, started.text
    [table] = started.json()["played_rounds"][0]["tables"]
    game = kurier.view(table["game_id"])
    assert game["deadline"]["vacation_max_days"] == 0
    # On leave, the tournament's game still times out: the cap is 0 days.
    [decision] = [d for d in game["waiting_for"] if d["seat"] >= 0]
    mover = game["seats"][decision["seat"]]["player_id"]
    token = {good.id: good, org.id: org}[mover]
    assert kurier.call("POST", "/v1/me/leave", token, json={"days": 3}).status_code == 201
    due = deadlines.fall_due(store, game["id"], game["version"], time.time())
    assert due != "postponed"
    # The timeout applied (the rest of a late turn may follow at once).
    assert kurier.view(game["id"])["version"] > game["version"]


def test_leave_capped() -> None:
    deadline = {"hours": 24, "vacation_max_days": 14}
    assert tournaments.leave_capped(deadline, None) == deadline
    assert tournaments.leave_capped(deadline, 3) == {"hours": 24, "vacation_max_days": 3}
    assert tournaments.leave_capped(deadline, 30) == deadline
    assert tournaments.leave_capped(None, 3) is None


def test_the_web_forms_ask_for_reliability_as_the_api_does(
    kurier: Kurier, store: Store, base_url: str
) -> None:
    org = kurier.new_player("FormOrg")
    web, csrf = _signed_in(base_url, org)
    form = {
        "csrf": csrf,
        "name": "Form cup",
        "type": "attila",
        "seats": "2",
        "format": "swiss",
        "hours": "72",
        "min_on_time_percent": "85",
        "max_abandoned": "2",
        "leave_max_days": "5",
    }
    page = web.post(base_url + "/tournaments", data=form, headers=HTML, timeout=10)
    tournament_id = page.url.rsplit("/", 1)[1]
    made = kurier.call("GET", f"/v1/tournaments/{tournament_id}").json()
    assert made["reliability"] == {"min_on_time_percent": 85, "max_abandoned": 2}
    assert made["leave_max_days"] == 5

    game = {"csrf": csrf, "type": "attila", "seats": "3", "access": "open"}
    refused = web.post(
        base_url + "/games", data={**game, "min_on_time_percent": "101"}, headers=HTML, timeout=10
    )
    assert "min_on_time_percent" in refused.text
    assert kurier.call("GET", "/v1/games", org).json()["items"] == []
    made_game = web.post(
        base_url + "/games", data={**game, "max_abandoned": "0"}, headers=HTML, timeout=10
    )
    game_id = made_game.url.rsplit("/", 1)[1]
    listed = kurier.call("GET", "/v1/games/open", params={"limit": 100}).json()["items"]
    assert [i["reliability"] for i in listed if i["id"] == game_id] == [{"max_abandoned": 0}]


def test_a_late_turn_counts_one_missed_deadline_from_the_record_alone() -> None:
    """The numbers come from the log: a turn the policy made at a missed deadline counts one
    timeout, its decisions after the first (``same_turn``) none, and none as on time."""
    entries = [
        _entry("move", 0),
        _entry("move", 1, {"policy": "default_move"}),
        _entry("move", 1, {"policy": "default_move", "same_turn": True}),
        _entry("sealed", 1, {"policy": "default_move", "same_turn": True}),
        _entry("move", 0),
        _entry("move", 1),
        _entry("move", 1, {"policy": "skip"}),  # a later turn's missed deadline
    ]
    counted = ratings.seat_counters(_finished(["p0", "p1"]), enumerate(entries, 1))
    assert (counted["p0"]["decisions"], counted["p0"]["timeouts"]) == (2, 0)
    assert (counted["p1"]["decisions"], counted["p1"]["timeouts"]) == (1, 2)
