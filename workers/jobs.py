"""rq jobs. Arguments are JSON (the JSON serializer: no pickle from Redis), and every job is
idempotent: it re-reads the game and commits through ``Store.transact``, so a job that runs
twice, or after a worker died mid-way, changes the game at most once."""

from __future__ import annotations

from rq.job import Job, JobStatus

from service import games
from service.queues import resolve_job_id
from service.store import Store
from workers.shared import shared_store


def resolve(game_id: str, ref: str) -> str:
    """Reveal and resolve the sealed step ``ref`` of a game once every choice is in."""
    return games.resolve(shared_store(), game_id, ref)


def reconcile(store: Store, older_than: float = 0.0) -> int:
    """Enqueue again every owed resolution whose job is not waiting in a queue.

    The commit that makes a resolution due enqueues its job in the same EXEC, so this only
    matters when a worker died with the job in hand. Returns how many were enqueued.
    """
    count = 0
    for game_id, ref in store.pending_resolutions(older_than):
        job = Job.fetch_many([resolve_job_id(game_id, ref)], connection=store.raw)[0]
        waiting = (JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED)
        if job is not None and job.get_status(refresh=False) in waiting:
            continue
        store.enqueue_resolution(game_id, ref)
        count += 1
    return count
