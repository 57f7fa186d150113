"""A move's answer skips marshmallow's dump (service/api/base.py ``dumped``): it must already be
exactly what ActionResult dumps, for every kind of move of every game type, or the committed
document would no longer describe it (a field too many could also be a leak)."""

from __future__ import annotations

import random

import pytest

from engine.core import SYSTEM
from service import games
from service.schemas.games import ActionResult
from service.store import Store

TABLES = [("attila", 3), ("attila", 2), ("attika", 3), ("attila-wargame", 2)]


@pytest.mark.parametrize(("game_type", "seats"), TABLES, ids=[f"{t}-{n}" for t, n in TABLES])
def test_every_moves_answer_is_its_schemas_dump(
    isolated_redis: Store, game_type: str, seats: int
) -> None:
    store = isolated_redis
    players = [store.create_player(f"D{i}", None)[0] for i in range(seats)]
    created = games.create_game(store, players[0], game_type, {}, f"dump-{game_type}", seats).body
    for player in players[1:]:
        games.join_game(store, player, created["id"], created["invite_code"])
    games.start_game(store, players[0], created["id"])
    schema, rng, kinds = ActionResult(), random.Random(seats), set()
    for _ in range(400):  # bounded: most games end before, the wargame's is long
        record = store.get_game(created["id"])
        if record.status != "active":
            break
        decision = record.pending[0]
        if decision["seat"] == SYSTEM:
            games.resolve(store, created["id"], decision["ref"])
            continue
        legal = games.legal_actions(record, decision["seat"])["actions"]
        move = rng.choice(legal)["notation"]
        outcome = games.play(
            store, players[decision["seat"]], created["id"], move, None, None, None, None
        )
        assert schema.dump(outcome.body) == outcome.body, (move, outcome.body)
        kinds.add((outcome.status, decision["kind"]))
    assert (200, "move") in kinds or (200, "sealed") in kinds
