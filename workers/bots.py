"""The bot job: one computer opponent's move (service/domain/bots.py). Small and idempotent: it
re-reads the game, does nothing if the game moved on, and plays through a player's write path
with the job's id as its idempotency key."""

from __future__ import annotations

from service.domain import bots
from workers.shared import shared_store


def move(game_id: str, version: int, seat: int) -> str:
    """The bot of ``seat`` answers what the game waits for at ``version`` ("moved", "stale")."""
    return bots.play_turn(shared_store(), game_id, version, seat)
