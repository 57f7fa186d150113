"""Players, tokens (hashed at rest), the catalogue and the health check."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from typing import Any

from rq import Worker

from service.http.app import create_app
from service.store import Store
from tests.client import Kurier
from tests.conftest import ROOT
from tests.receivers import wait_for


def test_player_token_is_shown_once_and_stored_hashed(kurier: Kurier, store: Store) -> None:
    r = kurier.call("POST", "/v1/players", json={"name": "Ada", "email": "ada@example.org"})
    assert r.status_code == 201
    created = r.json()
    token = created["token"]
    assert token.startswith("kur_pat_") and len(token) >= len("kur_pat_") + 43
    digest = hashlib.sha256(token.encode()).hexdigest()
    assert store.r.hget(f"kurier:auth:token:{digest}", "player") == created["id"]
    # The plain token is nowhere in Redis (bytes: a compacted game's log is binary).
    for key in store.raw.scan_iter(match="kurier:*", count=500):
        if store.raw.type(key) == b"hash":
            assert token.encode() not in b"".join(
                part for item in store.raw.hgetall(key).items() for part in item
            )
        assert token.encode() not in key

    headers = {"Authorization": f"Bearer {token}"}
    me = kurier.call("GET", "/v1/me", headers=headers).json()
    assert {k: me[k] for k in ("id", "name", "email", "created_at")} == {
        k: created[k] for k in ("id", "name", "email", "created_at")
    }
    assert "token" not in me and "webhook_secret" not in me
    r = kurier.call("PATCH", "/v1/me", headers=headers, json={"name": "Ada L."})
    assert r.status_code == 200 and r.json()["name"] == "Ada L."
    assert kurier.call("GET", "/v1/me", headers=headers).json()["name"] == "Ada L."
    assert kurier.call("GET", "/v1/me").status_code == 401


def test_game_types_catalogue(kurier: Kurier) -> None:
    items = kurier.call("GET", "/v1/game-types").json()["items"]
    attila = next(t for t in items if t["id"] == "attila")
    assert (attila["min_players"], attila["max_players"]) == (2, 5)
    names = {o["name"]: o for o in attila["options"]}
    order = names["CONFLICT_COMMIT_ORDER"]
    assert order["default"] in order["choices"] and "simultaneous" in order["choices"]


def test_healthz_sees_redis_and_the_worker(kurier: Kurier) -> None:
    r = kurier.call("GET", "/healthz")
    assert r.status_code == 200
    assert r.json()["redis"] is True and r.json()["game_workers"] >= 1


def test_healthz_unavailable_without_worker_or_redis(isolated_redis: Store) -> None:
    """Issue 36: 503 said "degraded", the word of the 200 without webhook workers; an
    operator's check could not tell "games stop" from "deliveries wait"."""
    no_worker = create_app({"REDIS_URL": isolated_redis.url}).test_client().get("/healthz")
    assert no_worker.status_code == 503
    assert no_worker.json == {
        "status": "unavailable",
        "redis": True,
        "game_workers": 0,
        "webhook_workers": 0,
        "store": "ok",
        "store_problem": None,
    }
    gone = create_app({"REDIS_URL": "unix:///tmp/kurier-no-such.sock"}).test_client()
    r = gone.get("/healthz")
    assert r.status_code == 503 and r.json["redis"] is False
    assert r.json["status"] == "unavailable"


def _start(store: Store, *role: str) -> subprocess.Popen[bytes]:
    before = Worker.count(connection=store.raw)
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "worker", *role],
        env={**os.environ, "REDIS_URL": store.url},
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for(lambda: Worker.count(connection=store.raw) > before, 30, "the worker's start")
    return proc


def test_healthz_counts_live_game_and_webhook_workers_apart(isolated_redis: Store) -> None:
    """Issue #17: a dead worker's registration outlives it by minutes, and a webhook worker
    runs no game: neither may make /healthz say ok."""
    client = create_app({"REDIS_URL": isolated_redis.url}).test_client()
    webhook = _start(isolated_redis, "--queues", "webhooks")
    game = _start(isolated_redis)
    try:
        health = wait_for(lambda: _health(client, 200, 1, 1), 10, "both workers alive")
        assert health["status"] == "ok"
        webhook.kill()  # only deliveries wait: 200, degraded
        webhook.wait(10)
        health = wait_for(lambda: _health(client, 200, 1, 0), 10, "the webhook worker gone")
        assert health["status"] == "degraded"
        game.kill()  # SIGKILL: its rq registration stays behind
        game.wait(10)
        health = wait_for(lambda: _health(client, 503, 0, 0), 10, "the dead worker noticed")
        assert health["status"] == "unavailable"
        assert Worker.count(connection=isolated_redis.raw) == 2  # still registered
    finally:
        for proc in (game, webhook):
            proc.kill()
            proc.wait(10)


def _health(client: Any, status: int, game: int, webhook: int) -> dict[str, Any] | None:
    r = client.get("/healthz")
    body = r.json
    if (r.status_code, body["game_workers"], body["webhook_workers"]) == (status, game, webhook):
        return body
    return None
