"""The rating job: a finished game's ratings, its players' finished and won games and the
public listing (service/domain/ratings.py), applied once however often this runs."""

from __future__ import annotations

from service.domain import ratings
from workers.shared import shared_store


def rate(game_id: str) -> bool:
    """Apply a finished game; True if this run changed the ratings."""
    return ratings.rate_game(shared_store(), game_id)
