"""Bad input and security on the real stack: rate limits per token (429 problem+json with
Retry-After, counted in Redis), no raw token in Redis, a token acts only for its own seats,
bodies are size-limited, and the logs hold no token and no hidden information."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from service.common.logs import JsonFormatter
from service.http.app import MAX_BODY, create_app
from service.store import TOKEN_PREFIX, Store
from tests.client import Kurier, Player
from tests.conftest import serve

PROBLEM = "application/problem+json"


@pytest.fixture
def limited(redis_url: str, worker: Any) -> Iterator[Kurier]:
    """A second app on loopback with small limits, counters under a prefix of its own."""
    app = create_app(
        {
            "REDIS_URL": redis_url,
            "RATE_LIMIT": "5/minute",
            "SIGNUP_RATE_LIMIT": "3/minute",
            "RATELIMIT_KEY_PREFIX": f"kurier:ratelimit-test-{uuid.uuid4().hex[:8]}",
            "RATE_LIMIT_HEADERS": True,
        }
    )
    with serve(app) as url:
        yield Kurier(url)


def _assert_rate_limited(response: Any) -> None:
    assert response.status_code == 429, response.text
    assert response.headers["Content-Type"] == PROBLEM
    assert response.json()["code"] == "rate-limited"
    assert response.json()["status"] == 429
    assert 1 <= int(response.headers["Retry-After"]) <= 60


def test_over_the_limit_is_429_with_retry_after_and_changes_nothing(
    kurier: Kurier, limited: Kurier
) -> None:
    alice, bob = kurier.new_player("Alice"), kurier.new_player("Bob")
    for left in range(4, -1, -1):
        r = limited.call("GET", "/v1/me", alice)
        assert r.status_code == 200, r.text
        assert r.headers["X-RateLimit-Limit"] == "5"
        assert r.headers["X-RateLimit-Remaining"] == str(left)
        assert "Retry-After" not in r.headers  # only a refusal says when to retry
    refused = limited.call("PATCH", "/v1/me", alice, json={"name": "Mallory"})
    _assert_rate_limited(refused)
    assert kurier.call("GET", "/v1/me", alice).json()["name"] == "Alice"
    # Bob's token has a budget of its own; probes are never limited.
    assert limited.call("GET", "/v1/me", bob).status_code == 200
    assert limited.call("PATCH", "/v1/me", bob, json={"name": "Robert"}).status_code == 200
    for _ in range(8):
        assert limited.call("GET", "/healthz").status_code in (200, 503)
        assert limited.call("GET", "/metrics").status_code == 200


def test_a_redis_that_forgot_the_limit_script_still_counts(
    kurier: Kurier, limited: Kurier, redis_url: str
) -> None:
    """The limiter sends its count inside one script with the token's read
    (service/domain/ratelimit.py); a restarted Redis has forgotten it: loaded again, counted
    once."""
    alice = kurier.new_player("Forgetful")
    assert limited.call("GET", "/v1/me", alice).headers["X-RateLimit-Remaining"] == "4"
    assert limited.call("GET", "/v1/me", alice).headers["X-RateLimit-Remaining"] == "3"
    redis.Redis.from_url(redis_url).script_flush()
    again = limited.call("GET", "/v1/me", alice)
    assert again.status_code == 200, again.text
    assert again.json()["id"] == alice.id
    assert again.headers["X-RateLimit-Remaining"] == "2"


def test_budget_headers_are_opt_in(kurier: Kurier) -> None:
    # The suite's app has the default settings: no X-RateLimit-* (a Redis call per request).
    r = kurier.call("GET", "/v1/me", kurier.new_player("Quiet"))
    assert r.status_code == 200, r.text
    assert not [name for name in r.headers if name.lower().startswith("x-ratelimit")]


def test_made_up_tokens_share_the_address_budget(limited: Kurier) -> None:
    for i in range(5):
        fake = Player("p_x", "x", f"{TOKEN_PREFIX}made-up-{i}")
        assert limited.call("GET", "/v1/me", fake).status_code == 401
    _assert_rate_limited(limited.call("GET", "/v1/me", Player("p_x", "x", TOKEN_PREFIX + "new")))


def test_creating_players_has_a_stricter_limit(kurier: Kurier, limited: Kurier) -> None:
    for i in range(3):
        assert limited.call("POST", "/v1/players", json={"name": f"S{i}"}).status_code == 201
    refused = limited.call("POST", "/v1/players", json={"name": "S3"})
    _assert_rate_limited(refused)


def _everything_in(r: redis.Redis) -> Iterator[str]:
    for key in r.scan_iter(count=1000):
        yield key
        kind = r.type(key)
        if kind == "string":
            value = r.get(key)
            values = [value] if value is not None else []
        elif kind == "hash":
            values = [*r.hkeys(key), *r.hvals(key)]
        elif kind == "list":
            values = r.lrange(key, 0, -1)
        elif kind == "set":
            values = list(r.smembers(key))
        elif kind == "zset":
            values = list(r.zrange(key, 0, -1))
        elif kind == "stream":
            values = [json.dumps(fields) for _, fields in r.xrange(key)]
        else:
            values = []
        yield from (str(v) for v in values)


def test_redis_holds_no_raw_token(kurier: Kurier, redis_url: str) -> None:
    game_id, players = kurier.new_game(2)
    view = kurier.view(game_id)
    mover = players[view["waiting_for"][0]["seat"]]
    legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", mover).json()
    notation = legal["actions"][0]["notation"]
    r = kurier.call("POST", f"/v1/games/{game_id}/actions", mover, json={"notation": notation})
    assert r.status_code in (200, 202), r.text
    client = redis.Redis.from_url(
        redis_url, decode_responses=True, encoding_errors="backslashreplace"
    )
    try:
        seen = 0
        for text in _everything_in(client):
            assert TOKEN_PREFIX not in text, text[:200]
            seen += 1
    finally:
        client.close()
    assert seen > 10


def test_a_token_acts_only_for_its_own_seat_and_game(kurier: Kurier) -> None:
    game_id, players = kurier.new_game(2)
    other_game, strangers = kurier.new_game(2)
    view, other_version = kurier.view(game_id), kurier.view(other_game)["version"]
    waiting = view["waiting_for"][0]["seat"]
    mover, idle = players[waiting], players[1 - waiting]
    notation = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", mover).json()["actions"]
    move = {"notation": notation[0]["notation"]}
    path = f"/v1/games/{game_id}/actions"
    # The other seat's legal move, sent with the idle seat's token: not its turn.
    r = kurier.call("POST", path, idle, json=move)
    assert (r.status_code, r.json()["code"]) == (409, "not-your-turn")
    # A token of another game's player: no seat here at all.
    r = kurier.call("POST", path, strangers[0], json=move)
    assert r.status_code in (403, 409), r.text
    assert r.headers["Content-Type"] == PROBLEM
    r = kurier.call("POST", f"/v1/games/{game_id}/start", strangers[0])
    assert r.status_code in (403, 409), r.text
    assert kurier.view(game_id)["version"] == view["version"]
    assert kurier.view(other_game)["version"] == other_version


def test_request_bodies_are_size_limited(kurier: Kurier) -> None:
    game_id, players = kurier.new_game(2)
    version = kurier.view(game_id)["version"]
    big = json.dumps({"notation": "x" * (MAX_BODY + 1)})
    for path in (f"/v1/games/{game_id}/actions", "/v1/players"):
        r = kurier.call(
            "POST", path, players[0], data=big, headers={"Content-Type": "application/json"}
        )
        assert r.status_code == 413, r.text
        assert r.headers["Content-Type"] == PROBLEM
        assert r.json()["code"] == "body-too-large"
    assert kurier.view(game_id)["version"] == version


def test_logs_hold_no_token_and_no_hidden_information(
    kurier: Kurier, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    game_id, players = kurier.new_game(2)
    hands = {s: kurier.view(game_id, p)["view"]["hand"] for s, p in enumerate(players)}
    moves = 0
    for _ in range(6):
        played = kurier.play_first_legal(game_id, players)
        if played is None:
            continue
        mover, r = played
        moves += r.status_code in (200, 202)
        # Errors are logged too: a bad token and a bad move must not echo anything.
        kurier.call("GET", "/v1/me", Player("p", "x", players[0].token + "x"))
        kurier.call("POST", f"/v1/games/{game_id}/actions", mover, json={"notation": "zz"})
    assert moves >= 1
    formatter = JsonFormatter()
    lines = [formatter.format(record) for record in caplog.records]
    assert any(record.name == "kurier.access" for record in caplog.records)
    text = "\n".join(lines)
    assert TOKEN_PREFIX not in text
    for player in players:
        assert player.token not in text
    for hand in hands.values():
        if hand:
            assert json.dumps(hand) not in text
            assert ", ".join(map(str, hand)) not in text


def test_store_keeps_token_hashes_only(kurier: Kurier, store: Store) -> None:
    player = kurier.new_player("Hashed")
    assert store.players.for_token(player.token)["id"] == player.id
    assert not store.r.exists(f"kurier:auth:token:{player.token}")
