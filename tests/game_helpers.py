"""Play Attila games in-process through the service's own operations (no HTTP, no worker)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from engine.core import SYSTEM
from service.domain.games import lifecycle, play, views
from service.store import Store


@dataclass
class Table:
    game_id: str
    players: list[dict[str, Any]]
    tokens: list[str] = field(default_factory=list)  # each player's API token, by seat


def new_table(
    store: Store, seats: int = 3, seed: str | None = "ops-seed", game_type: str = "attila"
) -> Table:
    made = [store.players.create(f"O{i}", None) for i in range(seats)]
    players = [player for player, _token in made]
    created = lifecycle.create_game(store, players[0], game_type, {}, seed, seats).body
    for player in players[1:]:
        lifecycle.join_game(store, player, created["id"], created["invite_code"])
    lifecycle.start_game(store, players[0], created["id"])
    return Table(created["id"], players, [token for _player, token in made])


def play_random(store: Store, table: Table, actions: int, seed: int = 0) -> int:
    """Take up to ``actions`` random legal actions (resolving sealed steps by hand, as the
    worker would); returns how many were taken before the game ended."""
    rng = random.Random(seed)
    for done in range(actions):
        record = store.get_game(table.game_id)
        if record.status != "active":
            return done
        decision = record.pending[0]
        if decision["seat"] == SYSTEM:
            play.resolve(store, table.game_id, decision["ref"])
            continue
        legal = views.legal_actions(record, decision["seat"])["actions"]
        move = rng.choice(legal)["notation"]
        player = table.players[decision["seat"]]
        play.play(store, player, table.game_id, move, None, None, None, None)
    return actions
