"""Finished games compacted (record and log in one value, the stream deleted), archived to JSON
Lines and restored: readable as before at every step (issue 18)."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

from engine.verify import verify_record
from service.domain import pinning
from service.ops.archive import archive, restore
from service.store import Store
from service.store.keys import events_key, game_key, player_games_key
from service.store.logpack import to_millisecond
from tests.client import Kurier, play_to_end
from tests.game_helpers import new_table, play_random


def _finished_game(store: Store) -> str:
    table = new_table(store, seats=2, seed="archive-seed")
    assert play_random(store, table, 5000, seed=7) < 5000, "the game did not end"
    assert store.get_game(table.game_id).status == "finished"
    return table.game_id


def _as_kept(entries: list[tuple[int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    """The entries as a compacted log keeps them: times to the millisecond."""
    return [(version, to_millisecond(entry)) for version, entry in entries]


def _bytes(store: Store, game_id: str) -> int:
    keys = (game_key(game_id), events_key(game_id))
    return sum(store.raw.memory_usage(key, samples=0) or 0 for key in keys)


def test_compaction_keeps_the_log_readable_and_makes_it_smaller(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id = _finished_game(store)
    _before, entries = store.read_log(game_id)
    size = _bytes(store, game_id)

    assert store.compact(game_id)
    assert not store.raw.exists(events_key(game_id))
    assert store.read_log(game_id)[1] == _as_kept(entries)
    assert store.read_log(game_id, after=10, count=5)[1] == _as_kept(entries[10:15])
    assert pinning.verify(store, game_id).ok
    assert not store.compact(game_id), "compacting twice does nothing"
    compact = _bytes(store, game_id)
    print(f"\n{len(entries)} log entries: {size} bytes as a stream, {compact} compacted")
    assert compact < size


def test_archive_removes_finished_games_and_restore_brings_them_back(
    isolated_redis: Store, tmp_path: Path
) -> None:
    store = isolated_redis
    game_id = _finished_game(store)
    record, entries = store.read_log(game_id)
    assert store.compact(game_id)  # its state then comes from the log's replay
    unfinished = new_table(store, seats=2, seed="still-playing").game_id

    assert archive(store, time.time() - 3600, tmp_path).games == 0  # finished too recently
    done = archive(store, time.time() + 1, tmp_path)
    assert (done.games, done.skipped) == (1, 0)
    lines = done.path.read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines] == [game_id]
    assert not store.raw.exists(game_key(game_id))
    assert store.raw.exists(game_key(unfinished))
    assert store.r.zscore(player_games_key(record.seats[0]), game_id) is None

    assert "state" in json.loads(lines[0])["record"], "the line holds the state"
    assert restore(store, done.path) == (1, 0)
    assert store.read_log(game_id)[1] == _as_kept(entries)
    assert store.get_game(game_id).state == record.state
    assert pinning.verify(store, game_id).ok
    assert store.r.zscore(player_games_key(record.seats[0]), game_id) is not None
    assert restore(store, done.path) == (0, 1), "restoring twice changes nothing"


def test_the_worker_compacts_a_finished_game_and_every_endpoint_reads_it(
    kurier: Kurier, store: Store
) -> None:
    game_id, seated = kurier.new_game(2, seed="compact-http")
    view, _verifier, _sealed = play_to_end(kurier, game_id, seated, random.Random(3))
    deadline = time.monotonic() + 30
    while store.raw.exists(events_key(game_id)):
        assert time.monotonic() < deadline, "the finished game was not compacted"
        time.sleep(0.1)
    log = kurier.all_events(game_id)
    assert [e["version"] for e in log] == list(range(1, view["version"] + 1))
    record = kurier.call("GET", f"/v1/games/{game_id}/record").json()
    assert record["complete"] is True
    assert verify_record(record).ok
    assert kurier.view(game_id, seated[0])["status"] == "finished"
