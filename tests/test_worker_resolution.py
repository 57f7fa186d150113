"""Resolutions by rq jobs: exactly once, even when a worker dies in the middle of one."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from rq import SimpleWorker
from rq.serializers import JSONSerializer

from service.domain.games import lifecycle, play, views
from service.store import Store
from service.store.queues import queue, resolve_job_id
from workers import jobs, shared

ROOT = Path(__file__).resolve().parent.parent


def _game_waiting_for_resolution(store: Store, seed: int) -> tuple[str, str, int]:
    """Play random legal moves in-process until a resolution is owed (no worker runs here)."""
    players = [store.players.create(f"W{i}", None)[0] for i in range(3)]
    created = lifecycle.create_game(store, players[0], "attila", {}, None, 3).body
    for p in players[1:]:
        lifecycle.join_game(store, p, created["id"], created["invite_code"])
    lifecycle.start_game(store, players[0], created["id"])
    rng = random.Random(seed)
    for _ in range(2000):
        owed = store.indexes.pending_resolutions()
        if owed:
            game_id, ref = owed[0]
            return game_id, ref, store.get_game(game_id).version
        record = store.get_game(created["id"])
        decision = record.pending[0]
        legal = views.legal_actions(record, decision["seat"])["actions"]
        move = rng.choice(legal)["notation"]
        play.play(store, players[decision["seat"]], created["id"], move, None, None, None, None)
    raise AssertionError("no conflict came up")


def _reveals(store: Store, game_id: str, ref: str) -> list[dict[str, Any]]:
    _, entries = store.read_log(game_id)
    found = []
    for _, entry in entries:
        for event in entry["events"]:
            if event["kind"] == "sealed_revealed" and event["data"]["ref"] == ref:
                found.append(event)
    return found


@pytest.fixture
def env_store(isolated_redis: Store, monkeypatch: pytest.MonkeyPatch) -> Store:
    monkeypatch.setenv("REDIS_URL", isolated_redis.url)
    monkeypatch.setattr(shared, "_store", None)
    return isolated_redis


def _burst(store: Store) -> None:
    default = queue(store.raw)
    SimpleWorker([default], connection=store.raw, serializer=JSONSerializer).work(burst=True)


def test_the_commit_enqueues_one_job_and_running_it_twice_resolves_once(env_store: Store) -> None:
    game_id, ref, version = _game_waiting_for_resolution(env_store, 1)
    default = queue(env_store.raw)
    assert default.job_ids == [resolve_job_id(game_id, ref)]

    assert jobs.resolve(game_id, ref) == "resolved"
    assert jobs.resolve(game_id, ref) == "already-resolved"
    _burst(env_store)  # the queued copy runs too, and finds nothing to do

    assert env_store.get_game(game_id).version == version + 1
    assert len(_reveals(env_store, game_id, ref)) == 1
    assert (game_id, ref) not in env_store.indexes.pending_resolutions()
    assert jobs.reconcile(env_store) == 0


_CRASHING_WORKER = textwrap.dedent(
    """
    import os, sys
    import redis.commands.core
    from rq import Queue, SimpleWorker
    from rq.serializers import JSONSerializer
    from service.store.queues import queue
    from service.store import Store

    real_call = redis.commands.core.Script.__call__

    def call(self, keys=[], args=[], client=None):
        # Die like a SIGKILL at the worst moment: the resolution is computed, and the commit
        # (with the jobs it brings along) is about to be sent.
        if keys and str(keys[0]).startswith("kurier:game:"):
            os._exit(137)
        return real_call(self, keys, args, client)

    redis.commands.core.Script.__call__ = call
    store = Store.from_env()
    default = queue(store.raw)
    SimpleWorker([default], connection=store.raw, serializer=JSONSerializer).work(burst=True)
    """
)


def test_worker_killed_mid_resolution_loses_nothing_and_applies_nothing_twice(
    env_store: Store,
) -> None:
    game_id, ref, version = _game_waiting_for_resolution(env_store, 2)
    env = {**os.environ, "REDIS_URL": env_store.url}
    crashed = subprocess.run(
        [sys.executable, "-c", _CRASHING_WORKER],
        env=env,
        cwd=ROOT,
        timeout=60,
        check=False,
        capture_output=True,
    )
    assert crashed.returncode == 137, crashed.stderr.decode()[-2000:]
    # Nothing of the half-done resolution is visible, and it is still owed.
    assert env_store.get_game(game_id).version == version
    assert _reveals(env_store, game_id, ref) == []
    assert (game_id, ref) in env_store.indexes.pending_resolutions()

    # A new worker starts: it re-enqueues what is owed (as `kurier worker` does) and runs it.
    assert jobs.reconcile(env_store) == 1
    assert jobs.reconcile(env_store) == 0  # already waiting in the queue: not enqueued twice
    _burst(env_store)

    assert env_store.get_game(game_id).version == version + 1
    assert len(_reveals(env_store, game_id, ref)) == 1
    assert (
        env_store.indexes.pending_resolutions() == []
        or (game_id, ref) not in env_store.indexes.pending_resolutions()
    )
    assert jobs.resolve(game_id, ref) == "already-resolved"
    assert env_store.get_game(game_id).version == version + 1


def test_a_job_taken_by_a_worker_that_died_before_starting_it_is_enqueued_again(
    env_store: Store,
) -> None:
    """Redis served the job to a worker's BLPOP and the worker died before
    it started the job. The job is in no queue and no registry and its status still says
    "queued": only the owed record knows it must run."""
    game_id, ref, version = _game_waiting_for_resolution(env_store, 3)
    job_id = resolve_job_id(game_id, ref)
    default = queue(env_store.raw)
    assert env_store.raw.lpop(default.key) == job_id.encode()  # the dead worker's BLPOP
    assert default.fetch_job(job_id).get_status() == "queued"

    assert jobs.reconcile(env_store) == 1  # what `kurier worker` does at its start
    assert default.job_ids == [job_id]
    _burst(env_store)
    assert env_store.get_game(game_id).version == version + 1
    assert len(_reveals(env_store, game_id, ref)) == 1
    assert env_store.indexes.pending_resolutions() == []
