"""Games made and played through the service functions on a test's Store, without HTTP."""

from __future__ import annotations

from typing import Any

from service.domain.games import lifecycle, play, views
from service.store import Store

Seated = list[tuple[dict[str, Any], str]]  # (player, token) by seat


def started_attila(store: Store, names: tuple[str, ...] = ("Aud", "Bert")) -> tuple[str, Seated]:
    """A started Attila game of ``len(names)`` new players: its id and the players by seat."""
    players = [store.players.create(name, None) for name in names]
    created = lifecycle.create_game(store, players[0][0], "attila", {}, None, len(names)).body
    for player, _token in players[1:]:
        lifecycle.join_game(store, player, created["id"], created["invite_code"])
    lifecycle.start_game(store, players[0][0], created["id"])
    return created["id"], players


def step(store: Store, game_id: str, seated: Seated) -> bool:
    """One step of the game: the first legal action of the first seat it waits for, or the
    resolution it waits for; False once it is over."""
    record = store.get_game(game_id)
    if record.status != "active":
        return False
    humans = [d for d in record.pending if d["seat"] >= 0]
    if not humans:
        play.resolve(store, game_id, record.pending[0]["ref"])
        return True
    seat = humans[0]["seat"]
    notation = views.legal_actions(record, seat)["actions"][0]["notation"]
    play.play(store, seated[seat][0], game_id, notation, None, None, None, None)
    return True
