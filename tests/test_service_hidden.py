"""Hidden information: nothing any endpoint returns to player A (or a spectator) contains
B's hand, B's sealed choice before the reveal, the seed before the end, or the invite code;
nothing anywhere (endpoints, events, the app's and the worker's logs) contains the secret the
game's salts are derived from, in play or finished and compacted."""

from __future__ import annotations

import json
import logging
import random
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from service.store import Store
from service.store.keys import game_key
from tests.client import Kurier, Player, play_to_end

RAW_STATE_KEYS = {"hands", "deck", "commits"}  # engine state fields, never served


def _walk(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def _everything_seen_by(k: Kurier, game_id: str, who: Player | None) -> list[requests.Response]:
    calls = [
        ("GET", f"/v1/games/{game_id}", None),
        ("GET", f"/v1/games/{game_id}/events", None),
        ("GET", f"/v1/games/{game_id}/record", None),
    ]
    if who is not None:
        calls += [
            ("GET", f"/v1/games/{game_id}/legal-actions", None),
            ("GET", "/v1/me/inbox", None),
            ("GET", "/v1/games", None),
            ("GET", "/v1/me", None),
            # Errors must not leak either (none of these can apply: nothing may change here).
            ("POST", f"/v1/games/{game_id}/actions", {"notation": "commit VVVVVVVVV"}),
            ("POST", f"/v1/games/{game_id}/actions", {"notation": "discard Q"}),
            ("POST", f"/v1/games/{game_id}/actions", {"notation": "pass", "expected_version": 0}),
        ]
    out = []
    for method, path, body in calls:
        kwargs = {"json": body} if body is not None else {}
        response = k.call(method, path, who, **kwargs)
        assert method == "GET" or response.status_code >= 400, response.text
        out.append(response)
    return out


def _check_nothing_leaks(
    k: Kurier,
    game_id: str,
    players: list[Player],
    author: int,
    secret: dict[str, Any],
    seed: str,
    invite: str,
) -> int:
    """``secret`` is the 202 answer to the author's sealed choice, still unrevealed."""
    hands = {s: k.view(game_id, p)["view"]["hand"] for s, p in enumerate(players)}
    checked = 0
    viewers: list[tuple[int | None, Player | None]] = [(None, None)]
    viewers += [(s, p) for s, p in enumerate(players) if s != author]
    for seat, who in viewers:
        for response in _everything_seen_by(k, game_id, who):
            assert response.status_code < 500, response.text
            text = response.text
            assert secret["salt"] not in text
            assert seed not in text and invite not in text
            body = response.json()
            for key, value in _walk(body):
                assert key not in RAW_STATE_KEYS, (key, response.url)
                if key == "hand":
                    assert seat is not None and value == hands[seat]
                if key == "own_cards":
                    assert seat is not None, response.url
                if key == "audience":
                    assert seat in value
                if key == "seed":
                    assert value is None  # revealed only at the end
            for entry in body.get("items", []) + body.get("actions", []):
                mine = isinstance(entry, dict) and entry.get("ref") == secret["ref"]
                if mine and entry.get("seat") == author and entry.get("kind") == "sealed":
                    assert entry["action"] is None, entry
            # An empty hand is public (hand_counts says so); only cards can leak. A conflict's
            # ``peoples`` (those present in the province: public) may list the same peoples.
            public = _without(body.get("view") or {}, "peoples")
            assert (
                not hands[author]
                or json.dumps(hands[author]) not in json.dumps(public)
                or (seat is not None and hands[seat] == hands[author])
            )
            checked += 1
    return checked


def _without(value: Any, name: str) -> Any:
    """``value`` with every member called ``name`` left out, at any depth."""
    if isinstance(value, dict):
        return {k: _without(v, name) for k, v in value.items() if k != name}
    if isinstance(value, list):
        return [_without(v, name) for v in value]
    return value


def _still_sealed(view: dict[str, Any], ref: str) -> bool:
    waiting = view["waiting_for"]
    return all(d["seat"] >= 0 for d in waiting) and any(
        d["kind"] == "sealed" and d.get("ref") == ref for d in waiting
    )


def test_no_endpoint_leaks_hands_or_sealed_choices(kurier: Kurier, store: Store) -> None:
    players = [kurier.new_player(f"H{i}") for i in range(3)]
    created = kurier.call("POST", "/v1/games", players[0], json={"type": "attila", "seats": 3})
    game_id, invite = created.json()["id"], created.json()["invite_code"]
    for p in players[1:]:
        kurier.call("POST", f"/v1/games/{game_id}/seats", p, json={"invite_code": invite})
    assert kurier.call("POST", f"/v1/games/{game_id}/start", players[0]).status_code == 200
    seed = store.get_game(game_id).seed  # the test peeks at Redis to know what must not leak

    rng = random.Random(7)
    checks = conflicts_checked = 0
    for _ in range(1500):
        view = kurier.view(game_id)
        if view["status"] == "finished" or conflicts_checked >= 3:
            break
        humans = [d for d in view["waiting_for"] if d["seat"] >= 0]
        if not humans:
            continue  # the worker is resolving
        decision = humans[0]
        player = players[decision["seat"]]
        legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()
        choice = rng.choice(legal["actions"])["notation"]
        r = kurier.call("POST", f"/v1/games/{game_id}/actions", player, json={"notation": choice})
        assert r.status_code in (200, 202), r.text
        # Check right after a commit of a conflict that others still owe (so nothing of it is
        # revealed yet), not after the last one: its resolution may already be under way.
        if r.status_code == 202 and _still_sealed(kurier.view(game_id), r.json()["ref"]):
            checks += _check_nothing_leaks(
                kurier, game_id, players, decision["seat"], r.json(), seed, invite
            )
            conflicts_checked += 1
    assert conflicts_checked >= 1 and checks >= 10


def test_the_secret_of_the_salts_never_shows(
    kurier: Kurier,
    store: Store,
    worker: subprocess.Popen[bytes],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    game_id, players = kurier.seated_game("attila", 3, "S")
    secrets_seen = set()
    rng = random.Random(5)
    while not secrets_seen:  # until the first sealed choice makes the game's secret
        decision = next(d for d in kurier.view(game_id)["waiting_for"] if d["seat"] >= 0)
        player = players[decision["seat"]]
        legal = kurier.call("GET", f"/v1/games/{game_id}/legal-actions", player).json()
        choice = rng.choice(legal["actions"])["notation"]
        kurier.call("POST", f"/v1/games/{game_id}/actions", player, json={"notation": choice})
        secrets_seen.add(store.get_game(game_id).secret)
        secrets_seen.discard("")
    secret = secrets_seen.pop()

    seen = [r.text for who in [None, *players] for r in _everything_seen_by(kurier, game_id, who)]
    play_to_end(kurier, game_id, players, random.Random(11))
    deadline = time.monotonic() + 60
    while store.raw.hexists(game_key(game_id), "secret"):  # the worker compacts it
        assert time.monotonic() < deadline, "the finished game was not compacted"
        time.sleep(0.05)
    seen += [r.text for who in [None, *players] for r in _everything_seen_by(kurier, game_id, who)]
    seen.append(json.dumps(store.read_log(game_id)[1]))  # every event, as the streams send them
    assert any('"sealed_revealed"' in text for text in seen), "the salts were shown"
    assert not any(secret in text for text in seen)
    assert secret not in caplog.text
    log = Path(worker.outbox).parent / "worker.log"
    assert secret not in log.read_text(errors="replace")
