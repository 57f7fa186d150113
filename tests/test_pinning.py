"""Rules-version pinning: games replay from their record; a game under other rules is refused
until `kurier games verify --upgrade` has replayed it with the new engine."""

from __future__ import annotations

import json

import pytest

from engine.registry import get_game
from service.cli import main
from service.common.problems import Problem
from service.domain import pinning
from service.domain.games import lifecycle, play
from service.store import Store
from service.store.keys import game_key
from tests.game_helpers import new_table, play_random

#: The running engine's Attila rules; "attila-0" below stands for an older release's.
CURRENT = get_game("attila").rules_version


def _move(store: Store, table: object) -> None:
    play_random(store, table, 1, seed=7)


def test_a_started_game_records_the_engine_rules_version(isolated_redis: Store) -> None:
    table = new_table(isolated_redis)
    record = isolated_redis.get_game(table.game_id)
    assert record.rules_version == record.game.rules_version == CURRENT


def test_stored_games_replay_to_their_stored_state(isolated_redis: Store) -> None:
    tables = [new_table(isolated_redis, seed=f"s{i}") for i in range(2)]
    for i, table in enumerate(tables):
        assert play_random(isolated_redis, table, 80, seed=i) > 0
    verdicts = [pinning.verify(isolated_redis, gid) for gid in pinning.game_ids(isolated_redis)]
    assert sorted(v.game_id for v in verdicts) == sorted(t.game_id for t in tables)
    assert all(v.outcome == "match" for v in verdicts)


def test_a_state_that_no_longer_replays_is_reported(
    isolated_redis: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    table = new_table(isolated_redis)
    play_random(isolated_redis, table, 30)
    # What a rule change without a version bump looks like: stored state != replayed state.
    state = isolated_redis.get_game(table.game_id).state
    assert state is not None
    state["_tampered"] = True
    isolated_redis.r.hset(game_key(table.game_id), "state", json.dumps(state))
    assert pinning.verify(isolated_redis, table.game_id).outcome == "mismatch"

    monkeypatch.setenv("REDIS_URL", isolated_redis.url)
    assert main(["games", "verify"]) == 1
    assert f"mismatch {table.game_id}" in capsys.readouterr().out


def test_moves_are_refused_under_other_rules_until_upgraded(
    isolated_redis: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    table = new_table(isolated_redis)
    play_random(isolated_redis, table, 20)
    # The game was started by an older release: its record names the older rules.
    isolated_redis.r.hset(game_key(table.game_id), "rules_version", "attila-0")
    version = isolated_redis.get_game(table.game_id).version
    with pytest.raises(Problem) as refused:
        _move(isolated_redis, table)
    assert refused.value.code == 409
    assert refused.value.problem_code == "rules-version-mismatch"
    assert refused.value.extra == {
        "game_rules_version": "attila-0",
        "server_rules_version": CURRENT,
    }
    assert isolated_redis.get_game(table.game_id).version == version  # nothing changed

    monkeypatch.setenv("REDIS_URL", isolated_redis.url)
    assert main(["games", "verify", "--upgrade"]) == 0
    assert f"upgraded {table.game_id}: attila-0 -> {CURRENT}" in capsys.readouterr().out
    record, entries = isolated_redis.read_log(table.game_id)
    assert record.rules_version == CURRENT
    assert entries[-1][1]["kind"] == "rules_upgraded"
    _move(isolated_redis, table)  # plays again
    assert isolated_redis.get_game(table.game_id).version > version + 1
    # A second run finds nothing left to upgrade, and the upgrade entry does not break replay.
    assert main(["games", "verify", "--upgrade"]) == 0
    assert "upgraded: 0" in capsys.readouterr().out


def test_a_game_whose_replay_differs_stays_pinned(isolated_redis: Store) -> None:
    table = new_table(isolated_redis)
    play_random(isolated_redis, table, 20)
    key = game_key(table.game_id)
    state = isolated_redis.get_game(table.game_id).state
    assert state is not None
    isolated_redis.r.hset(key, mapping={"rules_version": "attila-0", "state": json.dumps({})})
    verdict = pinning.verify(isolated_redis, table.game_id)
    assert verdict.outcome == "mismatch"
    assert pinning.upgrade(isolated_redis, verdict) is False
    assert isolated_redis.get_game(table.game_id).rules_version == "attila-0"


def test_the_api_answers_a_pinned_game_with_a_problem(store: Store, app: object) -> None:
    players = [store.players.create(f"A{i}", None) for i in range(2)]
    created = lifecycle.create_game(store, players[0][0], "attila", {}, None, 2).body
    lifecycle.join_game(store, players[1][0], created["id"], created["invite_code"])
    lifecycle.start_game(store, players[0][0], created["id"])
    store.r.hset(game_key(created["id"]), "rules_version", "attila-0")
    seat = store.get_game(created["id"]).pending[0]["seat"]
    client = app.test_client()
    answer = client.post(
        f"/v1/games/{created['id']}/actions",
        json={"notation": "pass"},
        headers={"Authorization": f"Bearer {players[seat][1]}"},
    )
    assert answer.status_code == 409
    assert answer.mimetype == "application/problem+json"
    assert answer.json["code"] == "rules-version-mismatch"
    assert answer.json["server_rules_version"] == CURRENT


def test_a_deadline_applies_no_default_move_under_other_rules(isolated_redis: Store) -> None:
    table = new_table(isolated_redis)
    isolated_redis.r.hset(game_key(table.game_id), "rules_version", "attila-0")
    record = isolated_redis.get_game(table.game_id)
    decision = record.pending[0]
    with pytest.raises(Problem) as refused:
        play.apply_timeout(
            isolated_redis, table.game_id, decision["seat"], decision, record.version
        )
    assert refused.value.problem_code == "rules-version-mismatch"
    assert isolated_redis.get_game(table.game_id).version == record.version
