"""The one commit path: a write that lost a race is never applied on top of the winner."""

from __future__ import annotations

import pytest

from service.common.problems import Problem
from service.domain.games import lifecycle
from service.store import Store
from service.store.record import Change, GameRecord


def test_a_commit_after_our_read_makes_us_start_over(isolated_redis: Store) -> None:
    store = isolated_redis
    owner, _ = store.players.create("owner", None)
    guest, _ = store.players.create("guest", None)
    created = lifecycle.create_game(store, owner, "attila", {}, None, 2).body
    game_id = created["id"]
    attempts: list[int] = []

    def mutate(record: GameRecord | None, version: int) -> Change:
        assert record is not None
        attempts.append(version)
        if len(attempts) == 1:
            # Another writer commits between our read and our EXEC.
            lifecycle.join_game(store, guest, game_id, created["invite_code"])
        record.names[0] = f"renamed on attempt {len(attempts)}"
        return Change(record, "renamed", [], 200, {})

    store.transact(game_id, mutate)

    assert attempts == [2, 3]  # the first EXEC failed; the retry saw the join
    record = store.get_game(game_id)
    assert record.version == 3
    assert record.seats == [owner["id"], guest["id"]]  # the competing write survived
    assert record.names[0] == "renamed on attempt 2"
    _, entries = store.read_log(game_id)
    assert [(v, e["kind"]) for v, e in entries] == [(1, "created"), (2, "joined"), (3, "renamed")]


def test_refusals_change_nothing(isolated_redis: Store) -> None:
    store = isolated_redis
    owner, _ = store.players.create("owner", None)
    created = lifecycle.create_game(store, owner, "attila", {}, None, 2).body
    before = store.r.hgetall(f"kurier:game:{{{created['id']}}}")
    for _ in range(3):
        with pytest.raises(Problem) as refused:
            lifecycle.start_game(store, owner, created["id"])  # one seat taken: refused
        assert refused.value.problem_code == "not-enough-players"
    assert store.r.hgetall(f"kurier:game:{{{created['id']}}}") == before
    assert store.r.xlen(f"kurier:game:{{{created['id']}}}:events") == 1
