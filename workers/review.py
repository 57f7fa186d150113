"""The review job: the hard bot's view of one player's decisions in a finished game
(service/domain/review.py). Idempotent: a review already stored is not made again."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from rq.job import Job

from service.domain import review as reviews
from workers.shared import shared_store


def review(game_id: str, player_id: str) -> str:
    """Judge and store the review ("done"), or "stale" (nothing to do)."""
    return reviews.run(shared_store(), game_id, player_id)


def review_failed(
    job: Job,
    connection: Any,
    kind: type[BaseException] | None,
    error: BaseException | None,
    trace: TracebackType | None,
) -> None:
    """rq's failure callback of a review job: once rq will not run it again (its retries
    spent), the review says "failed" and is owed no more."""
    if job.should_retry:
        return
    game_id, player_id = job.args
    reviews.failed(shared_store(), game_id, player_id)
