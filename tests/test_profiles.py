"""Profiles, leaderboards and finished games over HTTP (issue 13), with a real Redis and worker:
games created over HTTP (rated or not, public or not), played to the end, rated by the worker."""

from __future__ import annotations

import json
import time
from typing import Any

from service.domain import ratings
from service.store import Store, owed
from service.store.keys import player_finished_key, ratings_players_key
from service.store.queues import NOTIFY_QUEUE, queue, rate_job_id
from tests.client import Kurier, Player
from tests.conftest import worker_process
from tests.game_helpers import Table, new_table, play_random


def _game(kurier: Kurier, store: Store, players: list[Player], seed: str, **settings: Any) -> str:
    """A 2-player Attila game created over HTTP with ``settings``, played to its end."""
    body = {"type": "attila", "seats": 2, "seed": seed, **settings}
    r = kurier.call("POST", "/v1/games", players[0], json=body)
    assert r.status_code == 201, r.text
    game_id, invite = r.json()["id"], r.json()["invite_code"]
    r = kurier.call("POST", f"/v1/games/{game_id}/seats", players[1], json={"invite_code": invite})
    assert r.status_code == 201, r.text
    assert kurier.call("POST", f"/v1/games/{game_id}/start", players[0]).status_code == 200
    table = Table(game_id, [store.players.get(p.id) for p in players])
    assert play_random(store, table, 5000, seed=11) < 5000, "the game did not end"
    return game_id


def _wait_counted(store: Store, game_id: str, seconds: float = 30) -> None:
    """Until the worker's rating job has run for ``game_id`` (and was settled)."""
    record = store.get_game(game_id)
    deadline = time.monotonic() + seconds
    while True:
        counted = all(store.r.zscore(player_finished_key(p), game_id) for p in record.seats)
        owed_ids = {job.id for job in owed.owed_jobs(store.queue_raw)}
        if counted and rate_job_id(game_id) not in owed_ids:
            return
        assert time.monotonic() < deadline, f"game {game_id} was not rated in time"
        time.sleep(0.1)


def _get(kurier: Kurier, path: str, status: int = 200, **params: Any) -> Any:
    r = kurier.call("GET", path, params=params)
    assert r.status_code == status, r.text
    return r.json()


def _walk(kurier: Kurier, path: str, limit: int, **params: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    after = None
    for _ in range(1000):
        page = _get(kurier, path, limit=limit, **({"after": after} if after else {}), **params)
        assert len(page["items"]) <= limit
        items += page["items"]
        after = page["next_cursor"]
        if after is None:
            return items
    raise AssertionError("the listing did not end")


def test_ratings_profiles_leaderboard_and_finished_games(kurier: Kurier, store: Store) -> None:
    r = kurier.call("POST", "/v1/players", json={"name": "Ann", "email": "ann@example.org"})
    assert r.status_code == 201, r.text
    ann = Player(r.json()["id"], "Ann", r.json()["token"])
    bob, cid = kurier.new_player("Bob"), kurier.new_player("Cid")

    first = _game(kurier, store, [ann, bob], "rate-http-1")
    second = _game(kurier, store, [ann, cid], "rate-http-2")
    private = _game(kurier, store, [bob, cid], "rate-http-3", rated=False, public=False)
    for game_id in (first, second, private):
        _wait_counted(store, game_id)
    won = {p.id: 0 for p in (ann, bob, cid)}
    for game_id in (first, second, private):
        record = store.get_game(game_id)
        for seat in set(record.result["winners"]):
            won[record.seats[seat]] += 1

    profile = _get(kurier, f"/v1/players/{ann.id}")
    assert "email" not in profile and "ann@example.org" not in str(profile)
    assert profile["name"] == "Ann"
    assert (profile["games_finished"], profile["games_won"]) == (2, won[ann.id])
    (rating,) = profile["ratings"]
    assert rating["game_type"] == "attila" and rating["games"] == 2
    assert rating["rating"] == rating["mu"] - 3 * rating["sigma"]
    assert [g["id"] for g in profile["recent_games"]] == [second, first]  # newest first
    assert profile["recent_games"][0]["record"] == f"/v1/games/{second}/record"
    assert profile["recent_games"][0]["names"] == ["Ann", "Cid"]

    bob_profile = _get(kurier, f"/v1/players/{bob.id}")
    assert bob_profile["games_finished"] == 2, "an unrated game still counts as finished"
    assert bob_profile["games_won"] == won[bob.id]
    assert [r["games"] for r in bob_profile["ratings"]] == [1], "the unrated game rates nobody"
    assert [g["id"] for g in bob_profile["recent_games"]] == [first], "a private game is hidden"

    missing = _get(kurier, "/v1/players/p_nobody", 404)
    assert missing["code"] == "player-not-found"

    board = _walk(kurier, "/v1/leaderboards/attila", limit=100)
    assert {ann.id, bob.id, cid.id} <= {item["player_id"] for item in board}
    assert [i["rating"] for i in board] == sorted((i["rating"] for i in board), reverse=True)
    assert _walk(kurier, "/v1/leaderboards/attila", limit=2) == board, "pages add up"
    veterans = {i["player_id"] for i in _walk(kurier, "/v1/leaderboards/attila", 50, min_games=2)}
    assert ann.id in veterans and not {bob.id, cid.id} & veterans
    assert all(i["games"] >= 2 for i in _walk(kurier, "/v1/leaderboards/attila", 50, min_games=2))
    unknown = _get(kurier, "/v1/leaderboards/chess", 404)
    assert unknown["code"] == "unknown-game-type" and unknown["game_type"] == "chess"
    assert _get(kurier, "/v1/leaderboards/attila", 400, after="nonsense")["code"]

    listed = _walk(kurier, "/v1/games/finished", limit=3, type="attila")
    ids = [item["id"] for item in listed]
    assert second in ids and first in ids and private not in ids
    assert ids.index(second) < ids.index(first), "newest first"
    times = [item["finished_at"] for item in listed]
    assert times == sorted(times, reverse=True)
    assert _walk(kurier, "/v1/games/finished", limit=100, type="attila") == listed
    item = listed[ids.index(first)]
    assert item["type"] == "attila" and item["names"] == ["Ann", "Bob"]
    assert item["result"]["winners"] == item["winners"]
    record = kurier.call("GET", item["record"])
    assert record.status_code == 200 and record.json()["id"] == first
    everything = [i["id"] for i in _walk(kurier, "/v1/games/finished", 50)]
    assert first in everything and second in everything and private not in everything
    assert all(
        i["type"] == "attika" for i in _walk(kurier, "/v1/games/finished", 50, type="attika")
    )
    assert _get(kurier, "/v1/games/finished", 422, type="chess")["code"]


def test_a_rating_job_lost_with_its_worker_is_found_and_counted_once(
    isolated_redis: Store,
) -> None:
    """A worker that took the rating job and died half-way (ratings applied, job neither
    finished nor settled): a new worker's sweep runs it again, and the game counts once. Then a
    worker killed with SIGKILL, a game finished while no worker lives, and a new worker: the
    game is rated once."""
    store = isolated_redis
    table = new_table(store, seats=2, seed="rate-lost")
    assert play_random(store, table, 5000, seed=5) < 5000
    job_id = rate_job_id(table.game_id)
    assert job_id in {job.id for job in owed.owed_jobs(store.queue_raw)}
    assert ratings.rate_game(store, table.game_id)  # the dead worker's half of the work
    store.raw.lrem(queue(store.queue_raw, NOTIFY_QUEUE).key, 0, job_id)  # taken off, then lost
    applied = {
        p: store.r.hget(ratings_players_key("attila"), p) for p in [p["id"] for p in table.players]
    }

    with worker_process(store) as proc:
        _wait_counted(store, table.game_id)
        assert {p: store.r.hget(ratings_players_key("attila"), p) for p in applied} == applied
        proc.kill()  # SIGKILL
        proc.wait()
        second = new_table(store, seats=2, seed="rate-after-kill")
        assert play_random(store, second, 5000, seed=6) < 5000
    with worker_process(store):
        _wait_counted(store, second.game_id)
    for player in [p["id"] for p in second.players]:
        rating = json.loads(store.r.hget(ratings_players_key("attila"), player))
        assert rating["games"] == 1
