"""Hidden information: nothing any endpoint returns to player A (or a spectator) contains
B's hand, B's sealed choice before the reveal, the seed before the end, or the invite code."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import requests

from service.store import Store
from tests.client import Kurier, Player

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
