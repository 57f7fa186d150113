"""The rating job: a finished game's ratings, its players' finished and won games and the
public listing (service/domain/ratings.py), applied once however often this runs; then, for a
tournament's game, its table's result and the next round (service/domain/tournaments.py)."""

from __future__ import annotations

from service.domain import ratings, tournaments
from workers.shared import shared_store


def rate(game_id: str) -> bool:
    """Apply a finished game; True if this run changed the ratings."""
    store = shared_store()
    changed = ratings.rate_game(store, game_id)
    # After the rating: a retried job records the result again, which does nothing twice.
    tournaments.game_finished(store, game_id)
    return changed
