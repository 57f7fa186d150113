"""The stream server's watchers (service/domain/loghub.py): one blocking read per game followed in a
process, one read of a move for all the game's waiting streams. On a real Redis; the streams
are threads here, as they are greenlets in the stream server."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest

from service.domain import loghub
from service.domain.loghub import LogHub
from service.store import LogWatch, Store
from tests.games_in_store import started_attila, step
from tests.receivers import wait_for
from tests.redis_watch import blocked_reader, commands_named

PAGE = 100
LONG_MS = 20_000  # a wait that only news ends in time


@pytest.fixture
def hub(isolated_redis: Store) -> Iterator[LogHub]:
    yield LogHub(isolated_redis, PAGE)


def _in_thread(call: Any, *args: Any) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(call(*args)), daemon=True)
    thread.start()
    return thread, out


def _waiting(hub: LogHub, game_id: str, count: int) -> None:
    def enough() -> bool:
        with hub._lock:
            return len(hub._games[game_id].waiters) >= count

    wait_for(enough, 5, f"{count} streams waiting")


def test_one_read_of_a_move_serves_every_waiting_stream(hub: LogHub) -> None:
    store = hub.store
    game_id, seated = started_attila(store)
    version = store.get_game(game_id).version
    with ExitStack() as stack:
        for _ in range(5):
            stack.enter_context(hub.following(game_id, version))
        waits = [_in_thread(hub.wait_read_log, game_id, version, LONG_MS) for _ in range(5)]
        _waiting(hub, game_id, 5)
        with store.raw.monitor() as monitor:
            step(store, game_id, seated)
            for thread, _ in waits:
                thread.join(10)
            xranges = commands_named(store, monitor, "XRANGE")
    results = [out[0] for _, out in waits]
    assert all([v for v, _ in entries] == [version + 1] for _, entries in results)
    assert all(record.version == version + 1 for record, _ in results)
    # Five streams, one read of the game's log (inside the hub's read script).
    assert len(xranges) == 1, xranges


def test_each_game_has_its_watcher_until_its_last_stream_closes(
    hub: LogHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loghub, "WATCH_BLOCK_MS", 200)
    store = hub.store
    played = [started_attila(store) for _ in range(2)]
    with ExitStack() as stack:
        versions = []
        for game_id, _ in played:
            versions.append(store.get_game(game_id).version)
            stack.enter_context(hub.following(game_id, versions[-1]))
            stack.enter_context(hub.following(game_id, versions[-1]))
        names = {f"kurier-watch-{game_id}" for game_id, _ in played}
        watchers = [t for t in threading.enumerate() if t.name in names]
        assert len(watchers) == 2  # one per game, not per stream
        for (game_id, seated), version in zip(played, versions, strict=True):
            thread, out = _in_thread(hub.wait_read_log, game_id, version, LONG_MS)
            _waiting(hub, game_id, 1)
            step(store, game_id, seated)
            thread.join(10)
            assert [v for v, _ in out[0][1]] == [version + 1]
    for watcher in watchers:
        watcher.join(5)
        assert not watcher.is_alive()
    assert hub._games == {}


def test_a_stream_busy_when_the_hub_read_gets_that_read(hub: LogHub) -> None:
    store = hub.store
    game_id, seated = started_attila(store)
    version = store.get_game(game_id).version
    with hub.following(game_id, version), hub.following(game_id, version):
        thread, out = _in_thread(hub.wait_read_log, game_id, version, LONG_MS)
        _waiting(hub, game_id, 1)
        step(store, game_id, seated)
        thread.join(10)
        # The second stream was writing, not waiting: the hub's read is kept for it.
        started = time.monotonic()
        _, entries = hub.wait_read_log(game_id, version, LONG_MS)
        assert time.monotonic() - started < 5
        assert [v for v, _ in entries] == [v for v, _ in out[0][1]] == [version + 1]
        # A stream further behind than that read reads for itself.
        _, entries = hub.wait_read_log(game_id, version - 2, LONG_MS)
        assert [v for v, _ in entries] == [version - 1, version, version + 1]


def test_a_wait_without_news_reads_afresh_at_its_end(hub: LogHub) -> None:
    store = hub.store
    game_id, _ = started_attila(store)
    version = store.get_game(game_id).version
    with hub.following(game_id, version):
        record, entries = hub.wait_read_log(game_id, version, 200)
    assert entries == [] and record.version == version


def test_a_broken_watcher_connection_releases_the_streams_and_recovers(hub: LogHub) -> None:
    store = hub.store
    game_id, seated = started_attila(store)
    version = store.get_game(game_id).version
    with hub.following(game_id, version):
        thread, out = _in_thread(hub.wait_read_log, game_id, version, LONG_MS)
        _waiting(hub, game_id, 1)
        started = time.monotonic()
        store.r.client_kill_filter(_id=blocked_reader(store))
        thread.join(10)
        # Released at once: it read for itself (nothing new) instead of waiting 20 s.
        assert time.monotonic() - started < 10
        assert out[0][1] == []
        # The watcher connects again and serves the next move.
        thread, out = _in_thread(hub.wait_read_log, game_id, version, LONG_MS)
        _waiting(hub, game_id, 1)
        step(store, game_id, seated)
        thread.join(10)
        assert [v for v, _ in out[0][1]] == [version + 1]


def test_a_read_with_nothing_new_for_a_stream_leaves_it_waiting(hub: LogHub) -> None:
    # A stream that began to wait after the hub sent its read (it had already got what the
    # read holds) keeps waiting instead of reading for itself.
    store = hub.store
    game_id, seated = started_attila(store)
    version = store.get_game(game_id).version
    with hub.following(game_id, version):
        step(store, game_id, seated)
        thread, out = _in_thread(hub.wait_read_log, game_id, version + 1, LONG_MS)
        _waiting(hub, game_id, 1)
        # What the watcher hands out when the move wakes it, once more.
        record, entries = store.read_log(game_id, version, PAGE, state=False)
        hub._hand_out(hub._games[game_id], loghub._Read(record, entries, version))
        with hub._lock:
            assert len(hub._games[game_id].waiters) == 1
        step(store, game_id, seated)
        thread.join(10)
    assert [v for v, _ in out[0][1]] == [version + 2]


def test_a_watcher_outlives_an_unexpected_error(
    hub: LogHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = hub.store
    game_id, seated = started_attila(store)
    version = store.get_game(game_id).version
    failures = [RuntimeError("a bug")]
    wait_read = LogWatch.wait_read

    def once_broken(self: LogWatch, *args: Any) -> Any:
        if failures:
            raise failures.pop()
        return wait_read(self, *args)

    monkeypatch.setattr(LogWatch, "wait_read", once_broken)
    with hub.following(game_id, version):
        wait_for(lambda: not failures, 5, "the failure")
        thread, out = _in_thread(hub.wait_read_log, game_id, version, LONG_MS)
        _waiting(hub, game_id, 1)
        step(store, game_id, seated)
        thread.join(10)
    assert [v for v, _ in out[0][1]] == [version + 1]
