"""Leave (service/domain/leave.py): whole days out of a yearly budget that pause every clock
of the player and only theirs, ended early by any move with the unused days given back; the
budget refills each calendar year in the player's zone and is never negative. The API's
answers, its refusals (which change nothing), and the opponents' notice."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rq.job import Job

from service.common.problems import Problem
from service.domain import deadlines, leave, prefs
from service.store import Store
from tests.client import Kurier, Player, problem
from tests.test_web_hostile import HTML, _signed_in

DAY = leave.DAY
RULES = leave.Policy(days_per_year=30, min_days=3)
ZONES = ("UTC", "Europe/Berlin", "Pacific/Auckland", "America/Los_Angeles")
#: 2030-01-01 .. 2040-01-01
MOMENTS = st.floats(1_893_456_000, 2_208_988_800, allow_nan=False)


def _raw(zone: str = "UTC", **fields: Any) -> dict[str, str]:
    return {"timezone": zone, **{k: str(v) for k, v in fields.items()}}


# -- the arithmetic, as properties ---------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    leaves=st.lists(
        st.tuples(MOMENTS, st.integers(3, 30), st.sampled_from(ZONES)), min_size=1, max_size=5
    ),
    taker=st.integers(0, 4),
    probe=st.floats(-40 * DAY, 40 * DAY, allow_nan=False),
)
def test_leave_stops_every_clock_of_the_player_and_only_theirs(
    leaves: list[tuple[float, int, str]], taker: int, probe: float
) -> None:
    """Of several players, one takes leave: the clocks' one question (``prefs.on_vacation``)
    answers "away" for them, for exactly the days taken, and for nobody else."""
    players = [_raw(zone) for _start, _days, zone in leaves]
    taker %= len(players)
    start, days, _zone = leaves[taker]
    players[taker].update(leave.take(players[taker], RULES, start, days))
    at = start + probe
    for index, raw in enumerate(players):
        away = prefs.on_vacation(raw, at)
        if index == taker and start <= at < start + days * DAY:
            assert away == pytest.approx(start + days * DAY)
        else:
            assert away is None


@settings(max_examples=300, deadline=None)
@given(
    start=MOMENTS,
    days=st.integers(3, 30),
    spent=st.floats(0, 31 * DAY, allow_nan=False),
    zone=st.sampled_from(ZONES),
)
def test_a_leave_ended_early_returns_the_unused_whole_days(
    start: float, days: int, spent: float, zone: str
) -> None:
    raw = _raw(zone)
    raw.update(leave.take(raw, RULES, start, days))
    year = leave.year_of(raw, start)
    now = start + spent
    if spent >= days * DAY:  # over: nothing to end, the days were all spent
        with pytest.raises(Problem) as refused:
            leave.end(raw, now)
        assert refused.value.problem_code == "no-leave"
        assert prefs.on_vacation(raw, now) is None
        return
    changes, back = leave.end(raw, now)
    elapsed = now - start  # not ``spent``: a tiny one vanishes in the sum's rounding
    assert back == min(days, int((days * DAY - elapsed) // DAY))
    raw.update(changes)
    assert leave.used(raw, year) == days - back >= 0
    assert prefs.on_vacation(raw, now) is None  # the clocks run again at once
    assert leave.running(raw, now) is None


@settings(max_examples=300, deadline=None)
@given(
    takes=st.lists(st.tuples(st.integers(0, 200), st.integers(0, 40)), max_size=12),
    zone=st.sampled_from(ZONES),
    year=st.integers(2030, 2038),
    budget=st.integers(0, 60),
)
def test_the_budget_refills_each_year_and_is_never_negative(
    takes: list[tuple[int, int]], zone: str, year: int, budget: int
) -> None:
    """Leaves taken through a year (some refused) never spend more than the budget; on 1
    January in the player's zone the whole budget is there again."""
    rules = leave.Policy(days_per_year=budget, min_days=3)
    tz = ZoneInfo(zone)
    raw = _raw(zone)
    now = datetime(year, 1, 1, tzinfo=tz).timestamp()
    for gap, days in takes:
        now += gap * 3600.0
        if leave.year_of(raw, now) != year:
            break
        before = leave.left(raw, rules, now)
        try:
            raw.update(leave.take(raw, rules, now, days))
        except Problem as error:
            assert error.extra["field"] == "days"
            assert leave.left(raw, rules, now) == before  # a refusal changes nothing
        assert 0 <= leave.left(raw, rules, now) <= budget
        assert leave.used(raw, year) <= budget
        if leave.running(raw, now) is not None and gap % 2:
            raw.update(leave.end(raw, now)[0])
    next_year = datetime(year + 1, 1, 1, tzinfo=tz).timestamp()
    assert leave.left(raw, rules, next_year) == budget
    assert leave.left(raw, rules, next_year - 1) == max(0, budget - leave.used(raw, year))
    # A lower budget set by the operator later: still never negative.
    assert leave.left(raw, leave.Policy(days_per_year=0), next_year - 1) == 0


def test_the_budgets_year_is_the_players_own() -> None:
    new_year_in_berlin = datetime(2031, 1, 1, 0, 30, tzinfo=ZoneInfo("Europe/Berlin"))
    raw = _raw("UTC", **{"leave_used:2030": 30})
    berlin = _raw("Europe/Berlin", **{"leave_used:2030": 30})
    at = new_year_in_berlin.timestamp()  # still 2030 in UTC
    assert leave.left(raw, RULES, at) == 0
    assert leave.left(berlin, RULES, at) == 30


@pytest.mark.parametrize(
    ("line", "days"),
    [
        ("leave 14d", 14),
        ("Leave 14", 14),
        ("leave 2w", 14),
        ("leave 3 days", 3),
        ("urlaub 14t", 14),
        ("Urlaub 10 Tage", 10),
        ("urlaub 2 wochen", 14),
        ("leave end", None),
        ("Urlaub Ende", None),
    ],
)
def test_the_mail_command_reads_days_and_weeks_in_english_and_german(
    line: str, days: int | None
) -> None:
    assert leave.parse_command(line) == days


@pytest.mark.parametrize("line", ["leave", "leave 14x", "leave two weeks", "urlaub 3 monate"])
def test_the_mail_command_refuses_other_units(line: str) -> None:
    with pytest.raises(Problem) as refused:
        leave.parse_command(line)
    assert refused.value.problem_code == "invalid-days"
    assert refused.value.extra["field"] == "days"


# -- the API and the clocks on the real stack ----------------------------------------------------


@pytest.fixture
def budget(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("KURIER_LEAVE_DAYS", "20")
    monkeypatch.setenv("KURIER_LEAVE_MIN_DAYS", "3")
    yield


def test_the_api_takes_shows_and_ends_leave_and_refuses_bad_input(
    kurier: Kurier, budget: None
) -> None:
    ann = kurier.new_player("LeaveAnn")
    fresh = kurier.call("GET", "/v1/me/leave", ann).json()
    assert fresh["budget_days"] == 20 and fresh["left_days"] == 20 and fresh["used_days"] == 0
    assert fresh["min_days"] == 3 and fresh["current"] is None
    for body, status, code in [
        ({"days": 0}, 422, "invalid-json"),
        ({"days": "14d"}, 422, "invalid-json"),
        ({"days": 2.5}, 422, "invalid-json"),
        ({}, 422, "invalid-json"),
        ({"days": 2}, 422, "leave-below-minimum"),
        ({"days": 21}, 422, "leave-over-budget"),
    ]:
        refused = problem(kurier.call("POST", "/v1/me/leave", ann, json=body), status, code)
        named = refused.get("field") or next(iter(refused["errors"]["json"]))
        assert named == "days", refused
        assert kurier.call("GET", "/v1/me/leave", ann).json() == fresh  # nothing changed
    problem(kurier.call("POST", "/v1/me/leave", json={"days": 5}), 401, "missing-token")
    problem(kurier.call("DELETE", "/v1/me/leave", ann), 409, "no-leave")

    before = time.time()
    r = kurier.call("POST", "/v1/me/leave", ann, json={"days": 14})
    assert r.status_code == 201, r.text
    taken = r.json()
    assert taken["used_days"] == 14 and taken["left_days"] == 6
    assert taken["current"]["days"] == 14
    assert before <= taken["current"]["from"] <= time.time()
    assert taken["current"]["until"] == pytest.approx(taken["current"]["from"] + 14 * DAY)
    assert kurier.call("GET", "/v1/me", ann).json()["leave_until"] == taken["current"]["until"]
    problem(kurier.call("POST", "/v1/me/leave", ann, json={"days": 3}), 409, "leave-running")

    ended = kurier.call("DELETE", "/v1/me/leave", ann)
    assert ended.status_code == 200, ended.text
    assert ended.json()["returned_days"] == 13  # the day begun is spent
    assert ended.json()["used_days"] == 1 and ended.json()["left_days"] == 19
    assert ended.json()["current"] is None


def test_vacation_until_can_be_turned_off_by_the_operator(
    kurier: Kurier, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann = kurier.new_player("VacAnn")
    monkeypatch.setenv("KURIER_VACATION_WITHOUT_BUDGET", "0")
    soon = {"vacation_until": "2030-01-02T00:00:00+00:00"}
    refused = problem(kurier.call("PATCH", "/v1/me", ann, json=soon), 409, "vacation-needs-leave")
    assert refused["field"] == "vacation_until"
    assert kurier.call("GET", "/v1/me", ann).json()["vacation_until"] is None
    r = kurier.call("PATCH", "/v1/me", ann, json={"vacation_until": None})  # ending it: fine
    assert r.status_code == 200, r.text
    monkeypatch.setenv("KURIER_VACATION_WITHOUT_BUDGET", "1")
    r = kurier.call("PATCH", "/v1/me", ann, json=soon)
    assert r.status_code == 200, r.text


def _game(kurier: Kurier, mover: Player, other: Player, seed: str) -> str:
    """A started Attila game of the two with a day's deadline that waits for ``mover`` (the
    seed decides who begins: the first seed of a few that has ``mover`` begin)."""
    for attempt in range(20):
        body = {
            "type": "attila",
            "seats": 2,
            "seed": f"{seed}-{attempt}",
            "deadline": {"hours": 24},
        }
        created = kurier.call("POST", "/v1/games", mover, json=body).json()
        joined = {"invite_code": created["invite_code"]}
        r = kurier.call("POST", f"/v1/games/{created['id']}/seats", other, json=joined)
        assert r.status_code == 201, r.text
        assert kurier.call("POST", f"/v1/games/{created['id']}/start", mover).status_code == 200
        if _waits_for(kurier, created["id"], [mover, other]) == mover:
            return str(created["id"])
        kurier.call(
            "POST", f"/v1/games/{created['id']}/actions", mover, json={"notation": "resign"}
        )
    raise AssertionError("no seed had the mover begin")


def _waits_for(kurier: Kurier, game_id: str, players: list[Player]) -> Player:
    view = kurier.view(game_id)
    [decision] = [d for d in view["waiting_for"] if d["seat"] >= 0]
    seat_player = view["seats"][decision["seat"]]["player_id"]
    return next(p for p in players if p.id == seat_player)


def test_leave_pauses_each_of_the_players_deadlines_and_no_one_elses(
    kurier: Kurier, store: Store, budget: None
) -> None:
    ann, bob, cid = (kurier.new_player(n) for n in ("LvAnn", "LvBob", "LvCid"))
    people = [ann, bob, cid]
    # Ann waited for in two games, Bob in one.
    games = [_game(kurier, ann, bob, "l1"), _game(kurier, ann, cid, "l2")]
    games.append(_game(kurier, bob, cid, "l3"))
    movers = [_waits_for(kurier, g, people) for g in games]
    assert [m.id for m in movers] == [ann.id, ann.id, bob.id]
    taken = kurier.call("POST", "/v1/me/leave", ann, json={"days": 5})
    assert taken.status_code == 201, taken.text
    start = int(taken.json()["current"]["from"])

    versions = [kurier.view(g)["version"] for g in games]
    results = [
        deadlines.fall_due(store, g, v, time.time()) for g, v in zip(games, versions, strict=True)
    ]
    assert results[:2] == ["postponed", "postponed"]
    assert results[2] not in ("postponed", "stale")
    after = [kurier.view(g)["version"] for g in games]
    # Bob's game moved on (the rest of a late turn may follow at once); Ann's stood still.
    assert after[:2] == versions[:2] and after[2] > versions[2]
    # The opponents are told once per game (Bob, Cid: seat 1), Ann and Bob's own game never.
    for game_id in games:
        for seat in (0, 1):
            job_id = f"leave-{ann.id}-{start}-{game_id}-{seat}"
            seats = kurier.view(game_id)["seats"]
            expected = game_id != games[2] and seats[seat]["player_id"] != ann.id
            assert Job.exists(job_id, connection=store.raw) == expected, job_id


def test_a_move_ends_the_leave_and_gives_the_unused_days_back(kurier: Kurier, budget: None) -> None:
    ann, bob = kurier.new_player("MvAnn"), kurier.new_player("MvBob")
    game_id = _game(kurier, ann, bob, "m1")
    assert kurier.call("POST", "/v1/me/leave", ann, json={"days": 7}).status_code == 201
    assert kurier.call("GET", "/v1/me/leave", ann).json()["left_days"] == 13
    played = kurier.play_first_legal(game_id, [ann, bob])
    assert played is not None and played[0] == ann and played[1].status_code == 200
    after = kurier.call("GET", "/v1/me/leave", ann).json()
    assert after["current"] is None
    assert after["used_days"] == 1 and after["left_days"] == 19  # 6 unused whole days back
    # Bob's move does not end Ann's leave.
    assert kurier.call("POST", "/v1/me/leave", ann, json={"days": 3}).status_code == 201
    while _waits_for(kurier, game_id, [ann, bob]) == ann:
        kurier.play_first_legal(game_id, [ann, bob])  # ends it, so the leave is taken later
        kurier.call("DELETE", "/v1/me/leave", ann)
        assert kurier.call("POST", "/v1/me/leave", ann, json={"days": 3}).status_code == 201
    played = kurier.play_first_legal(game_id, [ann, bob])
    assert played is not None and played[0] == bob and played[1].status_code == 200
    assert kurier.call("GET", "/v1/me/leave", ann).json()["current"] is not None


def test_the_settings_page_takes_and_ends_leave_and_the_game_page_says_so(
    kurier: Kurier, base_url: str, budget: None
) -> None:
    ann, bob = kurier.new_player("WebAnn"), kurier.new_player("WebBob")
    game_id = _game(kurier, ann, bob, "w1")
    web, csrf = _signed_in(base_url, ann)
    page = web.get(f"{base_url}/settings", headers=HTML, timeout=10).text
    assert "20 of 20 days left" in page and 'name="days"' in page

    refused = web.post(
        f"{base_url}/settings/leave", data={"csrf": csrf, "days": "2"}, headers=HTML, timeout=10
    )
    assert refused.status_code == 422 and "a leave is at least 3 days" in refused.text
    assert 'aria-invalid="true"' in refused.text
    assert kurier.call("GET", "/v1/me/leave", ann).json()["current"] is None

    taken = web.post(
        f"{base_url}/settings/leave", data={"csrf": csrf, "days": "5"}, headers=HTML, timeout=10
    )
    assert taken.status_code == 200 and "On leave until" in taken.text, taken.text
    assert "15 of 20 days left" in taken.text
    bobs_view = _signed_in(base_url, bob)[0].get(f"{base_url}/games/{game_id}", headers=HTML)
    assert "on leave until" in bobs_view.text

    ended = web.post(
        f"{base_url}/settings/leave/end", data={"csrf": csrf}, headers=HTML, timeout=10
    )
    assert "Leave ended: 4 days back in your budget." in ended.text
    assert "19 of 20 days left" in ended.text
    assert "on leave until" not in web.get(f"{base_url}/games/{game_id}", headers=HTML).text
