"""A finished game's log compacted without what a replay gives back (service/store/logpack.py):
actions kept as codes, every event read back as the same JSON text, private parts included, for
the three games; events a replay does not give are kept; a sealed choice keeps its salt, not its
commitment; logs packed in version 2 or the oldest format still read."""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import jsontext
from engine.core import Event
from service.cli import main
from service.common import sealed
from service.common.problems import Problem
from service.domain import pinning, rematch
from service.domain.games import play, views
from service.store import Store, eventlog, logpack
from service.store.keys import events_key, game_key
from service.store.record import PACKED_KEY, PACKED_LOG, PACKED_PREFIX, dumps
from tests.game_helpers import Table, new_table, play_random

#: (game type, seats, random actions before seat 0 resigns; None: played to its end).
GAMES = [("attila", 3, None), ("attika", 2, None), ("attila-wargame", 2, 300)]
#: A finished game's record, every field's value summed (HSTRLEN), once compacted: 0.9-1.5 KB
#: measured for GAMES (the wargame's: 300 actions; a whole wargame of two medium bots measures
#: under 4 KB, docs/performance.md), with room for a slower machine's times.
FINISHED_BYTES = 2000

Entries = list[tuple[int, dict[str, Any]]]


def _finished(store: Store, game_type: str, seats: int, actions: int | None) -> Table:
    table = new_table(store, seats=seats, seed="logpack-seed", game_type=game_type)
    played = play_random(store, table, actions or 5000, seed=11)
    if actions is not None:
        assert played == actions, "the game ended before its resignation"
        play.play(store, table.players[0], table.game_id, "resign", None, None, None, None)
    assert store.get_game(table.game_id).status == "finished"
    return table


def _as_kept(entries: Entries) -> str:
    """The entries as JSON text, times to the millisecond (what a compacted log keeps)."""
    return dumps([[version, logpack.to_millisecond(entry)] for version, entry in entries])


def _parts(store: Store, game_id: str) -> list[dict[str, Any]]:
    stored = store.raw.hget(game_key(game_id), PACKED_LOG)
    assert stored.startswith(logpack.CODED_PREFIX)
    return logpack.coded_parts(store.get_game(game_id).log_codec, stored)


def _derives_events(part: dict[str, Any]) -> bool:
    """Whether a version 3 entry's events are (some of them) the replay's."""
    if "json" in part:
        return logpack._derives(part["json"])
    return not isinstance(part["events"], list)


def _document(store: Store, game_id: str) -> dict[str, Any]:
    stored = store.raw.hget(game_key(game_id), PACKED_LOG)
    assert stored.startswith(logpack.PACKED_PREFIX)
    codec = store.get_game(game_id).log_codec
    document: dict[str, Any] = eventlog.unpack(codec, stored[len(logpack.PACKED_PREFIX) :])
    return document


def _record_bytes(store: Store, game_id: str) -> int:
    key = game_key(game_id)
    return sum(store.raw.hstrlen(key, name) for name in store.raw.hkeys(key))


@pytest.mark.parametrize(("game_type", "seats", "actions"), GAMES)
def test_compaction_rebuilds_every_event_as_it_was(
    isolated_redis: Store, game_type: str, seats: int, actions: int | None
) -> None:
    store = isolated_redis
    table = _finished(store, game_type, seats, actions)
    game_id = table.game_id
    _record, entries = store.read_log(game_id)
    shown = _views(store, table)

    assert store.compact(game_id)
    assert not store.raw.exists(events_key(game_id))
    logpack._rebuilt = logpack.Lru(logpack.KEPT_LOGS)  # read by a replay, not from memory
    _record, rebuilt = store.read_log(game_id)
    assert _as_kept(rebuilt) == _as_kept(entries)
    # The final state is the log's replay's (checked at compaction): the record drops it, and
    # every view of the finished game shows the same board from the replay.
    assert not store.raw.hexists(game_key(game_id), "state")
    logpack._rebuilt = logpack.Lru(logpack.KEPT_LOGS)
    assert _views(store, table) == shown

    # Most action entries are kept as a code and a time, and the events rebuilt include
    # private ones (a hand, a sealed choice: an audience of one seat), which views filter as
    # before.
    parts = _parts(store, game_id)
    coded = [p for p in parts if "json" not in p and p["events"] is None]
    actions_logged = [e for _v, e in entries if e["kind"] in logpack.ACTION_KINDS]
    assert len(coded) > len(actions_logged) / 2
    by_version = dict(rebuilt)
    version = 0
    private = 0
    for part in parts:
        item = part.get("json")
        version += part["dv"] if item is None else item[0] if isinstance(item, list) else item["dv"]
        if _derives_events(part):
            # The events kept around the replay's ({"b", "a"}) are the service's: public.
            private += sum("audience" in event for event in by_version[version]["events"])
    assert private > 0, "no private event was rebuilt"
    for seat in range(seats):
        seen = [[e for e in entry["events"] if Event.from_json(e).visible_to(seat)]
                for _v, entry in entries]  # fmt: skip
        again = [[e for e in entry["events"] if Event.from_json(e).visible_to(seat)]
                 for _v, entry in rebuilt]  # fmt: skip
        assert dumps(again) == dumps(seen)


def _views(store: Store, table: Table) -> list[str]:
    """What each seat and a spectator see of the game (its view, the board's state in it)."""
    record = store.get_game(table.game_id)
    seen = [views.game_view(record, None, None, now=0.0)]
    for seat, player in enumerate(table.players):
        seen.append(views.game_view(record, seat, player["id"], now=0.0))
    return [dumps(view) for view in seen]


@pytest.mark.parametrize(("game_type", "seats", "actions"), GAMES)
def test_a_finished_game_takes_at_most_2_kb(
    isolated_redis: Store, game_type: str, seats: int, actions: int | None
) -> None:
    store = isolated_redis
    game_id = _finished(store, game_type, seats, actions).game_id
    assert store.compact(game_id)
    assert _record_bytes(store, game_id) <= FINISHED_BYTES


def _rewrite_stream(store: Store, game_id: str, version: int, entry: dict[str, Any]) -> None:
    """The game's stream with entry ``version`` replaced (a stream's entries cannot be
    changed in place: the stream is written again, same IDs)."""
    key = events_key(game_id)
    found = store.raw.xrange(key)
    codec = store.get_game(game_id).log_codec
    store.raw.delete(key)
    for entry_id, fields in found:
        if int(entry_id.split(b"-")[0]) == version:
            fields = {PACKED_KEY: eventlog.pack(codec, entry)}
        store.raw.xadd(key, fields, id=entry_id)


def test_events_the_replay_does_not_give_are_kept(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id = _finished(store, "attila", 3, None).game_id
    _record, entries = store.read_log(game_id)
    version, entry = next((v, e) for v, e in entries if e["kind"] == "move" and e["events"])
    tampered = dict(entry, events=[*entry["events"][:-1], {"kind": "tampered", "data": {}}])
    _rewrite_stream(store, game_id, version, tampered)
    _record, entries = store.read_log(game_id)

    assert store.compact(game_id)
    assert _as_kept(store.read_log(game_id)[1]) == _as_kept(entries)
    kept = _parts(store, game_id)[[v for v, _e in entries].index(version)]
    assert kept["events"] == tampered["events"], "the entry's events are kept as they were"


def test_a_state_the_replay_does_not_give_is_kept(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id = _finished(store, "attila", 3, None).game_id
    record = store.get_game(game_id)
    assert record.state is not None
    record.state = {**record.state, "tampered": True}
    store.raw.hset(game_key(game_id), "state", record.to_hash()["state"])

    assert store.compact(game_id)
    assert store.raw.hexists(game_key(game_id), "state")
    assert store.get_game(game_id).state == record.state


def _older_format(store: Store, game_id: str, entries: Entries) -> None:
    """The game's log packed as compaction did before service/store/logpack.py."""
    codec = store.get_game(game_id).log_codec
    text = dumps([[version, entry] for version, entry in entries])
    packed = PACKED_PREFIX + base64.b64encode(eventlog.pack_text(codec, text)).decode()
    store.raw.hset(game_key(game_id), PACKED_LOG, packed)
    store.raw.delete(events_key(game_id))


def test_a_log_packed_in_the_older_format_reads_and_is_packed_again(
    isolated_redis: Store,
) -> None:
    store = isolated_redis
    game_id = _finished(store, "attila", 3, None).game_id
    _record, entries = store.read_log(game_id)
    _older_format(store, game_id, entries)

    assert dumps(store.read_log(game_id)[1]) == dumps(entries)
    assert dumps(store.read_log(game_id, after=10, count=5)[1]) == dumps(entries[10:15])
    before = store.raw.hstrlen(game_key(game_id), PACKED_LOG)
    assert store.compact(game_id), "an older packed log is packed again"
    assert _as_kept(store.read_log(game_id)[1]) == _as_kept(entries)
    assert store.raw.hstrlen(game_key(game_id), PACKED_LOG) < before / 2
    assert not store.compact(game_id), "then there is nothing to do"


def test_a_log_packed_in_version_2_still_reads(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id = _finished(store, "attila", 3, None).game_id
    record, entries = store.read_log(game_id)
    derived = logpack.replayed_events(record, entries)
    packed = logpack._packed(record.log_codec, logpack._document(entries, derived))
    assert packed.startswith(logpack.PACKED_PREFIX) and logpack.derives(record.log_codec, packed)
    store.raw.hset(game_key(game_id), PACKED_LOG, packed)
    store.raw.delete(events_key(game_id))

    assert _as_kept(store.read_log(game_id)[1]) == _as_kept(entries)
    assert not store.compact(game_id), "a log of version 2 stays as it is"


def test_events_are_rebuilt_only_under_the_rules_they_were_logged_with(
    isolated_redis: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = isolated_redis
    game_id = _finished(store, "attila", 3, None).game_id
    _record, entries = store.read_log(game_id)
    assert store.compact(game_id)
    game = store.get_game(game_id).game
    store.raw.hset(game_key(game_id), "rules_version", "attila-0")  # an engine upgraded since

    with pytest.raises(Problem) as refused:
        store.read_log(game_id)
    assert (refused.value.code, refused.value.problem_code) == (409, "not-replayable")
    record = store.get_game(game_id)
    assert record.state is None, "no other history's state either"
    assert views.game_view(record, None, None)["view"] is None  # the game's page still answers
    monkeypatch.setattr(type(game), "replays_events_of", ("attila-0",))
    assert _as_kept(store.read_log(game_id)[1]) == _as_kept(entries)


def test_a_game_of_other_rules_keeps_its_events(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id = _finished(store, "attika", 2, None).game_id
    store.raw.hset(game_key(game_id), "rules_version", "attika-0")
    _record, entries = store.read_log(game_id)

    assert store.compact(game_id)
    packed = _document(store, game_id)["log"]
    assert all(isinstance(item, dict) or len(item) == 8 for item in packed)
    assert all(not isinstance(item[7], dict) for item in packed if isinstance(item, list))
    assert _as_kept(store.read_log(game_id)[1]) == _as_kept(entries)


def _revealed_choices(entries: Entries) -> list[dict[str, Any]]:
    """Every sealed choice the log's reveals published (seat, choice, salt, commitment, ref)."""
    return [
        choice | {"ref": event["data"]["ref"]}
        for _v, entry in entries
        for event in entry["events"]
        if event["kind"] == "sealed_revealed"
        for choice in event["data"]["choices"]
    ]


@pytest.mark.parametrize(("game_type", "seats", "actions"), [GAMES[0], GAMES[2]])
def test_salts_come_from_the_games_secret_which_the_log_keeps_instead(
    isolated_redis: Store, game_type: str, seats: int, actions: int | None
) -> None:
    store = isolated_redis
    game_id = _finished(store, game_type, seats, actions).game_id
    record, entries = store.read_log(game_id)
    chosen = _revealed_choices(entries)
    assert chosen and all(
        c["salt"] == sealed.derived_salt(record.secret, c["ref"], c["seat"]) for c in chosen
    )

    assert store.compact(game_id)
    parts = _parts(store, game_id)
    kept = jsontext.dumps(parts)
    assert '"sealed_committed"' not in kept and '"sealed_revealed"' not in kept
    assert not any(c["salt"] in kept or c["commitment"] in kept for c in chosen)
    assert all(part.get("salt") is None for part in parts), "no salt kept: the secret gives them"
    stored = store.raw.hget(game_key(game_id), PACKED_LOG)
    assert logpack.kept_secret(record.log_codec, stored) == record.secret
    assert not store.raw.hexists(game_key(game_id), "secret"), "the log keeps it: once"
    logpack._rebuilt = logpack.Lru(logpack.KEPT_LOGS)
    assert _as_kept(store.read_log(game_id)[1]) == _as_kept(entries)


def test_a_change_to_a_compacted_game_keeps_its_state_and_secret_in_the_log(
    isolated_redis: Store,
) -> None:
    """A rematch asked for after compaction: its entry goes to a new stream, the state is not
    written back, and compacting again keeps the secret the log kept."""
    store = isolated_redis
    table = _finished(store, "attila", 3, None)
    game_id = table.game_id
    record = store.get_game(game_id)
    assert store.compact(game_id)

    rematch.rematch(store, table.players[1], game_id)
    assert not store.raw.hexists(game_key(game_id), "state")
    _record, entries = store.read_log(game_id)
    assert entries[-1][1]["kind"] == rematch.ENTRY_KIND
    assert store.compact(game_id), "the stream left behind is packed in"
    stored = store.raw.hget(game_key(game_id), PACKED_LOG)
    assert logpack.kept_secret(record.log_codec, stored) == record.secret
    assert not store.raw.hexists(game_key(game_id), "state")
    logpack._rebuilt = logpack.Lru(logpack.KEPT_LOGS)
    assert _as_kept(store.read_log(game_id)[1]) == _as_kept(entries)
    assert store.get_game(game_id).state == record.state


def test_a_game_of_random_salts_keeps_them(
    isolated_redis: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game made before salts were derived: random salts, no secret in its record."""
    store = isolated_redis
    monkeypatch.setattr(sealed, "derived_salt", lambda *_args: sealed.new_salt())
    game_id = _finished(store, "attila", 3, None).game_id
    store.raw.hdel(game_key(game_id), "secret")
    _record, entries = store.read_log(game_id)

    assert store.compact(game_id)
    parts = _parts(store, game_id)
    salts = {part.get("salt") for part in parts}
    chosen = _revealed_choices(entries)
    assert chosen and all(c["salt"] in salts for c in chosen), "each salt kept once, as bytes"
    assert not any(c["commitment"] in jsontext.dumps(parts) for c in chosen)
    stored = store.raw.hget(game_key(game_id), PACKED_LOG)
    assert not logpack.kept_secret(store.get_game(game_id).log_codec, stored)
    logpack._rebuilt = logpack.Lru(logpack.KEPT_LOGS)
    assert _as_kept(store.read_log(game_id)[1]) == _as_kept(entries)


def test_a_log_with_each_salt_in_its_entry_still_reads(
    isolated_redis: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Version 3: each coded entry's time and salt in it, no secret."""
    store = isolated_redis
    game_id = _finished(store, "attila", 3, None).game_id
    record, entries = store.read_log(game_id)
    parts = logpack.coded_parts(record.log_codec, logpack.pack(record, entries))
    salts = iter(sorted(logpack._salts_revealed_later(entries).items()))
    body = bytearray()
    for part in parts:
        if "json" in part:
            logpack._varint(body, 0)
            logpack._text(body, dumps(part["json"]))
            continue
        flags = part["flags"]
        logpack._varint(body, flags)
        for flag, value in (
            (logpack._Flag.DV, part["dv"]),
            (logpack._Flag.DECISION, part["decision"]),
        ):
            if flags & flag:
                logpack._varint(body, value)
        if flags & logpack._Flag.SALT:
            body += bytes.fromhex(next(salts)[1])
        if flags & logpack._Flag.EVENTS:
            logpack._text(body, dumps(part["events"]))
        logpack._varint(body, part["code"])
        logpack._varint(body, logpack._zigzag(part["dt"]))
    version_3 = logpack.CODED_PREFIX_3 + eventlog.pack_bytes(record.log_codec, bytes(body))
    store.raw.hset(game_key(game_id), PACKED_LOG, version_3)
    store.raw.delete(events_key(game_id))

    assert _as_kept(store.read_log(game_id)[1]) == _as_kept(entries)
    assert not store.compact(game_id), "a log of version 3 stays as it is"


def test_before_an_engine_of_other_rules_every_event_is_kept_and_verify_says_so(
    isolated_redis: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = isolated_redis
    monkeypatch.setenv("REDIS_URL", store.url)
    game_id = _finished(store, "attila", 3, None).game_id
    _record, entries = store.read_log(game_id)
    assert main(["games", "compact"]) == 0
    assert "packed: 1" in capsys.readouterr().out
    rules = store.get_game(game_id).rules_version

    # Under an engine of other rules, verify names the game instead of rebuilding its events.
    store.raw.hset(game_key(game_id), "rules_version", "attila-0")
    verdict = pinning.verify(store, game_id)
    assert (verdict.outcome, verdict.status) == ("error", "finished")
    assert "kurier games compact --keep-events" in verdict.detail
    store.raw.hset(game_key(game_id), "rules_version", rules)

    # What the release of the game's rules runs before such an upgrade.
    assert main(["games", "compact", "--keep-events"]) == 0
    assert "packed: 1" in capsys.readouterr().out
    stored = store.raw.hget(game_key(game_id), PACKED_LOG)
    assert not logpack.derives(store.get_game(game_id).log_codec, stored)
    store.raw.hset(game_key(game_id), "rules_version", "attila-0")
    assert _as_kept(store.read_log(game_id)[1]) == _as_kept(entries)
    assert pinning.verify(store, game_id).outcome != "error"
    assert not store.compact(game_id, keep_events=True), "nothing left to do"


def test_a_game_without_a_codec_keeps_its_log_as_json_text(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id = _finished(store, "attika", 2, None).game_id
    record, entries = store.read_log(game_id)
    plain = dataclasses.replace(record, log_codec="")

    packed = logpack.pack(plain, entries)
    assert packed.startswith(logpack.PLAIN_CODED_PREFIX) and logpack.derives("", packed)
    assert _as_kept(logpack.unpack(plain, packed)) == _as_kept(entries)


#: Rebuilds a compacted log in a gevent process (as the stream server's worker is) while
#: another greenlet ticks: how often it ticked during the rebuild.
TICKING = """
import json, sys
from gevent import monkey
monkey.patch_all()
import gevent
from service.store import logpack
from service.store.record import GameRecord
raw = {k.encode(): bytes.fromhex(v) for k, v in json.load(sys.stdin).items()}
record = GameRecord.from_hash("g", raw)
ticks = []
def tick():
    while True:
        ticks.append(1)
        gevent.sleep(0)
ticker = gevent.spawn(tick)
gevent.sleep(0)
before = len(ticks)
logpack.unpack(record, raw[b"log"])
print(len(ticks) - before)
"""


def test_a_long_replay_lets_the_other_greenlets_run(isolated_redis: Store) -> None:
    store = isolated_redis
    game_id = _finished(store, "attila", 3, None).game_id
    assert store.compact(game_id)
    raw = store.raw.hgetall(game_key(game_id))
    fields = json.dumps({k.decode(): v.hex() for k, v in raw.items()})
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-c", TICKING], input=fields, capture_output=True, text=True,
        cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, timeout=120, check=True,
    )  # fmt: skip
    entries = store.get_game(game_id).version
    assert int(done.stdout) >= entries // logpack.YIELD_EVERY > 0


def test_times_laid_out_by_byte_plane_read_back() -> None:
    numbers = [0, 1, 127, 128, 300, 16_383, 16_384, 2**40, 5]
    assert logpack._unplanar(logpack._planar(numbers)) == numbers
    assert logpack._unplanar(logpack._planar([])) == []
