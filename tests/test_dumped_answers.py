"""A move's answer and GET /v1/me's skip marshmallow's dump (service/http/api/base.py ``dumped``):
each must already be exactly what its schema dumps (ActionResult for every kind of move of every
game type, Me for every kind of preference), or the committed document would no longer describe
it (a field too many could also be a leak)."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
from flask import Flask

from engine.core import SYSTEM
from service.domain import prefs
from service.domain.games import lifecycle, play, views
from service.http.schemas.games import ActionResult
from service.http.schemas.players import Me
from service.store import Store

TABLES = [("attila", 3), ("attila", 2), ("attika", 3), ("attila-wargame", 2)]


@pytest.mark.parametrize(("game_type", "seats"), TABLES, ids=[f"{t}-{n}" for t, n in TABLES])
def test_every_moves_answer_is_its_schemas_dump(
    isolated_redis: Store, game_type: str, seats: int
) -> None:
    store = isolated_redis
    players = [store.players.create(f"D{i}", None)[0] for i in range(seats)]
    created = lifecycle.create_game(
        store, players[0], game_type, {}, f"dump-{game_type}", seats
    ).body
    for player in players[1:]:
        lifecycle.join_game(store, player, created["id"], created["invite_code"])
    lifecycle.start_game(store, players[0], created["id"])
    schema, rng, kinds = ActionResult(), random.Random(seats), set()
    for _ in range(400):  # bounded: most games end before, the wargame's is long
        record = store.get_game(created["id"])
        if record.status != "active":
            break
        decision = record.pending[0]
        if decision["seat"] == SYSTEM:
            play.resolve(store, created["id"], decision["ref"])
            continue
        legal = views.legal_actions(record, decision["seat"])["actions"]
        move = rng.choice(legal)["notation"]
        outcome = play.play(
            store, players[decision["seat"]], created["id"], move, None, None, None, None
        )
        assert schema.dump(outcome.body) == outcome.body, (move, outcome.body)
        kinds.add((outcome.status, decision["kind"]))
    assert (200, "move") in kinds or (200, "sealed") in kinds


def test_the_callers_answer_is_its_schemas_dump(app: Flask, store: Store) -> None:
    """GET /v1/me skips marshmallow's dump too: a player with nothing set, and one with every
    preference and a disabled webhook."""
    _, plain_token = store.players.create("Plain", None)
    full, full_token = store.players.create("Full", "full@example.org")
    prefs.apply(
        store,
        full["id"],
        {
            "notify": {"game.turn_started": ["webhook"], "game.ended": []},
            "timezone": "Europe/Berlin",
            "vacation_until": datetime(2031, 1, 2, tzinfo=UTC),
            "digest": "daily",
            "digest_hour": 7,
            "quiet_hours": {"start": "22:00", "end": "07:00"},
            "language": "de",
        },
    )
    # A webhook as the delivery worker leaves it after disabling it (set without the API's
    # address check, which would look the host up).
    store.players.update(
        full["id"],
        {
            "webhook_url": "https://hooks.example.org/k",
            "webhook_secret": "whsec_x",
            "webhook_disabled": "gone",
        },
    )
    schema, client = Me(), app.test_client()
    bodies = []
    for token in (plain_token, full_token):
        r = client.get("/v1/me", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200 and r.mimetype == "application/json", r.data
        assert schema.dump(r.json) == r.json, r.json
        bodies.append(r.json)
    assert bodies[1]["quiet_hours"] == {"start": "22:00", "end": "07:00"}
    assert bodies[1]["webhook_disabled_reason"] == "gone" and not bodies[1]["webhook_enabled"]
