"""Tournaments over HTTP (service/domain/tournaments.py): each resource, the refusals (a 4xx
problem that changes nothing), and a Swiss tournament of 9 players at 3-player Attila tables
played to its end by random movers that take their moves from the API, rounds paired by the
worker as games end, standings checked. Real Redis, API and worker."""

from __future__ import annotations

import json
import random
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from service.domain import pairing, tournaments
from service.store import Store
from tests.client import Kurier, Player
from tests.game_helpers import Table, play_random
from tests.test_web_hostile import _signed_in

Json = dict[str, Any]


def _tournament(kurier: Kurier, organiser: Player, status: int = 201, **body: Any) -> Json:
    data = {"name": "Autumn cup", "type": "attila", "seats": 2, "format": "swiss", **body}
    r = kurier.call("POST", "/v1/tournaments", organiser, json=data)
    assert r.status_code == status, r.text
    if status >= 400:
        assert r.headers["Content-Type"].startswith("application/problem+json")
    return dict(r.json())


def _get(kurier: Kurier, tournament_id: str) -> Json:
    r = kurier.call("GET", f"/v1/tournaments/{tournament_id}")
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_create_list_show_sign_up_withdraw_start(kurier: Kurier, store: Store) -> None:
    org = kurier.new_player("Orga")
    made = _tournament(kurier, org, deadline={"hours": 72}, rated=False)
    tid = made["id"]
    assert made["status"] == "signup" and made["entrants"] == [] and made["rounds"] is None
    assert made["organiser"] == {"id": org.id, "name": "Orga"}
    listed = kurier.call("GET", "/v1/tournaments", params={"limit": 100}).json()
    assert tid in [t["id"] for t in listed["items"]]

    players = [kurier.new_player(f"Entrant{i}") for i in range(5)]
    for p in players:
        r = kurier.call("POST", f"/v1/tournaments/{tid}/entrants", p)
        assert r.status_code == 200, r.text
    again = kurier.call("POST", f"/v1/tournaments/{tid}/entrants", players[0]).json()
    assert again["entrant_count"] == 5, "signing up twice is once"
    r = kurier.call("DELETE", f"/v1/tournaments/{tid}/entrants", players[4])
    assert r.status_code == 200 and r.json()["entrant_count"] == 4

    r = kurier.call("POST", f"/v1/tournaments/{tid}/start", players[0])
    assert r.status_code == 403 and r.json()["code"] == "not-organiser"
    r = kurier.call("POST", f"/v1/tournaments/{tid}/start", org)
    assert r.status_code == 200, r.text
    started = r.json()
    assert started["status"] == "running" and started["round"] == 1
    assert started["rounds"] == pairing.swiss_rounds(4, 2)
    [first] = started["played_rounds"]
    assert len(first["tables"]) == 2 and first["byes"] == []
    for table in first["tables"]:
        game = kurier.view(table["game_id"])
        assert game["status"] == "active"
        assert [s["player_id"] for s in game["seats"]] == [p["id"] for p in table["players"]]
        assert game["deadline"]["hours"] == 72
    assert [row["points"] for row in started["standings"]] == [0, 0, 0, 0]

    # Closed now: sign-up, withdrawal and a second start are refused and change nothing.
    before = store.tournaments.get(tid)
    for method, path, who in (
        ("POST", "entrants", players[4]),
        ("DELETE", "entrants", players[0]),
        ("POST", "start", org),
    ):
        r = kurier.call(method, f"/v1/tournaments/{tid}/{path}", who)
        assert r.status_code == 409 and r.json()["code"] == "tournament-started", r.text
    assert store.tournaments.get(tid) == before


def test_refusals_change_nothing(kurier: Kurier, store: Store) -> None:
    org = kurier.new_player("Strict")
    count = store.r.zcard("kurier:tournaments")
    for body, code in (
        ({"seats": 7}, "bad-player-count"),  # Attila takes 2-5
        ({"format": "knockout"}, "invalid-json"),
        ({"name": ""}, "invalid-json"),
        ({"rounds": 0}, "invalid-json"),
        ({"starts_at": "2001-01-01T00:00:00+00:00"}, "invalid-starts-at"),
        ({"starts_at": "2030-01-01T00:00:00"}, "invalid-json"),  # no offset
        ({"type": "chess"}, "unknown-game-type"),
        ({"max_entrants": 65}, "invalid-json"),
        ({"seats": 3, "max_entrants": 2}, "invalid-max-entrants"),
        ({"deadline": {"hours": -1}}, "invalid-json"),
    ):
        got = _tournament(kurier, org, 422, **body)
        assert got["code"] == code, (body, got)
    r = kurier.call("POST", "/v1/tournaments", json={"name": "x"})
    assert r.status_code == 401
    assert store.r.zcard("kurier:tournaments") == count
    r = kurier.call("GET", "/v1/tournaments/t_nothere")
    assert r.status_code == 404 and r.json()["code"] == "tournament-not-found"
    r = kurier.call("POST", "/v1/tournaments/t_nothere/entrants", org)
    assert r.status_code == 404
    r = kurier.call("GET", "/v1/tournaments", params={"limit": 0})
    assert r.status_code == 422

    few = _tournament(kurier, org, seats=3)
    r = kurier.call("POST", f"/v1/tournaments/{few['id']}/start", org)
    assert r.status_code == 409 and r.json()["code"] == "not-enough-entrants"
    full = _tournament(kurier, org, max_entrants=2)
    for name in ("A", "B"):
        kurier.call("POST", f"/v1/tournaments/{full['id']}/entrants", kurier.new_player(name))
    r = kurier.call("POST", f"/v1/tournaments/{full['id']}/entrants", org)
    assert r.status_code == 409 and r.json()["code"] == "tournament-full"
    assert _get(kurier, full["id"])["entrant_count"] == 2


def test_scheduled_start_with_too_few_is_cancelled(kurier: Kurier) -> None:
    org = kurier.new_player("Early")
    soon = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(time.time() + 2))
    made = _tournament(kurier, org, starts_at=soon)
    assert made["starts_at"] == int(made["starts_at"])  # a whole second
    kurier.call("POST", f"/v1/tournaments/{made['id']}/entrants", org)
    deadline = time.monotonic() + 30
    while _get(kurier, made["id"])["status"] == "signup":
        assert time.monotonic() < deadline, "the scheduled start did not run"
        time.sleep(0.2)
    assert _get(kurier, made["id"])["status"] == "cancelled"
    r = kurier.call("POST", f"/v1/tournaments/{made['id']}/entrants", kurier.new_player("Late"))
    assert r.status_code == 409 and r.json()["code"] == "tournament-started"


def test_round_robin_with_byes_played_to_the_end_and_idempotent(
    kurier: Kurier, store: Store
) -> None:
    """Three players, two a table: three rounds, one game and one bye each; every later run
    of the jobs (a game's end recorded again, a round paired again) changes nothing."""
    org = kurier.new_player("Circle")
    tid = _tournament(kurier, org, format="round_robin", name="Three")["id"]
    trio = [kurier.new_player(name) for name in ("Uma", "Vic", "Wes")]
    for p in trio:
        kurier.call("POST", f"/v1/tournaments/{tid}/entrants", p)
    shown = kurier.call("POST", f"/v1/tournaments/{tid}/start", org).json()
    assert shown["rounds"] == 3
    deadline = time.monotonic() + 120
    for number in (1, 2, 3):
        # Paired (its tables written), then seated (each table's game created).
        while len(shown["played_rounds"]) < number or any(
            t["game_id"] is None for t in shown["played_rounds"][number - 1]["tables"]
        ):
            assert time.monotonic() < deadline, f"round {number} was not paired"
            time.sleep(0.1)
            shown = _get(kurier, tid)
        [table] = shown["played_rounds"][number - 1]["tables"]
        assert len(shown["played_rounds"][number - 1]["byes"]) == 1
        players = [store.players.get(p["id"]) for p in table["players"]]
        played = Table(table["game_id"], players)
        assert play_random(store, played, 5000, seed=number) < 5000, "the game did not end"
    while shown["status"] != "finished":
        assert time.monotonic() < deadline, "the tournament did not finish"
        time.sleep(0.1)
        shown = _get(kurier, tid)
    met = [frozenset(p["id"] for p in r["tables"][0]["players"]) for r in shown["played_rounds"]]
    assert len(set(met)) == 3, "every pairing once"
    assert sorted(r["byes"][0]["id"] for r in shown["played_rounds"]) == sorted(p.id for p in trio)
    rows = shown["standings"]
    assert sum(row["points"] for row in rows) == 3 + 3  # three games, three byes
    assert all(row["byes"] == 1 and row["games"] == 2 for row in rows)
    expected = pairing.standings(
        [e["id"] for e in shown["entrants"]],
        2,
        [
            {p["id"]: p["rank"] - 1 for p in r["tables"][0]["players"]}
            for r in shown["played_rounds"]
        ],
        [r["byes"][0]["id"] for r in shown["played_rounds"]],
    )
    assert [(row["player_id"], row["buchholz"], row["sonneborn_berger"]) for row in rows] == [
        (row.player, row.buchholz, row.sonneborn_berger) for row in expected
    ]

    before = store.tournaments.get(tid)
    for r in shown["played_rounds"]:
        assert tournaments.game_finished(store, r["tables"][0]["game_id"])
    for number in (1, 2, 3, 4):
        tournaments.pair_round(store, tid, number)
    assert store.tournaments.get(tid) == before


def test_one_round_paired_once_by_concurrent_runs(kurier: Kurier, store: Store) -> None:
    org = kurier.new_player("Racer")
    tid = _tournament(kurier, org, name="Race")["id"]
    for i in range(6):
        kurier.call("POST", f"/v1/tournaments/{tid}/entrants", kurier.new_player(f"R{i}"))
    with ThreadPoolExecutor(4) as pool:
        done = list(pool.map(lambda _: tournaments.pair_round(store, tid, 1), range(4)))
    assert all(d["status"] == "running" for d in done)
    doc = store.tournaments.get(tid)
    assert doc is not None
    [played] = doc[1]["played"]
    game_ids = [t["game_id"] for t in played["tables"]]
    assert len(game_ids) == 3 and None not in game_ids and played["told"]
    for game_id in game_ids:
        assert store.tournaments.of_game(game_id) == tid
    # Each table claimed by one run: no second game created for any table.
    linked = [g for g, t in store.r.hgetall("kurier:tournaments:games").items() if t == tid]
    assert sorted(linked) == sorted(game_ids)


# -- a whole tournament played by random movers over HTTP --------------------------------------


def _move_once(
    kurier: Kurier,
    game_id: str,
    seated: dict[str, Player],
    rng: random.Random,
    known: dict[str, Json],
) -> str:
    """One random legal action in ``game_id`` if it waits for a player: the game's status.
    ``known`` holds each game's last view, brought up to date by each move's answer (its
    status, version and `waiting_for`, the view's); the game is read again when the answer
    leaves it to the worker (a resolution) or the worker moved it first (412)."""
    view = known.get(game_id)
    if view is None or not any(d["seat"] >= 0 for d in view["waiting_for"]):
        view = known[game_id] = kurier.view(game_id)
    humans = [d for d in view["waiting_for"] if d["seat"] >= 0]
    if view["status"] != "active" or not humans:
        return str(view["status"])
    decision = rng.choice(humans)
    player = seated[view["seats"][decision["seat"]]["player_id"]]
    legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()
    choice = rng.choice(legal["actions"])
    r = kurier.call(
        "POST",
        f"/v1/games/{game_id}/actions",
        player,
        json={"notation": choice["notation"]},
        headers={"If-Match": f'"{view["version"]}"'},
    )
    assert r.status_code in (200, 202, 412), r.text  # 412: the worker resolved meanwhile
    if r.status_code == 412:
        del known[game_id]
    else:
        answer = r.json()
        known[game_id] = view | {k: answer[k] for k in ("status", "version", "waiting_for")}
    return "active"


def test_nine_players_swiss_in_threes_played_to_the_end(kurier: Kurier, store: Store) -> None:
    rng = random.Random(34)
    org = kurier.new_player("Arbiter")
    made = _tournament(kurier, org, seats=3, rounds=2, name="Nine at three")
    tid = made["id"]
    entrants = {p.id: p for p in (kurier.new_player(f"Nine{i}") for i in range(9))}
    for p in entrants.values():
        assert kurier.call("POST", f"/v1/tournaments/{tid}/entrants", p).status_code == 200
    assert kurier.call("POST", f"/v1/tournaments/{tid}/start", org).status_code == 200

    deadline = time.monotonic() + 600
    seen_rounds = set()
    known: dict[str, Json] = {}
    for _ in range(100_000):  # bounded: every pass moves each game in play once
        assert time.monotonic() < deadline, "the tournament did not end in time"
        shown = _get(kurier, tid)
        if shown["status"] == "finished":
            break
        current = shown["played_rounds"][-1]
        seen_rounds.add(current["number"])
        moving = [t["game_id"] for t in current["tables"] if not t["finished"]]
        statuses = [_move_once(kurier, g, entrants, rng, known) for g in moving if g]
        if all(s == "finished" for s in statuses):
            time.sleep(0.1)  # the worker records the results and pairs the next round
    shown = _get(kurier, tid)
    assert shown["status"] == "finished" and seen_rounds == {1, 2}

    rounds = shown["played_rounds"]
    assert len(rounds) == 2
    met: set[frozenset[str]] = set()
    for played in rounds:
        assert played["byes"] == [] and len(played["tables"]) == 3
        ids = [p["id"] for t in played["tables"] for p in t["players"]]
        assert sorted(ids) == sorted(entrants), "everyone plays once a round"
        for table in played["tables"]:
            game = store.get_game(table["game_id"])
            assert game.status == "finished"
            pairs = set(pairing.pairs(p["id"] for p in table["players"]))
            assert not pairs & met, "nobody meets twice while avoidable"
            met |= pairs
            # The table's ranks are the game's own result.
            assert sorted(p["points"] for p in table["players"]) == sorted(
                pairing.table_points({p["id"]: p["rank"] - 1 for p in table["players"]}).values()
            )
    # Standings: the points of every table add up; 3 points a table of 3 (2 + 1 + 0).
    rows = shown["standings"]
    assert sum(row["points"] for row in rows) == 3 * 3 * 2
    assert all(row["games"] == 2 for row in rows)
    keys = [(-r["points"], -r["firsts"], r["average_place"], -r["buchholz"]) for r in rows]
    assert keys == sorted(keys) and rows[0]["rank"] == 1
    for row in rows:
        expected = sum(
            p["points"]
            for played in rounds
            for t in played["tables"]
            for p in t["players"]
            if p["id"] == row["player_id"]
        )
        assert row["points"] == expected
    # Nothing private: no game's seed or invite code, no address.
    text = json.dumps(shown)
    for played in rounds:
        for table in played["tables"]:
            game = store.get_game(table["game_id"])
            assert game.seed not in text and game.invite not in text
    assert "@" not in text


def test_web_form_refuses_what_the_api_refuses(kurier: Kurier, store: Store) -> None:
    """The page's form reaches the same checks: a refused name is said on the page, the
    form comes back as typed, nothing is stored; a stale form is 403."""
    org = kurier.new_player("Former")
    web, csrf = _signed_in(kurier.base, org)
    count = store.r.zcard("kurier:tournaments")
    form = {"csrf": csrf, "name": "Cup\u202e", "type": "attila", "seats": "3", "format": "swiss"}
    page = web.post(kurier.base + "/tournaments", data=form, timeout=10)
    assert page.status_code == 200 and 'role="alert"' in page.text and "U+202E" in page.text
    assert 'value="Cup\u202e"' in page.text or 'value="Cup&#8238;"' in page.text
    got = _tournament(kurier, org, 422, name="Cup\u202e")
    assert got["code"] == "invalid-json"
    page = web.post(
        kurier.base + "/tournaments", data={**form, "name": "Fine", "seats": "9"}, timeout=10
    )
    assert "takes 2 to 5 players" in page.text
    stale = web.post(kurier.base + "/tournaments", data={**form, "csrf": "x"}, timeout=10)
    assert stale.status_code == 403
    assert store.r.zcard("kurier:tournaments") == count

    page = web.post(kurier.base + "/tournaments", data={**form, "name": "Good cup"}, timeout=10)
    tournament_id = page.url.rsplit("/", 1)[1]
    assert page.status_code == 200 and "Good cup" in page.text
    web.post(f"{kurier.base}/tournaments/{tournament_id}/sign-up", data={"csrf": csrf}, timeout=10)
    assert _get(kurier, tournament_id)["entrants"] == [{"id": org.id, "name": "Former"}]


def test_web_form_numbers_are_read_as_the_api_reads_them(kurier: Kurier, store: Store) -> None:
    """Superscript, Arabic-Indic and full-width digits, signs and spaces in the form's numbers
    are refused on the page, never a 500, and nothing is stored."""
    org = kurier.new_player("Digits")
    web, csrf = _signed_in(kurier.base, org)
    count = store.r.zcard("kurier:tournaments")
    form = {"csrf": csrf, "name": "Cup", "type": "attila", "seats": "3", "format": "swiss"}
    for field in ("seats", "rounds", "hours"):
        for text in ("\u00b2", "\u0663", "\uff13", " 3", "+3", "1_0", "3.0", "9" * 30):
            page = web.post(kurier.base + "/tournaments", data={**form, field: text}, timeout=10)
            assert page.status_code == 200, (field, text, page.status_code)
            assert 'role="alert"' in page.text, (field, text)
    assert store.r.zcard("kurier:tournaments") == count
    page = web.post(kurier.base + "/tournaments", data={**form, "rounds": "2"}, timeout=10)
    assert page.status_code == 200 and "/tournaments/t" in page.url
    assert store.r.zcard("kurier:tournaments") == count + 1


def test_pages_answer_any_cursor_and_id(kurier: Kurier) -> None:
    for query in ("nan", "inf", "-1", "1e400", "x" * 300, "12.5"):
        r = kurier.call("GET", "/tournaments", params={"before": query})
        assert r.status_code == 200, query
    r = kurier.call("GET", "/v1/tournaments", params={"before": "nan"})
    assert r.status_code == 400 and r.json()["code"] == "invalid-cursor"
    assert kurier.call("GET", "/tournaments/t_" + "x" * 500).status_code == 404
