"""Players, tokens (hashed at rest), the catalogue and the health check."""

from __future__ import annotations

import hashlib

from service.app import create_app
from service.store import Store
from tests.client import Kurier


def test_player_token_is_shown_once_and_stored_hashed(kurier: Kurier, store: Store) -> None:
    r = kurier.call("POST", "/v1/players", json={"name": "Ada", "email": "ada@example.org"})
    assert r.status_code == 201
    created = r.json()
    token = created["token"]
    assert token.startswith("kur_pat_") and len(token) >= len("kur_pat_") + 43
    digest = hashlib.sha256(token.encode()).hexdigest()
    assert store.r.hget(f"kurier:auth:token:{digest}", "player") == created["id"]
    # The plain token is nowhere in Redis.
    for key in store.r.scan_iter(match="kurier:*", count=500):
        if store.r.type(key) == "hash":
            assert token not in str(store.r.hgetall(key))
        assert token not in key

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
    assert r.json()["redis"] is True and r.json()["workers"] >= 1


def test_healthz_degraded_without_worker_or_redis(isolated_redis: Store) -> None:
    no_worker = create_app({"REDIS_URL": isolated_redis.url}).test_client().get("/healthz")
    assert no_worker.status_code == 503
    assert no_worker.json == {"status": "degraded", "redis": True, "workers": 0}
    gone = create_app({"REDIS_URL": "unix:///tmp/kurier-no-such.sock"}).test_client()
    r = gone.get("/healthz")
    assert r.status_code == 503 and r.json["redis"] is False
