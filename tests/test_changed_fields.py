"""A commit writes only the record fields that changed (GameRecord.changed_hash, issue 16),
and the stored record stays whole: read back, it is what the last commit meant to write."""

from __future__ import annotations

from typing import Any

from service.store import Store
from service.store.keys import game_key
from service.store.record import GameRecord, as_text
from tests.games_in_store import started_attila, step
from tests.redis_watch import commands_named

NEVER_CHANGED_BY_A_MOVE = {"type", "seed", "seed_commitment", "options", "names", "creator"}


def _stored(store: Store, game_id: str) -> dict[str, str]:
    raw = store.raw.hgetall(game_key(game_id))
    return {as_text(k): as_text(v) for k, v in raw.items()}


def test_a_record_as_read_has_nothing_to_write(isolated_redis: Store) -> None:
    game_id, _ = started_attila(isolated_redis)
    record = GameRecord.from_hash(game_id, isolated_redis.raw.hgetall(game_key(game_id)))
    assert record.changed_hash() == {}
    record.version += 1
    record.pending = []
    assert set(record.changed_hash()) == {"version", "pending"}


def test_a_new_record_writes_every_field(isolated_redis: Store) -> None:
    game_id, _ = started_attila(isolated_redis)
    record = isolated_redis.get_game(game_id)
    record.stored = {}
    assert record.changed_hash() == record.to_hash()


def test_moves_write_only_what_changed_and_the_record_stays_whole(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id, seated = started_attila(store)
    written: list[set[str]] = []
    with store.raw.monitor() as monitor:
        for _ in range(12):
            assert step(store, game_id, seated)
            stored = _stored(store, game_id)
            # What the record means, encoded again, is exactly what is stored: no field was
            # left behind with an older value.
            again = GameRecord.from_hash(game_id, store.raw.hgetall(game_key(game_id)))
            assert {k: stored[k] for k in again.to_hash()} == again.to_hash()
            written += _hsets(store, monitor, game_key(game_id), set(again.to_hash()))
    assert len(written) >= 12
    assert all({"version", "updated_at"} <= fields for fields in written)
    assert not any(fields & NEVER_CHANGED_BY_A_MOVE for fields in written)


def _hsets(store: Store, monitor: Any, key: str, fields: set[str]) -> list[set[str]]:
    """The record fields each HSET of ``key`` named since the last call."""
    found = commands_named(store, monitor, "HSET")
    return [{w for w in words[2:] if w in fields} for words in found if words[1] == key]
