"""Store.watch_log: a game's log waited on and read in one round trip, on a connection held
for the watch (the stream server's watchers, service/domain/loghub.py)."""

from __future__ import annotations

import threading
import time

import pytest
import redis

from service.store import Store
from service.store.record import Change
from tests.games_in_store import started_attila
from tests.redis_watch import blocked_reader


def _touch(store: Store, game_id: str) -> None:
    store.transact(game_id, lambda record, _v: Change(record, "touched", [], 200, {}))


def test_it_waits_for_a_commit_and_reads_it_with_its_record(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id = started_attila(store)[0]
    version = store.get_game(game_id).version
    other = Store(store.url)
    later = threading.Timer(0.3, _touch, (other, game_id))
    later.start()
    with store.watch_log(game_id) as watch:
        started = time.monotonic()
        record, entries = watch.wait_read(version, 5000, 100)
        waited = time.monotonic() - started
        later.join()
        assert 0.2 < waited < 4, waited  # woken by the commit, not by the timeout
        assert [(v, e["kind"]) for v, e in entries] == [(version + 1, "touched")]
        assert record.version == version + 1 and record.state is None  # read without its state
        # Nothing new: the whole block, then the same record and no entries.
        record, entries = watch.wait_read(version + 1, 200, 100)
        assert entries == [] and record.version == version + 1
    other.close()


def test_a_redis_that_forgot_the_script_still_answers(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id = started_attila(store)[0]
    version = store.get_game(game_id).version
    with store.watch_log(game_id) as watch:
        watch.wait_read(version, 1, 100)  # loads the script
        store.raw.script_flush()  # as after a restart
        _touch(store, game_id)
        # NOSCRIPT answers the read behind the wait: both replies are taken, so the
        # connection stays in step for the next wait.
        record, entries = watch.wait_read(version, 1000, 100)
        assert [v for v, _ in entries] == [version + 1] and record.version == version + 1
        # And loaded again for the next one.
        _touch(store, game_id)
        _, entries = watch.wait_read(version + 1, 1000, 100)
        assert [v for v, _ in entries] == [version + 2]


def test_a_watch_holds_its_connection_between_waits(isolated_redis: Store) -> None:
    # Checking a connection out of the pool and back for every wake cost the stream server
    # more than the wait's round trip. Held, the pool gives its next caller another one.
    store = isolated_redis
    game_id = started_attila(store)[0]
    version = store.get_game(game_id).version
    blocked: list[int] = []

    def note_then_touch() -> None:
        blocked.append(blocked_reader(store))
        _touch(store, game_id)

    with store.watch_log(game_id) as watch:
        for n in range(2):
            later = threading.Timer(0.2, note_then_touch)
            later.start()
            _, entries = watch.wait_read(version + n, 5000, 100)
            later.join()
            assert [v for v, _ in entries] == [version + n + 1]
            assert store.blocking.client_id() != blocked[0]  # still the watch's
    assert blocked[0] == blocked[1]  # both waits on it
    assert store.blocking.client_id() == blocked[0]  # back in the pool


def test_a_wait_cut_short_leaves_no_reply_for_the_next(isolated_redis: Store) -> None:
    # An error reply to the XREAD (a timeout or a killed greenlet alike) leaves the read's
    # reply unread: the next wait must not take it for its own.
    store = isolated_redis
    game_id = started_attila(store)[0]
    version = store.get_game(game_id).version
    with store.watch_log(game_id) as watch:
        with pytest.raises(redis.ResponseError):
            watch.wait_read(-5, 1, 100)  # an invalid stream ID
        _touch(store, game_id)
        _, entries = watch.wait_read(version, 1000, 100)
        assert [v for v, _ in entries] == [version + 1]
