"""The event log's compression: exact round trips, frozen dictionaries, and the memory it saves
in a real Redis."""

from __future__ import annotations

import hashlib
import json

import pytest

from service import kits
from service.store import Store, eventlog
from service.store.keys import events_key
from service.store.record import GameRecord, as_text
from tests.game_helpers import new_table, play_random

#: A stored log can only be read with the dictionary it was written with: these never change.
#: A better dictionary is a new codec id (scripts/make_zdict.py), used by new games only.
FROZEN = {
    "attila-1": "605224046ba1b65c8b5fc788b1285fe0f598239408db788cd46c0135e9f06af6",
    "attika-1": "480af0cd4ba3f39043797c2e4fbed7c7c47dd35e80695ed254915ba34d6515dc",
    "attila-wargame-1": "48630786b2dba808be2d01d8c255dc28d2a299f9466dc3f6e369d41f5cea0ded",
}


@pytest.mark.parametrize("codec", sorted(FROZEN))
def test_dictionaries_in_use_never_change(codec: str) -> None:
    assert hashlib.sha256(eventlog.dictionary(codec)).hexdigest() == FROZEN[codec]


def test_every_current_codec_is_frozen() -> None:
    current = {kit.log_codec for kit in kits.kits() if kit.log_codec}
    assert current <= set(FROZEN)


@pytest.mark.parametrize("codec", sorted(FROZEN))
def test_round_trip_is_exact(codec: str) -> None:
    entries = [
        {"kind": "created", "seat": "", "action": "", "ref": "", "commitment": "", "events": []},
        {
            "kind": "move",
            "seat": "0",
            "action": "H RAE",
            "ref": "",
            "commitment": "",
            "events": [{"kind": "stone_placed", "data": {"people": "huns", "province": "RAE"}}],
            "at": "1795311598.4851422",
        },
        {"kind": "odd", "events": [{"data": {"text": "Ünïcödé ✓ " * 50, "n": list(range(99))}}]},
    ]
    for entry in entries:
        assert eventlog.unpack(codec, eventlog.pack(codec, entry)) == entry


def test_a_game_log_costs_a_few_dozen_bytes_per_version(isolated_redis: Store) -> None:
    store = isolated_redis
    table = new_table(store, seats=3)
    play_random(store, table, 120, seed=3)
    record, entries = store.read_log(table.game_id)
    assert record.log_codec == "attila-1"
    # Read back whole: every entry has its fields, and its events with their kinds.
    assert all(isinstance(fields["events"], list) for _, fields in entries)
    assert {e["kind"] for _, fields in entries for e in fields["events"]} >= {"stone_placed"}
    assert [int(fields["seat"]) for _, fields in entries if fields["kind"] == "move"]
    plain = sum(len(json.dumps(fields)) for _, fields in entries) / len(entries)
    raw = store.raw.xrange(events_key(table.game_id))  # bytes, undecoded
    assert all(set(fields) == {b"z"} for _, fields in raw)  # one deflated field per entry
    stored = sum(len(fields[b"z"]) for _, fields in raw) / len(raw)
    # Plain, an entry is about 480 bytes (docs/performance.md); Redis adds a few bytes per
    # entry and its stream nodes (1 KB each with the launcher's flags: test_redis_server.py).
    # Not MEMORY USAGE: it misjudges a stream's nodes (docs/performance.md, round seven).
    assert stored < 110, (stored, plain)
    # The record: state and options compressed, a listpack hash (the launcher's flags).
    assert store.r.object("encoding", f"kurier:game:{{{table.game_id}}}") in {"ziplist", "listpack"}
    assert store.r.memory_usage(f"kurier:game:{{{table.game_id}}}", samples=0) < 2000
    assert store.get_game(table.game_id).state["scores"] == record.state["scores"]


def test_games_without_a_codec_are_still_read(isolated_redis: Store) -> None:
    """Games created before codecs (no ``log_codec`` in their record) keep plain JSON."""
    store = isolated_redis
    table = new_table(store, seats=2)
    key = f"kurier:game:{{{table.game_id}}}"
    before = store.get_game(table.game_id)
    store.r.hdel(key, "log_codec")  # and the record's fields plain, as they once were:
    store.r.hset(key, mapping={"state": json.dumps(before.state), "options": json.dumps({})})
    store.r.delete(events_key(table.game_id))  # the log is rewritten plain, as it once was
    plain = {"kind": "created", "seat": "", "action": "", "ref": "", "commitment": ""}
    store.r.xadd(events_key(table.game_id), plain | {"events": "[]", "at": "1.5"}, id="1-0")
    record, entries = store.read_log(table.game_id)
    assert record.log_codec == ""
    assert entries == [(1, plain | {"events": [], "at": "1.5"})]
    play_random(store, table, 5, seed=1)
    _, entries = store.read_log(table.game_id)
    assert len(entries) > 1
    assert all(isinstance(fields["events"], list) for _, fields in entries)
    assert all(set(fields) == set(entries[0][1]) for _, fields in entries)


def test_a_state_in_play_packs_fast_and_a_finished_one_small(isolated_redis: Store) -> None:
    """A game in play rewrites its state on every move, packed at a fast level; a finished
    game keeps it, packed at the smallest (service/store/record.py ``_state_level``)."""
    store = isolated_redis
    table = new_table(store, seats=3)
    play_random(store, table, 40, seed=5)
    record = store.get_game(table.game_id)
    assert record.status == "active"
    in_play = record.to_hash()["state"]
    assert in_play == as_text(store.raw.hget(f"kurier:game:{{{table.game_id}}}", "state"))
    record.status = "finished"
    kept = record.to_hash()["state"]
    for packed in (in_play, kept):
        assert GameRecord.from_hash(table.game_id, record.to_hash() | {"state": packed}).state == (
            record.state
        )
    assert len(kept) < len(in_play)
