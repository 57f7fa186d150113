"""The one Store a worker process uses, made on first use (in the work-horse rq forks, so no
connection is inherited across the fork)."""

from __future__ import annotations

from service.store import Store

_store: Store | None = None


def shared_store() -> Store:
    global _store
    if _store is None:
        _store = Store.from_env()
    return _store
