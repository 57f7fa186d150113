"""The outbox (service/store/outbox.py): what a commit owes the queue Redis reaches it once and in
order, even when the writer dies between its commit and its relay. Two real Redis servers: the
game store and the queues apart, as a Redis Cluster deployment has them."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from service.store import Store, outbox
from service.store.keys import dirty_key, outbox_key
from service.store.outbox import Relay
from service.store.record import Change, GameRecord
from service.store.redis_server import EPHEMERAL_FLAGS, RedisServer
from service.store.writes import Writes
from tests.conftest import short_tmp
from tests.game_helpers import new_table
from workers.runtime import Sweeper

APPLIED = "test:applied"


@pytest.fixture
def apart() -> Iterator[Store]:
    servers = [RedisServer(short_tmp(f"kur-ob{i}-"), EPHEMERAL_FLAGS) for i in range(2)]
    for server in servers:
        server.start()
    store = Store(servers[0].url, servers[1].url)
    assert not store.colocated
    yield store
    store.close()
    for server in servers:
        server.stop()


def _touch(record: GameRecord | None, version: int) -> Change:
    assert record is not None
    return Change(record, "move", [], 200, {"version": version})


def _noting_version(_before: Any, _change: Change, version: int) -> Any:
    """Followups that owe the queue Redis one visible write per commit: its version."""

    def write(writes: Writes) -> None:
        writes.queue.rpush(APPLIED, version)

    return write


def _applied(store: Store) -> list[int]:
    return [int(v) for v in store.queue_raw.lrange(APPLIED, 0, -1)]


def _die_after_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer's process dies between its commit and its relay."""
    monkeypatch.setattr(Relay, "after_commit", lambda *args, **kwargs: None)


def test_a_commit_relays_its_own_entry_at_once(apart: Store) -> None:
    table = new_table(apart, seats=2)
    version = apart.get_game(table.game_id).version + 1
    apart.transact(table.game_id, _touch, followups=_noting_version)
    assert _applied(apart) == [version]
    assert apart.raw.xlen(outbox_key(table.game_id)) == 0
    assert apart.raw.zscore(dirty_key(table.game_id), table.game_id) is None


def test_what_a_dead_writer_left_is_relayed_once_by_the_sweep(
    apart: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = new_table(apart, seats=2)
    first = apart.get_game(table.game_id).version + 1
    with monkeypatch.context() as patched:
        _die_after_commit(patched)
        apart.transact(table.game_id, _touch, followups=_noting_version)
        apart.transact(table.game_id, _touch, followups=_noting_version)
    assert _applied(apart) == []
    assert apart.raw.xlen(outbox_key(table.game_id)) == 2

    assert apart.relay.sweep(grace=60) == []  # too young: its writer may still relay it
    assert apart.relay.sweep(grace=0) == [table.game_id]
    assert _applied(apart) == [first, first + 1]
    assert apart.raw.xlen(outbox_key(table.game_id)) == 0
    assert apart.relay.sweep(grace=0) == []  # the mark is gone: nothing twice


def test_the_next_writer_relays_older_entries_first_and_racing_relays_apply_once(
    apart: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = new_table(apart, seats=2)
    first = apart.get_game(table.game_id).version + 1
    with monkeypatch.context() as patched:
        _die_after_commit(patched)
        apart.transact(table.game_id, _touch, followups=_noting_version)
    left = apart.relay.entries(table.game_id)
    apart.transact(table.game_id, _touch, followups=_noting_version)
    assert _applied(apart) == [first, first + 1]
    # A second relay of what was already relayed (a sweep racing the writer) changes nothing.
    apart.relay.relay(table.game_id, left)
    assert _applied(apart) == [first, first + 1]


def test_the_workers_sweeper_thread_relays_an_outbox_left_behind(
    apart: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = new_table(apart, seats=2)
    with monkeypatch.context() as patched:
        _die_after_commit(patched)
        apart.transact(table.game_id, _touch, followups=_noting_version)
    monkeypatch.setattr(outbox, "GRACE_SECONDS", 0.0)
    sweeper = Sweeper(apart).start()
    try:
        deadline = time.monotonic() + 15
        while not _applied(apart) and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        sweeper.stop()
    assert len(_applied(apart)) == 1


def test_a_commit_whose_relay_fails_is_still_made_and_the_sweep_relays_it(
    apart: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The queue Redis unreachable right after the commit: the change stands (the caller is
    told so) and its entry waits in the outbox for the sweep."""
    table = new_table(apart, seats=2)
    version = apart.get_game(table.game_id).version + 1

    def unreachable(*args: Any, **kwargs: Any) -> None:
        raise redis.ConnectionError("queue Redis down")

    with monkeypatch.context() as patched:
        patched.setattr(Relay, "after_commit", unreachable)
        outcome = apart.transact(table.game_id, _touch, followups=_noting_version)
    assert outcome.status == 200 and apart.get_game(table.game_id).version == version
    assert _applied(apart) == []
    assert apart.relay.sweep(grace=0) == [table.game_id]
    assert _applied(apart) == [version]
