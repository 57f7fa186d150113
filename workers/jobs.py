"""rq jobs. Arguments are JSON (the JSON serializer: no pickle from Redis), and every job is
idempotent: it re-reads the game and commits through ``Store.transact``, so a job that runs
twice, or after a worker died mid-way, changes the game at most once."""

from __future__ import annotations

from service.domain.games import play
from service.store import Store, owed, resolve_job
from service.store.keys import LEGACY_RESOLVE_INDEX
from workers.shared import shared_store


def resolve(game_id: str, ref: str) -> str:
    """Reveal and resolve the sealed step ``ref`` of a game once every choice is in."""
    return play.resolve(shared_store(), game_id, ref)


def compact(game_id: str) -> bool:
    """Pack a finished game's log into its record (service/store/games.py ``compact``)."""
    return shared_store().compact(game_id)


def reconcile(store: Store, older_than: float = 0.0) -> int:
    """A worker's start: enqueue again every owed job that no queue, schedule or live worker
    holds, failed ones included (their fix may just have been deployed). Returns how many.

    The periodic sweep (workers/runtime.py) does the same every few seconds, failed jobs
    excepted."""
    _adopt_legacy_resolutions(store)
    return len(owed.sweep(store.queue_raw, grace=older_than, include_failed=True))


def _adopt_legacy_resolutions(store: Store) -> None:
    """Resolutions owed under the index used before service/store/owed.py: owe them the new way."""
    for member in store.r.zrange(LEGACY_RESOLVE_INDEX, 0, -1):
        game_id, ref = member.split(" ", 1)
        with store.queue_raw.pipeline() as pipe:
            owed.owe(pipe, resolve_job(game_id, ref), store.queue_raw)
            pipe.execute()
        store.r.zrem(LEGACY_RESOLVE_INDEX, member)  # the game store: maybe another Redis
