"""Ratings (issue 13): a finished game changes its players' ratings exactly once, however often
and however concurrently the rating job runs; the order comes from the game's result."""

from __future__ import annotations

import itertools
import json
import threading

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.domain import ratings
from service.store import Store, owed
from service.store.keys import (
    finished_games_key,
    player_finished_key,
    ratings_players_key,
    ratings_rated_key,
)
from service.store.queues import rate_job_id
from tests.game_helpers import new_table, play_random

_EXAMPLES = itertools.count()


def _finished_game(store: Store, seed: str, rated: bool = True) -> str:
    table = new_table(store, seats=2, seed=seed)
    if not rated:  # the setting as the create handler stores it
        record = store.get_game(table.game_id)
        settings_ = {**record.settings, "rated": False}
        store.r.hset(f"kurier:game:{{{table.game_id}}}", "settings", json.dumps(settings_))
    assert play_random(store, table, 5000, seed=7) < 5000, "the game did not end"
    assert store.get_game(table.game_id).status == "finished"
    return table.game_id


def _stored(store: Store, game_type: str, player_id: str) -> dict | None:
    text = store.r.hget(ratings_players_key(game_type), player_id)
    return json.loads(text) if text else None


def test_standing_from_winners_and_scores() -> None:
    assert ratings.standing({"winners": [2], "scores": [5, 9, 3, 5]}, 4) == [[2], [1], [0, 3]]
    assert ratings.standing({"winners": [0, 1], "scores": [4, 4]}, 2) == [[0, 1]]
    assert ratings.standing({"winners": [1]}, 3) == [[1], [0, 2]]
    given_standing = {"winners": [0], "scores": [1, 2, 3], "standing": [[0], [2, 1]]}
    assert ratings.standing(given_standing, 3) == [[0], [2, 1]]
    assert ratings.standing({"standing": [[1]]}, 3) == [[1], [0, 2]]


def test_a_finished_game_is_owed_a_rating_and_rated_once(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id = _finished_game(store, "rate-once")
    assert rate_job_id(game_id) in [job.id for job in owed.owed_jobs(store.queue_raw)]
    record = store.get_game(game_id)
    winners = ratings.winners_of(record)

    assert ratings.rate_game(store, game_id) is True
    first = {p: _stored(store, "attila", p) for p in record.seats}
    assert not ratings.rate_game(store, game_id), "the second run changes nothing"
    assert {p: _stored(store, "attila", p) for p in record.seats} == first
    for player in record.seats:
        assert first[player]["games"] == 1
        assert first[player]["wins"] == (player in winners)
        assert store.r.zcard(player_finished_key(player)) == 1
    if len(winners) == 1:
        (winner,) = winners
        (loser,) = set(record.seats) - winners
        assert first[winner]["mu"] > first[loser]["mu"]
    assert store.r.zscore(finished_games_key(), game_id) is not None
    assert store.r.zscore(finished_games_key("attila"), game_id) is not None


def test_concurrent_runs_count_the_game_once(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id = _finished_game(store, "rate-threads")
    barrier = threading.Barrier(4)
    results: list[bool] = []

    def run() -> None:
        barrier.wait()
        results.append(ratings.rate_game(store, game_id))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(results) == [False, False, False, True]
    for player in store.get_game(game_id).seats:
        assert _stored(store, "attila", player)["games"] == 1


def test_an_unrated_game_changes_no_rating_but_counts_as_finished(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id = _finished_game(store, "unrated", rated=False)
    assert ratings.rate_game(store, game_id) is False
    for player in store.get_game(game_id).seats:
        assert _stored(store, "attila", player) is None
        assert store.r.zscore(player_finished_key(player), game_id) is not None
    assert not store.r.sismember(ratings_rated_key("attila"), game_id)


# One Redis for all examples: each example has its own game id and players.
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    ranks=st.lists(st.integers(min_value=0, max_value=3), min_size=2, max_size=6),
    runs=st.integers(min_value=1, max_value=3),
)
def test_any_standing_is_applied_once_and_better_ranks_gain_more(
    isolated_redis: Store, ranks: list[int], runs: int
) -> None:
    store = isolated_redis
    game_type = "attika"
    game_id = f"prop{next(_EXAMPLES)}"
    players = [f"p_{game_id}_{i}" for i in range(len(ranks))]
    ranked = list(zip(players, ranks, strict=True))
    applied = [ratings.apply_ratings(store, game_type, game_id, ranked) for _ in range(runs)]
    assert applied == [True] + [False] * (runs - 1)
    after = {p: _stored(store, game_type, p) for p in players}
    assert all(after[p]["games"] == 1 for p in players)
    for better, better_rank in ranked:
        for worse, worse_rank in ranked:
            if better_rank < worse_rank:
                assert after[better]["mu"] >= after[worse]["mu"]
            if better_rank == worse_rank:
                assert abs(after[better]["mu"] - after[worse]["mu"]) < 1e-9


def test_abandoned_seats_rank_last_above_the_resigned() -> None:
    from service.domain.ratings import _with_abandoned_last

    record = type("R", (), {})()
    record.seats = ["a", "b", "c", "d"]
    record.result = {"winners": [0], "standing": [[0], [1], [2], [3]], "resigned": [3]}
    record.seating = {"abandoned": [0]}
    assert _with_abandoned_last(record) == [[1], [2], [0], [3]]
    record.seating = {}
    assert _with_abandoned_last(record) == [[0], [1], [2], [3]]
