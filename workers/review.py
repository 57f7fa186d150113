"""The review job: the hard bot's view of one player's decisions in a finished game
(service/domain/review.py). Idempotent: a review already stored is not made again."""

from __future__ import annotations

from service.domain import review as reviews
from workers.shared import shared_store


def review(game_id: str, player_id: str) -> str:
    """Judge and store the review ("done"), or "stale" (nothing to do)."""
    return reviews.run(shared_store(), game_id, player_id)
