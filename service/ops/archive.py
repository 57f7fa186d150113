"""Finished games out of Redis and back: ``kurier archive --before DATE`` writes them to a JSON
Lines file and removes them; ``kurier restore FILE`` brings them back, readable as before.

One line per game: ``{"format": "kurier-archive-1", "id", "record": {field: text}, "log":
[[version, entry], ...], "players": [...]}``: the record hash as stored (every field is text),
and the log unpacked, so the file is readable without Kurier. A game leaves Redis only after
its line is on disk (written, flushed, fsynced), and only if it did not change since it was
read. Restoring a game that is already there changes nothing.
"""

from __future__ import annotations

import datetime
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from service.domain.pinning import game_ids
from service.store import Store, logpack
from service.store.keys import events_key, game_key, outbox_key, player_games_key
from service.store.record import PACKED_LOG, STATE_FIELD, GameRecord, as_text

FORMAT = "kurier-archive-1"
RESTORE_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""


@dataclass
class Archived:
    path: Path
    games: int
    skipped: int  # changed while being archived (left in Redis)


def archive(store: Store, before: float, directory: Path) -> Archived:
    """Move every game finished before ``before`` (epoch seconds) into a new file."""
    directory.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    path = directory / f"kurier-archive-{stamp}.jsonl"
    games = skipped = 0
    with path.open("x", encoding="utf-8") as out:
        for game_id in _finished_before(store, before):
            line = export(store, game_id)
            _write_line(out, line)
            if _remove(store, line):
                games += 1
            else:
                skipped += 1
    if not games and not skipped:
        path.unlink()  # nothing archived: no empty file
    return Archived(path, games, skipped)


def _finished_before(store: Store, before: float) -> Iterator[str]:
    for game_id in game_ids(store):
        status, updated = store.r.hmget(game_key(game_id), ["status", "updated_at"])
        if status == "finished" and updated and float(updated) < before:
            yield game_id


def export(store: Store, game_id: str) -> dict[str, Any]:
    """One game as an archive line."""
    record, entries = store.read_log(game_id)
    stored = store.raw.hgetall(game_key(game_id))
    stored.pop(PACKED_LOG.encode(), None)  # binary; the line holds the log unpacked
    raw = {as_text(k): as_text(v) for k, v in stored.items()}
    if not record.stores_state():  # compacted: the log's replay gives it; the line holds it
        raw[STATE_FIELD] = record.state_field()
    return {
        "format": FORMAT,
        "id": game_id,
        "record": raw,
        "log": [[version, entry] for version, entry in entries],
        "players": [p for p in record.seats if p],
    }


def _write_line(out: TextIO, line: dict[str, Any]) -> None:
    out.write(json.dumps(line, separators=(",", ":")) + "\n")
    out.flush()
    os.fsync(out.fileno())


def _remove(store: Store, line: dict[str, Any]) -> bool:
    """Delete the game if it is still the version archived (a finished game should be)."""
    game_id = line["id"]
    version = line["record"]["version"]
    if store.r.hget(game_key(game_id), "version") != version:
        return False
    with store.raw.pipeline(transaction=True) as pipe:  # one slot: the game's keys
        pipe.delete(game_key(game_id), events_key(game_id), outbox_key(game_id))
        pipe.execute()
    for player_id in line["players"]:
        store.r.zrem(player_games_key(player_id), game_id)
    return True


def restore(store: Store, path: Path) -> tuple[int, int]:
    """Bring back every game of an archive file; returns (restored, already there)."""
    restored = present = 0
    with path.open(encoding="utf-8") as lines:
        for number, text in enumerate(lines, 1):
            if not text.strip():
                continue
            line = json.loads(text)
            if line.get("format") != FORMAT:
                raise ValueError(f"{path}:{number}: not a {FORMAT} line")
            if _restore_one(store, line):
                restored += 1
            else:
                present += 1
    return restored, present


def _restore_one(store: Store, line: dict[str, Any]) -> bool:
    game_id = line["id"]
    record = dict(line["record"])
    entries = [(int(version), entry) for version, entry in line["log"]]
    record[PACKED_LOG] = logpack.pack(GameRecord.from_hash(game_id, record), entries)
    # One script: a game already in Redis (restored before, or never archived) is left as it
    # is, and nobody reads a record half written.
    words = [word for pair in record.items() for word in pair]
    if not store.r.register_script(RESTORE_LUA)(keys=[game_key(game_id)], args=words):
        return False
    for player_id in line["players"]:
        store.r.zadd(player_games_key(player_id), {game_id: int(record["seq"])})
    return True
