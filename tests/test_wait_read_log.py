"""Store.wait_read_log: a stream's wait and its read in one round trip (service/streams.py)."""

from __future__ import annotations

import threading
import time

from service import games
from service.record import Change
from service.store import Store


def _started_game(store: Store) -> str:
    players = [store.create_player(name, None)[0] for name in ("Wait", "Read")]
    created = games.create_game(store, players[0], "attila", {}, "wait-read", 2).body
    games.join_game(store, players[1], created["id"], created["invite_code"])
    games.start_game(store, players[0], created["id"])
    return str(created["id"])


def _touch(store: Store, game_id: str) -> None:
    store.transact(game_id, lambda record, _v: Change(record, "touched", [], 200, {}))  # type: ignore[arg-type]


def test_it_waits_for_a_commit_and_reads_it_with_its_record(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id = _started_game(store)
    version = store.get_game(game_id).version
    other = Store(store.url)
    later = threading.Timer(0.3, _touch, (other, game_id))
    later.start()
    started = time.monotonic()
    record, entries = store.wait_read_log(game_id, version, 5000, 100)
    waited = time.monotonic() - started
    later.join()
    assert 0.2 < waited < 4, waited  # woken by the commit, not by the timeout
    assert [(v, e["kind"]) for v, e in entries] == [(version + 1, "touched")]
    assert record.version == version + 1 and record.state is None  # read without its state
    # Nothing new: the whole block, then the same record and no entries.
    record, entries = store.wait_read_log(game_id, version + 1, 200, 100)
    assert entries == [] and record.version == version + 1
    other.close()


def test_a_redis_that_forgot_the_script_still_answers(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id = _started_game(store)
    version = store.get_game(game_id).version
    store.wait_read_log(game_id, version, 1, 100)  # loads the script
    store.raw.script_flush()  # as after a restart
    _touch(store, game_id)
    record, entries = store.wait_read_log(game_id, version, 1000, 100)
    assert [v for v, _ in entries] == [version + 1] and record.version == version + 1
    # And loaded again for the next one.
    _touch(store, game_id)
    _, entries = store.wait_read_log(game_id, version + 1, 1000, 100)
    assert [v for v, _ in entries] == [version + 2]
