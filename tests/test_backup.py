"""Backups restore: a running Redis's AOF or RDB, copied into a fresh data directory, brings
the games back, and they go on (the procedure in docs/operations.md, "Backups and restore")."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.domain import pinning
from service.store import Store
from service.store.redis_server import PERSISTENT_FLAGS, RedisServer
from tests.conftest import short_tmp
from tests.game_helpers import Table, new_table, play_random


def _wait(store: Store, field: str, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while int(store.r.info("persistence")[field]):
        assert time.monotonic() < deadline, f"{field} still set after {seconds} s"
        time.sleep(0.05)


@pytest.fixture
def live() -> Iterator[tuple[RedisServer, Store, Table]]:
    """A persistent Redis (the launcher's production flags) with a game in progress."""
    server = RedisServer(short_tmp("kur-live-"), PERSISTENT_FLAGS)
    server.start()
    store = Store(server.url)
    table = new_table(store, seed="backup")
    assert play_random(store, table, 40) == 40
    yield server, store, table
    store.close()
    server.stop()
    shutil.rmtree(server.data_dir, ignore_errors=True)


def _copy_aof(source: Path, target: Path) -> None:
    """Redis 7 keeps a directory (appendonlydir/), 6.2 one file (appendonly.aof)."""
    if (source / "appendonlydir").is_dir():
        shutil.copytree(source / "appendonlydir", target / "appendonlydir")
    else:
        shutil.copy2(source / "appendonly.aof", target / "appendonly.aof")


def _goes_on(url: str, table: Table, version: int, state: object) -> None:
    store = Store(url)
    try:
        record = store.get_game(table.game_id)
        assert (record.version, record.state) == (version, state)
        assert pinning.verify(store, table.game_id).outcome == "match"
        play_random(store, table, 10, seed=99)  # the game continues on the restored data
        assert store.get_game(table.game_id).version > version
    finally:
        store.close()


def test_an_aof_copy_restores_and_the_game_goes_on(live: tuple[RedisServer, Store, Table]) -> None:
    server, store, table = live
    _wait(store, "aof_rewrite_in_progress")  # no rewrite is swapping files while we copy
    record = store.get_game(table.game_id)
    fresh = short_tmp("kur-aof-")
    _copy_aof(server.data_dir, fresh)
    with RedisServer(fresh, PERSISTENT_FLAGS) as restored:
        _goes_on(restored.url, table, record.version, record.state)
    shutil.rmtree(fresh, ignore_errors=True)


def test_an_rdb_snapshot_restores_and_the_game_goes_on(
    live: tuple[RedisServer, Store, Table],
) -> None:
    server, store, table = live
    store.r.bgsave()
    _wait(store, "rdb_bgsave_in_progress")
    assert store.r.info("persistence")["rdb_last_bgsave_status"] == "ok"
    record = store.get_game(table.game_id)
    fresh = short_tmp("kur-rdb-")
    shutil.copy2(server.data_dir / "dump.rdb", fresh / "dump.rdb")
    # With appendonly on and no AOF, Redis would start empty: load the RDB with AOF off, then
    # switch AOF on (Redis writes it from memory) before starting with the usual flags.
    with RedisServer(fresh, ("--appendonly", "no")) as loading:
        loader = Store(loading.url)
        assert loader.get_game(table.game_id).version == record.version
        loader.r.config_set("appendonly", "yes")
        _wait(loader, "aof_rewrite_in_progress")
        _wait(loader, "aof_rewrite_scheduled")
        loader.close()
    with RedisServer(fresh, PERSISTENT_FLAGS) as restored:
        _goes_on(restored.url, table, record.version, record.state)
    shutil.rmtree(fresh, ignore_errors=True)
